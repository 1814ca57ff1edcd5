#include "fastjsonsax.h"

#include "io/openfile.h"

#include <QFile>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <future>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace ds::msprobe {

namespace {
using fastjson_detail::kBlock;
constexpr size_t kSimdPadding = 1 + 16; ///< the NUL and 16 zeroed bytes

constexpr size_t kDirectAlign = 4096;
constexpr size_t kDirectBuffer = size_t(16) << 20;
constexpr std::uint64_t kDirectSlack = std::uint64_t(1) << 20; ///< read ahead past the limit
constexpr size_t kDirectFirst = size_t(256) << 10; ///< the read after a seek
constexpr size_t kDirectPrivate = size_t(4) << 20; ///< a shared stream's reader reading itself
std::atomic<int> g_directOpen{0}, g_directPeak{0};
void directOpened()
{
    const int now = ++g_directOpen;
    int peak = g_directPeak;
    while (now > peak && !g_directPeak.compare_exchange_weak(peak, now)) {
    }
}
/// DS_DIRECT_READ=never|always (benchmarks, tests); unset or anything else: auto (see fastjson.h).
DirectRead directReadFromEnvironment()
{
    const QByteArray v = qgetenv("DS_DIRECT_READ");
    return v == "never" ? DirectRead::Never : v == "always" ? DirectRead::Always : DirectRead::Auto;
}
std::atomic<DirectRead> g_directRead{directReadFromEnvironment()};

/// At least half of 64 pages spread over the file are in the page cache (mincore() of a
/// mapping that is never touched: a file that shrinks meanwhile cannot fault it).
bool mostlyCached(int fd, std::uint64_t size)
{
    void *map = ::mmap(nullptr, size_t(size), PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        return true;
    const std::uint64_t pages = (size + kDirectAlign - 1) / kDirectAlign;
    constexpr int kSamples = 64;
    int resident = 0;
    for (int i = 0; i < kSamples; ++i) {
        unsigned char in = 0;
        const std::uint64_t page = pages * std::uint64_t(i) / kSamples;
        if (::mincore(static_cast<char *>(map) + page * kDirectAlign, kDirectAlign, &in) == 0 && (in & 1))
            ++resident;
    }
    ::munmap(map, size_t(size));
    return resident * 2 >= kSamples;
}

bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/// TreeBuilder with the reset() parseSax calls.
class TreeSax : public TreeBuilder
{
public:
    JsonTree *tree = nullptr;
    void reset() { TreeBuilder::reset(*tree); }
};
} // namespace

void setDirectRead(DirectRead mode) { g_directRead = mode; }
DirectRead directRead() { return g_directRead; }
int directReadPeak() { return g_directPeak; }
void resetDirectReadPeak() { g_directPeak = g_directOpen.load(); }

void FastJsonReader::FreeDeleter::operator()(char *p) const { std::free(p); }

FastJsonReader::FastJsonReader() = default;
FastJsonReader::~FastJsonReader() { closeDirect(); }

void FastJsonReader::closeDirect()
{
    if (m_aheadRead.valid())
        m_aheadRead.wait();
    m_aheadRead = {};
    if (m_stream) {
        m_block.reset();
        m_stream->detach(m_parser); // (its descriptor is the stream's)
        m_stream.reset();
        m_parser = -1;
    } else if (m_directFd >= 0) {
        ::close(m_directFd);
        --g_directOpen;
    }
    m_directFd = -1;
    m_direct.reset();
    m_ahead.reset();
    m_directLen = 0;
}

bool FastJsonReader::open(const QString &path) { return openFile(path, true); }

bool FastJsonReader::openShared(const QString &path, std::shared_ptr<ds::DirectStream> stream, int parser)
{
    if (!openFile(path, false))
        return false;
    if (stream && m_size > 0)
        attach(std::move(stream), parser);
    return true;
}

void FastJsonReader::attach(std::shared_ptr<ds::DirectStream> stream, int parser)
{
    m_stream = std::move(stream);
    m_parser = parser;
    m_directFd = m_stream->fd();
}

std::shared_ptr<ds::DirectStream> FastJsonReader::shareDirect(std::vector<ds::DirectStream::Range> ranges, int parsers)
{
    if (m_directFd < 0 || m_stream)
        return nullptr;
    // The stream goes on from the end of this reader's current block (its read ahead dropped).
    if (m_aheadRead.valid())
        m_aheadRead.wait();
    m_aheadRead = {};
    m_ahead.reset();
    // This reader's bytes up to the end of its current block are read; the other parsers' may
    // start before it (small files, tests): the stream starts at the first byte still wanted.
    const std::uint64_t readTo = m_directLen ? m_directAt + m_directLen : 0;
    std::uint64_t from = readTo;
    std::vector<ds::DirectStream::Range> wanted;
    for (ds::DirectStream::Range r : ranges) {
        if (r.parser == 0)
            r.start = std::max(r.start, readTo);
        if (r.start >= r.end)
            continue;
        from = std::min(from, r.start);
        wanted.push_back(r);
    }
    auto *s = new ds::DirectStream(m_directFd, m_size, from, std::move(wanted), parsers, kDirectSlack);
    std::shared_ptr<ds::DirectStream> stream(s, [](ds::DirectStream *p) {
        delete p; // closes the descriptor this reader opened
        --g_directOpen;
    });
    attach(stream, 0);
    return stream;
}

bool FastJsonReader::openFile(const QString &path, bool mayReadDirect)
{
    auto file = std::make_unique<QFile>(path);
    if (!openRegularFile(*file, QIODevice::Unbuffered, m_error))
        return false;
    m_path = path;
    m_size = std::uint64_t(file->size());
    m_file = std::move(file);
    m_base = m_len = m_pos = 0;
    m_eof = m_size == 0;
    closeDirect();
    const DirectRead mode = directRead();
    if (m_size > 0 && mayReadDirect
        && (mode == DirectRead::Always
            || (mode == DirectRead::Auto && m_size >= kDirectReadMin && !mostlyCached(m_file->handle(), m_size)))) {
        m_directFd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_DIRECT | O_CLOEXEC);
        if (m_directFd >= 0) {
            directOpened();
            m_direct.reset(static_cast<char *>(std::aligned_alloc(kDirectAlign, kDirectBuffer)));
            m_ahead.reset(static_cast<char *>(std::aligned_alloc(kDirectAlign, kDirectBuffer)));
            if (!m_direct || !m_ahead)
                closeDirect();
        }
    }
    return true;
}

