#include "h5loader.h"

#include "formats/h5/h5handle.h"
#include "formats/h5/h5isolate.h"

#include <QDataStream>
#include <QFileInfo>

#include <algorithm>
#include <cstring>
#include <limits>
#include <sys/mman.h>

namespace ds {

namespace {

constexpr std::uint64_t kMaxDeflateRatio = 1100; // deflate cannot expand more than 1032:1

/// A dataset opened and checked against its record and the file: `bytes` fit the file.
struct CheckedDataset
{
    h5::Handle file, ds, space, memType;
    int rank = 0;
    hsize_t dims[8] = {};
    size_t itemSize = 0;
    std::uint64_t count = 0, bytes = 0;
};

/// Opens `rec.location` in `path` and checks rank, shape, type and size (call with the library
/// lock held). Errors start with `where`.
Result<CheckedDataset> openChecked(const QString &path, std::uint64_t fileSize, const OpRecord &op,
                                   const TensorRecord &rec, const QString &where)
{
    using R = Result<CheckedDataset>;
    CheckedDataset d;
    d.file = h5::openReadOnly(path);
    if (!d.file)
        return R::failure(QStringLiteral("%1: cannot open the HDF5 file (%2)").arg(op.dataFile, h5::lastError()));
    d.ds = h5::Handle(H5Dopen2(d.file.get(), rec.location().toUtf8().constData(), H5P_DEFAULT), H5Dclose);
    if (!d.ds)
        return R::failure(QStringLiteral("%1: cannot open the dataset (%2)").arg(where, h5::lastError()));
    d.space = h5::Handle(H5Dget_space(d.ds.get()), H5Sclose);
    h5::Handle type(H5Dget_type(d.ds.get()), H5Tclose);
    if (!d.space || !type)
        return R::failure(QStringLiteral("%1: cannot read the dataspace or type (%2)").arg(where, h5::lastError()));

    const int rank = H5Sget_simple_extent_ndims(d.space.get());
    const bool null = H5Sget_simple_extent_type(d.space.get()) == H5S_NULL; // indexed as shape [0]
    if (rank < 0 || rank > 8 || (null ? rec.shape() != Shape{0} : size_t(rank) != rec.shape().size()))
        return R::failure(QStringLiteral("%1 changed since it was indexed (rank %2); reopen the dump").arg(where).arg(rank));
    d.rank = rank;
    H5Sget_simple_extent_dims(d.space.get(), d.dims, nullptr);
    for (int i = 0; i < rank; ++i)
        if (d.dims[i] != rec.shape()[size_t(i)])
            return R::failure(QStringLiteral("%1 changed since it was indexed (shape); reopen the dump").arg(where));

    // Read the stored bytes unchanged: the memory type is the file type in little-endian order.
    const H5T_class_t cls = H5Tget_class(type.get());
    d.memType = h5::Handle(H5Tcopy(type.get()), H5Tclose);
    if (!d.memType)
        return R::failure(QStringLiteral("%1: cannot copy the data type (%2)").arg(where, h5::lastError()));
    if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
        if (H5Tset_order(d.memType.get(), H5T_ORDER_LE) < 0)
            return R::failure(QStringLiteral("%1: cannot set the byte order (%2)").arg(where, h5::lastError()));
    } else if (cls == H5T_ENUM) {
        h5::Handle base(H5Tget_super(type.get()), H5Tclose);
        if (!base || H5Tget_order(base.get()) != H5T_ORDER_LE)
            return R::failure(QStringLiteral("%1: big-endian enumerations are not supported").arg(where));
    } else {
        return R::failure(QStringLiteral("%1: the dataset does not hold numbers").arg(where));
    }
    d.itemSize = H5Tget_size(type.get());
    const Elem elem = dataTypeInfo(rec.dataType()).elem;
    if (elem == Elem::None || elemBytes(elem) != d.itemSize)
        return R::failure(QStringLiteral("%1: %2-byte items cannot be shown as %3").arg(where).arg(d.itemSize).arg(dataTypeName(rec.dataType())));

