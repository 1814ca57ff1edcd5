#include "h5loader.h"

#include "formats/h5/h5handle.h"
#include "formats/h5/h5isolate.h"

#include <QFileInfo>

#include <algorithm>
#include <limits>

namespace ds {

namespace {

constexpr std::uint64_t kMaxDeflateRatio = 1100; // deflate cannot expand more than 1032:1

} // namespace

Result<std::shared_ptr<const LoadedTensor>> loadH5Tensor(const DumpIndex &index, const OpRecord &op,
                                                          const TensorRecord &rec, const JobControl *job,
                                                          std::uint64_t chunkBytes)
{
    using R = Result<std::shared_ptr<const LoadedTensor>>;
    h5::LibraryLock lock;
    h5::silenceErrors();
    const QString where = QStringLiteral("%1: %2").arg(op.dataFile, rec.location);
    if (rec.storage != TensorStorage::H5Dataset)
        return R::failure(QStringLiteral("%1 is not a tensor dataset (%2)").arg(where, rec.typeName));
    const QString path = index.absolutePath(op);
    const QFileInfo info(path);
    if (!info.isFile())
        return R::failure(QStringLiteral("%1: no such file").arg(op.dataFile));
    const std::uint64_t fileSize = std::uint64_t(info.size());
    if (op.fileSize && fileSize != op.fileSize)
        return R::failure(QStringLiteral("%1 changed since it was indexed (size %2, was %3); reopen the dump")
                              .arg(op.dataFile).arg(fileSize).arg(op.fileSize));
    h5::Handle file = h5::openReadOnly(path);
    if (!file)
        return R::failure(QStringLiteral("%1: cannot open the HDF5 file (%2)").arg(op.dataFile, h5::lastError()));
    h5::Handle ds(H5Dopen2(file.get(), rec.location.toUtf8().constData(), H5P_DEFAULT), H5Dclose);
    if (!ds)
        return R::failure(QStringLiteral("%1: cannot open the dataset (%2)").arg(where, h5::lastError()));
    h5::Handle space(H5Dget_space(ds.get()), H5Sclose);
    h5::Handle type(H5Dget_type(ds.get()), H5Tclose);
    if (!space || !type)
        return R::failure(QStringLiteral("%1: cannot read the dataspace or type (%2)").arg(where, h5::lastError()));

    const int rank = H5Sget_simple_extent_ndims(space.get());
    const bool null = H5Sget_simple_extent_type(space.get()) == H5S_NULL; // indexed as shape [0]
    if (rank < 0 || rank > 8 || (null ? rec.shape != Shape{0} : size_t(rank) != rec.shape.size()))
        return R::failure(QStringLiteral("%1 changed since it was indexed (rank %2); reopen the dump").arg(where).arg(rank));
    hsize_t dims[8] = {};
    H5Sget_simple_extent_dims(space.get(), dims, nullptr);
    for (int i = 0; i < rank; ++i)
        if (dims[i] != rec.shape[size_t(i)])
            return R::failure(QStringLiteral("%1 changed since it was indexed (shape); reopen the dump").arg(where));

    // Read the stored bytes unchanged: the memory type is the file type in little-endian order.
    const H5T_class_t cls = H5Tget_class(type.get());
    h5::Handle memType(H5Tcopy(type.get()), H5Tclose);
    if (!memType)
        return R::failure(QStringLiteral("%1: cannot copy the data type (%2)").arg(where, h5::lastError()));
    if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
        if (H5Tset_order(memType.get(), H5T_ORDER_LE) < 0)
            return R::failure(QStringLiteral("%1: cannot set the byte order (%2)").arg(where, h5::lastError()));
    } else if (cls == H5T_ENUM) {
        h5::Handle base(H5Tget_super(type.get()), H5Tclose);
        if (!base || H5Tget_order(base.get()) != H5T_ORDER_LE)
            return R::failure(QStringLiteral("%1: big-endian enumerations are not supported").arg(where));
    } else {
        return R::failure(QStringLiteral("%1: the dataset does not hold numbers").arg(where));
    }
    const size_t itemSize = H5Tget_size(type.get());
    const Elem elem = dataTypeInfo(rec.dataType).elem;
    if (elem == Elem::None || elemBytes(elem) != itemSize)
        return R::failure(QStringLiteral("%1: %2-byte items cannot be shown as %3").arg(where).arg(itemSize).arg(dataTypeName(rec.dataType)));

