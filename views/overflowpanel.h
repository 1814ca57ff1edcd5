#pragma once

#include "run/firstoverflow.h"
#include "overflow/overflowreport.h"
#include "run/runsummary.h"

#include <QFutureWatcher>
#include <QWidget>
#include <atomic>
#include <map>
#include <unordered_map>

class QLabel;
class QProgressBar;
class QPushButton;
class QTextBrowser;
class QTreeWidget;
class QTreeWidgetItem;

namespace ds {

/// Overflow records (OpDebug) and software-scan findings of every open dump. Clicking an
/// entry shows its decoded causes, raw fields and the linked operator's tensors; "Show
/// operator" jumps to it everywhere else.
class OverflowPanel : public QWidget
{
    Q_OBJECT
public:
    explicit OverflowPanel(QWidget *parent = nullptr);
    ~OverflowPanel() override;

    /// Decodes and links the dump's OpDebug records in the background (replacing an earlier
    /// result). The software scan reads every tensor: it runs when `scan` is true, else on
    /// the user's request (the "Scan all tensors" button).
    void analyze(int dump, std::shared_ptr<const DumpIndex> index, bool scan);
    /// Payload size up to which opening a dump also runs the software scan.
    static constexpr std::uint64_t kAutoScanBytes = std::uint64_t(4) << 30;
    /// analyze() with the software scan when the payload is at most kAutoScanBytes (summed on
    /// the worker: it visits every tensor record).
    void analyzeOnOpen(int dump, std::shared_ptr<const DumpIndex> index);
    bool isRunning() const { return m_running >= 0; }
    const OverflowReport *report(int dump) const;
    /// The report summarized per scope and answered per run (summarizeOverflow and
    /// RunsPanel::overflowByRun, made on the worker with the report: they walk every
    /// operator), or null before the analysis.
    const std::map<QString, std::pair<std::vector<ScopeSummary>, RunAnswer>> *runAnswers(int dump) const;
    /// The mark of every operator the report names (DumpTreeModel::OverflowRole: the worst
    /// finding's level, 4 for an operator an OpDebug record names; made on the worker), or
    /// null before the analysis.
    const std::unordered_map<int, int> *marks(int dump) const;
    /// The dump's first overflow (run/firstoverflow.h: its first run's when it holds
    /// several), or null: what the status bar, First Overflow, the list's star and
    /// `dumpscope-cli overflow` name.
    const FirstOverflow *firstOverflow(int dump) const;
    /// Its operator (into the dump's index), -1 none.
    int firstOverflowOp(int dump) const;
    /// The overflow sentence of the status bar, from every analysed dump: the first overflow
    /// of the first dump that has one (and why the two sources disagree), else that none was found.
    QString statusLine() const;
    /// statusLine() with why the operator is abnormal and its file (the label's tool tip).
    QString statusToolTip() const;
    /// The header above the list: records and findings of every analysed dump.
    QString stateText() const;
    /// Forgets a closed dump: its results, its queued or running analysis.
    void closeDump(int dump);
    QTreeWidget *list() const { return m_list; }
    QTextBrowser *details() const { return m_details; }
    /// Selects the dump's first overflow (the one starred row) and shows it.
    bool selectFirst(int dump);
    /// Emits showOperator for the operator of the selected entry (if any).
    void showLinkedOperator();
    /// Item data role of the starred row (true): the first overflow of its dump.
    static constexpr int FirstOverflowRole = Qt::UserRole + 10;

signals:
    void analysisFinished(int dump);
    /// The results changed (an analysis finished, a dump was closed): statusLine() and
    /// stateText() are to be read again.
    void summaryChanged();
    /// The user asked to see an operator in the tree, table and inspector.
    void showOperator(int dump, int op);

private:
    struct Result
    {
        std::shared_ptr<const DumpIndex> index;
        OverflowReport report;
        std::map<QString, std::pair<std::vector<ScopeSummary>, RunAnswer>> runs; ///< RunsPanel::RunOverflow
        std::unordered_map<int, int> marks;
        std::vector<FirstOverflow> first; ///< firstOverflows: one per run with an overflow
        int firstOp = -1;                 ///< the operator of first.front()
    };
    void startNext();
    void onFinished();
    void updateState();
    void rebuildList();
    void showItem(QTreeWidgetItem *item);
    QString answerHtml(const FirstOverflow &f) const;
    QString recordHtml(const Result &r, const OverflowEntry &e) const;
    QString findingHtml(const Result &r, const ScopeScan &scope, const SoftwareFinding &f) const;
    QString opHtml(const Result &r, int op) const;

    QTreeWidget *m_list;
    QTextBrowser *m_details;
    QPushButton *m_show, *m_cancel, *m_scan;
    QProgressBar *m_progress;
    QLabel *m_state;
    std::map<int, std::shared_ptr<Result>> m_results;
    struct Request
    {
        int dump;
        std::shared_ptr<const DumpIndex> index;
        bool scan;
        bool scanIfSmall = false; ///< decide `scan` from the payload size (analyzeOnOpen)
    };
    std::vector<Request> m_queue;
    int m_running = -1;           ///< the dump whose analysis is in flight, until onFinished
    bool m_runningClosed = false; ///< it was closed meanwhile: its result is dropped
    QString m_runningPath;
    QFutureWatcher<std::shared_ptr<Result>> m_watcher;
    std::shared_ptr<std::atomic<bool>> m_cancelFlag;
    int m_shownDump = -1, m_shownOp = -1;
};

} // namespace ds
