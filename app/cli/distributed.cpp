#include "distributed.h"

#include "distributedplan.h"
#include "mpilink.h"

#include "compare/comparereport.h"
#include "index/buildindex.h"
#include "util/keepfreed.h"
#include "util/parallel.h"

#include <mpi.h>

#include <QCoreApplication>
#include <QDataStream>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <optional>
#include <map>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace ds {

namespace {

enum Exit { Ok = 0, Failed = 1, Usage = 2, NoPath = 3, Reached = 4, PeerFailed = 5 };

bool g_initialised = false;
int g_rank = 0, g_size = 1;

using mpi::Clock;
using mpi::Link;
using mpi::Tag;
using enum mpi::Tag;

/// A message of the CLI (English, like the rest of its output).
QString msg(const char *text) { return QString::fromUtf8(text); }
void err(const QString &text) { std::fprintf(stderr, "%s\n", text.toUtf8().constData()); }

// What rank 0 prints when the launcher stops the job: without `mpirun --enable-recovery`, Open
// MPI ends every process as soon as one dies, before rank 0's deadline; the SIGTERM it sends
// first lets rank 0 say which processes it was still waiting for. Two buffers, so that the
// handler never reads one being written.
char g_termText[2][8192];
size_t g_termLength[2] = {0, 0};
std::atomic<int> g_termIndex{-1};

void setTermText(const QString &text)
{
    const QByteArray b = text.toUtf8() + '\n';
    const int next = g_termIndex.load() == 0 ? 1 : 0;
    const size_t n = std::min(size_t(b.size()), sizeof g_termText[next]);
    std::memcpy(g_termText[next], b.constData(), n);
    g_termLength[next] = n;
    g_termIndex.store(next);
}

void onTerminate(int)
{
    const int i = g_termIndex.load();
    if (i >= 0) {
        const ssize_t written = write(STDERR_FILENO, g_termText[i], g_termLength[i]);
        (void)written;
    }
    _exit(PeerFailed);
}

QString hostName()
{
    char name[MPI_MAX_PROCESSOR_NAME];
    int length = 0;
    MPI_Get_processor_name(name, &length);
    return QString::fromLocal8Bit(name, length);
}

std::vector<int> everyone()
{
    std::vector<int> r;
    for (int i = 0; i < g_size; ++i)
        r.push_back(i);
    return r;
}

QString timeoutText(double t) { return QString::number(t, 'g', 4); }

/// The pairs of this process compared; rank 0 gets their summaries, then their rendered rows.
struct Work
{
    const CompareCommand &command;
    CompareOptions options;
    Verdict failOn = Verdict::None;
    ReportStyle style = ReportStyle::DumpScope;
    RunTree npuTree, benchTree;
    const RunInfo *npuRun = nullptr, *benchRun = nullptr;
    std::vector<Assignment> assigned;
    std::vector<ScopePair> pairs;         ///< of `assigned`
    /// Each pair's report parts, rendered as soon as it is compared (its indexes and rows then
    /// go: holding them until the report's columns are known kept every pair's indexes, 1 GB
    /// per process at 1,024 ranks x 20 steps); the CSV/xlsx rows in the pair's own columns.
    std::vector<ScopePiece> pieces;
    std::vector<ComparedScope> compared;  ///< summaries and column sets for rank 0
    std::vector<qint64> rows;             ///< summary.rows of each pair
    std::vector<CompareMode> tableModes;  ///< the columns each piece's CSV/xlsx rows are in
};

/// A compared pair's parts of the reports, its CSV/xlsx rows in `tableMode`'s columns.
ScopePiece renderPiece(const CompareCommand &c, const Work &work, ScopeCompare &s, qint32 pair, CompareMode tableMode)
{
    ScopePiece piece;
    piece.pair = pair;
    piece.npuOps = qint32(s.npu->ops.size());
    piece.warnings = s.result.warnings;
    piece.reached = work.failOn != Verdict::None && s.result.any(work.failOn);
    if (!c.csvFile.isEmpty() || !c.xlsxFile.isEmpty()) {
        ScopeOutput table;
        renderScopeTable(s, tableMode, work.style, !c.csvFile.isEmpty(), !c.xlsxFile.isEmpty(), table);
        piece.csv = std::move(table.csv);
        piece.cells = std::move(table.cells);
        piece.stack = table.stack;
    }
    if (c.json) {
        piece.json = compareJson(*s.npu, *s.bench, s.result);
    } else {
        ScopeOutput o;
        renderScopeText(s, o);
        piece.divergences = std::move(o.divergences);
        piece.notPass = std::move(o.notPass);
    }
    return piece;
}

/// Rank 0 after the work: reports, tells everyone to stop, returns the exit code.
class Root
{
public:
    Root(Link &link, double timeout) : m_link(link), m_timeout(timeout), m_peers(size_t(g_size)) {}

