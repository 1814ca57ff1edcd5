#include "h5isolate.h"

#include <QCoreApplication>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <mutex>
#include <optional>
#include <fcntl.h>
#include <poll.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ds::h5 {

namespace {

// Pipe protocol, child -> parent: frames of a one-byte tag and a payload.
//   'P' + int32 permille          progress
//   'R' + uint64 length + bytes   the result (last frame)
constexpr char kProgress = 'P';
constexpr char kResult = 'R';
constexpr int kPollMs = 100;

std::atomic<std::int64_t> s_stallMs{120'000};

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsanBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAsanBuild = true;
#else
constexpr bool kAsanBuild = false;
#endif
#else
constexpr bool kAsanBuild = false;
#endif


std::function<void()> &childHook()
{
    static std::function<void()> hook;
    return hook;
}

std::mutex &libraryMutex()
{
    static std::mutex m;
    return m;
}

thread_local int t_lockDepth = 0;
/// Set in a runIsolated() child: one thread, so no locking (its copy of the mutex is locked:
/// the fork happened under it).
bool s_inChild = false;

/// Writes all of `data` or returns false (child side; the parent may have gone).
bool writeAll(int fd, const void *data, size_t size)
{
    const char *p = static_cast<const char *>(data);
    while (size > 0) {
        const ssize_t n = ::write(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        size -= size_t(n);
    }
    return true;
}

[[noreturn]] void runChild(int fd, const std::function<QByteArray(const JobControl &)> &work,
                           const std::function<void()> &hook)
{
    // When the parent has gone (cancelled), a write fails with EPIPE instead of killing us.
    ::signal(SIGPIPE, SIG_IGN);
    int code = 0;
    try {
        if (hook)
            hook();
        int last = -1;
        JobControl childJob;
        childJob.progress = [fd, &last](int permille) {
            if (permille == last)
                return;
            last = permille;
            char frame[1 + sizeof(std::int32_t)] = {kProgress};
            const std::int32_t v = permille;
            std::memcpy(frame + 1, &v, sizeof v);
            writeAll(fd, frame, sizeof frame);
        };
        const QByteArray bytes = work(childJob);
        const std::uint64_t size = std::uint64_t(bytes.size());
        char header[1 + sizeof size] = {kResult};
        std::memcpy(header + 1, &size, sizeof size);
        if (!writeAll(fd, header, sizeof header) || !writeAll(fd, bytes.constData(), bytes.size()))
            code = 4;
    } catch (...) {
        code = 2;
    }
    ::close(fd);
    ::_exit(code); // not exit(): no atexit handlers, no static destructors, no leak check
}

QString signalText(int sig)
{
    const char *name = sigabbrev_np(sig);
    return name ? QStringLiteral("signal %1, SIG%2").arg(sig).arg(QLatin1String(name)) : QStringLiteral("signal %1").arg(sig);
}

/// Parses the frames received so far; forwards progress. Returns false on a garbled stream.
/// `result` is set once the result frame is complete.
bool parseFrames(QByteArray &buf, qsizetype &pos, std::optional<QByteArray> &result, const JobControl *job)
{
    for (;;) {
        if (result)
            return pos == buf.size(); // nothing may follow the result
        const qsizetype left = buf.size() - pos;
        if (left < 1)
            return true;
        const char tag = buf[pos];
        if (tag == kProgress) {
            if (left < qsizetype(1 + sizeof(std::int32_t)))
                return true;
            std::int32_t v = 0;
            std::memcpy(&v, buf.constData() + pos + 1, sizeof v);
            pos += 1 + qsizetype(sizeof v);
            if (v < 0 || v > 1000)
                return false;
            if (job)
                job->report(v);
        } else if (tag == kResult) {
            std::uint64_t size = 0;
            if (left < qsizetype(1 + sizeof size))
                return true;
            std::memcpy(&size, buf.constData() + pos + 1, sizeof size);
            // Only compare with what arrived: never allocate from the announced size.
            if (size > std::uint64_t(left - qsizetype(1 + sizeof size)))
                return true;
            result = buf.mid(pos + 1 + qsizetype(sizeof size), qsizetype(size));
            pos += 1 + qsizetype(sizeof size) + qsizetype(size);
        } else {
            return false;
        }
        if (pos > (1 << 20) && !result) { // drop parsed progress frames
            buf.remove(0, pos);
            pos = 0;
        }
    }
}

} // namespace

LibraryLock::LibraryLock()
{
    if (t_lockDepth++ == 0 && !s_inChild)
        libraryMutex().lock();
}

LibraryLock::~LibraryLock()
{
    if (--t_lockDepth == 0 && !s_inChild)
        libraryMutex().unlock();
}

void setStallTimeout(std::chrono::milliseconds limit)
{
    s_stallMs = std::max<std::int64_t>(limit.count(), 1);
}

void setChildHookForTesting(std::function<void()> hook)
{
    LibraryLock lock;
    childHook() = std::move(hook);
}

Result<QByteArray> runIsolated(const std::function<QByteArray(const JobControl &)> &work, const JobControl *job)
{
    using R = Result<QByteArray>;
    if (job && job->cancelled())
        return Cancelled{};
    if (kAsanBuild) {
        // GCC 12's AddressSanitizer allocator has no fork handlers: a child forked while
        // another thread is inside malloc blocks for ever on its lock (seen in CI: tst_badinput
        // forking from the main thread while workers indexed). Sanitizer builds (tests only)
        // therefore run the work here, unisolated; product builds always fork (glibc's malloc
        // is fork-safe). The isolation itself is tested by the normal build.
        JobControl same;
        same.cancelFlag = job ? job->cancelFlag : nullptr;
        same.progress = job ? job->progress : nullptr;
        try {
            return work(same);
        } catch (...) {
            return R::failure(QCoreApplication::translate(
                "H5Isolate", "HDF5 library failed while reading this file (exit code %1); the file is probably damaged").arg(2));
        }
    }
    int fds[2] = {-1, -1};
    pid_t pid = -1;
    {
        // Pipe and fork under the library lock: no thread of ours is inside HDF5, and no other
        // runIsolated() child inherits this pipe's write end (its EOF would come late).
        LibraryLock lock;
        if (::pipe2(fds, O_CLOEXEC) != 0)
            return R::failure(QCoreApplication::translate("H5Isolate", "cannot start the HDF5 reader process (pipe: %1)")
                                  .arg(QString::fromLocal8Bit(std::strerror(errno))));
        const std::function<void()> hook = childHook();
        pid = ::fork();
        if (pid == 0) {
            ::close(fds[0]);
            s_inChild = true;
            runChild(fds[1], work, hook);
        }
        const int err = errno;
        ::close(fds[1]);
        if (pid < 0) {
            ::close(fds[0]);
            return R::failure(QCoreApplication::translate("H5Isolate", "cannot start the HDF5 reader process (fork: %1)")
                                  .arg(QString::fromLocal8Bit(std::strerror(err))));
        }
    }

    QByteArray buf;
    qsizetype pos = 0;
    std::optional<QByteArray> result;
    bool garbled = false, cancelled = false, stalled = false;
    char chunk[64 * 1024];
    using Clock = std::chrono::steady_clock;
    const auto stallLimit = std::chrono::milliseconds(s_stallMs.load());
    auto lastHeard = Clock::now();
    for (;;) {
        if (job && job->cancelled()) {
            cancelled = true;
            break;
        }
        if (Clock::now() - lastHeard > stallLimit) {
            stalled = true; // libhdf5 looping on a damaged file, or a deadlocked child
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        const int ready = ::poll(&p, 1, kPollMs);
        if (ready < 0 && errno != EINTR) {
            garbled = true;
            break;
        }
        if (ready <= 0)
            continue;
        const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            break; // EOF (or a read error): the child is gone or closed its end
        lastHeard = Clock::now();
        if (!garbled) {
            buf.append(chunk, qsizetype(n));
            garbled = !parseFrames(buf, pos, result, job);
        }
    }
    ::close(fds[0]);
    if (cancelled || stalled)
        ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (cancelled)
        return Cancelled{};
    if (stalled)
        return R::failure(QCoreApplication::translate(
                              "H5Isolate", "the HDF5 reader process made no progress for %1 s and was stopped; the file is probably damaged")
                              .arg(double(stallLimit.count()) / 1000.0));
    if (WIFSIGNALED(status))
        return R::failure(QCoreApplication::translate(
                              "H5Isolate", "HDF5 library crashed while reading this file (%1); the file is probably damaged")
                              .arg(signalText(WTERMSIG(status))));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return R::failure(QCoreApplication::translate(
                              "H5Isolate", "HDF5 library failed while reading this file (exit code %1); the file is probably damaged")
                              .arg(WIFEXITED(status) ? WEXITSTATUS(status) : -1));
    if (garbled || !result)
        return R::failure(QCoreApplication::translate("H5Isolate", "the HDF5 reader process sent an incomplete or garbled result"));
    return std::move(*result);
}

} // namespace ds::h5
