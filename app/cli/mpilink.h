#pragma once
// The MPI link of the distributed CLI commands (distributed.cpp): point-to-point messages
// between rank 0 and the other processes, with heartbeats and deadlines. Built only with MPI.

#include <mpi.h>

#include <QByteArray>
#include <QSet>
#include <QString>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <limits>
#include <list>
#include <map>
#include <optional>
#include <thread>
#include <unistd.h>
#include <vector>

namespace ds::mpi {

/// Message kinds (MPI tags).
enum Tag : int { THello = 1, TCatalog, TAssign, TCompared, TMode, TPiece, TBye, TBeat };

using Clock = std::chrono::steady_clock;

/// The text of an MPI error code.
inline QString errorText(int code)
{
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    return QString::fromLocal8Bit(text, length);
}

/// Point-to-point messages with heartbeats and deadlines: every process sends a heartbeat to
/// rank 0 (rank 0: to everyone) while it works or waits; a peer that is awaited and sent
/// nothing for `timeout` seconds has failed. Bodies travel zlib-compressed.
class Link
{
public:
    /// This process is `rank` of `size`.
    Link(double timeout, int rank, int size)
        : m_rank(rank), m_size(size), m_timeout(timeout), m_beatEvery(std::max(0.05, timeout / 5)),
          m_heard(size_t(size), Clock::now()), m_lastBeat(Clock::now())
    {
    }

    bool send(int to, Tag tag, const QByteArray &body)
    {
        QByteArray packed = qCompress(body, 1);
        m_sentBytes[tag] += packed.size();
        if (to == m_rank) { // to itself: no MPI
            m_inbox[{to, tag}].push_back(qUncompress(packed));
            m_receivedBytes[tag] += packed.size();
            return true;
        }
        if (packed.size() > std::numeric_limits<int>::max() / 2)
            return fail(to, QStringLiteral("a message of %1 bytes is too large to send").arg(packed.size()));
        m_pending.push_back({MPI_REQUEST_NULL, std::move(packed)});
        Pending &p = m_pending.back();
        const int rc = MPI_Isend(p.body.constData(), int(p.body.size()), MPI_BYTE, to, tag, MPI_COMM_WORLD, &p.request);
        if (rc != MPI_SUCCESS)
            return fail(to, errorText(rc));
        return true;
    }

    /// Receives what has arrived, completes sends, sends heartbeats. False on an MPI error.
    bool pump()
    {
        for (;;) {
            int flag = 0;
            MPI_Status status;
            int rc = MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
            if (rc != MPI_SUCCESS)
                return fail(-1, errorText(rc));
            if (!flag)
                break;
            int count = 0;
            MPI_Get_count(&status, MPI_BYTE, &count);
            QByteArray body(count, Qt::Uninitialized);
            rc = MPI_Recv(body.data(), count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                return fail(status.MPI_SOURCE, errorText(rc));
            m_heard[size_t(status.MPI_SOURCE)] = Clock::now();
            if (status.MPI_TAG == TBeat)
                continue;
            m_receivedBytes[status.MPI_TAG] += count;
            m_inbox[{status.MPI_SOURCE, status.MPI_TAG}].push_back(qUncompress(body));
        }
        for (auto it = m_pending.begin(); it != m_pending.end();) {
            int done = 0;
            const int rc = MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                return fail(-1, errorText(rc));
            it = done ? m_pending.erase(it) : std::next(it);
        }
        if (std::chrono::duration<double>(Clock::now() - m_lastBeat).count() >= m_beatEvery) {
            m_lastBeat = Clock::now();
            for (int r = 0; r < m_size; ++r)
                if (r != m_rank && (m_rank == 0 || r == 0) && !m_given.contains(r)) {
                    m_pending.push_back({MPI_REQUEST_NULL, QByteArray(1, 'b')});
                    Pending &p = m_pending.back();
                    MPI_Isend(p.body.constData(), 1, MPI_BYTE, r, TBeat, MPI_COMM_WORLD, &p.request);
                }
        }
        return true;
    }

    std::optional<QByteArray> take(int from, Tag tag)
    {
        auto it = m_inbox.find({from, tag});
        if (it == m_inbox.end() || it->second.empty())
            return std::nullopt;
        QByteArray b = std::move(it->second.front());
        it->second.pop_front();
        return b;
    }
    bool has(int from, Tag tag) const
    {
        auto it = m_inbox.find({from, tag});
        return it != m_inbox.end() && !it->second.empty();
    }

    /// The first of `peers` silent past the timeout, or -1.
    int silent(const std::vector<int> &peers) const
    {
        for (int p : peers)
            if (p != m_rank && std::chrono::duration<double>(Clock::now() - m_heard[size_t(p)]).count() > m_timeout)
                return p;
        return -1;
    }

    /// Pumps until `ready()`; false when MPI fails or one of `awaited()` stays silent too long.
    bool waitUntil(const std::function<bool()> &ready, const std::function<std::vector<int>()> &awaited)
    {
        for (;;) {
            if (!pump())
                return false;
            if (ready())
                return true;
            if (const int p = silent(awaited()); p >= 0)
                return fail(p, {});
            usleep(2000);
        }
    }

    /// Runs `work` on a thread while pumping; when a watched peer fails, sets `cancel` (the work
    /// stops early) and returns false after the work has stopped.
    /// `tick`, when given, runs on this (the calling) thread at every turn and once after the
    /// work: what the work hands over to be sent goes out while it runs.
    bool whileWorking(const std::function<void()> &work, std::atomic<bool> &cancel, const std::vector<int> &watch,
                      const std::function<void()> &tick = {})
    {
        std::atomic<bool> done{false};
        std::thread worker([&] {
            work();
            done = true;
        });
        bool ok = true;
        while (!done) {
            if (ok && !pump())
                ok = false;
            if (ok)
                if (const int p = silent(watch); p >= 0)
                    ok = fail(p, {});
            if (!ok)
                cancel = true;
            if (ok && tick)
                tick();
            usleep(5000);
        }
        worker.join();
        if (ok && tick)
            tick();
        return ok;
    }

    /// Completes the pending sends (up to the timeout).
    bool drain()
    {
        const auto start = Clock::now();
        while (!m_pending.empty()) {
            if (!pump())
                return false;
            if (std::chrono::duration<double>(Clock::now() - start).count() > m_timeout)
                return false;
            usleep(2000);
        }
        return true;
    }

    /// Stops heartbeats to `peer` (it failed).
    void giveUp(int peer) { m_given.insert(peer); }

    int failedPeer() const { return m_failedPeer; }
    QString failure() const { return m_failure; }
    qint64 receivedBytes(Tag tag) const { return m_receivedBytes.count(tag) ? m_receivedBytes.at(tag) : 0; }

private:
    bool fail(int peer, const QString &why)
    {
        m_failedPeer = peer;
        m_failure = why;
        return false;
    }

    struct Pending
    {
        MPI_Request request;
        QByteArray body;
    };
    int m_rank, m_size;
    double m_timeout, m_beatEvery;
    std::vector<Clock::time_point> m_heard;
    Clock::time_point m_lastBeat;
    std::map<std::pair<int, int>, std::deque<QByteArray>> m_inbox;
    std::list<Pending> m_pending;
    QSet<int> m_given;
    std::map<int, qint64> m_sentBytes, m_receivedBytes;
    int m_failedPeer = -1;
    QString m_failure;
};

} // namespace ds::mpi
