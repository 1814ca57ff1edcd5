#pragma once

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
    /// Operators and unreadable files per scope of the dump's index.
    void setIndex(int dump, const std::shared_ptr<const DumpIndex> &index);
    /// Per-scope compare results of run `runPath` (RunInfo::relPath) and its answer.
    void setCompare(int dump, const QString &runPath, std::vector<ScopeSummary> scopes, RunAnswer answer);
    /// Per-scope overflow results of the dump (ScopeSummary::run tells the run).
    void setOverflow(int dump, const std::vector<ScopeSummary> &scopes);
    /// Per-scope overflow results and the answer of each run, by ScopeSummary::run
    /// (overflowByRun: made off the GUI thread, the answers walk every communication op).
    using RunOverflow = std::map<QString, std::pair<std::vector<ScopeSummary>, RunAnswer>>;
    static RunOverflow overflowByRun(const std::vector<ScopeSummary> &scopes);
    void setOverflow(int dump, const RunOverflow &runs);
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
        bool scopeByScope = false;
        int indexGeneration = 0; ///< the latest setIndex (its counts arrive from a worker)
        /// The grid of the first run, laid out by the walk's worker (taken by the first refresh)
        std::shared_ptr<RunGridModel::Layout> layout;
    };
    void onRunsFound(int dump, std::shared_ptr<const RunTree> tree, std::shared_ptr<RunGridModel::Layout> layout = {});
    void onProbe(int dump, const QString &run, const QString &scope, const ScopeProbe &probe);
    void fillChooser();
    void refresh();
    void updateAnswers();
    void updateStatus();
    static QString key(const QString &run, const QString &scope) { return run + QLatin1Char('\n') + scope; }

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
