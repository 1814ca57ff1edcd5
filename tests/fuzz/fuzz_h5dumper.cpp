// libFuzzer harness: a torch.utils.dumper .h5 file. HDF5 reads files only, so the input is
// written to a scratch file, indexed through h5dumper::indexFileInProcess, and every tensor
// dataset it lists is loaded through loadH5TensorInProcess (small chunks, so the hyperslab tiling runs
// too). In-process on purpose: the product's indexFile runs the same code in a dumpscope-h5worker
// process (h5isolate.h), and so does loadH5Tensor: libFuzzer would see neither the coverage nor
// the crashes.
#include "formats/h5/h5dumper.h"
#include "formats/h5/h5loader.h"

#include "fuzzscratch.h"

#include <QDir>
#include <QFile>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <unistd.h>

using namespace ds;

namespace {

QString scratchDir() { return fuzz::scratchDir("fuzz_h5"); }

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    const QString dir = scratchDir();
    const QString rel = QStringLiteral("input.h5");
    {
        QFile f(dir + QLatin1Char('/') + rel);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            std::abort();
        if (size && f.write(reinterpret_cast<const char *>(data), qint64(size)) != qint64(size))
            std::abort();
    }

    auto part = h5dumper::indexFileInProcess(dir, rel, DumpLevels{});
    if (!part)
        __builtin_trap(); // fails only when cancelled
    for (const FileError &e : part->errors)
        if (e.message.isEmpty() || !e.file.startsWith(rel))
            __builtin_trap(); // errors name the file and say why

    DumpIndex index;
    index.rootDir = dir;
    index.ops = std::move(part->ops);
    for (const OpRecord &op : index.ops) {
        if (op.dataFile != rel)
            __builtin_trap();
        for (const TensorRecord &rec : op.tensors) {
            if (rec.storage() != TensorStorage::H5Dataset)
                continue;
            auto loaded = loadH5TensorInProcess(index, op, rec, nullptr, 4096);
            if (!loaded) {
                if (loaded.errorText().isEmpty())
                    __builtin_trap();
                continue;
            }
            const LoadedTensor &t = **loaded;
            // What is shown is what the index promised, and it is all in memory we own.
            const auto count = elementCount(t.shape);
            if (!count || *count != t.view.count)
                __builtin_trap();
            if (t.view.count && (t.owned.empty() || t.view.count * elemBytes(t.view.elem) > t.owned.size()))
                __builtin_trap();
        }
    }
    return 0;
}
