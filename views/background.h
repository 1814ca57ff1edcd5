#pragma once

#include <algorithm>
#include <sys/resource.h>

class QThreadPool;

namespace ds {

/// The pool the GUI's jobs run on: QtConcurrent::run(backgroundPool(), ...), never Qt's global
/// pool. Qt 6.4's raster engine spreads large fills and image scaling over the global pool and
/// the GUI thread waits for those pieces, so a job holding a global pool thread for seconds
/// stalled painting for as long (measured on 2 cores: 1.5-2 s while a run opened, with the
/// Trends and overflow jobs on both global threads). Made on first use, with room for a short
/// job (a tensor the user clicked) beside long ones; it waits for its jobs when the
/// application object goes.
QThreadPool *backgroundPool();

/// Runs the calling thread, and the threads it starts (they inherit it), at background
/// priority (nice 10) while it lives. Every GUI job holds one: on a machine with few cores,
/// work at the GUI's own priority delays the GUI thread and the threads Qt paints with. The
/// old priority comes back at the end where the system allows raising it again (unprivileged
/// processes may not: the pool thread then stays a background thread, which all of the
/// pool's threads are).
class BackgroundPriority
{
public:
    BackgroundPriority() : m_old(::getpriority(PRIO_PROCESS, 0)) { ::setpriority(PRIO_PROCESS, 0, std::max(m_old, kNice)); }
    ~BackgroundPriority() { ::setpriority(PRIO_PROCESS, 0, m_old); }
    BackgroundPriority(const BackgroundPriority &) = delete;
    BackgroundPriority &operator=(const BackgroundPriority &) = delete;

    static constexpr int kNice = 10;

private:
    int m_old;
};

} // namespace ds