size_t FastJsonReader::readDirect(char *dst, size_t len, std::uint64_t at)
{
    size_t n = 0;
    while (n < len && m_directFd >= 0) {
        const std::uint64_t from = at + n;
        if (from < m_directAt || from >= m_directAt + m_directLen) {
            // The aligned bytes from `from` on (fewer at the end of the file).
            const std::uint64_t start = from & ~std::uint64_t(kDirectAlign - 1);
            if (m_stream) {
                // The shared stream's block, or (not coming for this reader) a read of its own.
                m_block = m_stream->block(m_parser, from);
                if (m_block) {
                    m_directAt = m_block->at;
                    m_directLen = m_block->len;
                    continue;
                }
                const size_t wanted = std::min(kDirectPrivate, ds::DirectStream::blockBytes());
                if (!m_direct)
                    m_direct.reset(static_cast<char *>(std::aligned_alloc(kDirectAlign, kDirectPrivate)));
                const ssize_t got = m_direct ? ::pread(m_directFd, m_direct.get(), wanted, off_t(start)) : -1;
                m_stream->noteOwnRead(size_t(std::max<ssize_t>(got, 0)));
                if (got < 0) {
                    closeDirect(); // the rest through the page cache
                    break;
                }
                m_directAt = start;
                m_directLen = size_t(got);
                if (from >= m_directAt + m_directLen)
                    break; // the end of the file
                continue;
            }
            ssize_t got = -1;
            if (m_aheadRead.valid()) {
                // The read ahead: taken when it is the one wanted (reading on), else dropped (a seek).
                const ssize_t ahead = m_aheadRead.get();
                if (m_aheadAt == start && ahead >= 0) {
                    std::swap(m_direct, m_ahead);
                    got = ahead;
                }
            }
            size_t wanted = m_aheadLen;
            if (got < 0) {
                // Not read ahead (the first read, a seek): a short read to wait less.
                wanted = std::min(kDirectFirst, ds::DirectStream::blockBytes()); // (smaller: tests)
                got = ::pread(m_directFd, m_direct.get(), wanted, off_t(start));
            }
            const std::uint64_t next = start + wanted;
            if (got == ssize_t(wanted) && next < m_size) {
                // The next bytes are read while these are parsed (O_DIRECT has no kernel
                // read-ahead): 16 MiB (the block layer splits it into requests served in
                // parallel), no further than just past the limit while it is ahead.
                std::uint64_t end = std::min<std::uint64_t>(m_size, next + std::min(kDirectBuffer, ds::DirectStream::blockBytes()));
                const std::uint64_t limit = m_aheadLimit + std::min(kDirectSlack, ~std::uint64_t(0) - m_aheadLimit);
                if (next < limit)
                    end = std::min(end, limit);
                m_aheadAt = next;
                m_aheadLen = size_t((end - next + kDirectAlign - 1) & ~std::uint64_t(kDirectAlign - 1));
                m_aheadRead = std::async(std::launch::async, [fd = m_directFd, buf = m_ahead.get(), at = next, len = m_aheadLen] {
                    return ::pread(fd, buf, len, off_t(at));
                });
            }
            if (got < 0) {
                closeDirect(); // the rest through the page cache
                break;
            }
            m_directAt = start;
            m_directLen = size_t(got);
            if (from >= m_directAt + m_directLen)
                break; // the end of the file
        }
        const size_t skip = size_t(from - m_directAt);
        const size_t take = std::min(m_directLen - skip, len - n);
        std::memcpy(dst + n, (m_block ? m_block->data : m_direct.get()) + skip, take);
        n += take;
    }
    return n;
}

