// RunsPanel: the overflow of a run opened scope by scope (DocumentContext::isScopeByScope;
// issue 35, item 3). No index of the whole run exists, so each rank's steps are indexed together
// and scanned on a worker, as `dumpscope-cli overflow` splits a run (app/cli/distributedplan.cpp):
// an OpDebug record links operators of its device's other iterations, and a step's first anomaly
// can come from the rank's previous step (overflow/inputorigin.h); per rank analyzeOverflow and
// summarizeOverflow, then the run's answer (combineRun) and its first overflow (firstOverflows).
// A rank's steps at a time on each core: memory grows with a rank's operators per core, not the run's.
#include "runspanel.h"

#include "background.h"
#include "overflow/overflowreport.h"
#include "run/firstoverflow.h"
#include "run/runcompare.h"
#include "util/parallel.h"

#include <QElapsedTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <map>
#include <mutex>

namespace ds {

void RunsPanel::scanScopes(int dump, std::shared_ptr<const RunTree> tree)
{
    if (m_scan.cancel)
        *m_scan.cancel = true;
    if (m_scan.job.isRunning())
        m_closedJobs.push_back(m_scan.job); // stops at its next check; waited for by the destructor
    const int generation = m_scan.generation + 1;
    m_scan = ScopesCompare{};
    m_scan.generation = generation;
    m_scan.dump = dump;
    m_scan.cancel = std::make_shared<std::atomic<bool>>(false);
    m_scan.running = true;
    m_scan.job = QtConcurrent::run(backgroundPool(), [this, generation, tree, cancel = m_scan.cancel, lanes = m_scanLanes] {
        const BackgroundPriority background; // the lanes started below inherit it
        auto post = [this, generation](size_t done, size_t total, bool finished, std::shared_ptr<RunOverflow> runs,
                                       QString first, QString error) {
            QMetaObject::invokeMethod(this, [=, this] { onScanUpdate(generation, done, total, finished, runs, first, error); },
                                      Qt::QueuedConnection);
        };
        // The units: each run's ranks (a rank's steps' claims together), in run then rank order.
        struct Unit
        {
            RunScope scope;
            size_t steps = 0;
        };
        std::vector<Unit> units;
        size_t total = 0;
        for (const RunInfo &run : tree->runs) {
            std::map<QString, Unit> ranks;
            for (const RunScope &scope : run.scopes) {
                Unit &u = ranks[scope.rank];
                u.scope.claims.insert(u.scope.claims.end(), scope.claims.begin(), scope.claims.end());
                ++u.steps;
            }
            total += run.scopes.size();
            for (auto &[label, unit] : ranks)
                units.push_back(std::move(unit));
        }
        post(0, total, false, nullptr, {}, {});
        // A lane per core (as `info` reads its batches, run/streamedinfo.cpp), each rank indexed,
        // scanned and freed on its lane alone; the summaries kept by rank number, so the answer
        // sees them in the order of one rank after another whichever lane finished first.
        std::vector<std::vector<ScopeSummary>> summaries(units.size());
        std::vector<char> scannedOf(units.size(), 1);
        std::atomic<size_t> done{0};
        std::mutex progress;
        QElapsedTimer since;
        since.start();
        parallelChunks(units.size(), 1, [&](size_t u, size_t, size_t) {
            if (cancel->load())
                return false;
            const ParallelLimit oneThread(1); // the lanes take the cores: a rank's kernels on its lane alone
            JobControl job;
            job.cancelFlag = cancel.get();
            auto index = indexScope(*tree, units[u].scope, &job); // dropped after its scan
            OverflowOptions options; // the software scan, as the CLI's overflow
            const OverflowReport report = analyzeOverflow(*index, options, &job);
            scannedOf[u] = report.scanned ? 1 : 0;
            summaries[u] = summarizeOverflow(*index, report);
            index.reset(); // freed on this lane, beside the other lane's reading
            const size_t now = done += units[u].steps;
            std::lock_guard lock(progress);
            if (since.elapsed() >= 500) {
                since.restart();
                post(now, total, false, nullptr, {}, {});
            }
            return !cancel->load();
        }, lanes == 0 ? std::max(2u, workerCount()) : lanes);
        if (cancel->load())
            return post(done, total, true, nullptr, {}, tr("cancelled"));
        std::vector<ScopeSummary> scopes;
        bool scanned = true;
        for (size_t u = 0; u < units.size(); ++u) {
            scanned = scanned && scannedOf[u];
            for (ScopeSummary &s : summaries[u])
                scopes.push_back(std::move(s));
        }
        summaries.clear();
        const std::vector<FirstOverflow> first = firstOverflows(scopes, scanned); // the rule the CLI applies
        auto runs = std::make_shared<RunOverflow>(overflowByRun(scopes));
        post(done, total, true, std::move(runs), first.empty() ? QString() : first.front().line(), {});
    });
}

void RunsPanel::onScanUpdate(int generation, size_t done, size_t total, bool finished, std::shared_ptr<RunOverflow> runs,
                             const QString &first, const QString &error)
{
    if (generation != m_scan.generation) // an earlier scan's, or its dump was closed
        return;
    m_scan.done = done;
    m_scan.total = total;
    if (finished) {
        m_scan.running = false;
        m_scan.error = error;
        if (runs && m_dumps.count(m_scan.dump))
            setOverflow(m_scan.dump, std::move(*runs)); // the scan's alone: moved, not copied (102,400 summaries)
    }
    emit scanUpdated(m_scan.dump, done, total, finished, first, error);
}

QByteArray RunsPanel::overflowRunJson(int dump, const QString &runPath) const
{
    const auto it = m_dumps.find(dump);
    if (it == m_dumps.end())
        return {};
    const auto o = it->second.overflow.find(runPath);
    return o == it->second.overflow.end() ? QByteArray() : o->second.answer.toJson(o->second.scopes);
}

} // namespace ds
