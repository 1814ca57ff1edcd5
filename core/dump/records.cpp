#include "records.h"

#include "tensor/dtype.h"

namespace ds {

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