    std::vector<PeerInfo> &peers() { return m_peers; }

    QString who(int r) const
    {
        const PeerInfo &p = m_peers[size_t(r)];
        if (p.host.isEmpty())
            return msg("rank %1 (node unknown: it never reported)").arg(r);
        if (p.benchPath.isEmpty()) // info, overflow: one path
            return msg("rank %1 on node %2 (path %3)").arg(r).arg(p.host, p.npuPath);
        return msg("rank %1 on node %2 (NPU path %3, bench path %4)").arg(r).arg(p.host, p.npuPath, p.benchPath);
    }

    /// Prints `message`, tells the other processes to stop and returns `code`.
    int stop(int code, const QString &message)
    {
        if (!message.isEmpty())
            err(message);
        setTermText(msg("dumpscope-cli: the MPI launcher stopped the job after: %1").arg(message));
        for (int r = 1; r < g_size; ++r)
            if (r != m_link.failedPeer()) {
                QByteArray b;
                QDataStream out(&b, QIODevice::WriteOnly);
                out << qint32(code);
                m_link.send(r, TBye, b);
            }
        if (m_link.failedPeer() > 0 || !m_link.drain()) {
            std::fflush(stdout);
            std::fflush(stderr);
            MPI_Abort(MPI_COMM_WORLD, code); // a process that died or hangs would block MPI_Finalize
        }
        return code;
    }

    int failed(const QString &phase)
    {
        const int p = m_link.failedPeer();
        if (p < 0)
            return stop(PeerFailed, msg("dumpscope-cli: MPI failed while %1: %2").arg(phase, m_link.failure()));
        m_link.giveUp(p);
        if (!m_link.failure().isEmpty())
            return stop(PeerFailed, msg("dumpscope-cli: %1 failed while %2: %3").arg(who(p), phase, m_link.failure()));
        return stop(PeerFailed, msg("dumpscope-cli: %1 sent nothing for %2 s while %3: it died, hangs or cannot be reached; "
                                   "no report written")
                                    .arg(who(p), timeoutText(m_timeout), phase));
    }

