#include "mappedfile.h"
#include "pagerelease.h"

#include <QFile>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace ds {

namespace {

/// The live mappings, [begin, end) by begin. releaseMappedPages() only ever advises inside one of
/// them: MADV_DONTNEED on anonymous memory would zero it. A mapping leaves the registry
/// (exclusive lock) before it is unmapped, so an address reused by a later mmap is never
/// taken for it.
struct Registry
{
    std::shared_mutex mutex;
    std::map<std::uintptr_t, std::uintptr_t> ranges;
};

Registry &registry()
{
    static Registry r;
    return r;
}

std::uintptr_t pageSize()
{
    static const auto size = std::uintptr_t(::sysconf(_SC_PAGESIZE));
    return size;
}

} // namespace

MappedFile::~MappedFile()
{
    if (m_data && m_size) {
        {
            Registry &reg = registry();
            std::unique_lock lock(reg.mutex);
            reg.ranges.erase(reinterpret_cast<std::uintptr_t>(m_data));
        }
        ::munmap(const_cast<std::byte *>(m_data), m_size);
    }
}

Result<std::shared_ptr<const MappedFile>> MappedFile::open(const QString &path)
{
    using R = Result<std::shared_ptr<const MappedFile>>;
    const QByteArray native = QFile::encodeName(path);
    // O_NONBLOCK: a FIFO carrying a tensor's name must not wait for a writer (fstat refuses it).
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
    std::shared_ptr<MappedFile> file(new MappedFile);
    file->m_path = path;
    file->m_size = std::uint64_t(st.st_size);
    if (file->m_size > 0) {
        void *p = ::mmap(nullptr, file->m_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            const int err = errno;
            ::close(fd);
            return R::failure(QStringLiteral("cannot map: %1").arg(QString::fromLocal8Bit(std::strerror(err))), ErrorKind::Access);
        }
        file->m_data = static_cast<const std::byte *>(p);
        Registry &reg = registry();
        std::unique_lock lock(reg.mutex);
        const auto begin = reinterpret_cast<std::uintptr_t>(p);
        reg.ranges[begin] = begin + std::uintptr_t(file->m_size);
    }
    ::close(fd);
    return std::shared_ptr<const MappedFile>(std::move(file));
}

void releaseMappedPages(const void *begin, std::size_t length)
{
    if (!begin || length == 0)
        return;
    const auto b = reinterpret_cast<std::uintptr_t>(begin);
    Registry &reg = registry();
    std::shared_lock lock(reg.mutex); // held across madvise: the mapping cannot go away meanwhile
    auto it = reg.ranges.upper_bound(b);
    if (it == reg.ranges.begin())
        return;
    --it;
    const std::uintptr_t mapBegin = it->first, mapEnd = it->second;
    if (b >= mapEnd)
        return; // not inside a mapping (b >= mapBegin holds by the lookup)
    const std::uintptr_t end = b + std::min<std::uintptr_t>(length, mapEnd - b);
    const std::uintptr_t page = pageSize();
    const std::uintptr_t lo = b & ~(page - 1);                 // >= mapBegin: mappings start on a page
    const std::uintptr_t hi = (end + page - 1) & ~(page - 1);  // <= the mapping's last page end
    if (lo < mapBegin || hi <= lo)
        return;
    ::madvise(reinterpret_cast<void *>(lo), size_t(hi - lo), MADV_DONTNEED);
    noteReleasedForReadAhead(begin, size_t(end - b));
}

bool isMappedRange(const void *begin, std::size_t length)
{
    if (!begin)
        return false;
    const auto b = reinterpret_cast<std::uintptr_t>(begin);
    Registry &reg = registry();
    std::shared_lock lock(reg.mutex);
    auto it = reg.ranges.upper_bound(b);
    if (it == reg.ranges.begin())
        return false;
    --it;
    return b < it->second && length <= it->second - b;
}

bool isCachedRange(const void *begin, std::size_t length)
{
    if (!begin || length == 0)
        return false;
    const std::uintptr_t page = pageSize();
    const auto b = reinterpret_cast<std::uintptr_t>(begin);
    const std::uintptr_t lo = b & ~(page - 1), hi = (b + length + page - 1) & ~(page - 1);
    // in pieces of 8 MiB: a small vector however large the range, and an early "no"
    constexpr std::uintptr_t kPiece = std::uintptr_t(8) << 20;
    std::vector<unsigned char> vec(kPiece / page);
    for (std::uintptr_t p = lo; p < hi; p += kPiece) {
        const std::uintptr_t n = std::min(kPiece, hi - p);
        if (::mincore(reinterpret_cast<void *>(p), size_t(n), vec.data()) != 0)
            return false;
        for (std::uintptr_t i = 0; i < n / page; ++i)
            if (!(vec[i] & 1))
                return false;
    }
    return true;
}

std::int64_t mappedResidentBytes(const void *mappingBegin)
{
    if (!mappingBegin)
        return 0;
    FILE *f = std::fopen("/proc/self/smaps", "re");
    if (!f)
        return -1;
    const auto want = reinterpret_cast<std::uintptr_t>(mappingBegin);
    char line[4096];
    bool inside = false;
    std::int64_t rss = -1;
    while (std::fgets(line, sizeof line, f)) {
        std::uintptr_t from = 0, to = 0;
        char dash = 0;
        // A mapping's header line starts with "from-to " in hex; field lines with a name.
        if (std::sscanf(line, "%" SCNxPTR "%c%" SCNxPTR, &from, &dash, &to) == 3 && dash == '-') {
            inside = from == want;
            continue;
        }
        unsigned long long kb = 0;
        if (inside && std::sscanf(line, "Rss: %llu kB", &kb) == 1) {
            rss = std::int64_t(kb) * 1024;
            break;
        }
    }
    std::fclose(f);
    return rss;
}

} // namespace ds
