#pragma once

#include <atomic>
#include <cstddef>
#include <functional>

namespace ds {

struct OpRecord;

/// Cooperative cancellation and progress for long jobs. Progress is 0..1000.
/// Both hooks are optional and are called from worker threads.
struct JobControl
{
    std::atomic<bool> *cancelFlag = nullptr;
    std::function<void(int permille)> progress;
    /// Operators as a reader appends them to its part, before the part is complete (msprobe's
    /// dump.json: every 1,024 entries, in file order): for a progressive display of one huge
    /// file. Called on the reading thread; the array moves on after the call, so copy what is
    /// kept. Readers that do not call it deliver their operators with the finished part.
    std::function<void(const OpRecord *ops, size_t count)> opsRead;

    bool cancelled() const { return cancelFlag && cancelFlag->load(std::memory_order_relaxed); }
    void report(int permille) const
    {
        if (progress)
            progress(permille);
    }
    void read(const OpRecord *ops, size_t count) const
    {
        if (opsRead && count)
            opsRead(ops, count);
    }
};

} // namespace ds
