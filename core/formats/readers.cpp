#include "readers.h"

#include "cann/cannreader.h"
#include "h5/h5reader.h"
#include "mindspore/mskernelreader.h"
#include "msprobe/msprobereaders.h"
#include "npyfolder/npyfolderreader.h"

#include <cassert>

namespace ds {

const std::vector<const DumpReader *> &dumpReaders()
{
    // The order is the order formats are listed in (`dumpscope-cli info`, tree parts); which
    // reader is asked first about a directory is each reader's claimOrder().
    static const CannReader cann;
    static const MsprobeReader msprobe;
    static const PtdbgReader ptdbg;
    static const H5Reader h5;
    static const NpyFolderReader npy;
    static const MsKernelReader mindsporeKernel;
    static const std::vector<const DumpReader *> readers{&cann, &msprobe, &ptdbg, &h5, &npy, &mindsporeKernel};
    return readers;
}

const DumpReader &formatReader(FormatId id)
{
    const auto &readers = dumpReaders();
    assert(size_t(id) < readers.size());
    return *readers[size_t(id)];
}

QString sourceFormatName(FormatId id) { return formatReader(id).name(); }

std::optional<FormatId> sourceFormatByName(QStringView name)
{
    const auto &readers = dumpReaders();
    for (size_t i = 0; i < readers.size(); ++i)
        if (name == readers[i]->name())
            return FormatId(i);
    return std::nullopt;
}

} // namespace ds
