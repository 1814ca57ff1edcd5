#include "directstream.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>

#include <QtGlobal>

#include <unistd.h>

namespace ds {

namespace {
constexpr std::size_t kDefaultBlock = std::size_t(16) << 20;
std::atomic<std::size_t> g_blockBytes{0};
std::atomic<std::uint64_t> g_started{0};
} // namespace

/// The blocks' buffers, reused; outlives the stream while a parser holds a block.
struct DirectStream::Pool
{
    std::size_t bytes = 0;
    std::mutex mutex;
    std::vector<char *> free;
    std::atomic<int> allocated{0}; ///< buffers allocated: the most blocks alive at once
    ~Pool()
    {
        for (char *p : free)
            std::free(p);
    }
    char *take()
    {
        {
            std::lock_guard lock(mutex);
            if (!free.empty()) {
                char *p = free.back();
                free.pop_back();
                return p;
            }
        }
        ++allocated;
        return static_cast<char *>(std::aligned_alloc(kAlign, bytes));
    }
    void give(char *p)
    {
        std::lock_guard lock(mutex);
        free.push_back(p);
    }
};

void DirectStream::setBlockBytes(std::size_t bytes)
{
    g_blockBytes = bytes ? (bytes + kAlign - 1) / kAlign * kAlign : 0;
}

std::size_t DirectStream::blockBytes()
{
    const std::size_t b = g_blockBytes;
    return b ? b : kDefaultBlock;
}

std::uint64_t DirectStream::started() { return g_started; }

DirectStream::DirectStream(int fd, std::uint64_t size, std::uint64_t start, std::vector<Range> ranges, int parsers,
                           std::uint64_t slack)
    : m_fd(fd)
    , m_size(size)
    , m_start(start & ~std::uint64_t(kAlign - 1))
    , m_slack(slack)
    , m_blockBytes(blockBytes())
    , m_ranges(std::move(ranges))
    , m_pool(std::make_shared<Pool>())
    , m_queues(size_t(std::max(parsers, 0)))
    , m_detached(size_t(std::max(parsers, 0)), false)
    , m_next(m_start)
{
    m_pool->bytes = m_blockBytes;
    ++g_started;
    m_thread = std::thread([this] { run(); });
}

DirectStream::~DirectStream()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_changed.notify_all();
    m_thread.join();
    m_queues.clear();
    if (qEnvironmentVariableIntValue("DS_DIRECT_STATS") == 1)
        std::fprintf(stderr, "direct stream: %llu blocks, %llu bytes, %llu stalls, %d buffers; parsers' own reads: %llu, %llu bytes\n",
                     (unsigned long long)m_blocks, (unsigned long long)m_bytes, (unsigned long long)m_stalls, m_pool->allocated.load(),
                     (unsigned long long)m_ownReads.load(), (unsigned long long)m_ownBytes.load());
    if (m_fd >= 0)
        ::close(m_fd);
}

bool DirectStream::wants(int parser, std::uint64_t from, std::uint64_t to, bool withSlack) const
{
    if (m_detached[size_t(parser)])
        return false;
    for (const Range &r : m_ranges) {
        if (r.parser != parser)
            continue;
        const std::uint64_t end = r.end + (withSlack ? std::min(m_slack, ~std::uint64_t(0) - r.end) : 0);
        if (r.start < to && from < end)
            return true;
    }
    return false;
}

bool DirectStream::heldUp() const
{
    // (the flag alone is stale while the stream has not seen the room a parser just made)
    if (!m_stalled)
        return false;
    const std::uint64_t end = std::min<std::uint64_t>(m_size, m_next + m_blockBytes);
    for (size_t p = 0; p < m_queues.size(); ++p)
        if (m_queues[p].size() >= size_t(kQueueBlocks) && wants(int(p), m_next, end, false))
            return true;
    return false;
}

