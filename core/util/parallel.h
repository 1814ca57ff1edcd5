#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace ds {

/// Number of worker threads for data-parallel kernels (all cores).
inline unsigned workerCount()
{
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : n;
}

/// Runs fn(chunkIndex, begin, end) for every chunk of [0, n) on all cores.
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
