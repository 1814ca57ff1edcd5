#pragma once

#include "tensor/shape.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <vector>

// The wire format between DumpScope and its HDF5 worker (dumpscope-h5worker, h5workermain.h).
// Both ends are built from the same sources; the worker is started with
// `dumpscope-h5worker --h5-worker <kProtocolVersion>` and these descriptors:
//   0  /dev/null    1  /dev/null    2  the parent's stderr (sanitizer reports)
//   3  one end of a Unix stream socket pair: frames both ways (a pipe in each direction that
//      can also carry a descriptor: a load's tensor memory comes with its Go frame)
// Everything else is closed. A frame is a one-byte tag, the payload length as a uint64 (host
// order: both ends run on one machine) and the payload. Payloads are QDataStream texts; every
// count in them is checked against the bytes that are left. A worker serves one request after
// another (the parent may keep it for the next job) until its socket closes.
namespace ds::h5 {

inline constexpr int kChannelFd = 3;
inline constexpr quint16 kProtocolVersion = 1;
inline constexpr char kWorkerArgument[] = "--h5-worker";
inline constexpr char kWorkerName[] = "dumpscope-h5worker";

enum class FrameTag : char {
    Request = 'Q',  ///< parent -> worker: the job (Request)
    Go = 'G',       ///< parent -> worker: a load's go-ahead (quint64 bytes) with the tensor's memory (a sealed memfd)
    Progress = 'P', ///< worker -> parent: qint32 permille
    Answer = 'R',   ///< worker -> parent: the answer to the request or to Go
};

inline constexpr std::uint64_t kFrameHeaderBytes = 1 + sizeof(std::uint64_t);
/// Largest request the worker accepts (paths and group lists; the echo test sends 12 MiB).
inline constexpr std::uint64_t kMaxRequestBytes = 64ull << 20;

QByteArray frame(FrameTag tag, const QByteArray &payload);

/// Splits a byte stream into frames without trusting announced lengths: a payload is only
/// kept once all of it has arrived, and a length over the caller's limit is an error at once.
class FrameReader
{
public:
    struct Frame
    {
        FrameTag tag;
        QByteArray payload;
    };
    enum class Status { NeedMore, Ready, Garbled };
    enum class Direction { ToWorker, ToParent };

    void append(const char *data, qsizetype size) { m_buf.append(data, size); }
    /// The next whole frame, if any. A tag of the other direction, a Progress payload that is
    /// not 4 bytes, a Go payload that is not 8 and a Request or Answer announcing more than
    /// `maxPayload` bytes are Garbled as soon as the header is here.
    Status next(Frame &out, Direction direction, std::uint64_t maxPayload);
    /// Bytes received and not yet returned as frames.
    qsizetype pending() const { return m_buf.size() - m_pos; }

private:
    QByteArray m_buf;
    qsizetype m_pos = 0;
};

/// Ways to make a worker misbehave on purpose, for tests (h5::setWorkerFaultForTesting).
/// Product code never sets one; the worker applies it when the request arrives (or, with
/// `atGo`, when a load's go-ahead arrives).
struct Fault
{
    enum class Kind : quint8 {
        None,
        Signal,         ///< raise(value) with the default action
        Exit,           ///< _exit(value) without an answer (0: the answer just never comes)
        Sleep,          ///< sleep value seconds without a word, then go on
        Throw,          ///< throw an exception (exit code 2)
        Garble,         ///< send a frame with an unknown tag first
        HugeAnswer,     ///< announce an answer of 2^62 bytes, send 16 of them, exit 0
        LieSize,        ///< a load's probe answers `value` bytes more than the real size (2^62 for 0)
        ResizeData,     ///< try to shrink and grow the tensor memory (the seals must refuse), go on
    };
    Kind kind = Kind::None;
    qint32 value = 0;
    bool atGo = false;
    bool operator==(const Fault &) const = default;
};

enum class RequestKind : quint8 { Index = 1, Load = 2, Export = 3, Echo = 4 };

/// Index a dumper .h5 file (answer: encodePart() of indexFileInProcess()).
struct IndexRequest
{
    QString rootDir, relPath;
};

/// Open one dataset and check it against its record and the file (answer: LoadAnswer with the
/// byte count), then, after Go, read it into the memory that came with Go (answer: LoadAnswer).
struct LoadRequest
{
    QString path;     ///< absolute path of the .h5 file
    QString dataFile; ///< the file relative to the dump (error texts)
    QString location; ///< dataset path inside the file
    std::uint64_t fileSize = 0;
    Shape shape;
    qint32 dataType = 0;
    std::uint64_t chunkBytes = 8u << 20;
};

/// Copy `/{op}/{seqId}` groups of source files into a new .h5 file at `outPath` (answer:
/// ExportAnswer).
struct ExportSource
{
    QString path, dataFile;
    QStringList groups;
};
struct ExportRequest
{
    QString outPath;
    std::vector<ExportSource> sources;
};

/// Tests and benchmarks: report `progress` (waiting `stepMs` before each value), then answer
/// EchoAnswer with `payload`.
struct EchoRequest
{
    QByteArray payload;
    QList<qint32> progress;
    qint32 stepMs = 0;
};

struct Request
{
    RequestKind kind = RequestKind::Echo;
    Fault fault;
    IndexRequest index;
    LoadRequest load;
    ExportRequest exportJob;
    EchoRequest echo;
};

QByteArray encodeRequest(const Request &request);
std::optional<Request> decodeRequest(const QByteArray &bytes);

/// A load's answers: an error text (empty when fine) and a byte count.
struct LoadAnswer
{
    QString error;
    std::uint64_t bytes = 0;
};
QByteArray encodeLoadAnswer(const LoadAnswer &a);
std::optional<LoadAnswer> decodeLoadAnswer(const QByteArray &bytes);

struct ExportAnswer
{
    QString error;
    qint32 written = 0;
};
QByteArray encodeExportAnswer(const ExportAnswer &a);
std::optional<ExportAnswer> decodeExportAnswer(const QByteArray &bytes);

/// What the worker tells about itself with an echo: its pid, its executable, the file
/// descriptors it has open (tests check that it holds nothing but 0-3) and how many requests
/// it served before this one.
struct EchoAnswer
{
    qint64 pid = 0;
    QString executable;
    QList<qint32> openFds;
    qint32 served = 0;
    QByteArray payload;
};
QByteArray encodeEchoAnswer(const EchoAnswer &a);
std::optional<EchoAnswer> decodeEchoAnswer(const QByteArray &bytes);

} // namespace ds::h5