void DirectStream::run()
{
    std::unique_lock lock(m_mutex);
    const int parsers = int(m_queues.size());
    std::vector<int> to;
    while (!m_stop && m_next < m_size) {
        const std::uint64_t at = m_next;
        const std::uint64_t end = std::min<std::uint64_t>(m_size, at + m_blockBytes);
        // Room in the queue of every parser that wants the block (a parser that left wants nothing).
        auto parsersWanting = [&] {
            to.clear();
            for (int p = 0; p < parsers; ++p)
                if (wants(p, at, end))
                    to.push_back(p);
        };
        // (a parser that wants the block only for the slack past its range never holds it up:
        // waiting for it would make the next range's parser read it itself)
        auto full = [&] {
            parsersWanting();
            return std::any_of(to.begin(), to.end(), [&](int p) {
                return m_queues[size_t(p)].size() >= size_t(kQueueBlocks) && wants(p, at, end, false);
            });
        };
        if (full()) {
            ++m_stalls;
            m_stalled = true;
            m_changed.notify_all(); // a parser waiting for a later block reads it itself
            m_changed.wait(lock, [&] { return m_stop || !full(); });
            m_stalled = false;
            if (m_stop)
                break;
        }
        if (to.empty()) {
            m_next = at + m_blockBytes; // nobody reads these bytes (a parser left)
            m_changed.notify_all();
            continue;
        }
        char *buf = m_pool->take();
        if (!buf)
            break;
        lock.unlock();
        const std::size_t want = std::size_t((end - at + kAlign - 1) & ~std::uint64_t(kAlign - 1));
        ssize_t got = 0;
        while (std::size_t(got) < want) {
            const ssize_t n = ::pread(m_fd, buf + got, want - std::size_t(got), off_t(at + std::uint64_t(got)));
            if (n <= 0) {
                if (n < 0 && got == 0)
                    got = -1;
                break;
            }
            got += n;
        }
        lock.lock();
        if (got <= 0) {
            m_pool->give(buf);
            break; // a read error or a file that shrank: the parsers read what is left themselves
        }
        auto *b = new Block{at, std::size_t(got), buf};
        const BlockPtr block(b, [pool = m_pool](const Block *p) {
            pool->give(p->data);
            delete p;
        });
        parsersWanting(); // (a parser may have left meanwhile)
        for (int p : to)
            m_queues[size_t(p)].push_back(block);
        m_next = at + m_blockBytes;
        ++m_blocks;
        m_bytes += std::uint64_t(got);
        m_changed.notify_all();
        if (std::size_t(got) < want)
            break; // the end of the file (it shrank)
    }
    m_done = true;
    m_changed.notify_all();
}

DirectStream::BlockPtr DirectStream::block(int parser, std::uint64_t at)
{
    if (parser < 0 || size_t(parser) >= m_queues.size())
        return nullptr;
    std::unique_lock lock(m_mutex);
    std::deque<BlockPtr> &q = m_queues[size_t(parser)];
    for (;;) {
        bool dropped = false;
        while (!q.empty() && q.front()->at + q.front()->len <= at) {
            q.pop_front(); // bytes this parser went past
            dropped = true;
        }
        if (dropped)
            m_changed.notify_all(); // room in the queue
        if (!q.empty()) {
            if (q.front()->at > at)
                return nullptr; // the block was not for this parser (or it came back to it)
            BlockPtr b = std::move(q.front());
            q.pop_front();
            m_changed.notify_all();
            return b;
        }
        // Nothing queued: wait only if the stream is on its way to this block, for this parser.
        if (m_done || heldUp() || at < m_next || at >= m_size)
            return nullptr;
        const std::uint64_t start = m_start + (at - m_start) / m_blockBytes * m_blockBytes;
        if (!wants(parser, start, std::min<std::uint64_t>(m_size, start + m_blockBytes)))
            return nullptr;
        m_changed.wait(lock);
    }
}

void DirectStream::noteOwnRead(std::size_t bytes)
{
    ++m_ownReads;
    m_ownBytes += bytes;
}

void DirectStream::detach(int parser)
{
    if (parser < 0 || size_t(parser) >= m_queues.size())
        return;
    {
        std::lock_guard lock(m_mutex);
        m_detached[size_t(parser)] = true;
        m_queues[size_t(parser)].clear();
    }
    m_changed.notify_all();
}

} // namespace ds
