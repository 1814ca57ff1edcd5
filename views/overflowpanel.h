#pragma once

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
    bool isRunning() const { return m_watcher.isRunning(); }
    const OverflowReport *report(int dump) const;
    /// The report summarized per scope and answered per run (summarizeOverflow and
    /// RunsPanel::overflowByRun, made on the worker with the report: they walk every
    /// operator), or null before the analysis.
    const std::map<QString, std::pair<std::vector<ScopeSummary>, RunAnswer>> *runAnswers(int dump) const;
    /// The mark of every operator the report names (DumpTreeModel::OverflowRole: the worst
    /// finding's level, 4 for an operator an OpDebug record names; made on the worker), or
    /// null before the analysis.
    const std::unordered_map<int, int> *marks(int dump) const;
    QTreeWidget *list() const { return m_list; }
    QTextBrowser *details() const { return m_details; }
    /// Selects the first overflow record of the dump (or its first producer) and shows it.
    bool selectFirst(int dump);
    /// Emits showOperator for the operator of the selected entry (if any).
    void showLinkedOperator();

signals:
    void analysisFinished(int dump);
    /// The user asked to see an operator in the tree, table and inspector.
    void showOperator(int dump, int op);

private:
    struct Result
    {
        std::shared_ptr<const DumpIndex> index;
        OverflowReport report;
        std::map<QString, std::pair<std::vector<ScopeSummary>, RunAnswer>> runs; ///< RunsPanel::RunOverflow
        std::unordered_map<int, int> marks;
    };
    void startNext();
    void onFinished();
    void rebuildList();
    void showItem(QTreeWidgetItem *item);
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
    int m_running = -1;
    QFutureWatcher<std::shared_ptr<Result>> m_watcher;
    std::shared_ptr<std::atomic<bool>> m_cancelFlag;
    int m_shownDump = -1, m_shownOp = -1;
};

} // namespace ds
