#pragma once

#include "compare/compare.h"
#include "models/rungridmodel.h"
#include "run/runsummary.h"

#include <QFutureWatcher>
#include <QWidget>
#include <atomic>
#include <map>
#include <memory>

class QComboBox;
class QLabel;
class QTableView;
class QToolButton;

namespace ds {

class DumpIndex;

/// The runs overview: for a run of an open dump, a steps x ranks grid with each scope's state,
/// size and what was dumped. The runs are found by a walk of the folder as soon as it is opened
/// (no record is read), then every scope's details are read in the background one at a time
/// (lazily: the grid fills cell by cell); the index, the run compare and the overflow check add
/// their per-scope results as they finish. Above the grid: the run-level answers in one line
/// each. Double-clicking a cell shows that scope in the dump tree.
class RunsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit RunsPanel(QWidget *parent = nullptr);
    ~RunsPanel() override;

    /// Finds the runs under `path` (dump number `dump`) and reads their scopes' details.
    void openDump(int dump, const QString &path);
    /// Dump `dump` at `path` is being opened and walked by someone else (DocumentContext): its
    /// runs come with setRuns, and the overview does not walk the folder itself.
    void awaitRuns(int dump, const QString &path);
    /// The runs of a dump announced by awaitRuns (DocumentContext::runsWalked): their scopes'
    /// details are read from them (nothing when the dump was closed meanwhile).
    void setRuns(int dump, std::shared_ptr<const RunTree> runs);
    /// Operators and unreadable files per scope of the dump's index.
    void setIndex(int dump, const std::shared_ptr<const DumpIndex> &index);
    /// Per-scope compare results of run `runPath` (RunInfo::relPath) and its answer.
    void setCompare(int dump, const QString &runPath, std::vector<ScopeSummary> scopes, RunAnswer answer);
    /// Compares run `runPath` of dump `dump`, opened scope by scope (`tree`: its walk; no index
    /// of the whole run), with the bench run at `benchPath` scope pair by scope pair on a worker:
    /// the engine of the CLI's run compare (compareRuns, each pair's indexes dropped once its
    /// summary is kept). The grid's verdicts and the run's first divergence so far arrive as the
    /// pairs are compared (compareUpdated), the answer at the end equals `dumpscope-cli compare`'s.
    /// A compare already running is cancelled.
    void compareScopes(int dump, const QString &runPath, std::shared_ptr<const RunTree> tree, const QString &benchPath,
                       const CompareOptions &options = {});
    /// Stops the compare of compareScopes (what was compared stays shown, marked as partial).
    void cancelCompare();
    bool isComparing() const { return m_cmp.running; }
    /// Scope pairs compared and in all by the running (or last) compareScopes.
    std::pair<size_t, size_t> compareProgress() const { return {m_cmp.done, m_cmp.total}; }
    /// The `run` object of `dumpscope-cli compare --json` for the compare of run `runPath` of
    /// `dump` (RunAnswer::toJson over its summaries), empty when there is none.
    QByteArray compareRunJson(int dump, const QString &runPath) const;
    /// The overflow of dump `dump`, opened scope by scope (`tree`: its walk): every scope indexed
    /// alone and scanned on a worker (analyzeOverflow with the software scan, summarizeOverflow),
    /// as `dumpscope-cli overflow` answers a run; the grid and the Overflow line get the result
    /// (setOverflow), scanFinished the first overflow. A scan already running is stopped.
    void scanScopes(int dump, std::shared_ptr<const RunTree> tree);
    bool isScanning() const { return m_scan.running; }
    /// Threads scanScopes scans ranks on (default: a lane per core, at least 2; 1 scans one rank
    /// after another, as before issue 35's sixth session: benchmarks and tests compare the two).
    void setScanLanes(unsigned lanes) { m_scanLanes = lanes; }
    /// The `run` object of `dumpscope-cli overflow --json` for run `runPath` of `dump` (empty: none).
    QByteArray overflowRunJson(int dump, const QString &runPath) const;
    /// Per-scope overflow results of the dump (ScopeSummary::run tells the run).
    void setOverflow(int dump, const std::vector<ScopeSummary> &scopes);
    /// Per-scope overflow results and the answer of each run, by ScopeSummary::run
    /// (overflowByRun: made off the GUI thread, the answers walk every communication op).
    using RunOverflow = std::map<QString, std::pair<std::vector<ScopeSummary>, RunAnswer>>;
    static RunOverflow overflowByRun(const std::vector<ScopeSummary> &scopes);
    void setOverflow(int dump, const RunOverflow &runs);
    void setOverflow(int dump, RunOverflow &&runs);
    /// The dump was opened scope by scope (DocumentContext::isScopeByScope): the status line
    /// says that reading the scopes' details is not reading their operators.
    void setScopeByScope(int dump);
    /// Shows run `runPath` of dump `dump` (the first run when there is no such run).
    void showRun(int dump, const QString &runPath);
    /// Forgets a closed dump (its walk and probes stop); shows another open dump's run, or nothing.
    void closeDump(int dump);
    /// The line under the grid, from the shown run's state and the walks still running.
    QString statusText() const;

