// RunsPanel: the overflow of a run opened scope by scope (DocumentContext::isScopeByScope;
// issue 35, item 3). No index of the whole run exists, so each rank's steps are indexed together
// and scanned on a worker, as `dumpscope-cli overflow` splits a run (app/cli/distributedplan.cpp):
// an OpDebug record links operators of its device's other iterations, and a step's first anomaly
// can come from the rank's previous step (overflow/inputorigin.h); per rank analyzeOverflow and
// summarizeOverflow, then the run's answer (combineRun) and its first overflow (firstOverflows).
// One rank's steps at a time: memory grows with a rank's operators, not the run's.
#include "runspanel.h"

#include "background.h"
#include "overflow/overflowreport.h"
#include "run/firstoverflow.h"
#include "run/runcompare.h"

#include <QElapsedTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <map>

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
    m_scan.job = QtConcurrent::run(backgroundPool(), [this, generation, tree, cancel = m_scan.cancel] {
        const BackgroundPriority background;
        auto post = [this, generation](size_t done, size_t total, bool finished, std::shared_ptr<const RunOverflow> runs,
                                       QString first, QString error) {
            QMetaObject::invokeMethod(this, [=, this] { onScanUpdate(generation, done, total, finished, runs, first, error); },
                                      Qt::QueuedConnection);
        };
        JobControl job;
        job.cancelFlag = cancel.get();
        size_t total = 0, done = 0;
        for (const RunInfo &run : tree->runs)
            total += run.scopes.size();
        post(0, total, false, nullptr, {}, {});
        std::vector<ScopeSummary> scopes;
        bool scanned = true;
        QElapsedTimer since;
        since.start();
        for (const RunInfo &run : tree->runs) {
            std::map<QString, std::pair<RunScope, size_t>> ranks; // a rank's steps: claims together, how many
            for (const RunScope &scope : run.scopes) {
                auto &[rank, count] = ranks[scope.rank];
                rank.claims.insert(rank.claims.end(), scope.claims.begin(), scope.claims.end());
                ++count;
            }
            for (const auto &[label, rank] : ranks) {
                if (cancel->load())
                    return post(done, total, true, nullptr, {}, tr("cancelled"));
                const auto index = indexScope(*tree, rank.first, &job); // dropped after its scan
                OverflowOptions options; // the software scan, as the CLI's overflow
                const OverflowReport report = analyzeOverflow(*index, options, &job);
                scanned = scanned && report.scanned;
                for (ScopeSummary &s : summarizeOverflow(*index, report))
                    scopes.push_back(std::move(s));
                done += rank.second;
                if (since.elapsed() >= 500) {
                    since.restart();
                    post(done, total, false, nullptr, {}, {});
                }
            }
        }
        if (cancel->load())
            return post(done, total, true, nullptr, {}, tr("cancelled"));
        const std::vector<FirstOverflow> first = firstOverflows(scopes, scanned); // the rule the CLI applies
        auto runs = std::make_shared<const RunOverflow>(overflowByRun(scopes));
        post(done, total, true, std::move(runs), first.empty() ? QString() : first.front().line(), {});
    });
}

void RunsPanel::onScanUpdate(int generation, size_t done, size_t total, bool finished, std::shared_ptr<const RunOverflow> runs,
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
            setOverflow(m_scan.dump, *runs);
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