    /// What the SIGTERM handler says while rank 0 waits for `awaited` during `phase`.
    void waiting(const QString &phase, const std::vector<int> &awaited)
    {
        QStringList names;
        for (int r : awaited)
            if (r != 0)
                names << who(r);
        setTermText(msg("dumpscope-cli: the MPI launcher stopped the job while %1 (a process died or was killed); "
                       "still waiting for: %2")
                        .arg(phase, names.isEmpty() ? msg("none") : names.join(QStringLiteral("; "))));
    }

private:
    Link &m_link;
    double m_timeout;
    std::vector<PeerInfo> m_peers;
};

/// Ranks of `all` that have not sent `tag` yet (counting `need[r]` messages each).
std::vector<int> missing(const Link &link, Tag tag, const std::vector<size_t> &received, const std::vector<size_t> &need)
{
    (void)link;
    (void)tag;
    std::vector<int> r;
    for (size_t i = 0; i < received.size(); ++i)
        if (received[i] < need[i])
            r.push_back(int(i));
    return r;
}

/// A worker that lost rank 0: says so (rank 0 cannot) before the job is aborted.
void workerGivesUp(const Link &link, const QString &host, double timeout)
{
    err(link.failure().isEmpty()
            ? msg("dumpscope-cli: rank %1 on node %2: rank 0 sent nothing for %3 s; giving up").arg(g_rank).arg(host, timeoutText(timeout))
            : msg("dumpscope-cli: rank %1 on node %2: MPI failed: %3; giving up").arg(g_rank).arg(host, link.failure()));
}

/// A worker's wait for rank 0's next message: true with it, false when rank 0 said stop (`code`
/// set) or failed.
bool fromRoot(Link &link, Tag tag, QByteArray &body, int &code, const QString &host, double timeout)
{
    const bool ok = link.waitUntil([&] { return link.has(0, tag) || link.has(0, TBye); }, [] { return std::vector<int>{0}; });
    if (!ok) {
        workerGivesUp(link, host, timeout);
        code = PeerFailed;
        MPI_Abort(MPI_COMM_WORLD, PeerFailed);
        return false;
    }
    if (auto bye = link.take(0, TBye)) {
        qint32 c = 0;
        QDataStream in(*bye);
        in >> c;
        (void)c;
        code = Ok; // rank 0 reports (and returns the code); the others end quietly
        return false;
    }
    body = *link.take(0, tag);
    return true;
}

/// Test hook (tests/mpi): DUMPSCOPE_MPI_TEST_FAULT=kill:R makes rank R kill itself (SIGKILL)
/// right after it sent its catalog, hang:R makes it stop answering (no heartbeats) there.
void testFault(Link &link)
{
    const QString fault = qEnvironmentVariable("DUMPSCOPE_MPI_TEST_FAULT");
    const qsizetype colon = fault.indexOf(QLatin1Char(':'));
    if (colon < 0 || fault.mid(colon + 1).toInt() != g_rank)
        return;
    link.drain();
    if (fault.startsWith(QLatin1String("kill")))
        std::raise(SIGKILL);
    if (fault.startsWith(QLatin1String("hang")))
        for (;;)
            pause();
}

/// Rank 0: every process's hello (host and paths) and catalog; a process that failed to walk its
/// paths stops the job with its message. -1 when every catalog is in, else the exit code.
int gatherCatalogs(Link &link, Root &rootState, std::vector<Catalog> &catalogs)
{
    std::vector<size_t> got(size_t(g_size), 0), need(size_t(g_size), 2);
    rootState.waiting(msg("collecting what every process sees"), missing(link, TCatalog, got, need));
    const bool ok = link.waitUntil(
        [&] {
            for (int r = 0; r < g_size; ++r) {
                if (auto h = link.take(r, THello)) {
                    PeerInfo &p = rootState.peers()[size_t(r)];
                    QDataStream in(*h);
                    in >> p.host >> p.npuPath >> p.benchPath;
                    ++got[size_t(r)];
                    rootState.waiting(msg("collecting what every process sees"), missing(link, TCatalog, got, need));
                }
                if (auto b = link.take(r, TCatalog)) {
                    auto decoded = decodeCatalog(*b);
                    catalogs[size_t(r)] = decoded ? *decoded : Catalog{msg("unreadable message"), PeerFailed, {}, {}};
                    ++got[size_t(r)];
                }
            }
            return missing(link, TCatalog, got, need).empty();
        },
        [&] { return missing(link, TCatalog, got, need); });
    if (!ok)
        return rootState.failed(msg("walking and fingerprinting its paths"));
    for (int r = 0; r < g_size; ++r) {
        const Catalog &k = catalogs[size_t(r)];
        if (!k.error.isEmpty())
            return rootState.stop(k.code, msg("dumpscope-cli: %1: %2").arg(rootState.who(r), k.error));
        for (const SideCatalog *side : {&k.npu, &k.bench})
            if (!side->error.isEmpty())
                return rootState.stop(side->code, msg("dumpscope-cli: %1: %2").arg(rootState.who(r), side->error));
    }
    return -1;
}

/// Every process: tells rank 0 its host and the paths it was given.
void sendHello(Link &link, const QString &host, const QString &path, const QString &benchPath)
{
    QByteArray hello;
    QDataStream out(&hello, QIODevice::WriteOnly);
    out << host << QFileInfo(path).absoluteFilePath() << (benchPath.isEmpty() ? QString() : QFileInfo(benchPath).absoluteFilePath());
    link.send(0, THello, hello);
}

/// Rank 0: gathers every catalog, lets `check` refuse the job (a non-empty usage message),
/// plans with `makePlan` and sends every process its assignments; `catalogs` and `plan` are
/// kept for the gathering. -1 to go on, else the exit code.
int planAndAssign(Link &link, Root &rootState, bool ok, std::vector<Catalog> &catalogs, Plan &plan,
                  const std::function<QString(const std::vector<Catalog> &)> &check,
                  const std::function<Plan(const std::vector<Catalog> &, const std::vector<PeerInfo> &)> &makePlan)
{
    if (!ok)
        return rootState.failed(msg("walking the paths"));
    catalogs.assign(static_cast<size_t>(g_size), Catalog{});
    if (const int stopped = gatherCatalogs(link, rootState, catalogs); stopped >= 0)
        return stopped;
    if (const QString refused = check ? check(catalogs) : QString(); !refused.isEmpty())
        return rootState.stop(Usage, refused);
    plan = makePlan(catalogs, rootState.peers());
    if (!plan.error.isEmpty())
        return rootState.stop(plan.code, msg("dumpscope-cli: %1").arg(plan.error));
    for (int r = 0; r < g_size; ++r)
        link.send(r, TAssign, encodeAssignments(plan.byRank[size_t(r)]));
    return -1;
}

/// Every process: its assignments from rank 0. A worker that could not walk its paths gives up
/// (rank 0 has already stopped the job). Empty with `code` set when this process must stop.
std::optional<std::vector<Assignment>> assignmentsFromRoot(Link &link, bool root, bool ok, const QString &host, double timeout, int &code)
{
    if (!root && !ok) {
        workerGivesUp(link, host, timeout);
        MPI_Abort(MPI_COMM_WORLD, PeerFailed);
        code = PeerFailed;
        return std::nullopt;
    }
    QByteArray body;
    if (root)
        body = *link.take(0, TAssign);
    else if (!fromRoot(link, TAssign, body, code, host, timeout))
        return std::nullopt;
    return decodeAssignments(body).value_or(std::vector<Assignment>{});
}

/// A worker after sending its results: waits for rank 0's goodbye, which comes when rank 0 has
/// everything (or gives up when rank 0 or MPI failed). The exit code of this process.
int workerFinishes(Link &link, bool ok, const QString &host, double timeout)
{
    if (!ok) {
        err(msg("dumpscope-cli: rank %1 on node %2: rank 0 sent nothing for too long or MPI failed (%3); giving up")
                .arg(g_rank)
                .arg(host, link.failure()));
        MPI_Abort(MPI_COMM_WORLD, PeerFailed);
        return PeerFailed;
    }
    int code = Ok;
    QByteArray body;
    fromRoot(link, TBye, body, code, host, timeout);
    link.drain();
    return code;
}

/// Rank 0 at the start: a launcher's SIGTERM ends the job with a message, and the wait for every
/// process is shown.
void rootStarts(Root &rootState)
{
    std::signal(SIGTERM, onTerminate);
    rootState.waiting(msg("starting"), everyone());
}

} // namespace