    int dump() const { return m_dump; }
    QString runPath() const { return m_runPath; }
    /// The runs found under a dump (null while the walk runs).
    std::shared_ptr<const RunTree> runs(int dump) const;
    bool isBusy() const;
    RunGridModel *model() const { return m_model; }
    QTableView *grid() const { return m_grid; }
    QComboBox *runChooser() const { return m_runs; }
    QString compareAnswer() const;
    QString overflowAnswer() const;

    /// The RunInfo::relPath of a DumpLevels::run value in a dump ("" for a single-run dump).
    static QString runPathOf(const RunTree &tree, const QString &levelsRun);

signals:
    /// The runs under a dump were found.
    void runsFound(int dump);
    /// Every scope of the dump has its details.
    void probed(int dump);
    /// compareScopes: more pairs compared (`done` of `total`); `finished` at the end (also when
    /// cancelled or failed: `error` says why, empty when it ran to the end).
    void compareUpdated(int dump, const QString &runPath, qulonglong done, qulonglong total, bool finished, const QString &error);
    /// scanScopes: `done` of `total` scopes scanned; `finished` at the end, with the first
    /// overflow's line (FirstOverflow::line, empty when none) or `error` (cancelled).
    void scanUpdated(int dump, qulonglong done, qulonglong total, bool finished, const QString &first, const QString &error);
    /// A cell was activated: show the scope in the tree.
    void scopeActivated(int dump, const QString &runPath, const QString &scopeId);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void fitColumns();
    struct Answers
    {
        std::vector<ScopeSummary> scopes;
        RunAnswer answer;
    };
    struct DumpRuns
    {
        QString path;
        std::shared_ptr<const RunTree> tree;
        std::map<QString, ScopeProbe> probes;            ///< run + '\n' + scope
        std::map<QString, size_t> probedOfRun;           ///< scopes in `probes`, by run (the status line)
        std::map<QString, std::pair<int, int>> indexed;  ///< run + '\n' + scope -> ops, errors
        std::map<QString, Answers> compare, overflow;    ///< by run
        std::shared_ptr<std::atomic<bool>> cancel;
        QFuture<void> job;
        bool probing = false;
        bool started = false; ///< the walk (or the probes of runs given) started
        bool scopeByScope = false;
        int indexGeneration = 0; ///< the latest setIndex (its counts arrive from a worker)
        /// The grid of the first run, laid out by the walk's worker (taken by the first refresh)
        std::shared_ptr<RunGridModel::Layout> layout;
    };
    void startJob(int dump, std::shared_ptr<const RunTree> given);
    void onRunsFound(int dump, std::shared_ptr<const RunTree> tree, std::shared_ptr<RunGridModel::Layout> layout = {});
    void onProbe(int dump, const QString &run, const QString &scope, const ScopeProbe &probe);
    void fillChooser();
    void refresh();
    void updateAnswers();
    void updateStatus();
    static QString key(const QString &run, const QString &scope) { return run + QLatin1Char('\n') + scope; }
    /// The running (or last) compareScopes (views/runspanelcompare.cpp).
    struct ScopesCompare
    {
        int dump = -1;
        QString runPath, benchPath, error;
        std::shared_ptr<std::atomic<bool>> cancel;
        QFuture<void> job;
        int generation = 0;
        size_t done = 0, total = 0;
        bool running = false, cancelled = false;
    };
    void onCompareUpdate(int generation, std::vector<ScopeSummary> fresh, RunAnswer answer, size_t done, size_t total,
                         bool finished, const QString &error);
    QString compareState() const;
    ScopesCompare m_cmp;
    ScopesCompare m_scan; ///< scanScopes (views/runspanelscan.cpp): runPath and benchPath unused
    unsigned m_scanLanes = 0; ///< setScanLanes (0: the default)
    void onScanUpdate(int generation, size_t done, size_t total, bool finished, std::shared_ptr<RunOverflow> runs,
                      const QString &first, const QString &error);
    QToolButton *m_cancelCompare = nullptr;

    RunGridModel *m_model;
    QTableView *m_grid;
    QComboBox *m_runs;
    QLabel *m_shape, *m_compareLine, *m_overflowLine, *m_status, *m_legend;
    std::map<int, DumpRuns> m_dumps;
    std::vector<QFuture<void>> m_closedJobs; ///< walks of closed dumps, cancelled, maybe still running
    int m_dump = -1;
    QString m_runPath;
};

} // namespace ds
