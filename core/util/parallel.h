#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace ds {

/// Number of worker threads for data-parallel kernels (all cores). Asked once: each
/// hardware_concurrency() is a sched_getaffinity system call, and parallelChunks is called per
/// batch of a run (2.8 % of `info`'s CPU at 256 x 10 when asked every time).
inline unsigned workerCount()
{
    static const unsigned n = [] {
        const unsigned c = std::thread::hardware_concurrency();
        return c == 0 ? 1u : c;
    }();
    return n;
}

/// The most threads parallelChunks() uses on this thread (0: no limit). Work that already runs
/// on every core (lanes of batches, run/streamedinfo.cpp) sets 1 with ParallelLimit, so that the
/// kernels it calls neither start threads per call nor oversubscribe the cores.
inline thread_local unsigned t_parallelLimit = 0;

/// Sets t_parallelLimit for the lifetime of this object (then restores it).
class ParallelLimit
{
public:
    explicit ParallelLimit(unsigned threads) : m_saved(t_parallelLimit) { t_parallelLimit = threads; }
    ~ParallelLimit() { t_parallelLimit = m_saved; }
    ParallelLimit(const ParallelLimit &) = delete;
    ParallelLimit &operator=(const ParallelLimit &) = delete;

private:
    unsigned m_saved;
};

/// Runs fn(chunkIndex, begin, end) for every chunk of [0, n) on all cores (at most
/// t_parallelLimit threads when set).
/// Chunks are handed out dynamically; small inputs run on the calling thread.
/// fn may return false to stop early (cancellation). Returns false if stopped.
template<typename Fn>
bool parallelChunks(size_t n, size_t chunk, Fn&& fn, unsigned threads = workerCount())
{
    if (n == 0)
        return true;
    chunk = std::max<size_t>(chunk, 1);
    const size_t chunks = (n + chunk - 1) / chunk;
    std::atomic<size_t> next{0};
    std::atomic<bool> stopped{false};
    auto worker = [&] {
        for (;;) {
            const size_t c = next.fetch_add(1, std::memory_order_relaxed);
            if (c >= chunks || stopped.load(std::memory_order_relaxed))
                return;
            const size_t b = c * chunk;
            if (!fn(c, b, std::min(n, b + chunk)))
                stopped.store(true, std::memory_order_relaxed);
        }
    };
    if (t_parallelLimit != 0)
        threads = std::min(threads, t_parallelLimit);
    const unsigned useThreads = static_cast<unsigned>(std::min<size_t>(threads, chunks));
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < useThreads; ++t)
        pool.emplace_back(worker);
    worker();
    for (auto& t : pool)
        t.join();
    return !stopped.load();
}

} // namespace ds
