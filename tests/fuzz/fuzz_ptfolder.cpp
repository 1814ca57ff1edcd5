// libFuzzer harness: one loose `.pt` file of a folder (formats/ptfolder). The first line of the
// input is the file name (its grouping by msprobe's naming), the rest the file's bytes (the
// safe pickle subset of formats/torch reads them). Every file either adds tensors that name
// it and its group, or one error naming it.
#include "formats/ptfolder/ptfolder.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

using namespace ds;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    const auto *nl = static_cast<const std::uint8_t *>(std::memchr(data, '\n', size < 256 ? size : 256));
    const size_t nameLen = nl ? size_t(nl - data) : 0;
    QString fileName = QString::fromUtf8(reinterpret_cast<const char *>(data), qsizetype(nameLen)).remove(QLatin1Char('/'));
    if (!fileName.endsWith(QLatin1String(".pt")))
        fileName += QLatin1String(".pt");
    const auto *bytes = reinterpret_cast<const std::byte *>(data + (nl ? nameLen + 1 : 0));
    const std::uint64_t n = size - (nl ? nameLen + 1 : 0);

    const ptfolder::PtName name = ptfolder::splitPtName(fileName);
    if (name.grouped && (name.op.isEmpty() || name.tensor.isEmpty()))
        __builtin_trap();

    IndexPart part;
    QHash<QString, size_t> groupOf;
    const QString rel = QStringLiteral("dir/") + fileName;
    ptfolder::addPtFile(part, groupOf, rel, fileName, bytes, n, SharedLevels(), 0);
    if (part.errors.size() + part.ops.size() != 1)
        __builtin_trap();
    if (!part.errors.empty()) {
        if (part.errors.front().file != rel || part.errors.front().message.isEmpty())
            __builtin_trap();
        return 0;
    }
    for (const TensorRecord &t : part.ops.front().tensors)
        if (t.location() != rel || t.name().isEmpty() || t.storage() != TensorStorage::PtFile)
            __builtin_trap();
    return 0;
}
