#include "h5isolate.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
#include <thread>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace ds::h5 {

namespace {

constexpr int kPollMs = 100;
/// The worker's end of the socket is first moved at or above this, so that placing it at 3 in
/// the worker never overwrites another descriptor it needs.
constexpr int kHighFd = 16;

std::atomic<std::int64_t> s_stallMs{120'000};

std::mutex &faultMutex()
{
    static std::mutex m;
    return m;
}

Fault &testFault()
{
    static Fault fault;
    return fault;
}

int &testFaultTimes()
{
    static int times = 0;
    return times;
}

Error failure(const QString &message) { return Error(ErrorKind::ReaderFailed, QString(), message); }

Error garbled() { return failure(QCoreApplication::translate("H5Isolate", "the HDF5 reader process sent an incomplete or garbled result")); }

QString signalText(int sig)
{
    const char *name = sigabbrev_np(sig);
    return name ? QStringLiteral("signal %1, SIG%2").arg(sig).arg(QLatin1String(name)) : QStringLiteral("signal %1").arg(sig);
}

QString errnoText(int err) { return QString::fromLocal8Bit(std::strerror(err)); }

/// `fd` duplicated at or above kHighFd, close-on-exec; the original is left alone.
int highCopy(int fd) { return ::fcntl(fd, F_DUPFD_CLOEXEC, kHighFd); }

void closeFd(int &fd)
{
    if (fd >= 0)
        ::close(fd);
    fd = -1;
}

bool isExecutableFile(const QString &path)
{
    const QFileInfo info(path);
    return info.isFile() && info.isExecutable();
}

} // namespace

/// What is still to be written to the worker: frames, and at most one descriptor that goes
/// with the byte at `fdAt` (SCM_RIGHTS). Written from `sent` on, never moved in memory.
struct Worker::Outgoing
{
    QByteArray bytes;
    qsizetype sent = 0;
    int fd = -1;
    qsizetype fdAt = -1;

    bool empty() const { return sent == bytes.size(); }
    void clear()
    {
        bytes.clear();
        sent = 0;
        closeFd(fd);
    }

    /// Writes what the socket takes without blocking. False when the worker's end is closed
    /// (its exit status will tell why).
    bool writeSome(int socket)
    {
        const char *from = bytes.constData() + sent;
        const size_t left = size_t(bytes.size() - sent);
        ssize_t n = 0;
        if (fd >= 0 && fdAt == sent) {
            iovec iov{const_cast<char *>(from), left};
            alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
            msghdr msg{};
            msg.msg_iov = &iov;
            msg.msg_iovlen = 1;
            msg.msg_control = control;
            msg.msg_controllen = sizeof control;
            cmsghdr *c = CMSG_FIRSTHDR(&msg);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(sizeof(int));
            std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
            n = ::sendmsg(socket, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n > 0)
                closeFd(fd); // the worker has its copy now
        } else {
            // Stop before the byte the descriptor goes with.
            const size_t size = fd >= 0 ? size_t(fdAt - sent) : left;
            n = ::send(socket, from, size, MSG_NOSIGNAL | MSG_DONTWAIT);
        }
        if (n > 0) {
            sent += qsizetype(n);
            if (empty())
                clear();
            return true;
        }
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
    }
};

namespace {

/// Idle workers that finished a clean job, waiting for the next one.
class Pool
{
public:
    struct Idle
    {
        pid_t pid = -1;
        int socket = -1;
        int served = 0;
        std::chrono::steady_clock::time_point since;
    };

    /// The most recently used idle worker that is still alive and silent.
    std::optional<Idle> take()
    {
        std::lock_guard lock(m_mutex);
        const auto now = std::chrono::steady_clock::now();
        while (!m_idle.empty()) {
            Idle w = m_idle.back();
            m_idle.pop_back();
            pollfd p{w.socket, POLLIN, 0};
            const bool spoke = ::poll(&p, 1, 0) != 0; // data, a hang-up or an error: not idle
            if (now - w.since > kIdleLimit || spoke || ::waitpid(w.pid, nullptr, WNOHANG) != 0) {
                discard(w);
                continue;
            }
            return w;
        }
        return std::nullopt;
    }

    void give(const Idle &w)
    {
        std::lock_guard lock(m_mutex);
        if (m_idle.size() >= kMaxIdle) {
            discard(m_idle.front());
            m_idle.erase(m_idle.begin());
        }
        m_idle.push_back(w);
    }

