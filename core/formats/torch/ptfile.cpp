#include "ptfile.h"

#include "formats/torch/pickle.h"
#include "formats/torch/zipreader.h"
#include "io/mappedfile.h"
#include "tensor/dtype.h"

#include <QHash>

namespace ds {

namespace {

bool mulOverflows(std::uint64_t a, std::uint64_t b, std::uint64_t &out) { return __builtin_mul_overflow(a, b, &out); }
bool addOverflows(std::uint64_t a, std::uint64_t b, std::uint64_t &out) { return __builtin_add_overflow(a, b, &out); }

QString text(const QByteArray &bytes)
{
    QString s = QString::fromUtf8(bytes);
    if (s.size() > 200)
        s = s.left(200) + QStringLiteral("...");
    return s;
}

// torch.save with _use_new_zipfile_serialization=False writes a bare pickle stream that starts
// with the magic number 0x1950a86a20f9469cfc6c as a LONG1.
bool isLegacyTorchSave(const std::byte *data, std::uint64_t size)
{
    static const unsigned char magic[] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
    if (size < sizeof magic)
        return false;
    for (size_t k = 0; k < sizeof magic; ++k)
        if (std::uint8_t(data[k]) != magic[k])
            return false;
    return true;
}

} // namespace

std::uint64_t PtTensor::itemSize() const { return std::uint64_t(dataTypeInfo(dataType).bits / 8); }

std::uint64_t PtTensor::elementCount() const { return ds::elementCount(shape).value_or(0); }

bool PtTensor::isContiguous() const
{
    if (elementCount() == 0)
        return true;
    std::uint64_t expected = 1;
    for (size_t k = shape.size(); k-- > 0;) {
        if (shape[k] == 1)
            continue;
        if (strides[k] != expected)
            return false;
        expected *= shape[k];
    }
    return true;
}

const std::byte *PtTensor::recordData(const std::byte *fileData) const
{
    if (!inPlace)
        return inflated ? inflated->data() : nullptr;
    return fileData + recordOffset;
}

Result<std::vector<PtTensor>> readPtTensors(const std::byte *data, std::uint64_t size)
{
    using R = Result<std::vector<PtTensor>>;
    if (isLegacyTorchSave(data, size))
        return R::failure(QStringLiteral("legacy torch.save format (_use_new_zipfile_serialization=False) is not supported; re-save it with torch.save defaults"), ErrorKind::Unsupported);
    auto zip = ZipReader::open(data, size);
    if (!zip)
        return R::failure(zip.error().within(QStringLiteral("not a torch.save ZIP archive")));

    const auto pkls = zip->findSuffix("data.pkl");
    if (pkls.empty())
        return R::failure(QStringLiteral("no data.pkl record (not a torch.save file)"));
    if (pkls.size() > 1)
        return R::failure(QStringLiteral("%1 data.pkl records; expected one").arg(pkls.size()));
    const ZipEntry &pklEntry = *pkls.front();
    const QByteArray prefix = pklEntry.name.left(pklEntry.name.size() - qsizetype(sizeof("data.pkl") - 1));

    const PickleLimits limits;
    if (pklEntry.uncompressedSize > limits.maxPickleBytes)
        return R::failure(QStringLiteral("data.pkl is %1 bytes, more than the limit of %2").arg(pklEntry.uncompressedSize).arg(limits.maxPickleBytes));
    auto pkl = zip->read(pklEntry, limits.maxPickleBytes, true);
    if (!pkl)
        return R::failure(pkl.error());
    auto descs = unpickleTorchTensors(pkl->data, pkl->size, limits);
    if (!descs)
        return R::failure(descs.error().within(QStringLiteral("data.pkl")));

    bool bigEndian = false;
    bool ambiguous = false;
    if (const ZipEntry *bo = zip->find(QByteArray(prefix + "byteorder"), &ambiguous)) {
        if (ambiguous)
            return R::failure(QStringLiteral("several byteorder records"));
        if (bo->uncompressedSize > 16)
            return R::failure(QStringLiteral("byteorder record is %1 bytes; expected \"little\" or \"big\"").arg(bo->uncompressedSize));
        auto order = zip->read(*bo, 16);
        if (!order)
            return R::failure(order.error());
        const QByteArray value = QByteArray(reinterpret_cast<const char *>(order->data), qsizetype(order->size)).trimmed();
        if (value == "big")
            bigEndian = true;
        else if (value != "little")
            return R::failure(QStringLiteral("byteorder record says `%1`; expected \"little\" or \"big\"").arg(text(value)));
    }

    std::vector<PtTensor> out;
    out.reserve(descs->size());
    QHash<QByteArray, std::shared_ptr<const std::vector<std::byte>>> inflatedRecords;
    for (TorchTensorDesc &d : *descs) {
        const QString where = d.path.isEmpty() ? QString() : QStringLiteral("tensor `%1`: ").arg(d.path);
        PtTensor t;
        t.path = d.path;
        t.dataType = d.dataType;
        t.shape = std::move(d.shape);
        t.strides = std::move(d.strides);
        t.storageOffset = d.storageOffset;
        t.storageKey = d.storageKey;
        t.storageBytes = d.storageBytes;
        t.bigEndian = bigEndian;
        t.recordName = prefix + "data/" + d.storageKey;

        const auto &info = dataTypeInfo(t.dataType);
        if (info.bits < 8 || info.bits % 8)
            return R::failure(QStringLiteral("%1data type %2 is not supported in .pt files").arg(where, dataTypeName(t.dataType)));
        const std::uint64_t item = t.itemSize();

        const ZipEntry *rec = zip->find(t.recordName, &ambiguous);
        if (!rec)
            return R::failure(QStringLiteral("%1record `data/%2` of the storage is missing").arg(where, text(t.storageKey)));
        if (ambiguous)
            return R::failure(QStringLiteral("%1several records are named `data/%2`").arg(where, text(t.storageKey)));
        t.recordOffset = rec->dataOffset;
        t.recordSize = rec->uncompressedSize;
        if (t.storageBytes > t.recordSize)
            return R::failure(QStringLiteral("%1storage `%2` declares %3 bytes but its record holds %4")
                                  .arg(where, text(t.storageKey)).arg(t.storageBytes).arg(t.recordSize));

        const auto count = ds::elementCount(t.shape);
        std::uint64_t bytes = 0;
        if (!count || mulOverflows(*count, item, bytes))
            return R::failure(QStringLiteral("%1shape %2 overflows").arg(where, shapeToString(t.shape)));
        if (*count > 0) {
            // Last element index: offset + sum((size - 1) * stride), all overflow-checked.
            std::uint64_t last = t.storageOffset;
            for (size_t k = 0; k < t.shape.size(); ++k) {
                std::uint64_t step = 0;
                if (mulOverflows(t.shape[k] - 1, t.strides[k], step) || addOverflows(last, step, last))
                    return R::failure(QStringLiteral("%1strides overflow").arg(where));
            }
            std::uint64_t extent = 0;
            if (addOverflows(last, 1, extent) || mulOverflows(extent, item, extent) || extent > t.storageBytes)
                return R::failure(QStringLiteral("%1tensor (offset %2, shape %3) extends past its storage of %4 bytes")
                                      .arg(where).arg(t.storageOffset).arg(shapeToString(t.shape)).arg(t.storageBytes));
            if (bytes > t.recordSize)
                return R::failure(QStringLiteral("%1tensor of %2 elements needs %3 bytes but its record holds %4 (broadcast views are not supported)")
                                      .arg(where).arg(*count).arg(bytes).arg(t.recordSize));
        }

        if (rec->method == 0) {
            auto stored = zip->read(*rec);
            if (!stored)
                return R::failure(stored.error());
            t.inPlace = true;
        } else {
            auto it = inflatedRecords.constFind(t.recordName);
            if (it == inflatedRecords.constEnd()) {
                auto inflated = zip->read(*rec);
                if (!inflated)
                    return R::failure(inflated.error());
                it = inflatedRecords.insert(t.recordName, std::make_shared<const std::vector<std::byte>>(std::move(inflated->owned)));
            }
            t.inPlace = false;
            t.inflated = *it;
        }
        out.push_back(std::move(t));
    }
    return out;
}

Result<PtTensor> readPtTensor(const std::byte *data, std::uint64_t size, const QString &path)
{
    using R = Result<PtTensor>;
    auto all = readPtTensors(data, size);
    if (!all)
        return R::failure(all.error());
    if (path.isEmpty()) {
        if (all->size() != 1)
            return R::failure(QStringLiteral("holds %1 tensors; expected one").arg(all->size()));
        return std::move(all->front());
    }
    for (PtTensor &t : *all)
        if (t.path == path)
            return std::move(t);
    return R::failure(QStringLiteral("has no tensor `%1`").arg(path));
}

Result<PtTensor> readPtTensor(const MappedFile &file, const QString &path)
{
    auto t = readPtTensor(file.data(), file.size(), path);
    if (!t)
        return t.error().about(file.path());
    return t;
}

} // namespace ds
