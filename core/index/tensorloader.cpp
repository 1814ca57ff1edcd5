#include "tensorloader.h"

#include "h5loader.h"
#include "npyloader.h"
#include "ptloader.h"
#include "io/pagerelease.h"
#include "tensor/format.h"

#include <cstring>

namespace ds {


Result<std::shared_ptr<const LoadedTensor>> loadTensor(const DumpIndex &index, const DumpIndex::TensorRef &ref,
                                                        LayoutChoice layout, const JobControl *job)
{
    using R = Result<std::shared_ptr<const LoadedTensor>>;
    const OpRecord &op = index.op(ref);
    const TensorRecord &rec = index.tensor(ref);
    switch (rec.storage) {
    case TensorStorage::DumpPayload: break;
    case TensorStorage::NpyFile: return loadNpyTensor(index, rec, job);
    case TensorStorage::PtFile: return loadPtTensor(index, rec, job);
    case TensorStorage::H5Dataset: return loadH5Tensor(index, op, rec, job);
    case TensorStorage::Absent:
        return R::failure(QStringLiteral("%1: no data was saved for %2 (statistics only)").arg(op.relPath, rec.name));
    case TensorStorage::Value:
        return R::failure(QStringLiteral("%1: %2 is a %3 value, not a tensor").arg(op.relPath, rec.name, rec.typeName));
    }
    auto mapped = MappedFile::open(index.absolutePath(op));
    if (!mapped)
        return R::failure(QStringLiteral("%1: %2").arg(op.relPath, mapped.error()));
    auto t = std::make_shared<LoadedTensor>();
    t->file = *mapped;
    t->dataType = rec.dataType;
    if (t->file->size() != op.fileSize)
        return R::failure(QStringLiteral("%1 changed since it was indexed (size %2, was %3); reopen the dump")
                              .arg(op.relPath).arg(t->file->size()).arg(op.fileSize));
    if (!rec.complete || !t->file->contains(rec.offset, rec.size))
        return R::failure(QStringLiteral("%1: the tensor lies outside the file").arg(op.relPath));

    const auto &info = dataTypeInfo(rec.dataType);
    const std::byte *bytes = t->file->data() + rec.offset;
    Elem elem = info.elem;
    Shape shape = rec.shape;
    const std::optional<std::uint64_t> counted = elementCount(shape); // nullopt: dynamic or overflowing
    std::uint64_t count = counted.value_or(0);
    const bool rawBytes = elem == Elem::None || !counted;
    // storedBytes() is 0 when the byte count overflows 64 bits: such a shape never fits.
    const std::uint64_t needed = rawBytes ? 0 : storedBytes(DataType(rec.dataType), count);
    if (rawBytes) {
        if (elem == Elem::None)
            t->notes << QStringLiteral("data type %1 is not decoded; showing raw bytes").arg(dataTypeName(rec.dataType));
        else if (hasDynamicDim(shape))
            t->notes << QStringLiteral("dynamic shape %1; showing raw bytes").arg(shapeToString(shape));
        else
            t->notes << QStringLiteral("shape %1 has more elements than 64 bits can count; showing raw bytes").arg(shapeToString(shape));
        elem = Elem::U8;
        shape = {rec.size};
        count = rec.size;
    } else if (needed > rec.size || (count != 0 && needed == 0)) {
        const std::uint64_t fit = info.bits ? rec.size * 8 / std::uint64_t(info.bits) : 0;
        t->notes << QStringLiteral("payload holds %1 of %2 elements; showing them flat").arg(fit).arg(count);
        count = fit;
        shape = {count};
    }
    if (!info.verified)
        t->notes << QStringLiteral("the %1 decoder is unverified against hardware").arg(dataTypeName(rec.dataType));

    if (info.packing != Packing::None && !rawBytes) {
        t->owned.resize(count);
        unpackElements(info.packing, bytes, count, t->owned.data());
        bytes = t->owned.data();
    }

    if (layout == LayoutChoice::Logical && isConvertibleFormat(rec.format) && shape == rec.shape) {
        auto plan = planLayout(rec.format, rec.subFormat, DataType(rec.dataType), rec.shape, rec.originalShape);
        if (!plan) {
            t->notes << QStringLiteral("layout %1 not converted: %2").arg(formatName(rec.format), plan.error());
        } else if (plan->deviceCount != count) {
            t->notes << QStringLiteral("layout %1 not converted: element count differs").arg(formatName(rec.format));
        } else {
            std::vector<std::byte> host(plan->hostCount * elemBytes(elem));
            convertLayout(*plan, bytes, host.data(), elemBytes(elem));
            t->owned = std::move(host);
            bytes = t->owned.data();
            count = plan->hostCount;
            shape = plan->hostShape;
            t->converted = true;
        }
    }
    // Unpacked or converted: the view reads the owned copy, the mapped payload is done with.
    if (!t->owned.empty())
        releaseMappedPages(t->file->data() + rec.offset, size_t(rec.size));
    if (job && job->cancelled())
        return R::failure(QStringLiteral("cancelled"));
    t->view = TensorView{elem, bytes, size_t(count)};
    t->shape = std::move(shape);
    return std::shared_ptr<const LoadedTensor>(std::move(t));
}

} // namespace ds
