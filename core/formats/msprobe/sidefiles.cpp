#include "sidefiles.h"

#include <QFile>

#include <cerrno>
#include <cstdint>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ds::msprobe {

SmallFile readSmallFile(const QString &path, std::string &out)
{
    return readSmallFileAt(AT_FDCWD, QFile::encodeName(path).constData(), out);
}

SmallFile readSmallFileAt(int dirFd, const char *name, std::string &out, size_t maxBytes)
{
    out.clear();
    // O_NONBLOCK: a FIFO carrying the name must not wait for a writer (fstat refuses it).
    const int fd = ::openat(dirFd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return errno == ENOENT ? SmallFile::Missing : SmallFile::Failed;
    struct stat st{};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || std::uint64_t(st.st_size) > maxBytes) {
        ::close(fd);
        return SmallFile::Failed;
    }
    // One byte more than the size: a short read says the end was reached in one call.
    out.resize(size_t(st.st_size) + 1);
    size_t got = 0;
    for (;;) {
        const ssize_t n = ::read(fd, out.data() + got, out.size() - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            ::close(fd);
            out.clear();
            return SmallFile::Failed;
        }
        got += size_t(n);
        if (n == 0 || got < out.size())
            break;
        out.resize(out.size() * 2); // the file grew while it was read
    }
    ::close(fd);
    out.resize(got);
    return SmallFile::Read;
}

FolderFd::FolderFd(const QString &path)
    : m_fd(::open(QFile::encodeName(path).constData(), O_PATH | O_DIRECTORY | O_CLOEXEC))
{
}

FolderFd::~FolderFd()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

namespace {

bool endsWith(std::string_view s, std::string_view tail)
{
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

/// `<prefix>.<from>.<digits>` (`$` before an optional final newline) -> `<prefix>.<to>.<digits>`.
std::string numberedTwin(std::string_view entry, std::string_view from, std::string_view to)
{
    std::string_view s = entry;
    if (!s.empty() && s.back() == '\n')
        s.remove_suffix(1);
    size_t d = s.size();
    while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
        --d;
    if (d == s.size())
        return {};
    const std::string_view head = s.substr(0, d); // ends with ".<from>." for a match
    if (head.size() < from.size() + 2 || head.back() != '.' || !endsWith(head.substr(0, head.size() - 1), from)
        || head[head.size() - 2 - from.size()] != '.')
        return {};
    std::string out(head.substr(0, head.size() - 1 - from.size()));
    out.append(to).push_back('.');
    out.append(s.substr(d));
    return out;
}

std::string twin(std::string_view entry, std::string_view from, std::string_view to)
{
    const std::string dotFrom = std::string(".") + std::string(from);
    if (endsWith(entry, dotFrom)) {
        std::string out(entry.substr(0, entry.size() - dotFrom.size()));
        out.push_back('.');
        out.append(to);
        return out;
    }
    return numberedTwin(entry, from, to);
}

} // namespace

std::string forwardTwinUtf8(std::string_view entry)
{
    return twin(entry, "backward", "forward");
}

std::string backwardTwinUtf8(std::string_view entry)
{
    return twin(entry, "forward", "backward");
}

} // namespace ds::msprobe
