#include "readers.h"

#include "cann/cannreader.h"
#include "h5/h5reader.h"
#include "mindspore/mskernelreader.h"
#include "msprobe/msprobereaders.h"
#include "npyfolder/npyfolderreader.h"
#include "ptfolder/ptfolderreader.h"

#include <QCoreApplication>

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
    static const PtFolderReader pt;
    static const std::vector<const DumpReader *> readers{&cann, &msprobe, &ptdbg, &h5, &npy, &mindsporeKernel, &pt};
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

QString frameworkDisplayName(const QString &framework)
{
    if (framework == QLatin1String("pytorch"))
        return QStringLiteral("PyTorch");
    if (framework == QLatin1String("mindspore"))
        return QStringLiteral("MindSpore");
    if (framework == QLatin1String("mindtorch"))
        return QStringLiteral("MindTorch (MSAdapter)");
    return framework;
}

QString producerLabel(const OpRecord &op)
{
    const QString &framework = op.levels->framework;
    if (framework.isEmpty())
        return {};
    const QString format = sourceFormatName(op.source);
    if (format == QLatin1String("mindspore-kernel")) // written by MindSpore itself, not by msprobe
        return QCoreApplication::translate("ds::Producer", "MindSpore kernel dump");
    return QStringLiteral("%1 \u00b7 %2").arg(format, frameworkDisplayName(framework));
}

QString scopedOwnName(const OpRecord &op)
{
    const QString name = op.opName.toString();
    if (op.parent.isEmpty() || !formatReader(op.source).parentIsScope())
        return name;
    const QString prefix = QString(op.parent.toString()).replace(QLatin1Char('/'), QLatin1Char('_')) + QLatin1Char('_');
    return name.startsWith(prefix) && name.size() > prefix.size() ? name.mid(prefix.size()) : name;
}

} // namespace ds