    const std::uint64_t count = elementCount(rec.shape).value_or(std::numeric_limits<std::uint64_t>::max());
    if (count > std::numeric_limits<std::uint64_t>::max() / itemSize)
        return R::failure(QStringLiteral("%1: shape %2 is too large").arg(where, shapeToString(rec.shape)));
    const std::uint64_t bytes = count * itemSize;
    const std::uint64_t stored = H5Dget_storage_size(ds.get());
    h5::Handle dcpl(H5Dget_create_plist(ds.get()), H5Pclose);
    const int filters = dcpl ? H5Pget_nfilters(dcpl.get()) : 0;
    if (stored > fileSize)
        return R::failure(QStringLiteral("%1: the dataset claims %2 stored bytes but the file has %3").arg(where).arg(stored).arg(fileSize));
    const std::uint64_t limit = filters > 0 && stored <= std::numeric_limits<std::uint64_t>::max() / kMaxDeflateRatio
                                    ? std::max(fileSize, stored * kMaxDeflateRatio)
                                    : fileSize;
    if (bytes > limit)
        return R::failure(QStringLiteral("%1: shape %2 needs %3 bytes, more than the file (%4 bytes) can hold")
                              .arg(where, shapeToString(rec.shape)).arg(bytes).arg(fileSize));
    if (bytes > std::uint64_t(std::numeric_limits<size_t>::max()))
        return R::failure(QStringLiteral("%1: too large for this machine").arg(where));

    auto t = std::make_shared<LoadedTensor>();
    t->dataType = rec.dataType;
    t->shape = rec.shape;
    t->owned.resize(size_t(bytes));
    if (rec.typeName.contains(QLatin1String("stored as")))
        t->notes << QStringLiteral("%1 (as the dumper writes it)").arg(rec.typeName);
    for (const QString &w : op.warnings)
        if (w.startsWith(rec.location + QLatin1Char(':')))
            t->notes << w.mid(rec.location.size() + 2);

    if (count > 0) {
        if (rank == 0) {
            if (H5Dread(ds.get(), memType.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, t->owned.data()) < 0)
                return R::failure(QStringLiteral("%1: reading failed (%2)").arg(where, h5::lastError()));
        } else {
            // Split along dimension k so that one block of rows there is about chunkBytes.
            std::vector<std::uint64_t> rowBytes(static_cast<size_t>(rank));
            std::uint64_t inner = itemSize;
            for (int i = rank - 1; i >= 0; --i) {
                rowBytes[size_t(i)] = inner;
                inner *= dims[i];
            }
            int k = 0;
            while (k < rank - 1 && rowBytes[size_t(k)] > std::max<std::uint64_t>(chunkBytes, 1))
                ++k;
            const hsize_t block = std::clamp<hsize_t>(std::max<std::uint64_t>(chunkBytes, 1) / rowBytes[size_t(k)], 1, dims[k]);
            hsize_t start[8] = {}, cnt[8] = {};
            for (int i = 0; i < rank; ++i)
                cnt[i] = i < k ? 1 : dims[i];
            std::uint64_t done = 0;
            for (;;) {
                for (hsize_t pos = 0; pos < dims[k]; pos += block) {
                    if (job && job->cancelled())
                        return R::failure(QStringLiteral("cancelled"));
                    start[k] = pos;
                    cnt[k] = std::min(block, dims[k] - pos);
                    std::uint64_t offset = 0; // C-order byte offset of `start`
                    for (int i = 0; i <= k; ++i)
                        offset += start[i] * rowBytes[size_t(i)];
                    const hsize_t n = hsize_t(cnt[k] * rowBytes[size_t(k)] / itemSize);
                    h5::Handle fileSpace(H5Scopy(space.get()), H5Sclose);
                    h5::Handle memSpace(H5Screate_simple(1, &n, nullptr), H5Sclose);
                    if (!fileSpace || !memSpace
                        || H5Sselect_hyperslab(fileSpace.get(), H5S_SELECT_SET, start, nullptr, cnt, nullptr) < 0
                        || H5Dread(ds.get(), memType.get(), memSpace.get(), fileSpace.get(), H5P_DEFAULT,
                                   t->owned.data() + offset) < 0)
                        return R::failure(QStringLiteral("%1: reading failed (%2)").arg(where, h5::lastError()));
                    done += n;
                    if (job)
                        job->report(int(1000 * (double(done) / double(count))));
                }
                // Next position of the outer dimensions (odometer).
                int i = k - 1;
                for (; i >= 0; --i) {
                    if (++start[i] < dims[i])
                        break;
                    start[i] = 0;
                }
                if (i < 0)
                    break;
            }
        }
    }
    t->view = TensorView{elem, t->owned.data(), size_t(count)};
    return std::shared_ptr<const LoadedTensor>(std::move(t));
}

} // namespace ds
