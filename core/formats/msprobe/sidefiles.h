#pragma once

// What the msprobe reader needs for a rank directory's side files (stack.json, construct.json)
// at 1,024 ranks x 100 steps (issue 35, item 3): the ranks of a run write the same side files
// byte for byte, so a file is read in one open and read and parsed once per thread (the parse
// keyed by its bytes, never by its path); and the twin names of the stack and parent rules in
// UTF-8, without a regular expression or a QString per operator.

#include <QString>

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ds::msprobe {

/// How reading a whole small file went.
enum class SmallFile { Read, Missing, Failed };

/// The whole of `path` into `out` in one open, one fstat and one read (two for a file that grows
/// meanwhile): Missing when there is no such file (ENOENT), Failed for anything else (a folder,
/// no permission, a read error), which callers report through QFile as before.
SmallFile readSmallFile(const QString &path, std::string &out);
/// The same for `name` in the folder open as `dirFd` (openat: a lookup of one name instead of
/// the whole path; AT_FDCWD: `name` is a path). A file of more than `maxBytes` is Failed, not
/// read (callers read big files their own way).
SmallFile readSmallFileAt(int dirFd, const char *name, std::string &out, size_t maxBytes = size_t(-1));

/// A folder open for openat() (O_PATH: no read permission needed), closed with this object;
/// fd() is -1 when it could not be opened (callers then go by path).
class FolderFd
{
public:
    explicit FolderFd(const QString &path);
    ~FolderFd();
    FolderFd(const FolderFd &) = delete;
    FolderFd &operator=(const FolderFd &) = delete;
    int fd() const { return m_fd; }
    explicit operator bool() const { return m_fd >= 0; }

private:
    int m_fd = -1;
};

/// forwardTwin() of a UTF-8 name: `X.n.backward` -> `X.n.forward`, `P.backward.n` ->
/// `P.forward.n` (`\.backward\.(\d+)$` as QRegularExpression reads it: ASCII digits, `$` also
/// before a final newline, which the twin drops); empty for other names.
std::string forwardTwinUtf8(std::string_view entry);
/// The inverse: `X.forward` -> `X.backward`, `P.forward.n` -> `P.backward.n`; empty otherwise.
std::string backwardTwinUtf8(std::string_view entry);

/// Parses of small files shared by identical bytes: get(bytes, parse) returns the parse of an
/// earlier file with exactly these bytes (compared, not only hashed), else parse(bytes), kept.
/// Bounded: at most `maxEntries` files of at most `maxFileBytes` each are kept (a bigger file is
/// parsed and not kept; a full cache is emptied), so a thread keeps at most their product.
template<typename T>
class ParsedFileCache
{
public:
    explicit ParsedFileCache(size_t maxEntries = 32, size_t maxFileBytes = size_t(1) << 20)
        : m_maxEntries(maxEntries), m_maxFileBytes(maxFileBytes)
    {
    }

    template<typename Parse>
    std::shared_ptr<const T> get(const std::string &bytes, Parse &&parse)
    {
        if (bytes.size() > m_maxFileBytes)
            return std::make_shared<const T>(parse(bytes));
        if (auto it = m_entries.find(bytes); it != m_entries.end()) {
            ++m_hits;
            return it->second;
        }
        if (m_entries.size() >= m_maxEntries)
            m_entries.clear();
        auto value = std::make_shared<const T>(parse(bytes));
        m_entries.emplace(bytes, value);
        return value;
    }
    size_t hits() const { return m_hits; }
    size_t size() const { return m_entries.size(); }

private:
    size_t m_maxEntries, m_maxFileBytes, m_hits = 0;
    std::unordered_map<std::string, std::shared_ptr<const T>> m_entries;
};

} // namespace ds::msprobe
