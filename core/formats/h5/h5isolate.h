#pragma once

#include "util/cancel.h"
#include "util/error.h"

#include <QByteArray>

#include <chrono>
#include <functional>

namespace ds::h5 {

/// Holds the one lock every HDF5 call in DumpScope is made under, for a scope. HDF5 (built
/// thread-safe on Debian) already serialises all its calls on a global lock, so this costs no
/// concurrency; it exists so that runIsolated() can fork() while no thread of ours is inside
/// the library (a child forked while another thread holds HDF5's lock would deadlock on it).
/// Nesting on one thread is allowed. In a runIsolated() child (one thread) it does nothing.
/// Declare it before any h5::Handle so that the handles are closed while it is held.
class LibraryLock
{
public:
    LibraryLock();
    ~LibraryLock();
    LibraryLock(const LibraryLock &) = delete;
    LibraryLock &operator=(const LibraryLock &) = delete;
};

/// Runs `work` in a child process made with fork() (no exec) and returns the bytes it
/// produced. Used to keep libhdf5's crashes on damaged files (HDF5 1.10 has many CVEs for
/// crafted files) out of our process: a crash, an abort or a sanitizer report in the child
/// becomes an error here, and the caller reports it against the file.
///
/// The child gets a JobControl whose report() forwards progress to `job` (its cancelFlag is
/// unset: the parent watches `job->cancelled()` every ~100 ms and kills the child with
/// SIGKILL). The child ends with _exit() (no atexit handlers, no leak check), so `work` must
/// not rely on destructors running after it returns. `work` should only use HDF5 and plain
/// data (no tr(), no Qt global state that other threads may hold locked at fork time).
///
/// Errors: "cancelled"; "HDF5 library crashed ... (signal N, SIGxxx) ..."; "HDF5 library
/// failed ... (exit code N)" (2: `work` threw, 4: the result could not be written, 1: what
/// ASan exits with after a report); "... made no progress for N s ..." (setStallTimeout);
/// "... incomplete or garbled result ..."; "cannot start ...". The texts do not name the file:
/// callers add it. AddressSanitizer builds never fork (GCC 12's sanitizer allocator is not
/// fork-safe) and run `work` in this process.
Result<QByteArray> runIsolated(const std::function<QByteArray(const JobControl &childJob)> &work,
                               const JobControl *job = nullptr);

/// A child that sends nothing (no progress, no result) for this long is killed and reported
/// as "made no progress": libhdf5 can loop for ever on a damaged file, and a command-line run
/// has no cancel button. Default 120 s (children report progress per operator or chunk).
void setStallTimeout(std::chrono::milliseconds limit);

/// Test hook: when set, the next children run this instead of `work` (for example raise
/// SIGSEGV) so that tests can check how a crash is contained. Not for product code.
void setChildHookForTesting(std::function<void()> hook);

} // namespace ds::h5