int runDistributedCompare(const CompareCommand &c, double timeout)
{
    keepFreedMemory(); // scope after scope, as runCompareCommand
    Link link(timeout, g_rank, g_size);
    const QString host = hostName();
    const bool root = g_rank == 0;
    Root rootState(link, timeout);
    if (root)
        rootStarts(rootState);
    Work work{c, {}, Verdict::None, ReportStyle::DumpScope, {}, {}, nullptr, nullptr, {}, {}, {}, {}, {}, {}};
    std::atomic<bool> cancel{false};
    const std::vector<int> watch = root ? everyone() : std::vector<int>{0};

    // 1. Hello and catalog: every process walks its paths and fingerprints its scopes.
    sendHello(link, host, c.npuPath, c.benchPath);
    Catalog catalog;
    if (const int setup = compareSetup(c, work.options, work.failOn, work.style); setup != Ok) {
        catalog.error = msg("the compare options could not be set up");
        catalog.code = setup;
    }
    bool ok = link.whileWorking(
        [&] {
            if (!catalog.error.isEmpty())
                return;
            catalog.npu = catalogSide(c.npuPath, QStringLiteral("NPU"), work.npuTree, work.npuRun);
            catalog.bench = catalogSide(c.benchPath, QStringLiteral("bench"), work.benchTree, work.benchRun);
        },
        cancel, watch);
    if (ok)
        link.send(0, TCatalog, encodeCatalog(catalog));
    testFault(link);

    std::vector<Catalog> catalogs;
    Plan plan;
    if (root) {
        const auto insideDump = [&c](const std::vector<Catalog> &all) {
            for (const QString &dumpRoot : {all[0].npu.rootDir, all[0].bench.rootDir})
                if (QString inDump = reportInsideDump(c, dumpRoot); !inDump.isEmpty())
                    return inDump;
            return QString();
        };
        if (const int stopped = planAndAssign(link, rootState, ok, catalogs, plan, insideDump, planCompare); stopped >= 0)
            return stopped;
    }

    // 2. Compare the pairs handed to this process.
    int code = Ok;
    auto assigned = assignmentsFromRoot(link, root, ok, host, timeout, code);
    if (!assigned)
        return code;
    work.assigned = std::move(*assigned);
    QByteArray body;
    // A pair's report parts that do not depend on the report's columns (no --csv/--xlsx: the
    // text and --json reports) are encoded (UTF-8) as soon as rendered and handed to this
    // thread, which sends them while the pairs are compared: a process keeps what is in flight,
    // not every pair's text until the end (1.32 GB a worker at 1,024 x 100 on 4 processes).
    const bool table = !c.csvFile.isEmpty() || !c.xlsxFile.isEmpty();
    std::mutex readyMutex;
    std::deque<QByteArray> ready; ///< encoded pieces the work hands over, sent by this thread
    std::vector<char> sent(work.assigned.size(), 0);
    const auto sendReady = [&] {
        std::deque<QByteArray> out;
        {
            const std::lock_guard lock(readyMutex);
            out.swap(ready);
        }
        for (const QByteArray &b : out)
            link.send(0, TPiece, b);
    };
    // Rank 0: the pieces as they arrive, their text and CSV spooled to a temporary file.
    std::vector<ScopeOutput> outputs(root ? plan.pairs : 0);
    ReportSpool reports;
    std::vector<size_t> gotPieces(size_t(g_size), 0);
    const auto takePieces = [&] {
        if (!root)
            return;
        for (int r = 0; r < g_size; ++r)
            while (auto b = link.take(r, TPiece)) {
                if (auto p = decodePiece(*b); p && p->pair >= 0 && size_t(p->pair) < plan.pairs) {
                    ScopeOutput &o = outputs[size_t(p->pair)];
                    o.npuOps = p->npuOps;
                    o.csv = std::move(p->csv);
                    o.cells = std::move(p->cells);
                    o.stack = p->stack;
                    o.json = std::move(p->json);
                    o.divergences = std::move(p->divergences);
                    o.notPass = std::move(p->notPass);
                    o.warnings = std::move(p->warnings);
                    o.reached = p->reached;
                    reports.spill(o); // the pair's CSV and text wait in a temporary file
                }
                ++gotPieces[size_t(r)];
            }
    };
    ok = link.whileWorking(
        [&] {
            std::vector<ScopePair> &pairs = work.pairs;
            // Scopes by id (RunInfo::scope is a linear search: quadratic for 100,000 scopes);
            // the first scope of an id, as RunInfo::scope finds it.
            QHash<QString, const RunScope *> npuById, benchById;
            for (const RunInfo *run : {work.npuRun, work.benchRun})
                if (run)
                    for (const RunScope &s : run->scopes) {
                        auto &byId = run == work.npuRun ? npuById : benchById;
                        if (!byId.contains(s.id))
                            byId.insert(s.id, &s);
                    }
            for (const Assignment &a : work.assigned)
                pairs.push_back({a.id, a.hasNpu ? npuById.value(a.npuId) : nullptr, a.hasBench ? benchById.value(a.benchId) : nullptr});
            // as compareRuns does: scopes in parallel, each comparison on all cores; each pair's
            // report parts rendered at once and its indexes dropped
            work.pieces.resize(pairs.size());
            work.compared.resize(pairs.size());
            work.rows.resize(pairs.size());
            work.tableModes.resize(pairs.size());
            const unsigned inner = pairs.size() >= 4 * size_t(workerCount()) ? 1u : t_parallelLimit;
            parallelChunks(pairs.size(), 1, [&](size_t i, size_t, size_t) {
                const ParallelLimit limit(inner); // many pairs take the cores by themselves (compareRuns)
                JobControl job;
                job.cancelFlag = &cancel;
                ScopeCompare s = compareScope(work.npuTree, work.benchTree, pairs[i], work.options, &job);
                const CompareMode own = scopeReportMode(s.result, work.options);
                work.compared[i] = {work.assigned[i].pair, QJsonDocument(s.summary.toJson()).toJson(QJsonDocument::Compact), quint8(own)};
                work.rows[i] = qint64(s.summary.rows);
                work.tableModes[i] = own == CompareMode::None ? CompareMode::Tensor : own;
                if (table) {
                    work.pieces[i] = renderPiece(c, work, s, work.assigned[i].pair, work.tableModes[i]);
                } else {
                    QByteArray bytes = encodePiece(renderPiece(c, work, s, work.assigned[i].pair, work.tableModes[i]));
                    const std::lock_guard lock(readyMutex);
                    ready.push_back(std::move(bytes));
                    sent[i] = 1;
                }
                return !cancel.load();
            });
        },
        cancel, watch, [&] {
            sendReady();
            takePieces();
        });
    if (ok) {
        link.send(0, TCompared, encodeCompared(work.compared));
    }

    std::vector<ScopeSummary> summaries;
    CompareMode mode = CompareMode::Tensor;
    if (root) {
        if (!ok)
            return rootState.failed(msg("comparing its scopes"));
        summaries.resize(plan.pairs);
        std::vector<size_t> got(size_t(g_size), 0), need(size_t(g_size), 1);
        std::vector<CompareMode> modes(plan.pairs, CompareMode::None);
        rootState.waiting(msg("comparing"), missing(link, TCompared, got, need));
        ok = link.waitUntil(
            [&] {
                for (int r = 0; r < g_size; ++r)
                    if (auto b = link.take(r, TCompared)) {
                        for (const ComparedScope &x : decodeCompared(*b).value_or(std::vector<ComparedScope>{})) {
                            if (x.pair < 0 || size_t(x.pair) >= summaries.size())
                                continue;
                            if (auto s = ScopeSummary::fromJson(QJsonDocument::fromJson(x.summary).object()))
                                summaries[size_t(x.pair)] = *s;
                            modes[size_t(x.pair)] = CompareMode(x.mode);
                        }
                        ++got[size_t(r)];
                        rootState.waiting(msg("comparing"), missing(link, TCompared, got, need));
                    }
                takePieces();
                return missing(link, TCompared, got, need).empty();
            },
            [&] { return missing(link, TCompared, got, need); });
        if (!ok)
            return rootState.failed(msg("comparing its scopes"));
        mode = bestReportMode(modes); // the report's column set, as one process chooses it
        for (int r = 0; r < g_size; ++r) {
            QByteArray b;
            QDataStream out(&b, QIODevice::WriteOnly);
            out << quint8(mode);
            link.send(r, TMode, b);
        }
    }

    // 3. Render the rows in the report's column set and send them, one message per pair.
    if (!root && !ok) {
        workerGivesUp(link, host, timeout);
        MPI_Abort(MPI_COMM_WORLD, PeerFailed);
        return PeerFailed;
    }
    if (root)
        body = *link.take(0, TMode);
    else if (!fromRoot(link, TMode, body, code, host, timeout))
        return code;
    {
        quint8 m = 0;
        QDataStream in(body);
        in >> m;
        mode = CompareMode(m);
    }
    // The pieces of pairs whose rows are in other columns than the report's: compared again
    // (deterministic) and rendered in the report's, as one process does.
    std::vector<QByteArray> pieces;
    ok = link.whileWorking(
        [&] {
            for (size_t i = 0; i < work.pieces.size() && !cancel; ++i) {
                if (sent[i])
                    continue;
                ScopePiece &piece = work.pieces[i];
                if (table && work.tableModes[i] != mode && work.rows[i] > 0) {
                    JobControl job;
                    job.cancelFlag = &cancel;
                    ScopeCompare again = compareScope(work.npuTree, work.benchTree, work.pairs[i], work.options, &job);
                    ScopeOutput o;
                    renderScopeTable(again, mode, work.style, !c.csvFile.isEmpty(), !c.xlsxFile.isEmpty(), o);
                    piece.csv = std::move(o.csv);
                    piece.cells = std::move(o.cells);
                    piece.stack = o.stack;
                }
                pieces.push_back(encodePiece(piece));
                piece = {};
            }
        },
        cancel, watch);
    if (ok)
        for (const QByteArray &p : pieces)
            link.send(0, TPiece, p);
    pieces.clear();

    if (!root)
        return workerFinishes(link, ok, host, timeout);

    // 4. Rank 0: every pair's rows, in pair order, into the reports one process would write.
    if (!ok)
        return rootState.failed(msg("rendering its rows"));
    for (size_t i = 0; i < plan.pairs; ++i) {
        outputs[i].summary = summaries[i];
        outputs[i].tableMode = mode;
    }
    std::vector<size_t> need(size_t(g_size), 0);
    for (int r = 0; r < g_size; ++r)
        need[size_t(r)] = plan.byRank[size_t(r)].size();
    rootState.waiting(msg("gathering rows"), missing(link, TPiece, gotPieces, need));
    ok = link.waitUntil(
        [&] {
            const std::vector<size_t> before = gotPieces;
            takePieces();
            if (gotPieces != before)
                rootState.waiting(msg("gathering rows"), missing(link, TPiece, gotPieces, need));
            return missing(link, TPiece, gotPieces, need).empty();
        },
        [&] { return missing(link, TPiece, gotPieces, need); });
    if (!ok)
        return rootState.failed(msg("sending its rows"));
    // The report names rank 0's paths (one process names the paths it opened).
    const QString npuPath = catalogs[0].npu.openedPath, benchPath = catalogs[0].bench.openedPath;
    // Written on a thread while the heartbeats go on: a large CSV takes longer than the timeout.
    link.whileWorking(
        [&] {
            code = writeCompareReports(c, npuPath, benchPath, mode, work.style, outputs, nullptr, &reports);
            std::fflush(stdout);
        },
        cancel, {});
    if (!c.quiet) { // stderr: the reports on stdout stay as one process writes them
        const qint64 rows = link.receivedBytes(TPiece), sums = link.receivedBytes(TCompared), cats = link.receivedBytes(TCatalog);
        QSet<QString> hosts;
        for (const PeerInfo &p : rootState.peers())
            hosts.insert(p.host);
        err(msg("distributed over %1 processes on %2 node(s): %3 scope pair(s); gathered %4 bytes (catalogs %5, summaries %6, "
               "rows %7), %8 bytes per scope pair")
                .arg(g_size)
                .arg(hosts.size())
                .arg(plan.pairs)
                .arg(rows + sums + cats)
                .arg(cats)
                .arg(sums)
                .arg(rows)
                .arg(plan.pairs ? (rows + sums + cats) / qint64(plan.pairs) : 0));
    }
    rootState.stop(code, {});
    return code;
}

