#include "records.h"

#include "tensor/dtype.h"

namespace ds {

QString ioKindName(IoKind k)
{
    switch (k) {
    case IoKind::Input: return QStringLiteral("input");
    case IoKind::Output: return QStringLiteral("output");
    case IoKind::Buffer: return QStringLiteral("buffer");
    case IoKind::Workspace: return QStringLiteral("workspace");
    case IoKind::Parameter: return QStringLiteral("parameter");
    }
    return {};
}

QString sourceFormatName(SourceFormat f)
{
    switch (f) {
    case SourceFormat::Cann: return QStringLiteral("cann");
    case SourceFormat::Msprobe: return QStringLiteral("msprobe");
    case SourceFormat::Ptdbg: return QStringLiteral("ptdbg");
    case SourceFormat::TorchH5: return QStringLiteral("h5");
    case SourceFormat::NpyFolder: return QStringLiteral("npy");
    }
    return {};
}

std::uint64_t TensorRecord::dataBytes() const
{
    if (size || !isTensor() || storage == TensorStorage::Absent || storage == TensorStorage::DumpPayload)
        return size;
    const auto count = elementCount(shape);
    return count ? storedBytes(DataType(dataType), *count) : 0;
}

int OpRecord::count(IoKind k) const
{
    int n = 0;
    for (const auto &t : tensors)
        n += t.io == k;
    return n;
}

const TensorRecord *OpRecord::tensor(IoKind k, std::uint32_t index) const
{
    for (const auto &t : tensors)
        if (t.io == k && t.index == index)
            return &t;
    return nullptr;
}

const DumpLevels &SharedLevels::empty()
{
    static const DumpLevels none;
    return none;
}

} // namespace ds
