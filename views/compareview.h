#pragma once

#include "compare/compare.h"
#include "compare/pairdetail.h"

#include <QFutureWatcher>
#include <QWidget>
#include <atomic>
#include <memory>
#include <unordered_map>

class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QProgressBar;
class QTableView;
class QTableWidget;
class QToolButton;

namespace ds {

class CompareFilterProxy;
class CompareTableModel;
class HeatmapWidget;
struct LoadedTensor;

/// NPU vs bench comparison: runs compareIndexes in the background (progress, cancel), shows the
/// rows with coloured verdicts (first divergence pinned on top, sort, filter by text and
/// verdict), and for the selected row both tensors side by side: statistics, overlaid
/// histograms over the same bins, the histogram of |NPU - bench|, the worst elements and a
/// heatmap of the element-wise absolute error. Thresholds are edited in a dialog and kept in
/// the settings.
class CompareView : public QWidget
{
    Q_OBJECT
public:
    explicit CompareView(QWidget *parent = nullptr);
    ~CompareView() override;

    /// Indexes the bench dump at `benchPath` and compares it with `npu`, in the background.
    void start(std::shared_ptr<const DumpIndex> npu, int npuDump, const QString &benchPath);
    bool isRunning() const;
    int npuDump() const { return m_npuDump; }

    CompareTableModel *model() const { return m_model; }
    CompareFilterProxy *proxy() const { return m_proxy; }
    QTableView *table() const { return m_table; }
    QTableWidget *worstTable() const { return m_worst; }
    QTableWidget *statsTable() const { return m_stats; }
    /// Detail of the selected row (null while loading or when the row has no pair).
    const PairDetail *detail() const { return m_detail.get(); }
    CompareThresholds thresholds() const { return m_thresholds; }
    void setThresholds(const CompareThresholds &t);
    /// Worst verdict per NPU operator (int(Verdict)), for the graph overlay.
    std::unordered_map<int, int> opVerdicts() const;

signals:
    void finished();
    void detailReady();
    /// The selected row's NPU tensor (to select it in the tree and the inspector).
    void npuTensorSelected(int dump, const QString &tensorId);

private:
    struct DetailJob;
    struct RunResult
    {
        std::shared_ptr<const DumpIndex> bench;
        std::shared_ptr<const CompareResult> result;
        QString error;
    };
    void onFinished();
    void onRowSelected();
    void onDetailDone();
    void editThresholds();
    void exportCsv();
    void updateSummary();

    CompareTableModel *m_model;
    CompareFilterProxy *m_proxy;
    QTableView *m_table;
    QLabel *m_summary, *m_detailStatus;
    QLineEdit *m_filter;
    QComboBox *m_verdictFilter;
    QProgressBar *m_progress;
    QToolButton *m_cancel, *m_thresholdsButton, *m_csv;
    QTableWidget *m_stats, *m_worst;
    QCustomPlot *m_hist, *m_errHist;
    HeatmapWidget *m_heatmap;
    CompareThresholds m_thresholds;
    std::shared_ptr<const DumpIndex> m_npu, m_bench;
    int m_npuDump = -1;
    std::shared_ptr<std::atomic<bool>> m_cancelRun, m_cancelDetail;
    std::shared_ptr<std::atomic<int>> m_runProgress;
    QFutureWatcher<RunResult> m_run;
    QFutureWatcher<std::shared_ptr<const DetailJob>> m_detailJob;
    std::shared_ptr<const DetailJob> m_shown;
    std::shared_ptr<const PairDetail> m_detail;
};

} // namespace ds
