// RunsPanel: the compare of a run opened scope by scope (DocumentContext::isScopeByScope; issue
// 35, item 3). No index of the whole run exists, so the run is compared the way the CLI compares
// a run: scope pair by scope pair (compareRuns), each pair's indexes dropped once its summary is
// kept. The grid and the answer line fill as the pairs are compared.
#include "runspanel.h"

#include "background.h"
#include "run/runcompare.h"

#include <QElapsedTimer>
#include <QLabel>
#include <QLocale>
#include <QToolButton>
#include <QtConcurrent/QtConcurrentRun>

#include <mutex>

namespace ds {

namespace {

/// A summary as the grid keeps it: the communication ops are in the answer already.
ScopeSummary forGrid(const ScopeSummary &s)
{
    ScopeSummary g = s;
    std::vector<CommOp>().swap(g.comm);
    return g;
}

} // namespace

void RunsPanel::compareScopes(int dump, const QString &runPath, std::shared_ptr<const RunTree> tree, const QString &benchPath,
                              const CompareOptions &options)
{
    if (m_cmp.running)
        cancelCompare();
    if (m_cmp.job.isRunning())
        m_closedJobs.push_back(m_cmp.job); // stops at its next check; waited for by the destructor
    const int generation = m_cmp.generation + 1;
    m_cmp = ScopesCompare{};
    m_cmp.generation = generation;
    m_cmp.dump = dump;
    m_cmp.runPath = runPath;
    m_cmp.benchPath = benchPath;
    m_cmp.cancel = std::make_shared<std::atomic<bool>>(false);
    m_cmp.running = true;
    if (const auto it = m_dumps.find(dump); it != m_dumps.end())
        it->second.compare.erase(runPath);
    if (dump != m_dump || runPath != m_runPath)
        showRun(dump, runPath);
    else
        m_model->clearCompare();
    updateAnswers();
    m_cmp.job = QtConcurrent::run(backgroundPool(), [this, generation, runPath, tree, benchPath, options, cancel = m_cmp.cancel] {
        const BackgroundPriority background;
        auto post = [this, generation](std::vector<ScopeSummary> fresh, RunAnswer answer, size_t done, size_t total, bool finished,
                                       QString error) {
            QMetaObject::invokeMethod(this, [=, this, fresh = std::move(fresh), answer = std::move(answer)]() mutable {
                onCompareUpdate(generation, std::move(fresh), std::move(answer), done, total, finished, error);
            }, Qt::QueuedConnection);
        };
        JobControl job;
        job.cancelFlag = cancel.get();
        const RunInfo *npuRun = tree ? tree->run(runPath) : nullptr;
        if (!npuRun) {
            post({}, {}, 0, 0, true, tr("no run %1 in the NPU dump").arg(runPath.isEmpty() ? QStringLiteral(".") : runPath));
            return;
        }
        auto found = discoverRuns(benchPath, &job); // the bench run: walked, not indexed
        if (cancel->load())
            return post({}, {}, 0, 0, true, tr("cancelled"));
        if (!found)
            return post({}, {}, 0, 0, true, tr("bench path: %1").arg(found.errorText()));
        const RunTree bench = std::move(*found);
        if (bench.runs.size() > 1) { // as the CLI: one run folder with another
            QStringList names;
            for (const RunInfo &r : bench.runs)
                names << (r.relPath.isEmpty() ? QStringLiteral(".") : r.relPath);
            return post({}, {}, 0, 0, true,
                        tr("bench path %1 holds %2 runs (%3); compare one run folder with another")
                            .arg(benchPath)
                            .arg(bench.runs.size())
                            .arg(names.join(QStringLiteral(", "))));
        }
        static const RunInfo empty;
        const RunInfo &benchRun = bench.runs.empty() ? empty : bench.runs.front();
        const size_t total = pairScopes(*npuRun, benchRun).size();
        post({}, {}, 0, total, false, {});
        // What is kept of a pair: its summary (the answer needs every scope's counts and the
        // communication ops of the step that diverges first). The grid gets the new summaries
        // and the answer so far at most every 0.5 s.
        std::mutex mutex;
        std::vector<ScopeSummary> all(total);
        std::vector<char> have(total, 0);
        std::vector<ScopeSummary> fresh;
        size_t done = 0;
        QElapsedTimer since;
        since.start();
        auto answerSoFar = [&] {
            std::vector<ScopeSummary> sofar;
            sofar.reserve(done);
            for (size_t i = 0; i < total; ++i)
                if (have[i])
                    sofar.push_back(all[i]);
            return combineRun(std::move(sofar), RunAnswerKind::Compare);
        };
        compareRuns(*tree, *npuRun, bench, benchRun, options, &job, [&](size_t i, const ScopePair &, ScopeCompare &s) {
            std::lock_guard lock(mutex);
            all[i] = s.summary;
            have[i] = 1;
            ++done;
            fresh.push_back(forGrid(s.summary));
            if (since.elapsed() >= 500 && done < total) {
                since.restart();
                post(std::exchange(fresh, {}), answerSoFar(), done, total, false, {});
            }
        });
        if (cancel->load())
            return post(std::move(fresh), answerSoFar(), done, total, true, tr("cancelled"));
        // the whole run's answer, as the CLI's: combineRun over every pair's summary
        RunAnswer answer = combineRun(std::move(all), RunAnswerKind::Compare);
        post(std::move(fresh), std::move(answer), done, total, true, {});
    });
}

void RunsPanel::cancelCompare()
{
    if (m_cmp.cancel)
        *m_cmp.cancel = true;
}

void RunsPanel::onCompareUpdate(int generation, std::vector<ScopeSummary> fresh, RunAnswer answer, size_t done, size_t total,
                                bool finished, const QString &error)
{
    if (generation != m_cmp.generation) // an earlier compare's
        return;
    m_cmp.done = done;
    m_cmp.total = total;
    const auto it = m_dumps.find(m_cmp.dump);
    if (it != m_dumps.end() && (total > 0 || !fresh.empty())) {
        Answers &a = it->second.compare[m_cmp.runPath];
        a.answer = std::move(answer);
        if (m_cmp.dump == m_dump && m_cmp.runPath == m_runPath)
            m_model->addCompare(fresh, a.answer);
        a.scopes.insert(a.scopes.end(), std::make_move_iterator(fresh.begin()), std::make_move_iterator(fresh.end()));
    }
    if (finished) {
        m_cmp.running = false;
        m_cmp.error = error;
        m_cmp.cancelled = m_cmp.cancel && m_cmp.cancel->load();
    }
    updateAnswers();
    emit compareUpdated(m_cmp.dump, m_cmp.runPath, done, total, finished, error);
}

QString RunsPanel::compareState() const
{
    if (m_cmp.dump != m_dump || m_cmp.runPath != m_runPath || m_cmp.generation == 0)
        return {};
    const QLocale locale;
    if (m_cmp.running)
        return m_cmp.total == 0 ? tr("comparing with %1: walking the bench run\u2026").arg(m_cmp.benchPath)
                                : tr("comparing with %1 scope pair by scope pair: %2 of %3 compared\u2026")
                                      .arg(m_cmp.benchPath, locale.toString(qulonglong(m_cmp.done)), locale.toString(qulonglong(m_cmp.total)));
    if (m_cmp.cancelled)
        return tr("compare with %1 cancelled after %2 of %3 scope pairs; the answer covers those only")
            .arg(m_cmp.benchPath, locale.toString(qulonglong(m_cmp.done)), locale.toString(qulonglong(m_cmp.total)));
    if (!m_cmp.error.isEmpty())
        return tr("compare with %1 failed: %2").arg(m_cmp.benchPath, m_cmp.error);
    return {};
}

QByteArray RunsPanel::compareRunJson(int dump, const QString &runPath) const
{
    const auto it = m_dumps.find(dump);
    if (it == m_dumps.end())
        return {};
    const auto c = it->second.compare.find(runPath);
    return c == it->second.compare.end() ? QByteArray() : c->second.answer.toJson(c->second.scopes);
}

} // namespace ds