int runDistributedScan(const ScanCommand &c, double timeout)
{
    Link link(timeout, g_rank, g_size);
    const QString host = hostName();
    const bool root = g_rank == 0;
    Root rootState(link, timeout);
    if (root)
        rootStarts(rootState);
    std::atomic<bool> cancel{false};
    const std::vector<int> watch = root ? everyone() : std::vector<int>{0};
    const bool overflow = c.kind == ScanCommand::Kind::Overflow;

    // 1. Hello and catalog: every process walks its path and fingerprints its units of work.
    sendHello(link, host, c.path, QString());
    RunTree tree;
    std::map<QString, std::vector<size_t>> units;
    Catalog catalog;
    bool ok = link.whileWorking([&] { catalog.npu = catalogScan(c.path, overflow, tree, units); }, cancel, watch);
    if (ok)
        link.send(0, TCatalog, encodeCatalog(catalog));
    testFault(link);

    std::vector<Catalog> catalogs;
    Plan plan;
    if (root)
        if (const int stopped = planAndAssign(link, rootState, ok, catalogs, plan, {}, planScan); stopped >= 0)
            return stopped;

    // 2. Index and scan the units handed to this process; send its part (never an index or a tensor).
    int code = Ok;
    const auto received = assignmentsFromRoot(link, root, ok, host, timeout, code);
    if (!received)
        return code;
    const std::vector<Assignment> &assigned = *received;
    QByteArray part;
    ok = link.whileWorking(
        [&] {
            std::vector<size_t> claims;
            for (const Assignment &a : assigned)
                if (auto it = units.find(a.id); it != units.end())
                    claims.insert(claims.end(), it->second.begin(), it->second.end());
            std::sort(claims.begin(), claims.end());
            JobControl job;
            job.cancelFlag = &cancel;
            std::shared_ptr<DumpIndex> index;
            if (!claims.empty() && claims.size() == tree.walk.claims.size()) {
                index = indexClaims(tree.walk, {}, &job, {}, IndexLabels::Always); // all: as one process, with the walk's errors
            } else {
                if (claims.empty()) {
                    index = std::make_shared<DumpIndex>();
                    index->openedPath = tree.walk.openedPath;
                    index->rootDir = tree.walk.rootDir;
                } else {
                    index = indexClaims(tree.walk, claims, &job, {}, IndexLabels::Always);
                }
                // the walk's own errors (unreadable folders): every process that sees them sends
                // them, the merge lists each once
                index->errors.insert(index->errors.end(), tree.walk.errors.begin(), tree.walk.errors.end());
                index->finalize();
            }
            if (!cancel)
                part = encodeScanPart(c, scanPart(c, *index, tree, &job));
        },
        cancel, watch);
    if (ok)
        link.send(0, TPiece, part);
    part.clear();

    if (!root)
        return workerFinishes(link, ok, host, timeout);

    // 3. Rank 0: every process's part, merged and written as one process writes the report.
    if (!ok)
        return rootState.failed(msg("indexing and scanning its scopes"));
    std::vector<std::optional<ScanPart>> parts(static_cast<size_t>(g_size));
    std::vector<size_t> got(size_t(g_size), 0), need(size_t(g_size), 1);
    rootState.waiting(msg("indexing and scanning"), missing(link, TPiece, got, need));
    int bad = -1;
    ok = link.waitUntil(
        [&] {
            for (int r = 0; r < g_size; ++r)
                if (auto b = link.take(r, TPiece)) {
                    parts[size_t(r)] = decodeScanPart(c, *b);
                    if (!parts[size_t(r)] && bad < 0)
                        bad = r;
                    ++got[size_t(r)];
                    rootState.waiting(msg("indexing and scanning"), missing(link, TPiece, got, need));
                }
            return missing(link, TPiece, got, need).empty();
        },
        [&] { return missing(link, TPiece, got, need); });
    if (!ok)
        return rootState.failed(msg("indexing and scanning its scopes"));
    if (bad >= 0)
        return rootState.stop(PeerFailed, msg("dumpscope-cli: %1 sent an unreadable report part").arg(rootState.who(bad)));
    std::vector<ScanPart> merged;
    for (auto &p : parts)
        merged.push_back(std::move(*p));
    link.whileWorking(
        [&] {
            code = writeScanReport(c, std::move(merged), catalogs[0].npu.openedPath); // rank 0's path, as one process names it
            std::fflush(stdout);
        },
        cancel, {});
    if (!c.quiet) { // stderr: the report on stdout stays as one process writes it
        const qint64 partBytes = link.receivedBytes(TPiece), cats = link.receivedBytes(TCatalog);
        QSet<QString> hosts;
        for (const PeerInfo &p : rootState.peers())
            hosts.insert(p.host);
        err(msg("distributed over %1 processes on %2 node(s): %3 scope(s); gathered %4 bytes (catalogs %5, report parts %6), "
               "%7 bytes per scope")
                .arg(g_size)
                .arg(hosts.size())
                .arg(plan.pairs)
                .arg(partBytes + cats)
                .arg(cats)
                .arg(partBytes)
                .arg(plan.pairs ? (partBytes + cats) / qint64(plan.pairs) : 0));
    }
    rootState.stop(code, {});
    return code;
}

int distributedInit(int *argc, char ***argv)
{
    if (!qEnvironmentVariableIsSet("OMPI_COMM_WORLD_SIZE") && !qEnvironmentVariableIsSet("PMIX_RANK")
        && !qEnvironmentVariableIsSet("PMI_RANK"))
        return 1;
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return 1;
    g_initialised = true;
    std::atexit(distributedFinalize); // QCommandLineParser ends --help and bad options with exit()
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    return g_size;
}

int distributedRank() { return g_rank; }

void distributedFinalize()
{
    if (g_initialised)
        MPI_Finalize();
    g_initialised = false;
}

} // namespace ds
