#include "readahead.h"

#include "pagerelease.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace ds {

struct ReadAhead::State
{
    std::uintptr_t begin = 0, end = 0;
    std::atomic<std::uintptr_t> released{0}; ///< the end of the furthest range the pass released
    std::mutex mutex;
    std::condition_variable wake;
    bool stop = false;
    std::atomic<unsigned> sink{0};
};

namespace {

/// The live read-aheads, told by releaseMappedPages how far their passes have come.
struct Active
{
    std::mutex mutex;
    std::vector<ReadAhead::State *> states;
};

Active &activeReadAheads()
{
    static Active a;
    return a;
}

void run(ReadAhead::State &s)
{
    static const auto page = std::uintptr_t(::sysconf(_SC_PAGESIZE));
    std::uintptr_t pos = s.begin & ~(page - 1);
    while (pos < s.end) {
        {
            std::unique_lock lock(s.mutex);
            // far enough ahead: wait for the pass (it wakes us on every release), or for the end
            s.wake.wait_for(lock, std::chrono::milliseconds(50), [&] {
                return s.stop || pos < s.released.load(std::memory_order_relaxed) + ReadAhead::kWindow;
            });
            if (s.stop)
                return;
            if (pos >= s.released.load(std::memory_order_relaxed) + ReadAhead::kWindow)
                continue;
        }
        const std::uintptr_t n = std::min<std::uintptr_t>(ReadAhead::kStep, s.end - pos);
        // Starts the reads and returns (the kernel's forced read-ahead); blocks only while the
        // disk's queue is full, which is where this thread should wait.
        // touch one byte a page: the faults read the pages (the kernel's mmap read-around)
        // on this thread while the pass computes on its own
        unsigned sum = 0;
        for (std::uintptr_t p = pos; p < pos + n; p += page)
            sum += *reinterpret_cast<const volatile unsigned char *>(p);
        s.sink.fetch_add(sum, std::memory_order_relaxed);
        // and hand them back at once: they stay in the page cache for the pass (a minor fault),
        // not in this process's resident set (the pass's own bound, io/pagerelease.h, holds)
        ::madvise(reinterpret_cast<void *>(pos), size_t(n), MADV_DONTNEED);
        pos += n;
    }
}

} // namespace

void noteReleasedForReadAhead(const void *begin, std::size_t length)
{
    const auto b = reinterpret_cast<std::uintptr_t>(begin), e = b + length;
    Active &a = activeReadAheads();
    std::lock_guard lock(a.mutex);
    for (ReadAhead::State *s : a.states) {
        if (b >= s->end || e <= s->begin)
            continue;
        std::uintptr_t seen = s->released.load(std::memory_order_relaxed);
        while (e > seen && !s->released.compare_exchange_weak(seen, e, std::memory_order_relaxed)) {
        }
        s->wake.notify_one();
    }
}

ReadAhead::ReadAhead(const void *begin, std::size_t length)
{
    if (!begin || length < kMinBytes || !isMappedRange(begin, length))
        return;
    m_state = std::make_shared<State>();
    m_state->begin = reinterpret_cast<std::uintptr_t>(begin);
    m_state->end = m_state->begin + length;
    m_state->released = m_state->begin;
    {
        Active &a = activeReadAheads();
        std::lock_guard lock(a.mutex);
        a.states.push_back(m_state.get());
    }
    m_thread = std::thread([s = m_state] { run(*s); });
}

ReadAhead::~ReadAhead()
{
    if (!m_state)
        return;
    {
        Active &a = activeReadAheads();
        std::lock_guard lock(a.mutex);
        a.states.erase(std::find(a.states.begin(), a.states.end(), m_state.get()));
    }
    {
        std::lock_guard lock(m_state->mutex);
        m_state->stop = true;
    }
    m_state->wake.notify_one();
    m_thread.join();
}

} // namespace ds
