#include "h5protocol.h"

#include "util/checkedstream.h"

#include <QDataStream>
#include <QIODevice>

#include <algorithm>
#include <cstring>

namespace ds::h5 {

namespace {

constexpr quint32 kRequestMagic = 0x44533557; // "DS5W"

/// The exact payload size of a tag in `direction`, or `maxPayload` for variable ones; nullopt
/// for a tag that does not travel that way.
std::optional<std::uint64_t> payloadLimit(char c, FrameReader::Direction direction, std::uint64_t maxPayload)
{
    const bool toWorker = direction == FrameReader::Direction::ToWorker;
    switch (FrameTag(c)) {
    case FrameTag::Request: return toWorker ? std::optional<std::uint64_t>(maxPayload) : std::nullopt;
    case FrameTag::Go: return toWorker ? std::optional<std::uint64_t>(sizeof(quint64)) : std::nullopt;
    case FrameTag::Progress: return toWorker ? std::nullopt : std::optional<std::uint64_t>(sizeof(qint32));
    case FrameTag::Answer: return toWorker ? std::nullopt : std::optional<std::uint64_t>(maxPayload);
    }
    return std::nullopt;
}

bool fixedSize(char c) { return FrameTag(c) == FrameTag::Go || FrameTag(c) == FrameTag::Progress; }

void putInts(QDataStream &s, const QList<qint32> &list)
{
    s << quint32(list.size());
    for (qint32 x : list)
        s << x;
}

bool getInts(QDataStream &s, QList<qint32> &list)
{
    quint32 n = 0;
    if (!getCheckedCount(s, n, 4))
        return false;
    list.clear();
    for (quint32 i = 0; i < n; ++i) {
        qint32 x = 0;
        s >> x;
        list.append(x);
    }
    return s.status() == QDataStream::Ok;
}

/// Runs `read` over `bytes`; true when it succeeded and consumed every byte.
template<typename F>
bool decodeAll(const QByteArray &bytes, F read)
{
    QDataStream s(bytes);
    s.setVersion(QDataStream::Qt_6_0);
    return read(s) && s.status() == QDataStream::Ok && s.atEnd();
}

template<typename F>
QByteArray encodeWith(F write)
{
    QByteArray out;
    QDataStream s(&out, QIODevice::WriteOnly);
    s.setVersion(QDataStream::Qt_6_0);
    write(s);
    return out;
}

} // namespace

QByteArray frame(FrameTag tag, const QByteArray &payload)
{
    QByteArray out;
    out.reserve(qsizetype(kFrameHeaderBytes) + payload.size());
    out.append(char(tag));
    const std::uint64_t size = std::uint64_t(payload.size());
    out.append(reinterpret_cast<const char *>(&size), sizeof size);
    out.append(payload);
    return out;
}

FrameReader::Status FrameReader::next(Frame &out, Direction direction, std::uint64_t maxPayload)
{
    const qsizetype left = m_buf.size() - m_pos;
    if (left < 1)
        return Status::NeedMore;
    const char tag = m_buf[m_pos];
    const auto limit = payloadLimit(tag, direction, maxPayload);
    if (!limit)
        return Status::Garbled;
    if (left < qsizetype(kFrameHeaderBytes))
        return Status::NeedMore;
    std::uint64_t size = 0;
    std::memcpy(&size, m_buf.constData() + m_pos + 1, sizeof size);
    if (size > *limit || (fixedSize(tag) && size != *limit))
        return Status::Garbled; // decided on the header: nothing is allocated for it
    // Only compare with what arrived: the payload is kept once it is all here.
    if (size > std::uint64_t(left) - kFrameHeaderBytes)
        return Status::NeedMore;
    out.tag = FrameTag(tag);
    out.payload = m_buf.mid(m_pos + qsizetype(kFrameHeaderBytes), qsizetype(size));
    m_pos += qsizetype(kFrameHeaderBytes) + qsizetype(size);
    if (m_pos == m_buf.size()) {
        m_buf.clear();
        m_pos = 0;
    } else if (m_pos > (1 << 20)) {
        m_buf.remove(0, m_pos);
        m_pos = 0;
    }
    return Status::Ready;
}

QByteArray encodeRequest(const Request &r)
{
    return encodeWith([&](QDataStream &s) {
        s << kRequestMagic << kProtocolVersion << quint8(r.kind);
        s << quint8(r.fault.kind) << r.fault.value << r.fault.atGo;
        switch (r.kind) {
        case RequestKind::Index:
            s << r.index.rootDir << r.index.relPath;
            break;
        case RequestKind::Load:
            s << r.load.path << r.load.dataFile << r.load.location << quint64(r.load.fileSize);
            s << quint32(r.load.shape.size());
            for (auto d : r.load.shape)
                s << quint64(d);
            s << r.load.dataType << quint64(r.load.chunkBytes);
            break;
        case RequestKind::Export:
            s << r.exportJob.outPath << quint32(r.exportJob.sources.size());
            for (const ExportSource &src : r.exportJob.sources) {
                s << src.path << src.dataFile;
                putStringList(s, src.groups);
            }
            break;
        case RequestKind::Echo:
            s << r.echo.payload << r.echo.stepMs;
            putInts(s, r.echo.progress);
            break;
        }
    });
}

std::optional<Request> decodeRequest(const QByteArray &bytes)
{
    Request r;
    const bool ok = decodeAll(bytes, [&](QDataStream &s) {
        quint32 magic = 0;
        quint16 version = 0;
        quint8 kind = 0, faultKind = 0;
        s >> magic >> version >> kind >> faultKind >> r.fault.value >> r.fault.atGo;
        if (s.status() != QDataStream::Ok || magic != kRequestMagic || version != kProtocolVersion
            || faultKind > quint8(Fault::Kind::ResizeData))
            return false;
        r.kind = RequestKind(kind);
        r.fault.kind = Fault::Kind(faultKind);
        switch (r.kind) {
        case RequestKind::Index:
            s >> r.index.rootDir >> r.index.relPath;
            return true;
        case RequestKind::Load: {
            quint64 fileSize = 0, chunkBytes = 0;
            quint32 rank = 0;
            s >> r.load.path >> r.load.dataFile >> r.load.location >> fileSize;
            if (!getCheckedCount(s, rank, 8))
                return false;
            for (quint32 i = 0; i < rank; ++i) {
                quint64 d = 0;
                s >> d;
                r.load.shape.push_back(d);
            }
            s >> r.load.dataType >> chunkBytes;
            r.load.fileSize = fileSize;
            r.load.chunkBytes = chunkBytes;
            return true;
        }
        case RequestKind::Export: {
            quint32 n = 0;
            s >> r.exportJob.outPath;
            if (!getCheckedCount(s, n, 12))
                return false;
            for (quint32 i = 0; i < n && s.status() == QDataStream::Ok; ++i) {
                ExportSource src;
                s >> src.path >> src.dataFile;
                if (!getStringList(s, src.groups))
                    return false;
                r.exportJob.sources.push_back(std::move(src));
            }
            return true;
        }
        case RequestKind::Echo:
            s >> r.echo.payload >> r.echo.stepMs;
            return getInts(s, r.echo.progress);
        }
        return false;
    });
    return ok ? std::optional<Request>(std::move(r)) : std::nullopt;
}

QByteArray encodeLoadAnswer(const LoadAnswer &a)
{
    return encodeWith([&](QDataStream &s) { s << a.error << quint64(a.bytes); });
}

std::optional<LoadAnswer> decodeLoadAnswer(const QByteArray &bytes)
{
    LoadAnswer a;
    quint64 n = 0;
    if (!decodeAll(bytes, [&](QDataStream &s) {
            s >> a.error >> n;
            return true;
        }))
        return std::nullopt;
    a.bytes = n;
    return a;
}

QByteArray encodeExportAnswer(const ExportAnswer &a)
{
    return encodeWith([&](QDataStream &s) { s << a.error << a.written; });
}

std::optional<ExportAnswer> decodeExportAnswer(const QByteArray &bytes)
{
    ExportAnswer a;
    if (!decodeAll(bytes, [&](QDataStream &s) {
            s >> a.error >> a.written;
            return true;
        }))
        return std::nullopt;
    return a;
}

QByteArray encodeEchoAnswer(const EchoAnswer &a)
{
    return encodeWith([&](QDataStream &s) {
        s << a.pid << a.executable;
        putInts(s, a.openFds);
        s << a.served << a.payload;
    });
}

std::optional<EchoAnswer> decodeEchoAnswer(const QByteArray &bytes)
{
    EchoAnswer a;
    if (!decodeAll(bytes, [&](QDataStream &s) {
            s >> a.pid >> a.executable;
            if (!getInts(s, a.openFds))
                return false;
            s >> a.served >> a.payload;
            return true;
        }))
        return std::nullopt;
    return a;
}

} // namespace ds::h5
