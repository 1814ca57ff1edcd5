#pragma once
// A job cancelled from another thread after a delay, for the tests of work that would otherwise
// hang (a worker told to sleep: tst_h5dumper, tst_h5isolate).
#include "util/cancel.h"

#include <atomic>
#include <chrono>
#include <thread>

namespace ds::testing {

/// job() is cancelled `delay` after construction; join() (or the destructor) waits for that.
class CancelAfter
{
public:
    explicit CancelAfter(std::chrono::milliseconds delay)
        : m_thread([this, delay] {
              std::this_thread::sleep_for(delay);
              m_cancel = true;
          })
    {
        m_job.cancelFlag = &m_cancel;
    }
    ~CancelAfter() { join(); }
    CancelAfter(const CancelAfter &) = delete;
    CancelAfter &operator=(const CancelAfter &) = delete;

    JobControl *job() { return &m_job; }
    void join()
    {
        if (m_thread.joinable())
            m_thread.join();
    }

private:
    std::atomic<bool> m_cancel{false};
    JobControl m_job;
    std::thread m_thread; // last: starts once the flag and the job exist
};

} // namespace ds::testing
