#pragma once

#include "compare/compare.h"
#include "compare/pairdetail.h"
#include "run/runsummary.h"

#include <QColor>
#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QWidget>
#include <atomic>
#include <memory>
#include <unordered_map>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QSplitter;
class QTabWidget;
class QTableView;
class QTableWidget;
class QToolButton;

namespace ds {

class AddedErrorPanel;
class BenchOperatorsPanel;
class CompareFilterProxy;
class CompareHistograms;
class CompareTableModel;
class HeatmapWidget;
class PagedCompareTableModel;
class PagedCsvTable;
class MappingPanel;
class WrappedTextArea;
struct LoadedTensor;

/// NPU vs bench comparison: runs compareIndexes in the background (progress, cancel), shows the
/// rows with DumpScope's verdict next to msprobe's Result, both coloured, and why they differ
/// where they do (the run's first divergence pinned on top, sort, filter by text and verdict);
/// the summary counts both. For the selected row: both verdicts and its numbers, both tensors'
/// statistics, overlaid histograms over the same bins, the histogram of |NPU - bench|, the
/// worst elements and a heatmap of the element-wise absolute error. Thresholds are edited in a
/// dialog and kept in the settings.
///
/// The layout follows the room the tab gets: wide, the bench operators and the mapping sit
/// beside the rows and the selected row's detail below both; narrow (beside the docks at
/// 1280 or 1600 px), the detail, the bench operators and the mapping are tabs below the rows
/// (dragging rows over a tab opens it) and the statistics a tab beside the histograms.
///
/// Beside the rows: the bench operators (unmatched ones highlighted) and the user mapping.
/// Dragging NPU rows onto a bench operator (in that list or a row of the table), or "Map to
/// bench operator…" in the rows' context menu, adds a mapping entry; the rows whose pairing
/// changes are compared again in the background and the verdicts and the first divergence
/// follow. The mapping is saved and loaded in the format of `dumpscope-cli compare --mapping`.
class CompareView : public QWidget
{
    Q_OBJECT
public:
    explicit CompareView(QWidget *parent = nullptr);
    ~CompareView() override;

    /// Indexes the bench dump at `benchPath` and compares it with `npu`, in the background.
    void start(std::shared_ptr<const DumpIndex> npu, int npuDump, const QString &benchPath);
    /// Opens msprobe's compare table (compare_result*.csv/.xlsx, core/compare/resulttable.h) in
    /// the background and shows its rows as a comparison: its Results are the verdicts, the
    /// summary says the rows were read, not computed, and what to do next.
    void openTable(const QString &path);
    /// The table shown (empty when the rows were computed).
    QString tablePath() const;
    /// A CSV table of pagedTableThreshold() bytes or more is opened paged (compareviewpaged.cpp):
    /// its first rows as soon as they are read, then every row a page at a time, msprobe's cells
    /// as the file holds them, in a table of their own that replaces the comparison's rows.
    QTableView *pagedTable() const { return m_pagedTable; }
    PagedCompareTableModel *pagedModel() const { return m_pagedModel; }
    /// True while a paged table is shown (its rows, or the first ones while the rest is read).
    bool isPaged() const;
    /// Drops the comparison (its NPU dump was closed): rows, detail, answer; a comparison still
    /// running is cancelled and its result ignored.
    void clear();
    bool isRunning() const;
    int npuDump() const { return m_npuDump; }
    /// The NPU index of the comparison (the dump's index, or one run of it).
    std::shared_ptr<const DumpIndex> npuIndex() const { return m_npu; }

    CompareTableModel *model() const { return m_model; }
    CompareFilterProxy *proxy() const { return m_proxy; }
    /// The rows' name filter (Ctrl+F on the Compare tab).
    QLineEdit *filterEdit() const { return m_filter; }
    QTableView *table() const { return m_table; }
    QTableWidget *worstTable() const { return m_worst; }
    QTableWidget *statsTable() const { return m_stats; }
    CompareHistograms *histograms() const { return m_histograms; }
    /// The selected row's verdicts and numbers (above its statistics and histograms).
    QLabel *detailStatus() const;
    /// The summary above the rows: the run-level answer, both verdicts counted, the first divergence.
    QLabel *summary() const;
    /// True when the detail, the bench operators and the mapping are tabs below the rows.
    bool isNarrow() const { return m_narrow; }
    /// Detail of the selected row (null while loading or when the row has no pair).
    const PairDetail *detail() const { return m_detail.get(); }
    /// The selected row's element-wise error shown by the heatmap (absolute or relative, as
    /// chosen above it), float32 in the NPU tensor's shape; null when too large or not loaded.
    std::shared_ptr<const LoadedTensor> heatmapTensor() const;
    QComboBox *heatmapKindCombo() const { return m_heatmapKind; }
    CompareThresholds thresholds() const { return m_thresholds; }
    void setThresholds(const CompareThresholds &t);
    /// The run-level answer of the current result (steps x ranks, core/run) and its per-scope
    /// summaries; null before a comparison finished.
    const RunAnswer *runAnswer() const;
    const std::vector<ScopeSummary> &runScopes() const;
    /// Worst verdict per NPU operator (int(Verdict)), for the graph overlay.
    std::unordered_map<int, int> opVerdicts() const;

