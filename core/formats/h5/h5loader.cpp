#include "h5loader.h"

#include "formats/h5/h5handle.h"
#include "formats/h5/h5isolate.h"

#include <QDataStream>
#include <QFileInfo>

#include <algorithm>
#include <cstring>
#include <limits>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

/// Opens `r.location` in `r.path` and checks rank, shape, type and size against the record
/// (r.shape, r.dataType) and the file (r.fileSize). Errors start with `where`.
Result<CheckedDataset> openChecked(const h5::LoadRequest &r, const QString &where)
{
    const std::uint64_t fileSize = r.fileSize;
    using R = Result<CheckedDataset>;
    CheckedDataset d;
    d.file = h5::openReadOnly(r.path);
    if (!d.file)
        return R::failure(QStringLiteral("%1: cannot open the HDF5 file (%2)").arg(r.dataFile, h5::lastError()));
    d.ds = h5::Handle(H5Dopen2(d.file.get(), r.location.toUtf8().constData(), H5P_DEFAULT), H5Dclose);
    if (!d.ds)
        return R::failure(QStringLiteral("%1: cannot open the dataset (%2)").arg(where, h5::lastError()));
    d.space = h5::Handle(H5Dget_space(d.ds.get()), H5Sclose);
    h5::Handle type(H5Dget_type(d.ds.get()), H5Tclose);
    if (!d.space || !type)
        return R::failure(QStringLiteral("%1: cannot read the dataspace or type (%2)").arg(where, h5::lastError()));

    const int rank = H5Sget_simple_extent_ndims(d.space.get());
    const bool null = H5Sget_simple_extent_type(d.space.get()) == H5S_NULL; // indexed as shape [0]
    if (rank < 0 || rank > 8 || (null ? r.shape != Shape{0} : size_t(rank) != r.shape.size()))
        return R::failure(QStringLiteral("%1 changed since it was indexed (rank %2); reopen the dump").arg(where).arg(rank));
    d.rank = rank;
    H5Sget_simple_extent_dims(d.space.get(), d.dims, nullptr);
    for (int i = 0; i < rank; ++i)
        if (d.dims[i] != r.shape[size_t(i)])
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
    const Elem elem = dataTypeInfo(r.dataType).elem;
    if (elem == Elem::None || elemBytes(elem) != d.itemSize)
        return R::failure(QStringLiteral("%1: %2-byte items cannot be shown as %3").arg(where).arg(d.itemSize).arg(dataTypeName(r.dataType)));

    d.count = elementCount(r.shape).value_or(std::numeric_limits<std::uint64_t>::max());
    if (d.count > std::numeric_limits<std::uint64_t>::max() / d.itemSize)
        return R::failure(QStringLiteral("%1: shape %2 is too large").arg(where, shapeToString(r.shape)));
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
                              .arg(where, shapeToString(r.shape)).arg(d.bytes).arg(fileSize));
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

h5::LoadRequest loadRequest(const OpRecord &op, const TensorRecord &rec, const QString &path, std::uint64_t fileSize,
                            std::uint64_t chunkBytes)
{
    h5::LoadRequest r;
    r.path = path;
    r.dataFile = op.dataFile;
    r.location = rec.location();
    r.fileSize = fileSize;
    r.shape = rec.shape();
    r.dataType = rec.dataType();
    r.chunkBytes = chunkBytes;
    return r;
}

QString whereOf(const h5::LoadRequest &r) { return QStringLiteral("%1: %2").arg(r.dataFile, r.location); }

/// The tensor memory a worker reads into: a sealed memfd of exactly `bytes`.
class TensorMemory
{
public:
    TensorMemory() : m_fd(::memfd_create("dumpscope-h5-tensor", MFD_CLOEXEC | MFD_ALLOW_SEALING)), m_error(errno) {}
    ~TensorMemory()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    TensorMemory(const TensorMemory &) = delete;
    TensorMemory &operator=(const TensorMemory &) = delete;
    int fd() const { return m_fd; }

