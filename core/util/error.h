#pragma once

#include <QString>
#include <cstdint>
#include <optional>

namespace ds {

/// A structured problem with a file: what, where, and in words.
struct FileError
{
    QString file;    ///< path relative to the opened root (or absolute if outside)
    QString message; ///< human readable, names the problem
    std::uint64_t offset = 0;

    bool operator==(const FileError &) const = default;
};

/// Value-or-error result used by readers and loaders.
template<typename T>
class Result
{
public:
    Result(T value) : m_value(std::move(value)) {}
    static Result failure(QString message)
    {
        Result r;
        r.m_error = std::move(message);
        return r;
    }
    bool ok() const { return m_value.has_value(); }
    explicit operator bool() const { return ok(); }
    const T &value() const { return *m_value; }
    T &value() { return *m_value; }
    const T &operator*() const { return *m_value; }
    T &operator*() { return *m_value; }
    const T *operator->() const { return &*m_value; }
    T *operator->() { return &*m_value; }
    const QString &error() const { return m_error; }

private:
    Result() = default;
    std::optional<T> m_value;
    QString m_error;
};

} // namespace ds