size_t FastJsonReader::readAt(char *dst, size_t len, std::uint64_t at)
{
    size_t n = m_directFd >= 0 ? readDirect(dst, len, at) : 0;
    if (n == len || m_directFd >= 0)
        return n; // all of it, or the end of the file
    const int fd = m_file->handle();
    while (n < len) {
        const ssize_t got = ::pread(fd, dst + n, len - n, off_t(at + n));
        if (got <= 0)
            break; // read error or a file that shrank: the input ends here
        n += size_t(got);
    }
    return n;
}

void FastJsonReader::setData(std::string data)
{
    m_data = std::move(data);
    setView(m_data);
}

void FastJsonReader::setView(std::string_view data)
{
    closeDirect();
    m_file.reset();
    m_path.clear();
    m_view = data;
    m_size = m_view.size();
    m_base = m_len = m_pos = 0;
    m_eof = m_size == 0;
}

void FastJsonReader::load(std::uint64_t at, size_t want)
{
    at = std::min(at, m_size);
    const std::uint64_t left = m_size - at;
    // Files are read a block at a time; text in memory is taken whole.
    size_t cap = m_file ? std::max({m_cap, want, kBlock}) : size_t(left);
    cap = size_t(std::min<std::uint64_t>(cap, std::max<std::uint64_t>(left, 1)));
    if (cap > m_cap || !m_buf) {
        // Grown buffers stay: one entry larger than a block is likely followed by others.
        // The terminating NUL RapidJSON's in-situ parse stops at, then zeroed padding (kept from
        // when RapidJSON's SSE2 scanners, which read up to 15 bytes past the NUL, were used).
        m_buf = std::make_unique<char[]>(cap + kSimdPadding);
        m_cap = cap;
    }
    size_t n = 0;
    if (m_file) {
        n = readAt(m_buf.get(), size_t(std::min<std::uint64_t>(cap, left)), at);
    } else {
        n = size_t(std::min<std::uint64_t>(cap, left));
        std::memcpy(m_buf.get(), m_view.data() + at, n);
    }
    m_buf[n] = 0;
    m_base = at;
    m_len = n;
    m_pos = 0;
    m_eof = at + n >= m_size || n < cap;
}

void FastJsonReader::slide()
{
    const size_t keep = m_len - m_pos;
    std::memmove(m_buf.get(), m_buf.get() + m_pos, keep);
    m_base += m_pos;
    m_pos = 0;
    m_len = keep;
    size_t n = 0;
    const std::uint64_t at = m_base + keep;
    if (m_file) {
        if (at < m_size)
            n = readAt(m_buf.get() + keep, size_t(std::min<std::uint64_t>(m_cap - keep, m_size - at)), at);
    } else if (at < m_view.size()) {
        n = size_t(std::min<std::uint64_t>(m_cap - keep, m_view.size() - at));
        std::memcpy(m_buf.get() + keep, m_view.data() + at, n);
    }
    m_len = keep + n;
    m_buf[m_len] = 0;
    m_eof = m_base + m_len >= m_size || keep + n < m_cap;
}

int FastJsonReader::skipWhiteSpace()
{
    for (;;) {
        const char *b = m_buf.get();
        while (m_pos < m_len && isSpace(b[m_pos]))
            ++m_pos;
        if (m_pos < m_len)
            return static_cast<unsigned char>(b[m_pos]);
        if (m_eof)
            return -1;
        load(m_base + m_pos, 1);
    }
}

