#include "npyloader.h"

#include "formats/npy/npyheader.h"

#include <limits>

namespace ds {

Result<std::shared_ptr<const LoadedTensor>> loadNpyTensor(const DumpIndex &index, const TensorRecord &rec,
                                                           const JobControl *job)
{
    using R = Result<std::shared_ptr<const LoadedTensor>>;
    auto mapped = MappedFile::open(index.absolute(rec.location()));
    if (!mapped)
        return R::failure(mapped.error());
    npy::NpyParseOptions options;
    options.v2AsBfloat16 = rec.dataType() == int(DataType::BFloat16);
    const auto header = npy::parseNpyHeader((*mapped)->data(), (*mapped)->size(), options);
    if (!header)
        return R::failure(header.error().about(rec.location()));
    const npy::NpyHeader &h = *header;
    // Records made from this file's header (npyfolder: size and offset set) must still match it.
    // Records from a framework's own metadata (msprobe dump.json: size 0) describe the tensor
    // before saving: the file is the truth and differences become notes (MindSpore saves
    // bfloat16 as float32).
    const bool fromHeader = rec.size() != 0;
    const bool sameType = h.dataType == rec.dataType();
    const bool sameShape = h.shape == rec.shape();
    if (fromHeader && (!sameType || !sameShape || rec.offset() != h.dataOffset || rec.size() != h.dataBytes))
        return R::failure(QStringLiteral("%1 changed since it was indexed (now '%2' %3, was %4 %5); reopen the dump")
                              .arg(rec.location(), h.descr, npy::npyShapeString(h.shape), dataTypeName(rec.dataType()),
                                   npy::npyShapeString(rec.shape())));

    auto t = std::make_shared<LoadedTensor>();
    t->file = *mapped;
    t->dataType = h.dataType;
    t->shape = h.shape;
    if (!fromHeader && !sameType)
        t->notes << QStringLiteral("recorded as %1, stored as '%2' (%3)").arg(dataTypeName(rec.dataType()), h.descr, dataTypeName(h.dataType));
    if (!fromHeader && !sameShape)
        t->notes << QStringLiteral("recorded shape %1, the file holds %2").arg(shapeToString(rec.shape()), shapeToString(h.shape));
    const std::byte *bytes = t->file->data() + h.dataOffset;
    Elem elem = dataTypeInfo(h.dataType).elem;
    std::uint64_t count = h.elementCount;
    if (h.unicode) {
        t->notes << QStringLiteral("'%1' holds unicode strings (UCS-4, %2 bytes each); showing raw bytes")
                        .arg(h.descr)
                        .arg(h.itemSize);
        elem = Elem::U8;
        count = h.dataBytes;
        t->shape = {count};
    }
    if (h.voidPair)
        t->notes << (h.dataType == int(DataType::BFloat16)
                         ? QStringLiteral("'|V2' items decoded as bfloat16 as requested")
                         : QStringLiteral("'|V2' items are opaque 2-byte values, shown as uint16 bit patterns"));
    if (!h.unicode && elemBytes(elem) != h.itemSize)
        return R::failure(QStringLiteral("%1: '%2' cannot be decoded").arg(rec.location(), h.descr));

    const bool reorder = h.fortranOrder && h.shape.size() > 1;
    if (h.byteSwap || reorder) {
        if (h.dataBytes > std::uint64_t(std::numeric_limits<size_t>::max()))
            return R::failure(QStringLiteral("%1: too large for this machine").arg(rec.location()));
        std::vector<std::byte> swapped;
        const std::byte *src = bytes;
        if (h.byteSwap) {
            swapped.resize(size_t(h.dataBytes));
            const bool complex = h.dataType == int(DataType::Complex64) || h.dataType == int(DataType::Complex128);
            const std::uint32_t part = h.unicode ? 4 : complex ? h.itemSize / 2 : h.itemSize;
            npy::byteSwapCopy(src, swapped.data(), h.elementCount, h.itemSize, part);
            src = swapped.data();
            t->notes << QStringLiteral("stored big-endian ('%1'); byte-swapped").arg(h.descr);
        }
        if (job && job->cancelled())
            return Cancelled{};
        if (reorder) {
            t->owned.resize(size_t(h.dataBytes));
            if (!npy::fortranToC(src, t->owned.data(), h.shape, h.itemSize, job))
                return Cancelled{};
            t->notes << QStringLiteral("stored in Fortran (column-major) order; reordered to C order");
        } else {
            t->owned = std::move(swapped);
        }
        bytes = t->owned.data();
    }
    if (job && job->cancelled())
        return Cancelled{};
    t->view = TensorView{elem, bytes, size_t(count)};
    return std::shared_ptr<const LoadedTensor>(std::move(t));
}

} // namespace ds