    void releaseAll()
    {
        std::lock_guard lock(m_mutex);
        for (Idle &w : m_idle)
            discard(w);
        m_idle.clear();
    }

    int size()
    {
        std::lock_guard lock(m_mutex);
        return int(m_idle.size());
    }

private:
    static constexpr size_t kMaxIdle = 4;
    static constexpr std::chrono::seconds kIdleLimit{60};

    static void discard(Idle &w)
    {
        ::close(w.socket); // an idle worker exits on the end of its requests; a stuck one is killed
        ::kill(w.pid, SIGKILL);
        while (::waitpid(w.pid, nullptr, 0) < 0 && errno == EINTR) {
        }
    }

    std::mutex m_mutex;
    std::vector<Idle> m_idle;
};

/// Never destroyed: at exit the kernel closes the sockets and the idle workers end.
Pool &pool()
{
    static Pool *p = new Pool;
    return *p;
}

constexpr int kMaxJobsPerWorker = 256;

} // namespace

Worker::Worker(const JobControl *job, Source source) : m_job(job), m_source(source), m_out(std::make_unique<Outgoing>()) {}

Worker::~Worker()
{
    if (m_pid > 0) {
        ::kill(m_pid, SIGKILL);
        reap();
    }
    closeFd(m_socket);
}

bool Worker::retryInNewWorker() const
{
    return m_served > 0 && (m_failure == Failure::Crashed || m_failure == Failure::Garbled);
}

std::optional<Error> Worker::start(Request request)
{
    if (m_job && m_job->cancelled())
        return Error(Cancelled{});
    {
        std::lock_guard lock(faultMutex());
        if (testFaultTimes() != 0) {
            request.fault = testFault();
            if (testFaultTimes() > 0 && --testFaultTimes() == 0)
                testFault() = Fault{};
        }
    }
    if (m_source == Source::PoolOrNew) {
        if (const auto idle = pool().take()) {
            m_pid = idle->pid;
            m_socket = idle->socket;
            m_served = idle->served;
        }
    }
    if (m_pid <= 0) {
        QStringList searched;
        const QString exe = workerExecutable(&searched);
        if (exe.isEmpty()) {
            m_failure = Failure::Other;
            return failure(QCoreApplication::translate("H5Isolate", "cannot start the HDF5 reader process: %1 was not found (looked for %2)")
                               .arg(QLatin1String(kWorkerName), searched.join(QStringLiteral(", "))));
        }
        if (auto e = spawn(exe)) {
            m_failure = Failure::Other;
            return e;
        }
    }
    m_out->clear();
    m_out->bytes = frame(FrameTag::Request, encodeRequest(request));
    m_lastHeard = std::chrono::steady_clock::now();
    return std::nullopt;
}

std::optional<Error> Worker::spawn(const QString &exe)
{
    int pair[2] = {-1, -1};
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
        return failure(QCoreApplication::translate("H5Isolate", "cannot start the HDF5 reader process %1 (%2)").arg(exe, errnoText(errno)));
    // The worker's end, above the number it takes in the worker (close-on-exec: a worker
    // started by another thread meanwhile does not inherit it).
    int childEnd = highCopy(pair[1]);
    int err = childEnd < 0 ? errno : 0;
    ::close(pair[1]);
    m_socket = pair[0];
    if (childEnd >= 0) {
        posix_spawn_file_actions_t actions;
        posix_spawnattr_t attr;
        posix_spawn_file_actions_init(&actions);
        posix_spawnattr_init(&attr);
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_adddup2(&actions, childEnd, kChannelFd);
        // Whatever else this process has open, with or without close-on-exec, stays here.
        posix_spawn_file_actions_addclosefrom_np(&actions, kChannelFd + 1);
        // No signal blocked or ignored in the worker, whatever this thread does.
        sigset_t none, all;
        sigemptyset(&none);
        sigfillset(&all);
        posix_spawnattr_setsigmask(&attr, &none);
        posix_spawnattr_setsigdefault(&attr, &all);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
        const QByteArray path = QFile::encodeName(exe);
        const QByteArray version = QByteArray::number(kProtocolVersion);
        char *argv[] = {const_cast<char *>(path.constData()), const_cast<char *>(kWorkerArgument),
                        const_cast<char *>(version.constData()), nullptr};
        err = posix_spawn(&m_pid, path.constData(), &actions, &attr, argv, environ);
        if (err != 0)
            m_pid = -1;
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attr);
    }
    closeFd(childEnd);
    if (m_pid <= 0) {
        closeFd(m_socket);
        return failure(QCoreApplication::translate("H5Isolate", "cannot start the HDF5 reader process %1 (%2)").arg(exe, errnoText(err)));
    }
    ::fcntl(m_socket, F_SETFL, ::fcntl(m_socket, F_GETFL) | O_NONBLOCK);
    m_served = 0;
    return std::nullopt;
}