int FastJsonReader::peekToken()
{
    if (!m_buf && !m_eof)
        load(0, 1);
    return m_buf ? skipWhiteSpace() : -1;
}

bool FastJsonReader::expect(char c)
{
    const std::uint64_t start = offset();
    if (peekToken() == static_cast<unsigned char>(c)) {
        ++m_pos;
        return true;
    }
    return viaTokenizer(start, [c](JsonStreamReader &r) { return r.expect(c); });
}

int FastJsonReader::nextMember(std::string &key, bool &first)
{
    const std::uint64_t start = offset();
    const bool wasFirst = first;
    auto slow = [&] {
        bool f = wasFirst;
        const int r = viaTokenizer(start, [&](JsonStreamReader &t) { return t.nextMember(key, f); });
        first = f;
        return r;
    };
    int c = peekToken();
    if (c == '}') {
        ++m_pos;
        return 0;
    }
    if (!first) {
        if (c != ',')
            return slow();
        ++m_pos;
        c = skipWhiteSpace();
    }
    if (c != '"')
        return slow();
    // A plain name (no escape) inside the buffer; anything else is the tokenizer's.
    for (;;) {
        const char *b = m_buf.get();
        size_t q = m_pos + 1;
        while (q < m_len && b[q] != '"' && b[q] != '\\' && static_cast<unsigned char>(b[q]) >= 0x20)
            ++q;
        if (q < m_len) {
            if (b[q] != '"')
                return slow();
            key.assign(b + m_pos + 1, q - m_pos - 1);
            m_pos = q + 1;
            break;
        }
        if (m_eof)
            return slow();
        load(m_base + m_pos, (m_len - m_pos) * 2 + 64);
    }
    if (skipWhiteSpace() != ':')
        return slow();
    ++m_pos;
    first = false;
    return 1;
}

std::string FastJsonReader::memberIndent()
{
    if (peekToken() != '"')
        return {};
    const char *b = m_buf.get();
    size_t i = m_pos;
    while (i > 0 && (b[i - 1] == ' ' || b[i - 1] == '\t'))
        --i;
    if (i == 0 || b[i - 1] != '\n')
        return {};
    return std::string(b + i - 1, m_pos - i + 1);
}

bool FastJsonReader::openMemberWindow(bool first, std::string_view closing, size_t maxBytes, MemberWindow &w)
{
    constexpr size_t kPadding = 64; // SIMDJSON_PADDING: readable bytes after the document
    if (closing.empty() || peekToken() < 0)
        return false;
    // Slid (the rest moved to the front, refilled) only when a window of maxBytes might not fit.
    if (!m_eof && m_len - m_pos < std::min(std::min(m_cap, kBlock) / 4, 2 * maxBytes + kPadding))
        slide();
    const int c = peekToken();
    if (c != (first ? '"' : ',') || (first && m_pos == 0))
        return false;
    char *b = m_buf.get();
    char *openAt = b + (first ? m_pos - 1 : m_pos);
    // The last `closing` that ends before the limit: the ',' after it closes the window.
    const size_t limit = std::min(m_len - std::min(m_len, kPadding + 1), size_t(openAt - b) + maxBytes);
    char *closeAt = nullptr;
    for (size_t end = limit; end > size_t(openAt - b) + closing.size();) {
        const void *nl = memrchr(openAt + 1, '\n', end - size_t(openAt + 1 - b));
        if (!nl)
            break;
        const char *p = static_cast<const char *>(nl);
        if (size_t(p - b) + closing.size() <= limit && std::memcmp(p, closing.data(), closing.size()) == 0) {
            closeAt = b + (p - b) + closing.size() - 1;
            break;
        }
        end = size_t(p - b);
    }
    if (!closeAt)
        return false;
    w.start = b + m_pos;
    w.openAt = openAt;
    w.closeAt = closeAt;
    w.open = *openAt;
    w.close = *closeAt;
    *openAt = '{';
    *closeAt = '}';
    w.doc = openAt;
    w.len = size_t(closeAt - openAt) + 1;
    w.capacity = m_len - size_t(openAt - b);
    return true;
}

void FastJsonReader::closeMemberWindow(const MemberWindow &w, const char *resume)
{
    *w.openAt = w.open;
    *w.closeAt = w.close;
    m_pos = size_t(resume - m_buf.get());
}

bool FastJsonReader::parseValue(JsonTree &tree)
{
    thread_local TreeSax builder;
    builder.tree = &tree;
    bool viaTree = false;
    return parseSax(builder, tree, viaTree);
}

} // namespace ds::msprobe