    /// Sizes the memory and seals its size before the worker gets it: it can neither shrink it
    /// (our mapping would fault) nor grow it. An error text, or empty.
    QString sizeAndSeal(std::uint64_t bytes)
    {
        if (m_fd < 0)
            return QString::fromLocal8Bit(std::strerror(m_error));
        if (::ftruncate(m_fd, off_t(bytes)) != 0 || ::fcntl(m_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
            return QString::fromLocal8Bit(std::strerror(errno));
        return checkSealed(bytes) ? QString() : QStringLiteral("the memory was resized");
    }
    bool checkSealed(std::uint64_t bytes) const
    {
        struct stat st = {};
        const int seals = ::fcntl(m_fd, F_GET_SEALS);
        return ::fstat(m_fd, &st) == 0 && std::uint64_t(st.st_size) == bytes && seals >= 0
               && (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) == (F_SEAL_SHRINK | F_SEAL_GROW);
    }
    /// The memory mapped read-only, unmapped with the last owner.
    std::shared_ptr<const std::byte> map(std::uint64_t bytes) const
    {
        void *p = ::mmap(nullptr, size_t(bytes), PROT_READ, MAP_SHARED, m_fd, 0);
        if (p == MAP_FAILED)
            return {};
        return std::shared_ptr<const std::byte>(static_cast<const std::byte *>(p),
                                                [bytes](const std::byte *q) { ::munmap(const_cast<std::byte *>(q), size_t(bytes)); });
    }

private:
    int m_fd = -1;
    int m_error = 0;
};

/// Caps of the small answers of a load (an error text and a count).
constexpr std::uint64_t kMaxLoadAnswer = 1 << 20;

} // namespace

Result<std::shared_ptr<const LoadedTensor>> loadH5TensorInProcess(const DumpIndex &index, const OpRecord &op,
                                                                   const TensorRecord &rec, const JobControl *job,
                                                                   std::uint64_t chunkBytes)
{
    using R = Result<std::shared_ptr<const LoadedTensor>>;
    h5::silenceErrors();
    const QString where = QStringLiteral("%1: %2").arg(op.dataFile, rec.location());
    QString path;
    std::uint64_t fileSize = 0;
    if (const auto refused = precheck(index, op, rec, where, path, fileSize))
        return R::failure(*refused);
    const auto d = openChecked(loadRequest(op, rec, path, fileSize, chunkBytes), where);
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
    // What the record implies: the memory is never sized by the worker's word alone.
    const Elem elem = dataTypeInfo(rec.dataType()).elem;
    const auto count = elementCount(rec.shape());
    const bool sizeKnown = count && elem != Elem::None && *count <= std::numeric_limits<std::uint64_t>::max() / elemBytes(elem);
    h5::Request request;
    request.kind = h5::RequestKind::Load;
    request.load = loadRequest(op, rec, path, fileSize, chunkBytes);

    return h5::runWithRetry(job, [&](h5::Worker &worker) -> R {
        const auto workerFailed = [&](const Error &e) -> R {
            if (e.kind == ErrorKind::Cancelled || (job && job->cancelled()))
                return Cancelled{};
            return Error(ErrorKind::ReaderFailed, where, e.message);
        };
        const auto garbledAnswer = [&] {
            return R::failure(ErrorKind::ReaderFailed, where, QStringLiteral("the HDF5 reader process sent a garbled answer"));
        };
        /// The worker's answer was an error about the file: it is not used again.
        const auto fileError = [&](const QString &error) -> R {
            if (auto e = worker.finish(false))
                return workerFailed(*e);
            if (job && job->cancelled())
                return Cancelled{};
            return R::failure(error);
        };

        // 1. The worker opens the dataset and checks it against the record and the file.
        if (auto e = worker.start(request))
            return workerFailed(*e);
        const auto probeBytes = worker.answer(kMaxLoadAnswer);
        if (!probeBytes)
            return workerFailed(probeBytes.error());
        const auto probe = h5::decodeLoadAnswer(*probeBytes);
        if (!probe)
            return garbledAnswer();
        if (!probe->error.isEmpty())
            return fileError(probe->error);
        // The worker checked shape and item size against the record: its count must be the
        // record's, or it is not believed (and the worker is killed).
        if (!sizeKnown || probe->bytes != *count * elemBytes(elem) || probe->bytes > std::uint64_t(std::numeric_limits<size_t>::max()))
            return garbledAnswer();
        const std::uint64_t bytes = probe->bytes;

        auto t = emptyTensor(op, rec);
        if (bytes == 0) {
            if (auto e = worker.finish(true))
                return workerFailed(*e);
            t->view = TensorView{elem, nullptr, 0};
            return std::shared_ptr<const LoadedTensor>(std::move(t));
        }

        // 2. The worker reads into memory it shares with this process, made and sealed here.
        TensorMemory memory;
        if (const QString why = memory.sizeAndSeal(bytes); !why.isEmpty())
            return R::failure(QStringLiteral("%1: cannot allocate %2 bytes (%3)").arg(where).arg(bytes).arg(why));
        QByteArray go(sizeof(quint64), Qt::Uninitialized);
        const quint64 goBytes = bytes;
        std::memcpy(go.data(), &goBytes, sizeof goBytes);
        worker.send(h5::FrameTag::Go, go, memory.fd());
        const auto readBytes = worker.answer(kMaxLoadAnswer);
        if (!readBytes)
            return workerFailed(readBytes.error());
        const auto read = h5::decodeLoadAnswer(*readBytes);
        if (!read)
            return garbledAnswer();
        if (!read->error.isEmpty())
            return fileError(read->error);
        if (read->bytes != bytes || !memory.checkSealed(bytes))
            return garbledAnswer();
        if (auto e = worker.finish(true))
            return workerFailed(*e);
        auto mapped = memory.map(bytes);
        if (!mapped)
            return R::failure(QStringLiteral("%1: cannot map %2 bytes (%3)").arg(where).arg(bytes).arg(QString::fromLocal8Bit(std::strerror(errno))));
        t->view = TensorView{elem, mapped.get(), size_t(*count)};
        t->keepAlive = std::move(mapped);
        return std::shared_ptr<const LoadedTensor>(std::move(t));
    });
}

namespace h5 {

struct CheckedRead::Impl
{
    LoadRequest request;
    QString where;
    std::optional<CheckedDataset> dataset;
};

CheckedRead::CheckedRead() : m_impl(std::make_unique<Impl>()) {}
CheckedRead::~CheckedRead() = default;

LoadAnswer CheckedRead::open(const LoadRequest &request)
{
    silenceErrors();
    m_impl->request = request;
    m_impl->where = whereOf(request);
    auto d = openChecked(request, m_impl->where);
    if (!d)
        return {d.error().text(), 0};
    m_impl->dataset.emplace(std::move(*d));
    return {QString(), m_impl->dataset->bytes};
}

LoadAnswer CheckedRead::read(std::byte *out, std::uint64_t bytes, const JobControl &job)
{
    if (!m_impl->dataset)
        return {QStringLiteral("%1: the dataset is not open").arg(m_impl->where), 0};
    if (bytes != m_impl->dataset->bytes)
        return {QStringLiteral("%1 changed since it was indexed; reopen the dump").arg(m_impl->where), 0};
    return {readInto(*m_impl->dataset, out, &job, m_impl->request.chunkBytes, m_impl->where), bytes};
}

} // namespace h5

} // namespace ds
