#pragma once

#include <atomic>
#include <functional>

namespace ds {

/// Cooperative cancellation and progress for long jobs. Progress is 0..1000.
/// Both hooks are optional and are called from worker threads.
struct JobControl
{
    std::atomic<bool> *cancelFlag = nullptr;
    std::function<void(int permille)> progress;

    bool cancelled() const { return cancelFlag && cancelFlag->load(std::memory_order_relaxed); }
    void report(int permille) const
    {
        if (progress)
            progress(permille);
    }
};

} // namespace ds
