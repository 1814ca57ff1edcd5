#include "ptloader.h"

#include "formats/torch/ptfile.h"

#include <QDir>
#include <algorithm>
#include <cstring>

namespace ds {

bool gatherPtElements(const PtTensor &t, const std::byte *record, std::byte *out, const JobControl *job)
{
    const std::uint64_t count = t.elementCount();
    const size_t item = size_t(t.itemSize());
    // Complex elements swap each part separately.
    const size_t part = isComplex(dataTypeInfo(t.dataType).elem) ? item / 2 : item;
    const size_t dims = t.shape.size();
    std::vector<std::uint64_t> index(dims, 0);
    std::uint64_t offset = t.storageOffset; // element offset of `index`
    for (std::uint64_t n = 0; n < count; ++n) {
        if ((n & 0xFFFFF) == 0 && job && job->cancelled())
            return false;
        std::byte *dst = out + n * item;
        std::memcpy(dst, record + offset * item, item);
        if (t.bigEndian && part > 1)
            for (size_t p = 0; p < item; p += part)
                std::reverse(dst + p, dst + p + part);
        // Advance the row-major multi-index (odometer).
        for (size_t k = dims; k-- > 0;) {
            if (++index[k] < t.shape[k]) {
                offset += t.strides[k];
                break;
            }
            offset -= (t.shape[k] - 1) * t.strides[k];
            index[k] = 0;
        }
    }
    return true;
}

namespace {

// Maps `absPath` and reads its one tensor; `rec` (optional) is what an index says of it.
Result<std::shared_ptr<const LoadedTensor>> loadLonePt(const QString &absPath, const QString &shown, const TensorRecord *rec,
                                                       const JobControl *job, const QString &keyPath = QString())
{
    using R = Result<std::shared_ptr<const LoadedTensor>>;
    auto mapped = MappedFile::open(absPath);
    if (!mapped)
        return R::failure(mapped.error().about(shown));
    auto pt = readPtTensor((*mapped)->data(), (*mapped)->size(), keyPath);
    if (!pt)
        return R::failure(pt.error().about(shown));

    auto t = std::make_shared<LoadedTensor>();
    t->file = *mapped;
    t->dataType = pt->dataType;
    t->shape = pt->shape;
    const auto &info = dataTypeInfo(pt->dataType);
    if (rec && rec->dataType() != 0 && rec->dataType() != pt->dataType)
        t->notes << QStringLiteral("the file holds %1 data, the record says %2").arg(dataTypeName(pt->dataType), dataTypeName(rec->dataType()));
    if (rec && !rec->shape().empty() && rec->shape() != pt->shape)
        t->notes << QStringLiteral("the file holds shape %1, the record says %2").arg(shapeToString(pt->shape), shapeToString(rec->shape()));
    if (!info.verified)
        t->notes << QStringLiteral("the %1 decoder is unverified").arg(dataTypeName(pt->dataType));

    const std::uint64_t count = pt->elementCount();
    const std::byte *record = pt->recordData(t->file->data());
    if (pt->isContiguous() && pt->inPlace && !pt->bigEndian) {
        t->view = TensorView{info.elem, record + pt->storageOffset * pt->itemSize(), size_t(count)};
        return std::shared_ptr<const LoadedTensor>(std::move(t));
    }
    // readPtTensors() checked count * itemSize against the record size, which is bounded by the
    // file size (STORED) or the inflated allocation that already exists (DEFLATE).
    t->owned.resize(size_t(count * pt->itemSize()));
    if (!gatherPtElements(*pt, record, t->owned.data(), job))
        return Cancelled{};
    if (!pt->inPlace)
        t->notes << QStringLiteral("the storage record is compressed; inflated into memory");
    if (pt->bigEndian)
        t->notes << QStringLiteral("big-endian file; bytes swapped");
    t->view = TensorView{info.elem, t->owned.data(), size_t(count)};
    return std::shared_ptr<const LoadedTensor>(std::move(t));
}

} // namespace

Result<std::shared_ptr<const LoadedTensor>> loadPtTensor(const DumpIndex &index, const TensorRecord &rec,
                                                          const JobControl *job, const QString &keyPath)
{
    return loadLonePt(index.absolute(rec.location()), rec.location(), &rec, job, keyPath);
}

Result<std::shared_ptr<const LoadedTensor>> loadPtFile(const QString &root, const QString &relPath, const JobControl *job)
{
    return loadLonePt(QDir(root).filePath(relPath), relPath, nullptr, job);
}

} // namespace ds
