#pragma once

#include "h5protocol.h"
#include "util/cancel.h"
#include "util/error.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <chrono>
#include <memory>
#include <cstdint>
#include <optional>
#include <sys/types.h>

namespace ds::h5 {

/// libhdf5 runs in a separate executable, dumpscope-h5worker (h5workermain.h), started with
/// posix_spawn: libhdf5 1.10 trusts the file's metadata and has many published CVEs for
/// crafted files, so a crash, an abort or a sanitizer report inside it must end a worker, not
/// DumpScope. A spawned (not forked) worker is the same program in every build, sanitizer
/// builds included, and safe to start from any thread of a threaded GUI.
///
/// One Worker is one conversation with one worker process over a socket pair (h5protocol.h):
/// the request, then answers (progress frames go to the job); a load sends a second frame
/// after its first answer. While waiting, the parent polls every 100 ms: a cancelled job kills
/// the worker (SIGKILL, then waitpid: no zombie); a worker that sends nothing for the stall
/// limit is killed too. The destructor kills a worker that is still running.
///
/// Starting a worker costs about 8 ms of CPU (Debian's libhdf5 loads curl, GnuTLS, OpenSSL and
/// Kerberos with it), so a worker that finished a clean job (finish(true): no error about the
/// file) waits for the next one in a small pool. A worker that crashed, failed, hung, was
/// cancelled, sent garbage or met a damaged file is never reused, and one that served 256 jobs
/// retires. When a reused worker crashes or sends garbage, runWithRetry() repeats the job in
/// a fresh worker, so a crash is only ever blamed on the file that a fresh worker crashed on.
///
/// Errors (no file named: callers put the file, and the dataset, in front): "cancelled";
/// "HDF5 library crashed while reading this file (signal 11, SIGSEGV); ..."; "HDF5 library
/// failed while reading this file (exit code N); ..." (2: the worker threw, 3: it did not
/// understand the request, 4: it could not send its answer, 1: what a sanitizer exits with
/// after a report unless abort_on_error is set); "... made no progress for N s ..."; "...
/// incomplete or garbled result"; "cannot start the HDF5 reader process ...".
class Worker
{
public:
    enum class Source { PoolOrNew, New };
    explicit Worker(const JobControl *job = nullptr, Source source = Source::PoolOrNew);
    ~Worker();
    Worker(const Worker &) = delete;
    Worker &operator=(const Worker &) = delete;

    /// Sends `request` to an idle worker of the pool, or to a new one.
    std::optional<Error> start(Request request);
    /// Waits for the next answer of at most `maxBytes` bytes (larger is garbled, decided on
    /// the frame header). After an error the worker is gone.
    Result<QByteArray> answer(std::uint64_t maxBytes);
    /// Queues a frame, with a descriptor the worker receives a copy of (or -1); it is written
    /// while waiting for the next answer.
    void send(FrameTag tag, const QByteArray &payload, int fd = -1);
    /// Ends the conversation: with `reusable` the worker goes back to the pool, otherwise its
    /// socket is closed and it must exit 0 without sending anything more.
    std::optional<Error> finish(bool reusable);

    pid_t pid() const { return m_pid; }
    /// The worker had served other jobs, and this one failed in a way a fresh worker may not
    /// (a crash, a failure, garbage): worth one more try.
    bool retryInNewWorker() const;

private:
    enum class Failure { None, Crashed, Garbled, Other };
    enum class Wait { Answer, End };
    Result<QByteArray> pump(Wait wait, std::uint64_t maxBytes);
    Error stop(const Error &why, Failure failure);
    Error ended(int status);
    int reap();
    std::optional<Error> spawn(const QString &exe);

    const JobControl *m_job = nullptr;
    Source m_source = Source::PoolOrNew;
    pid_t m_pid = -1;
    int m_socket = -1; ///< non-blocking
    int m_served = 0;  ///< jobs the worker served before this one
    Failure m_failure = Failure::None;
    struct Outgoing;
    std::unique_ptr<Outgoing> m_out;
    FrameReader m_reader;
    std::chrono::steady_clock::time_point m_lastHeard;
};

/// Runs `conversation(worker)`; when it failed in a reused worker (retryInNewWorker()), runs it
/// again in a new one.
template<typename Conversation>
auto runWithRetry(const JobControl *job, Conversation conversation)
{
    Worker first(job);
    auto result = conversation(first);
    if (!first.retryInNewWorker())
        return result;
    Worker fresh(job, Worker::Source::New);
    return conversation(fresh);
}

/// One request, one answer (with retry). `reusable(answer)` says whether the worker may serve
/// another job after this answer.
Result<QByteArray> runWorker(const Request &request, std::uint64_t maxAnswer, const JobControl *job = nullptr,
                             bool (*reusable)(const QByteArray &) = nullptr);

/// Ends the idle workers of the pool and reaps them (tests check for stray children; a
/// program may call it when it is done with .h5 files for a while).
void releaseIdleWorkers();
/// How many workers wait in the pool.
int idleWorkers();

/// The worker executable: $DUMPSCOPE_H5WORKER when set (tests; nothing else is tried), else
/// findWorkerFrom() the running program's directory. Empty when there is none; `searched`
/// gets every path tried.
QString workerExecutable(QStringList *searched = nullptr);

/// For a program in `exeDir`: `exeDir`/dumpscope-h5worker (the build tree's app/ folder, or
/// an install into bin), `exeDir`/<bin to libexec>/dumpscope/dumpscope-h5worker (an install:
/// /usr/bin -> /usr/libexec/dumpscope), and for programs inside the build tree (tests,
/// benchmarks, the GUI in app/gui) the build's app/dumpscope-h5worker.
QString findWorkerFrom(const QString &exeDir, QStringList *searched = nullptr);

/// A worker that sends nothing (no progress, no answer) for this long is killed and reported
/// as "made no progress": libhdf5 can loop for ever on a damaged file, and a command-line run
/// has no cancel button. Default 120 s (workers report progress per operator or chunk).
void setStallTimeout(std::chrono::milliseconds limit);

/// Test hook: the next `times` requests (all when negative) carry `fault` (Fault{} to stop).
/// Not for product code.
void setWorkerFaultForTesting(const Fault &fault, int times = -1);

} // namespace ds::h5