void Worker::send(FrameTag tag, const QByteArray &payload, int fd)
{
    if (m_socket < 0)
        return;
    if (fd >= 0 && m_out->fd < 0) {
        m_out->fd = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
        m_out->fdAt = m_out->bytes.size();
    }
    m_out->bytes += frame(tag, payload);
}

Result<QByteArray> Worker::answer(std::uint64_t maxBytes)
{
    if (m_pid <= 0)
        return garbled();
    return pump(Wait::Answer, maxBytes);
}

std::optional<Error> Worker::finish(bool reusable)
{
    if (m_pid <= 0)
        return garbled();
    if (reusable && m_out->empty() && m_reader.pending() == 0 && m_served + 1 < kMaxJobsPerWorker) {
        pool().give({m_pid, m_socket, m_served + 1, std::chrono::steady_clock::now()});
        m_pid = -1;
        m_socket = -1;
        return std::nullopt;
    }
    m_out->clear();
    ::shutdown(m_socket, SHUT_WR); // the end of requests: the worker exits
    const auto end = pump(Wait::End, 0);
    if (!end)
        return end.error();
    return std::nullopt;
}

Result<QByteArray> Worker::pump(Wait wait, std::uint64_t maxBytes)
{
    using Clock = std::chrono::steady_clock;
    const auto stallLimit = std::chrono::milliseconds(s_stallMs.load());
    char chunk[64 * 1024];
    for (;;) {
        // Frames that are already here.
        for (;;) {
            FrameReader::Frame f;
            const auto status = m_reader.next(f, FrameReader::Direction::ToParent, maxBytes);
            if (status == FrameReader::Status::NeedMore)
                break;
            if (status == FrameReader::Status::Garbled || wait == Wait::End)
                return stop(garbled(), Failure::Garbled); // nothing may come after the last answer
            if (f.tag == FrameTag::Progress) {
                qint32 permille = 0;
                std::memcpy(&permille, f.payload.constData(), sizeof permille);
                if (permille < 0 || permille > 1000)
                    return stop(garbled(), Failure::Garbled);
                if (m_job)
                    m_job->report(permille);
                continue;
            }
            if (m_reader.pending() > 0)
                return stop(garbled(), Failure::Garbled); // the worker speaks only when spoken to
            return std::move(f.payload);
        }
        if (m_job && m_job->cancelled())
            return stop(Error(Cancelled{}), Failure::Other);

        const bool writing = !m_out->empty();
        pollfd p{m_socket, short(POLLIN | (writing ? POLLOUT : 0)), 0};
        const int ready = ::poll(&p, 1, kPollMs);
        if (ready < 0 && errno != EINTR)
            return stop(garbled(), Failure::Other);
        if (ready > 0 && writing && (p.revents & POLLOUT) && !m_out->writeSome(m_socket))
            m_out->clear(); // the worker closed its end: its exit status will tell why
        if (ready > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR))) {
            const ssize_t n = ::read(m_socket, chunk, sizeof chunk);
            if (n > 0) {
                m_lastHeard = Clock::now();
                m_reader.append(chunk, qsizetype(n));
                continue;
            }
            if (n == 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) {
                // The worker closed its end: it ended (or means to). Its status decides.
                closeFd(m_socket);
                const Error why = ended(reap());
                if (!why.message.isEmpty())
                    return why; // crashed or failed: that says more than a cut frame
                if (wait == Wait::End && m_reader.pending() == 0)
                    return QByteArray();
                m_failure = Failure::Garbled;
                return garbled();
            }
        }
        if (Clock::now() - m_lastHeard > stallLimit)
            return stop(failure(QCoreApplication::translate("H5Isolate", "the HDF5 reader process made no progress for %1 s and was stopped; the file is probably damaged")
                                    .arg(double(stallLimit.count()) / 1000.0)),
                        Failure::Other);
    }
}