    const UserMapping &mapping() const { return m_mapping; }
    /// Replaces the user mapping (also before a comparison: start() uses it) and re-matches.
    void setMapping(const UserMapping &mapping);
    /// Maps NPU operators to bench operators (UserMapping::assign) and re-matches.
    void mapOperators(const QStringList &npu, const QStringList &bench);
    void removeMappingEntries(QList<int> entries);
    Result<bool> loadMapping(const QString &path);
    /// Refuses paths inside the opened dumps.
    Result<bool> saveMapping(const QString &path);
    /// True while the rows are re-matched after a mapping edit.
    bool isRemapping() const { return m_remapping; }
    BenchOperatorsPanel *benchPanel() const { return m_benchPanel; }
    MappingPanel *mappingPanel() const { return m_mappingPanel; }
    QTabWidget *sideTabs() const { return m_side; }
    /// "Ops that add the most error" beside the summary (the first divergence's scope).
    AddedErrorPanel *addedErrorPanel() const { return m_addedErrors; }
    void showMappingPanel();
    /// "Map to bench operator…" for the selected rows (a modal chooser).
    void chooseBenchForSelection();
    /// The background of the side a gap row lacks ("NPU only" / "bench only").
    static QColor gapColor();
    /// True when `file` lies inside the NPU or bench dump directory (DumpScope never writes there).
    bool insideOpenedDump(const QString &file) const;

signals:
    void finished();
    /// The rows were compared again after a mapping edit (also when nothing changed).
    void mappingApplied();
    void detailReady();
    /// The selected row's NPU tensor (to select it in the tree and the inspector).
    void npuTensorSelected(int dump, const TensorId &tensorId);

protected:
    void resizeEvent(QResizeEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    struct DetailJob;
    struct RunResult
    {
        std::shared_ptr<const DumpIndex> bench;
        std::shared_ptr<const DumpIndex> npu; ///< a table: the NPU side made from it
        std::shared_ptr<const CompareResult> result;
        QString error;
        bool remap = false;               ///< a re-match after a mapping edit
        std::vector<size_t> recompared;   ///< rows compared anew (remap)
        std::shared_ptr<const PagedCsvTable> paged; ///< a large table read paged (openPagedTable)
        CompareMode pagedMode = CompareMode::None;
    };
    /// openTable of a large CSV table; false when `path` is not one.
    /// Stops the running job and forgets the dumps before a table is read (openTable, openPagedTable).
    void beginTableRun();
    bool openPagedTable(const QString &path);
    /// Shows a paged table (its first rows while `complete` is false).
    void showPagedTable(std::shared_ptr<const PagedCsvTable> table, CompareMode mode);
    /// Back to the comparison's rows (another compare or table, clear()).
    void leavePaged();
    /// A page of the paged table's cells arrived: the name columns are sized to the first one.
    void pagedPageLoaded();
    void watchProgress();
    void sizeSplitters();
    /// Narrow or wide arrangement (see the class comment).
    void arrange(bool narrow);
    QString detailText(const CompareRow &row, int sourceRow) const;
    void remap();
    void mappingChanged();
    void updateMappingPanel();
    void showTableMenu(const QPoint &pos);
    void saveMappingAs();
    void loadMappingFrom();
    void onFinished();
    void onRowSelected();
    void onDetailDone();
    void showHeatmap();
    void editThresholds();
    void exportCsv();
    void updateSummary();

    CompareTableModel *m_model;
    CompareFilterProxy *m_proxy;
    QTableView *m_table;
    WrappedTextArea *m_summary, *m_detailStatus;
    QLineEdit *m_filter;
    QComboBox *m_verdictFilter;
    QProgressBar *m_progress;
    QToolButton *m_cancel, *m_thresholdsButton, *m_csv;
    QTabWidget *m_side; ///< bench operators, mapping (narrow: the detail first)
    QSplitter *m_top; ///< rows | side panels (narrow: the rows alone)
    QSplitter *m_split; ///< m_top over the detail (narrow: over the side tabs)
    QSplitter *m_sides; ///< statistics | detail tabs (narrow: the detail tabs alone)
    QWidget *m_detailPane;
    QTabWidget *m_detailTabs; ///< histograms, worst elements, heatmap (narrow: statistics second)
    bool m_splittersSized = false, m_narrow = false;
    BenchOperatorsPanel *m_benchPanel;
    MappingPanel *m_mappingPanel;
    AddedErrorPanel *m_addedErrors;
    UserMapping m_mapping;
    QString m_mappingFile;
    bool m_mappingModified = false;
    bool m_remapping = false, m_remapPending = false;
    QStringList m_focusOps; ///< NPU operators of the last mapping edit: selected when it is applied
    QTableWidget *m_stats, *m_worst;
    CompareHistograms *m_histograms;
    HeatmapWidget *m_heatmap;
    QComboBox *m_heatmapKind;
    CompareThresholds m_thresholds;
    std::shared_ptr<const DumpIndex> m_npu, m_bench;
    int m_npuDump = -1;
    std::shared_ptr<std::atomic<bool>> m_cancelRun, m_cancelDetail;
    std::shared_ptr<std::atomic<int>> m_runProgress;
    QFutureWatcher<RunResult> m_run;
    QFutureWatcher<std::shared_ptr<const DetailJob>> m_detailJob;
    std::shared_ptr<const DetailJob> m_shown;
    std::shared_ptr<const PairDetail> m_detail;
    QWidget *m_pagedBox = nullptr; ///< the paged table and its filter, in place of m_table
    QTableView *m_pagedTable = nullptr;
    PagedCompareTableModel *m_pagedModel = nullptr;
    QCheckBox *m_pagedNotPass = nullptr;
    QElapsedTimer m_pagedClock; ///< since openPagedTable (DS_TRACE_TABLE_OPEN prints the first rows' time)
    bool m_pagedColumnsSized = false;
};

} // namespace ds
