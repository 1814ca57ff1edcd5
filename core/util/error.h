#pragma once

#include <QString>
#include <cstdint>
#include <optional>

namespace ds {

/// What went wrong, for code that reacts differently (skip, retry, report, stop quietly).
enum class ErrorKind : std::uint8_t {
    Corrupt,      ///< malformed content: bad magic, bad header, sizes that do not add up
    NotFound,     ///< the path does not exist
    Access,       ///< the OS refused to open or read it (permission denied, I/O error)
    Truncated,    ///< the file ends before what its header declares
    Unsupported,  ///< valid data DumpScope does not decode (data type, layout, version)
    Unsafe,       ///< refused for safety: a pickle global outside the allowlist, a size beyond the file
    Changed,      ///< the file changed since it was indexed
    NoData,       ///< the record has no tensor data (statistics only, or a non-tensor value)
    ReaderFailed, ///< an isolated reader process crashed, hung or sent garbage
    Usage,        ///< a bad request: unknown tensor id, output inside the opened dump, existing file
    Cancelled,    ///< the user cancelled; not a problem with any file
};

/// The word used for a kind in JSON ("corrupt", "not_found", ...).
const char *errorKindName(ErrorKind kind);

/// Marks a job that stopped because it was cancelled (`return Cancelled{};`).
struct Cancelled
{
};

/// A structured problem: what kind, which file, and in words. `message` does not repeat the
/// file; text() joins them the way the CLI and the GUI print them.
struct Error
{
    QString file;    ///< path relative to the opened root (or absolute if outside); may be empty
    QString message; ///< human readable, names the problem
    std::uint64_t offset = 0;
    ErrorKind kind = ErrorKind::Corrupt;

    Error() = default;
    Error(QString file, QString message, std::uint64_t offset = 0, ErrorKind kind = ErrorKind::Corrupt)
        : file(std::move(file)), message(std::move(message)), offset(offset), kind(kind)
    {
    }
    Error(ErrorKind kind, QString file, QString message) : Error(std::move(file), std::move(message), 0, kind) {}
    Error(Cancelled) : message(QStringLiteral("cancelled")), kind(ErrorKind::Cancelled) {}

    /// "file: message", or the message alone when there is no file.
    QString text() const { return file.isEmpty() ? message : file + QStringLiteral(": ") + message; }
    /// The same error about `newFile` (a reader's error re-attributed to the path the user knows).
    Error about(const QString &newFile) const
    {
        Error e = *this;
        e.file = newFile;
        return e;
    }
    /// The same error with `context` before the message ("data.pkl: <message>").
    Error within(const QString &context) const
    {
        Error e = *this;
        e.message = context + QStringLiteral(": ") + message;
        return e;
    }
    bool operator==(const Error &) const = default;
};

/// Problems with files found while indexing: one bad file never stops the rest.
using FileError = Error;

/// Value-or-error result used by readers and loaders.
template<typename T>
class Result
{
public:
    Result(T value) : m_value(std::move(value)) {}
    Result(Error error) : m_error(std::move(error)) {}
    Result(Cancelled c) : m_error(c) {}
    /// An error that is about no particular file, or whose message already names it.
    static Result failure(QString message, ErrorKind kind = ErrorKind::Corrupt)
    {
        return Result(Error(kind, QString(), std::move(message)));
    }
    static Result failure(Error error) { return Result(std::move(error)); }
    static Result failure(ErrorKind kind, QString file, QString message)
    {
        return Result(Error(kind, std::move(file), std::move(message)));
    }

    bool ok() const { return m_value.has_value(); }
    explicit operator bool() const { return ok(); }
    bool isCancelled() const { return !ok() && m_error.kind == ErrorKind::Cancelled; }
    const T &value() const { return *m_value; }
    T &value() { return *m_value; }
    const T &operator*() const { return *m_value; }
    T &operator*() { return *m_value; }
    const T *operator->() const { return &*m_value; }
    T *operator->() { return &*m_value; }
    const Error &error() const { return m_error; }
    /// error().text(): what to show a person.
    QString errorText() const { return m_error.text(); }

private:
    std::optional<T> m_value;
    Error m_error;
};

} // namespace ds
