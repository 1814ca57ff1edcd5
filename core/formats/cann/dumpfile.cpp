#include "dumpfile.h"

#include "formats/cann/dumpdata.pb.h"
#include "io/mappedfile.h"
#include "tensor/dtype.h"

#include <QCoreApplication>
#include <QFile>

#include <algorithm>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace ds::cann {

namespace {

using R = Result<ParsedDump>;
using DumpData = ::dumpscope::cann::DumpData;
constexpr std::uint32_t kNanoMagic = 0x5A5A5A5A;
constexpr std::uint64_t kMaxHeader = std::uint64_t(1) << 30; // protobuf's own message limit is 2 GiB

template<typename ShapeMsg>
Shape toShape(const ShapeMsg &s)
{
    return Shape(s.dim().begin(), s.dim().end());
}

QString fromStd(const std::string &s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

/// Collects descriptors in payload order (inputs, outputs, buffers, workspaces).
std::vector<TensorFields> describe(const DumpData &msg)
{
    std::vector<TensorFields> out;
    out.reserve(size_t(msg.input_size() + msg.output_size() + msg.buffer_size() + msg.space_size()));
    std::uint32_t i = 0;
    for (const auto &in : msg.input()) {
        TensorFields t;
        t.io = IoKind::Input;
        t.index = i++;
        t.dataType = in.data_type();
        t.format = in.format();
        t.subFormat = in.sub_format();
        t.shape = toShape(in.shape());
        t.originalShape = toShape(in.original_shape());
        t.size = in.size();
        t.address = in.address();
        out.push_back(std::move(t));
    }
    i = 0;
    for (const auto &o : msg.output()) {
        TensorFields t;
        t.io = IoKind::Output;
        t.index = i++;
        t.dataType = o.data_type();
        t.format = o.format();
        t.subFormat = o.sub_format();
        t.shape = toShape(o.shape());
        t.originalShape = toShape(o.original_shape());
        t.size = o.size();
        t.address = o.address();
        if (o.has_original_op()) {
            t.originalOpName = fromStd(o.original_op().name());
            t.originalOutputIndex = int(o.original_op().output_index());
        }
        out.push_back(std::move(t));
    }
    i = 0;
    for (const auto &b : msg.buffer()) {
        TensorFields t;
        t.io = IoKind::Buffer;
        t.index = i++;
        t.dataType = int(DataType::UInt8);
        t.size = b.size();
        t.shape = {b.size()};
        out.push_back(std::move(t));
    }
    i = 0;
    for (const auto &w : msg.space()) {
        TensorFields t;
        t.io = IoKind::Workspace;
        t.index = i++;
        t.dataType = int(DataType::UInt8);
        t.size = w.size();
        t.shape = {w.size()};
        out.push_back(std::move(t));
    }
    return out;
}

/// Inline bytes of tensor k in payload order (legacy layout), or empty.
const std::string &inlineData(const DumpData &msg, const TensorFields &t)
{
    switch (t.io) {
    case IoKind::Input: return msg.input(int(t.index)).data();
    case IoKind::Output: return msg.output(int(t.index)).data();
    case IoKind::Buffer: return msg.buffer(int(t.index)).data();
    case IoKind::Workspace: return msg.space(int(t.index)).data();
    case IoKind::Parameter: break; // framework dumps only, never in a DumpData message
    }
    static const std::string empty;
    return empty;
}

/// A shape for a message: every dimension up to 16 of them, else the first and last few.
QString shapeText(const Shape &shape)
{
    if (shape.size() <= 16)
        return shapeToString(shape);
    QStringList dims;
    for (size_t i = 0; i < 4; ++i)
        dims << QString::number(shape[i]);
    dims << QStringLiteral("...");
    for (size_t i = shape.size() - 2; i < shape.size(); ++i)
        dims << QString::number(shape[i]);
    return QStringLiteral("[%1] (%2 dimensions)").arg(dims.join(QStringLiteral(", "))).arg(shape.size());
}

/// Bytes `count` elements of `bits` each need (sub-byte types rounded up), or nullopt when
/// that does not fit in 64 bits.
std::optional<std::uint64_t> bytesFor(std::uint64_t count, int bits)
{
    // ceil(count * bits / 8) without overflowing: (count / 8) * bits + ceil((count % 8) * bits / 8).
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    const auto b = std::uint64_t(bits);
    if (count / 8 > kMax / b)
        return std::nullopt;
    const std::uint64_t whole = count / 8 * b, rest = (count % 8 * b + 7) / 8;
    if (whole > kMax - rest)
        return std::nullopt;
    return whole + rest;
}

/// Declared shape x dtype against the declared size of every input and output (the
/// inconsistencies of a damaged or hand-edited file: the tensor is then shown flat or raw).
/// `fileSize` tells "far larger than the payload" (more than the whole file) apart.
void checkElementCounts(ParsedDump &d, std::uint64_t fileSize)
{
    for (const auto &t : d.tensors) {
        if (t.io != IoKind::Input && t.io != IoKind::Output)
            continue;
        const DataTypeInfo &info = dataTypeInfo(t.dataType);
        if (info.elem == Elem::None || info.bits == 0)
            continue; // undecoded types are shown as raw bytes anyway
        const QString what = QStringLiteral("%1 %2").arg(ioKindName(t.io)).arg(t.index);
        if (hasDynamicDim(t.shape)) {
            d.warnings << QCoreApplication::translate("ds::CannDump", "%1: shape %2 has a dynamic (negative) dimension; its %3 bytes are shown raw")
                              .arg(what, shapeText(t.shape)).arg(t.size);
            continue;
        }
        const auto n = elementCount(t.shape);
        const auto expected = n ? bytesFor(*n, info.bits) : std::nullopt;
        if (!expected) {
            d.warnings << QCoreApplication::translate("ds::CannDump", "%1: shape %2 x %3 needs more bytes than 64 bits can count, "
                                                                      "far larger than its %4-byte payload; the payload is shown raw")
                              .arg(what, shapeText(t.shape), dataTypeName(t.dataType)).arg(t.size);
            continue;
        }
        if (*expected == t.size)
            continue;
        if (*expected > t.size && *expected > fileSize)
            d.warnings << QCoreApplication::translate("ds::CannDump", "%1: shape %2 x %3 needs %4 bytes, far larger than its %5-byte payload "
                                                                      "(the whole file has %6 bytes); only the payload is shown, flat")
                              .arg(what, shapeText(t.shape), dataTypeName(t.dataType)).arg(*expected).arg(t.size).arg(fileSize);
        else
            d.warnings << QCoreApplication::translate("ds::CannDump", "%1: shape %2 x %3 is %4 bytes but the header declares size %5")
                              .arg(what, shapeText(t.shape), dataTypeName(t.dataType)).arg(*expected).arg(t.size);
    }
}

void fillCommon(ParsedDump &d, const DumpData &msg)
{
    d.version = fromStd(msg.version());
    d.opName = fromStd(msg.op_name());
    d.dumpTime = msg.dump_time();
    d.tensors = describe(msg);
}

/// Big dump (§4.1): u64 header_len, DumpData, payload. `prefix` holds at least 8 + header_len bytes.
R parseBig(const std::byte *prefix, std::uint64_t headerLen, std::uint64_t fileSize)
{
    // One message per thread, reused: parsing clears it but keeps the repeated fields and
    // sub-messages it allocated, which saves most allocations when indexing many files.
    if (headerLen == 0)
        return R::failure(QStringLiteral("unrecognised dump file: the header length is 0"));
    thread_local DumpData msg;
    if (!msg.ParseFromArray(prefix + 8, int(headerLen)))
        return R::failure(QStringLiteral("unrecognised dump file: the %1-byte header is not a DumpData message").arg(headerLen));
    ParsedDump d;
    d.container = ContainerKind::BigDump;
    d.headerLen = headerLen;
    fillCommon(d, msg);
    std::uint64_t cursor = 8 + headerLen;
    bool truncated = false;
    for (auto &t : d.tensors) {
        const std::string &data = inlineData(msg, t);
        if (!data.empty()) { // a non-empty data field is used as is (§4.1)
            t.complete = false;
            d.warnings << QStringLiteral("%1 %2 has inline data in a big dump; it is ignored").arg(ioKindName(t.io)).arg(t.index);
            continue;
        }
        if (t.size > std::uint64_t(std::numeric_limits<std::int64_t>::max()) - cursor)
            return R::failure(QStringLiteral("corrupt size: %1 %2 declares %3 bytes").arg(ioKindName(t.io)).arg(t.index).arg(t.size), ErrorKind::Corrupt);
        t.offset = cursor;
        cursor += t.size;
        t.complete = cursor <= fileSize;
        truncated |= !t.complete;
    }
    if (truncated)
        return R::failure(ErrorKind::Truncated, QString(), QStringLiteral("truncated: the header describes %1 bytes but the file has %2")
                              .arg(cursor).arg(fileSize));
    if (cursor < fileSize)
        d.warnings << QCoreApplication::translate("ds::CannDump", "%1 bytes after the declared sizes: the header and the tensors end at byte %2, "
                                                                  "the file has %3 bytes")
                          .arg(fileSize - cursor).arg(cursor).arg(fileSize);
    checkElementCounts(d, fileSize);
    return d;
}

/// True when the message and its sub-messages have no unknown fields (guards the legacy
/// fallback against random bytes that happen to parse).
bool noUnknown(const google::protobuf::Message &m)
{
    return m.GetReflection()->GetUnknownFields(m).empty();
}

bool strictlyKnown(const DumpData &msg)
{
    if (!noUnknown(msg))
        return false;
    for (const auto &o : msg.output())
        if (!noUnknown(o) || !noUnknown(o.shape()))
            return false;
    for (const auto &i : msg.input())
        if (!noUnknown(i) || !noUnknown(i.shape()))
            return false;
    return true;
}

/// Legacy whole-protobuf layout (§4.4): tensor bytes inline.
R parseLegacy(const std::byte *data, std::uint64_t size)
{
    if (size > kMaxHeader)
        return R::failure(QStringLiteral("unrecognised dump file"));
    DumpData msg;
    if (!msg.ParseFromArray(data, int(size)) || !strictlyKnown(msg) || (msg.input_size() + msg.output_size()) == 0)
        return R::failure(QStringLiteral("unrecognised dump file"));
    bool anyData = false;
    ParsedDump d;
    d.container = ContainerKind::Legacy;
    fillCommon(d, msg);
    for (auto &t : d.tensors) {
        const std::string &bytes = inlineData(msg, t);
        anyData |= !bytes.empty();
        // Offset of the inline bytes inside the file: the message owns a copy, so locate it.
        if (!bytes.empty()) {
            const auto *hit = std::search(data, data + size, reinterpret_cast<const std::byte *>(bytes.data()),
                                          reinterpret_cast<const std::byte *>(bytes.data() + bytes.size()));
            t.offset = std::uint64_t(hit - data);
            t.complete = hit != data + size;
        } else {
            t.complete = t.size == 0;
        }
        if (t.size != bytes.size()) {
            if (t.size != 0)
                d.warnings << QStringLiteral("%1 %2: size field %3 differs from %4 inline bytes")
                                  .arg(ioKindName(t.io)).arg(t.index).arg(t.size).arg(bytes.size());
            t.size = bytes.size();
        }
    }
    if (!anyData && d.version == QLatin1String("2.0"))
        return R::failure(QStringLiteral("unrecognised dump file"));
    checkElementCounts(d, size);
    return d;
}

std::uint64_t load64(const std::byte *p)
{
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

/// parseBig() recognised the container but found it damaged (rather than "not this layout").
bool isDamagedBigDump(const Error &e) { return e.kind == ErrorKind::Truncated || e.message.startsWith(QLatin1String("corrupt")); }

QString headerTooLong(std::uint64_t h, std::uint64_t size)
{
    return QStringLiteral("unrecognised dump file: header length %1 exceeds the file size %2").arg(h).arg(size);
}

} // namespace

Result<ParsedDump> parseDump(const std::byte *data, std::uint64_t size)
{
    if (size == 0)
        return R::failure(QStringLiteral("empty file (0 bytes)"), ErrorKind::Truncated);
    if (size < 8)
        return R::failure(QStringLiteral("not a dump file: only %1 bytes").arg(size));
    if (size >= 12) {
        std::uint32_t magic;
        std::memcpy(&magic, data + 8, 4);
        if (magic == kNanoMagic)
            return R::failure(QStringLiteral("nano TLV dump files are not supported yet"), ErrorKind::Unsupported);
    }
    const std::uint64_t h = load64(data);
    if (h <= size - 8 && h <= kMaxHeader) {
        R big = parseBig(data, h, size);
        if (big.ok() || isDamagedBigDump(big.error()))
            return big;
        if (R legacy = parseLegacy(data, size); legacy.ok())
            return legacy;
        return big;
    }
    if (R legacy = parseLegacy(data, size); legacy.ok())
        return legacy;
    return R::failure(headerTooLong(h, size));
}

Result<ParsedDump> parseDumpFile(const QString &path)
{
    const QByteArray native = QFile::encodeName(path);
    // O_NONBLOCK: opening a FIFO that carries a dump name must not wait for a writer (the
    // fstat below then refuses it); it changes nothing for regular files.
    const int fd = ::open(native.constData(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        {
        const int err = errno;
        return R::failure(QStringLiteral("cannot open: %1").arg(QString::fromLocal8Bit(std::strerror(err))),
                          err == ENOENT ? ErrorKind::NotFound : ErrorKind::Access);
    }
    struct stat st{};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return R::failure(QStringLiteral("not a regular file"), ErrorKind::Unsupported);
    }
    const auto size = std::uint64_t(st.st_size);
    // One read usually brings the whole header: the first 4 KiB (or the file).
    std::byte head[4096];
    const std::uint64_t want = std::min<std::uint64_t>(size, sizeof head);
    const ssize_t got = size ? ::pread(fd, head, want, 0) : 0;
    if (got < 0 || std::uint64_t(got) < std::min<std::uint64_t>(size, 12)) {
        ::close(fd);
        return size ? R::failure(QStringLiteral("cannot read the file"), ErrorKind::Access)
                    : R::failure(QStringLiteral("empty file (0 bytes)"), ErrorKind::Truncated);
    }
    const std::uint64_t h = size >= 8 ? load64(head) : 0;
    const bool bigCandidate = size >= 12 && h <= size - 8 && h <= kMaxHeader;
    std::uint32_t magic = 0;
    if (size >= 12)
        std::memcpy(&magic, head + 8, 4);
    if (bigCandidate && magic != kNanoMagic) {
        const std::byte *prefix = head;
        std::vector<std::byte> longPrefix;
        if (8 + h > std::uint64_t(got)) { // a long header: read it whole
            longPrefix.resize(8 + h); // bounded by the file size checked above
            const ssize_t n = ::pread(fd, longPrefix.data(), longPrefix.size(), 0);
            if (n != ssize_t(longPrefix.size())) {
                ::close(fd);
                return R::failure(QStringLiteral("cannot read the header"), ErrorKind::Access);
            }
            prefix = longPrefix.data();
        }
        ::close(fd);
        R big = parseBig(prefix, h, size);
        if (big.ok() || isDamagedBigDump(big.error()))
            return big;
    } else {
        ::close(fd);
    }
    // Everything else (tiny files, nano, legacy, garbage): decide on the whole mapped file.
    auto mapped = MappedFile::open(path);
    if (!mapped)
        return R::failure(mapped.error());
    return parseDump((*mapped)->data(), (*mapped)->size());
}

} // namespace ds::cann
