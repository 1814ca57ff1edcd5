#include "h5workermain.h"

#include "dump/partstream.h"
#include "h5dumper.h"
#include "h5handle.h"
#include "h5loader.h"
#include "h5protocol.h"

#include <QFile>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ds::h5 {

namespace {

/// The worker's socket (descriptor 3): frames in and out, and the descriptors that come with
/// Go frames.
class Channel
{
public:
    ~Channel()
    {
        for (int fd : m_fds)
            ::close(fd);
    }

    /// The next frame from the parent; nullopt at the end of its requests (or garbage).
    std::optional<FrameReader::Frame> receive()
    {
        char chunk[64 * 1024];
        for (;;) {
            FrameReader::Frame f;
            switch (m_reader.next(f, FrameReader::Direction::ToWorker, kMaxRequestBytes)) {
            case FrameReader::Status::Ready:
                return f;
            case FrameReader::Status::Garbled:
                return std::nullopt;
            case FrameReader::Status::NeedMore:
                break;
            }
            iovec iov{chunk, sizeof chunk};
            alignas(cmsghdr) char control[CMSG_SPACE(4 * sizeof(int))];
            msghdr msg{};
            msg.msg_iov = &iov;
            msg.msg_iovlen = 1;
            msg.msg_control = control;
            msg.msg_controllen = sizeof control;
            const ssize_t n = ::recvmsg(kChannelFd, &msg, MSG_CMSG_CLOEXEC);
            if (n < 0 && errno == EINTR)
                continue;
            for (cmsghdr *c = CMSG_FIRSTHDR(&msg); n > 0 && c; c = CMSG_NXTHDR(&msg, c)) {
                if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
                    continue;
                const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                for (size_t i = 0; i < count; ++i) {
                    int fd = -1;
                    std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
                    m_fds.push_back(fd);
                }
            }
            if (n <= 0)
                return std::nullopt;
            m_reader.append(chunk, qsizetype(n));
        }
    }

    /// The descriptor that came with the last frames (-1 if none); the caller owns it. Any
    /// others are closed.
    int takeFd()
    {
        const int fd = m_fds.empty() ? -1 : m_fds.front();
        for (size_t i = 1; i < m_fds.size(); ++i)
            ::close(m_fds[i]);
        m_fds.clear();
        return fd;
    }

    /// Sends a frame; a parent that has gone ends the worker (exit code 4).
    void send(FrameTag tag, const QByteArray &payload) { sendRaw(frame(tag, payload)); }

    void sendRaw(const QByteArray &bytes)
    {
        const char *p = bytes.constData();
        size_t left = size_t(bytes.size());
        while (left > 0) {
            const ssize_t n = ::send(kChannelFd, p, left, MSG_NOSIGNAL);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                ::_exit(4);
            p += n;
            left -= size_t(n);
        }
    }