Error Worker::stop(const Error &why, Failure failure)
{
    if (m_pid > 0) {
        ::kill(m_pid, SIGKILL);
        reap();
    }
    closeFd(m_socket);
    m_out->clear();
    m_failure = failure;
    return why;
}

int Worker::reap()
{
    // A worker that closed its socket ends within moments; one that keeps running without it
    // is stopped after the stall limit (or at once when the job is cancelled).
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(s_stallMs.load());
    auto pause = std::chrono::microseconds(50);
    for (;;) {
        const pid_t r = ::waitpid(m_pid, &status, WNOHANG);
        if (r == m_pid || (r < 0 && errno != EINTR))
            break;
        if ((m_job && m_job->cancelled()) || std::chrono::steady_clock::now() > deadline) {
            ::kill(m_pid, SIGKILL);
            while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
            }
            break;
        }
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::microseconds(10'000));
    }
    m_pid = -1;
    return status;
}

/// Why a worker that ended with `status` failed; an empty message when it exited 0.
Error Worker::ended(int status)
{
    if (WIFSIGNALED(status)) {
        m_failure = Failure::Crashed;
        return failure(QCoreApplication::translate("H5Isolate", "HDF5 library crashed while reading this file (%1); the file is probably damaged")
                           .arg(signalText(WTERMSIG(status))));
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        m_failure = Failure::Crashed;
        return failure(QCoreApplication::translate("H5Isolate", "HDF5 library failed while reading this file (exit code %1); the file is probably damaged")
                           .arg(WIFEXITED(status) ? WEXITSTATUS(status) : -1));
    }
    return failure(QString());
}

Result<QByteArray> runWorker(const Request &request, std::uint64_t maxAnswer, const JobControl *job,
                             bool (*reusable)(const QByteArray &))
{
    return runWithRetry(job, [&](Worker &worker) -> Result<QByteArray> {
        if (auto e = worker.start(request))
            return *e;
        auto bytes = worker.answer(maxAnswer);
        if (!bytes)
            return bytes;
        if (auto e = worker.finish(reusable ? reusable(*bytes) : true))
            return *e;
        return bytes;
    });
}

void releaseIdleWorkers()
{
    pool().releaseAll();
}

int idleWorkers()
{
    return pool().size();
}

QString findWorkerFrom(const QString &exeDir, QStringList *searched)
{
    QStringList candidates{QDir(exeDir).filePath(QLatin1String(kWorkerName))};
#ifdef DUMPSCOPE_H5WORKER_FROM_BINDIR
    candidates << QDir::cleanPath(QDir(exeDir).filePath(QStringLiteral(DUMPSCOPE_H5WORKER_FROM_BINDIR "/") + QLatin1String(kWorkerName)));
#endif
#if defined(DUMPSCOPE_BUILD_DIR) && defined(DUMPSCOPE_H5WORKER_BUILD_PATH)
    // Only programs that run from the build tree look there: an installed one never picks up a
    // development build's worker.
    const QString build = QFileInfo(QStringLiteral(DUMPSCOPE_BUILD_DIR)).canonicalFilePath();
    const QString dir = QFileInfo(exeDir).canonicalFilePath();
    if (!build.isEmpty() && (dir == build || dir.startsWith(build + QLatin1Char('/'))))
        candidates << QStringLiteral(DUMPSCOPE_H5WORKER_BUILD_PATH);
#endif
    for (const QString &c : candidates) {
        if (searched)
            searched->append(c);
        if (isExecutableFile(c))
            return c;
    }
    return {};
}

QString workerExecutable(QStringList *searched)
{
    const QString overridden = qEnvironmentVariable("DUMPSCOPE_H5WORKER");
    if (!overridden.isEmpty()) {
        if (searched)
            searched->append(overridden);
        return overridden; // used as given: a wrong override is an error, not a fallback
    }
    const QString self = QFile::symLinkTarget(QStringLiteral("/proc/self/exe"));
    return findWorkerFrom(QFileInfo(self).absolutePath(), searched);
}

void setStallTimeout(std::chrono::milliseconds limit)
{
    s_stallMs = std::max<std::int64_t>(limit.count(), 1);
}

void setWorkerFaultForTesting(const Fault &fault, int times)
{
    std::lock_guard lock(faultMutex());
    testFault() = fault;
    testFaultTimes() = fault == Fault{} ? 0 : times;
}

} // namespace ds::h5