    d.count = elementCount(rec.shape()).value_or(std::numeric_limits<std::uint64_t>::max());
    if (d.count > std::numeric_limits<std::uint64_t>::max() / d.itemSize)
        return R::failure(QStringLiteral("%1: shape %2 is too large").arg(where, shapeToString(rec.shape())));
    d.bytes = d.count * d.itemSize;
    const std::uint64_t stored = H5Dget_storage_size(d.ds.get());
    h5::Handle dcpl(H5Dget_create_plist(d.ds.get()), H5Pclose);
    const int filters = dcpl ? H5Pget_nfilters(dcpl.get()) : 0;
    if (stored > fileSize)
        return R::failure(QStringLiteral("%1: the dataset claims %2 stored bytes but the file has %3").arg(where).arg(stored).arg(fileSize));
    const std::uint64_t limit = filters > 0 && stored <= std::numeric_limits<std::uint64_t>::max() / kMaxDeflateRatio
                                    ? std::max(fileSize, stored * kMaxDeflateRatio)
                                    : fileSize;
    if (d.bytes > limit)
        return R::failure(QStringLiteral("%1: shape %2 needs %3 bytes, more than the file (%4 bytes) can hold")
                              .arg(where, shapeToString(rec.shape())).arg(d.bytes).arg(fileSize));
    if (d.bytes > std::uint64_t(std::numeric_limits<size_t>::max()))
        return R::failure(QStringLiteral("%1: too large for this machine").arg(where));
    return d;
}

/// Reads the checked dataset into `out` (d.bytes bytes) in hyperslabs of about chunkBytes.
/// An error text (starting with `where`, or "cancelled"), or empty.
QString readInto(const CheckedDataset &d, std::byte *out, const JobControl *job, std::uint64_t chunkBytes, const QString &where)
{
    if (d.count == 0)
        return {};
    if (d.rank == 0) {
        if (H5Dread(d.ds.get(), d.memType.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
            return QStringLiteral("%1: reading failed (%2)").arg(where, h5::lastError());
        return {};
    }
    const int rank = d.rank;
    const hsize_t *dims = d.dims;
    // Split along dimension k so that one block of rows there is about chunkBytes.
    std::vector<std::uint64_t> rowBytes(static_cast<size_t>(rank));
    std::uint64_t inner = d.itemSize;
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
                return QStringLiteral("cancelled");
            start[k] = pos;
            cnt[k] = std::min(block, dims[k] - pos);
            std::uint64_t offset = 0; // C-order byte offset of `start`
            for (int i = 0; i <= k; ++i)
                offset += start[i] * rowBytes[size_t(i)];
            const hsize_t n = hsize_t(cnt[k] * rowBytes[size_t(k)] / d.itemSize);
            h5::Handle fileSpace(H5Scopy(d.space.get()), H5Sclose);
            h5::Handle memSpace(H5Screate_simple(1, &n, nullptr), H5Sclose);
            if (!fileSpace || !memSpace
                || H5Sselect_hyperslab(fileSpace.get(), H5S_SELECT_SET, start, nullptr, cnt, nullptr) < 0
                || H5Dread(d.ds.get(), d.memType.get(), memSpace.get(), fileSpace.get(), H5P_DEFAULT, out + offset) < 0)
                return QStringLiteral("%1: reading failed (%2)").arg(where, h5::lastError());
            done += n;
            if (job)
                job->report(int(1000 * (double(done) / double(d.count))));
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
    return {};
}

/// What both loaders check before HDF5 opens the file. Sets `path` and `fileSize`.
std::optional<Error> precheck(const DumpIndex &index, const OpRecord &op, const TensorRecord &rec, const QString &where,
                              QString &path, std::uint64_t &fileSize)
{
    if (rec.storage() != TensorStorage::H5Dataset)
        return Error(ErrorKind::NoData, where, QStringLiteral("not a tensor dataset (%1)").arg(rec.typeName()));
    path = index.absolutePath(op);
    const QFileInfo info(path);
    if (!info.isFile())
        return Error(ErrorKind::NotFound, op.dataFile, QStringLiteral("no such file"));
    fileSize = std::uint64_t(info.size());
    if (op.fileSize() && fileSize != op.fileSize())
        return Error(ErrorKind::Changed, op.dataFile, QStringLiteral("changed since it was indexed (size %1, was %2); reopen the dump")
                                                         .arg(fileSize).arg(op.fileSize()));
    return std::nullopt;
}

std::shared_ptr<LoadedTensor> emptyTensor(const OpRecord &op, const TensorRecord &rec)
{
    auto t = std::make_shared<LoadedTensor>();
    t->dataType = rec.dataType();
    t->shape = rec.shape();
    if (rec.typeName().contains(QLatin1String("stored as")))
        t->notes << QStringLiteral("%1 (as the dumper writes it)").arg(rec.typeName());
    for (const QString &w : op.warnings())
        if (w.startsWith(rec.location() + QLatin1Char(':')))
            t->notes << w.mid(rec.location().size() + 2);
    return t;
}

QByteArray encodeAnswer(const QString &error, std::uint64_t bytes)
{
    QByteArray out;
    QDataStream s(&out, QIODevice::WriteOnly);
    s << error << quint64(bytes);
    return out;
}

bool decodeAnswer(const QByteArray &in, QString &error, std::uint64_t &bytes)
{
    QDataStream s(in);
    quint64 b = 0;
    s >> error >> b;
    bytes = b;
    return s.status() == QDataStream::Ok && s.atEnd();
}

/// An anonymous shared mapping (the child writes, the parent reads), unmapped with the last owner.
std::shared_ptr<std::byte> sharedBytes(std::uint64_t bytes)
{
    void *p = ::mmap(nullptr, size_t(bytes), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return {};
    return std::shared_ptr<std::byte>(static_cast<std::byte *>(p), [bytes](std::byte *q) { ::munmap(q, size_t(bytes)); });
}

} // namespace

Result<std::shared_ptr<const LoadedTensor>> loadH5TensorInProcess(const DumpIndex &index, const OpRecord &op,
                                                                   const TensorRecord &rec, const JobControl *job,
                                                                   std::uint64_t chunkBytes)
{
    using R = Result<std::shared_ptr<const LoadedTensor>>;
    h5::LibraryLock lock;
    h5::silenceErrors();
    const QString where = QStringLiteral("%1: %2").arg(op.dataFile, rec.location());
    QString path;
    std::uint64_t fileSize = 0;
    if (const auto refused = precheck(index, op, rec, where, path, fileSize))
        return R::failure(*refused);
    const auto d = openChecked(path, fileSize, op, rec, where);
    if (!d)
        return R::failure(d.error());
    auto t = emptyTensor(op, rec);
    t->owned.resize(size_t(d->bytes));
    if (const QString error = readInto(*d, t->owned.data(), job, chunkBytes, where); !error.isEmpty()) {
        if (job && job->cancelled())
            return Cancelled{};
        return R::failure(error);
    }
    t->view = TensorView{dataTypeInfo(rec.dataType()).elem, t->owned.data(), size_t(d->count)};
    return std::shared_ptr<const LoadedTensor>(std::move(t));
}

Result<std::shared_ptr<const LoadedTensor>> loadH5Tensor(const DumpIndex &index, const OpRecord &op,
                                                          const TensorRecord &rec, const JobControl *job,
                                                          std::uint64_t chunkBytes)
{
    using R = Result<std::shared_ptr<const LoadedTensor>>;
    const QString where = QStringLiteral("%1: %2").arg(op.dataFile, rec.location());
    QString path;
    std::uint64_t fileSize = 0;
    if (const auto refused = precheck(index, op, rec, where, path, fileSize))
        return R::failure(*refused);

    // 1. libhdf5 opens the dataset and checks it against the record and the file, in a child.
    const auto probe = h5::runIsolated(
        [&](const JobControl &) {
            h5::LibraryLock lock;
            h5::silenceErrors();
            const auto d = openChecked(path, fileSize, op, rec, where);
            return encodeAnswer(d ? QString() : d.error().text(), d ? d->bytes : 0);
        },
        job);
    if (!probe)
        {
        if (job && job->cancelled())
            return Cancelled{};
        return Error(ErrorKind::ReaderFailed, where, probe.error().message);
    }
    QString error;
    std::uint64_t bytes = 0;
    if (!decodeAnswer(*probe, error, bytes))
        return R::failure(QStringLiteral("%1: the HDF5 reader process sent a garbled answer").arg(where));
    if (!error.isEmpty())
        return R::failure(error);
    // What the record implies (the child checked shape and item size against it), so the
    // mapping is never sized by the child's word alone.
    const Elem elem = dataTypeInfo(rec.dataType()).elem;
    const auto count = elementCount(rec.shape());
    if (!count || elem == Elem::None || *count > std::numeric_limits<std::uint64_t>::max() / elemBytes(elem)
        || bytes != *count * elemBytes(elem))
        return R::failure(QStringLiteral("%1: the HDF5 reader process sent a garbled answer").arg(where));

    auto t = emptyTensor(op, rec);
    if (bytes > 0) {
        // 2. The child reads into memory shared with this process.
        auto shared = sharedBytes(bytes);
        if (!shared)
            return R::failure(QStringLiteral("%1: cannot allocate %2 bytes").arg(where).arg(bytes));
        std::byte *out = shared.get();
        const auto read = h5::runIsolated(
            [&](const JobControl &childJob) {
                h5::LibraryLock lock;
                h5::silenceErrors();
                const auto d = openChecked(path, fileSize, op, rec, where);
                if (!d)
                    return encodeAnswer(d.error().text(), 0);
                if (d->bytes != bytes)
                    return encodeAnswer(QStringLiteral("%1 changed since it was indexed; reopen the dump").arg(where), 0);
                return encodeAnswer(readInto(*d, out, &childJob, chunkBytes, where), bytes);
            },
            job);
        if (!read)
            {
            if (job && job->cancelled())
                return Cancelled{};
            return Error(ErrorKind::ReaderFailed, where, read.error().message);
        }
        std::uint64_t readBytes = 0;
        if (!decodeAnswer(*read, error, readBytes))
            return R::failure(QStringLiteral("%1: the HDF5 reader process sent a garbled answer").arg(where));
        if (!error.isEmpty())
            return R::failure(error);
        t->view = TensorView{elem, out, size_t(*count)};
        t->keepAlive = std::move(shared);
    } else {
        t->view = TensorView{elem, nullptr, 0};
    }
    return std::shared_ptr<const LoadedTensor>(std::move(t));
}

} // namespace ds