    /// Progress for the parent's watchdog and progress bar: at most one frame per 50 ms (each
    /// one wakes the parent; a small file needs none), and no repeated values.
    void progress(int permille)
    {
        const auto now = std::chrono::steady_clock::now();
        if (permille == m_lastProgress || now - m_lastSent < std::chrono::milliseconds(50))
            return;
        m_lastProgress = permille;
        m_lastSent = now;
        const qint32 v = permille;
        send(FrameTag::Progress, QByteArray(reinterpret_cast<const char *>(&v), sizeof v));
    }
    /// A new request: the first progress frame waits 50 ms from here.
    void newJob()
    {
        m_lastProgress = -1;
        m_lastSent = std::chrono::steady_clock::now();
    }

private:
    FrameReader m_reader;
    std::vector<int> m_fds;
    int m_lastProgress = -1;
    std::chrono::steady_clock::time_point m_lastSent;
};

/// Misbehaves as the test asked (h5::setWorkerFaultForTesting); nothing for Fault{}.
void applyFault(const Fault &fault, Channel &channel, int dataFd = -1)
{
    using K = Fault::Kind;
    switch (fault.kind) {
    case K::Signal:
        ::signal(fault.value, SIG_DFL); // the kernel's action, not a sanitizer's handler
        ::raise(fault.value);
        break;
    case K::Exit:
        ::_exit(fault.value);
    case K::Sleep:
        ::sleep(unsigned(fault.value));
        break;
    case K::Throw:
        throw std::runtime_error("fault injected by a test");
    case K::Garble:
        channel.sendRaw(QByteArray("Xgarbage"));
        break;
    case K::HugeAnswer: {
        QByteArray header(1, char(FrameTag::Answer));
        const std::uint64_t size = 1ull << 62;
        header.append(reinterpret_cast<const char *>(&size), sizeof size);
        channel.sendRaw(header + QByteArray(16, 'x'));
        ::_exit(0);
    }
    case K::ResizeData:
        // Both must fail: the parent sealed the memory's size before its go-ahead.
        if (::ftruncate(dataFd, 0) == 0 || ::ftruncate(dataFd, off_t(1) << 30) == 0)
            std::fprintf(stderr, "dumpscope-h5worker: the tensor memory could be resized\n");
        break;
    case K::None:
    case K::LieSize:
        break;
    }
}

QList<qint32> openFds()
{
    QList<qint32> fds;
    DIR *dir = ::opendir("/proc/self/fd");
    if (!dir)
        return fds;
    while (const dirent *e = ::readdir(dir)) {
        char *end = nullptr;
        const long fd = std::strtol(e->d_name, &end, 10);
        if (end != e->d_name && *end == '\0' && fd != ::dirfd(dir))
            fds.append(qint32(fd));
    }
    ::closedir(dir);
    std::sort(fds.begin(), fds.end());
    return fds;
}

/// A load: the probe's answer, then (after Go) the read's. Returns a frame that came instead of
/// Go (the next request: the parent did not want the data).
std::optional<FrameReader::Frame> serveLoad(const Request &request, Channel &channel, const JobControl &job)
{
    CheckedRead reader;
    LoadAnswer probe = reader.open(request.load);
    if (request.fault.kind == Fault::Kind::LieSize)
        probe.bytes = request.fault.value > 0 ? probe.bytes + std::uint64_t(request.fault.value) : 1ull << 62;
    channel.send(FrameTag::Answer, encodeLoadAnswer(probe));
    if (!probe.error.isEmpty())
        return std::nullopt;
    auto next = channel.receive();
    if (!next || next->tag != FrameTag::Go)
        return next;
    const int memory = channel.takeFd();
    if (request.fault.atGo)
        applyFault(request.fault, channel, memory);
    const QString where = QStringLiteral("%1: %2").arg(request.load.dataFile, request.load.location);
    quint64 bytes = 0;
    std::memcpy(&bytes, next->payload.constData(), sizeof bytes);
    struct stat st = {};
    if (memory < 0 || ::fstat(memory, &st) != 0 || std::uint64_t(st.st_size) != bytes) {
        channel.send(FrameTag::Answer, encodeLoadAnswer({QStringLiteral("%1: no memory of %2 bytes came for the tensor").arg(where).arg(bytes), 0}));
        if (memory >= 0)
            ::close(memory);
        return std::nullopt;
    }
    void *out = ::mmap(nullptr, size_t(bytes), PROT_READ | PROT_WRITE, MAP_SHARED, memory, 0);
    ::close(memory);
    if (out == MAP_FAILED) {
        channel.send(FrameTag::Answer, encodeLoadAnswer({QStringLiteral("%1: cannot map the memory for the tensor (%2)")
                                                             .arg(where, QString::fromLocal8Bit(std::strerror(errno))),
                                                         0}));
        return std::nullopt;
    }
    const LoadAnswer read = reader.read(static_cast<std::byte *>(out), bytes, job);
    ::munmap(out, size_t(bytes));
    channel.send(FrameTag::Answer, encodeLoadAnswer(read));
    return std::nullopt;
}

/// Serves one request; returns a frame that already arrived for the next one, if any.
std::optional<FrameReader::Frame> serve(const Request &request, Channel &channel, int served)
{
    channel.newJob();
    JobControl job;
    job.progress = [&channel](int permille) { channel.progress(permille); };
    if (!request.fault.atGo)
        applyFault(request.fault, channel);
    switch (request.kind) {
    case RequestKind::Index: {
        const auto part = h5dumper::indexFileInProcess(request.index.rootDir, request.index.relPath, {}, &job);
        channel.send(FrameTag::Answer, part ? encodePart(*part) : QByteArray()); // fails only when cancelled
        return std::nullopt;
    }
    case RequestKind::Load:
        return serveLoad(request, channel, job);
    case RequestKind::Export:
        channel.send(FrameTag::Answer, encodeExportAnswer(h5dumper::copyGroupsInProcess(request.exportJob, job)));
        return std::nullopt;
    case RequestKind::Echo: {
        for (qint32 p : request.echo.progress) {
            if (request.echo.stepMs > 0)
                std::this_thread::sleep_for(std::chrono::milliseconds(request.echo.stepMs));
            job.report(p);
        }
        EchoAnswer a;
        a.pid = ::getpid();
        a.executable = QFile::symLinkTarget(QStringLiteral("/proc/self/exe"));
        a.openFds = openFds();
        a.served = served;
        a.payload = request.echo.payload;
        channel.send(FrameTag::Answer, encodeEchoAnswer(a));
        return std::nullopt;
    }
    }
    ::_exit(3);
}

} // namespace

int workerMain(int argc, char **argv)
{
    if (argc != 3 || std::strcmp(argv[1], kWorkerArgument) != 0) {
        std::fprintf(stderr, "%s: the HDF5 reader process of DumpScope; dumpscope and dumpscope-cli start it, "
                             "it is not run by hand\n", kWorkerName);
        return 64;
    }
    if (std::atoi(argv[2]) != kProtocolVersion) {
        std::fprintf(stderr, "%s: protocol %s requested, this worker speaks %d (a mixed installation?)\n", kWorkerName,
                     argv[2], int(kProtocolVersion));
        return 64;
    }
    ::signal(SIGPIPE, SIG_IGN); // a parent that has gone shows as EPIPE (exit code 4)
    // End with the parent: when its end of the socket closes (it finished with this worker, or
    // it died, even while libhdf5 loops on a damaged file here), this thread ends the process.
    std::thread([] {
        pollfd p{kChannelFd, POLLRDHUP, 0};
        while (::poll(&p, 1, -1) < 0 && errno == EINTR) {
        }
        std::fflush(stderr);
        ::_exit(0);
    }).detach();
    h5::silenceErrors();
    int code = 0;
    try {
        Channel channel;
        auto next = channel.receive();
        for (int served = 0; next; ++served) {
            const auto request = next->tag == FrameTag::Request ? decodeRequest(next->payload) : std::nullopt;
            if (!request) {
                code = 3;
                break;
            }
            next = serve(*request, channel, served);
            if (!next)
                next = channel.receive();
        }
    } catch (...) {
        code = 2;
    }
    std::fflush(stderr);
    ::_exit(code); // not exit(): no atexit handlers, no static destructors, no leak check
}

} // namespace ds::h5
