#pragma once

#include "monitor/monitor.h"
#include "run/trend.h"

#include <QFutureWatcher>
#include <QPair>
#include <QRectF>
#include <QPointF>
#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>

class QComboBox;
class QCPColorMap;
class QCPColorScale;
class QCPTextElement;
class QCustomPlot;
class QLabel;
class QToolButton;

namespace ds {

/// Trends over a run: a step x operator (or module) heatmap of a chosen metric, and below it a
/// line chart of one operator over the steps, one line per rank. From the run compare (how far
/// NPU and bench are apart; "agrees until step N" marked on both plots) or, for one run alone,
/// from the statistics the producer recorded (norm, max, NaN/Inf per step, as msprobe's trend
/// view). Tables are built on a worker; clicking a heatmap row picks the operator of the chart.
class TrendsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit TrendsPanel(QWidget *parent = nullptr);
    ~TrendsPanel() override;

    /// One run's recorded statistics (or, for an underflow metric, its tensors); `run` names it
    /// in the title ("Recorded statistics of <run>").
    void setStatistics(std::shared_ptr<const DumpIndex> index, const QString &run);
    /// A comparison of the run (the NPU index it was made on) and where the runs agree until.
    void setComparison(std::shared_ptr<const DumpIndex> npu, std::shared_ptr<const CompareResult> result,
                       std::optional<qint64> agreeUpTo, const QString &title);

    const TrendTable *table() const { return m_table.get(); }
    /// True from a rebuild until its table is shown.
    bool isBusy() const { return m_building; }
    /// Shows the line chart of heatmap row `row`.
    void selectRow(int row);
    int selectedRow() const { return m_row; }
    QComboBox *sourceCombo() const { return m_source; }
    QComboBox *metricCombo() const { return m_metric; }
    QComboBox *groupCombo() const { return m_group; }
    QComboBox *rankCombo() const { return m_rank; }
    /// Stops reading the tensors for an underflow metric (shown while that runs).
    QToolButton *stopButton() const { return m_stop; }
    QCustomPlot *heatmap() const { return m_heat; }
    QCustomPlot *lines() const { return m_lines; }
    /// The "agrees until step N" label shown on the plots (empty when none).
    QString agreeMarkText() const { return m_agreeText; }
    /// The heatmap's row names as drawn (in widget pixels) with their text, top to bottom.
    QList<QPair<QRectF, QString>> rowLabelRects() const;
    /// The line under the heatmap: the cell under the mouse in the table shown now (empty when
    /// none), recomputed whenever the table changes.
    QString hoverText() const;
    /// Where cell (step, band) is drawn in heatmap() (object name "trendsHeatmap").
    QPointF cellPosition(int step, int band) const;
    /// msprobe's training monitor output (issue 33): its series, step x module x rank, as a
    /// third source ("msprobe monitor"), one metric / statistic pair per entry of the metric box.
    void setMonitor(std::shared_ptr<const monitor::MonitorDocument> doc, const QString &title);
    /// A run set (three or more runs) was compared: its runs x operators agreement matrix lives
    /// on the Run Set tab; the panel names it with a link there (showRunSetRequested). 0 runs: none.
    void setRunSet(int runs, int rows);
    /// The line naming the run set's matrix (hidden without a run set).
    QLabel *runSetLink() const { return m_runSetLink; }
    /// A run opened scope by scope has its statistics read one rank at a time (one scope per
    /// step): `ranks` (label, rank number) fill the "Read rank" chooser, `current` is the rank
    /// read. No ranks: the chooser hides (a run indexed whole has every rank).
    void setReadRanks(const std::vector<std::pair<QString, qint64>> &ranks, qint64 current);
    QComboBox *readRankCombo() const { return m_readRank; }
    /// Forgets the run's statistics / the comparison (their dump was closed).
    void clearStatistics();
    void clearComparison();

signals:
    void tableReady();
    /// The user followed the link to the run set's agreement matrix.
    void showRunSetRequested();
    /// The user chose another rank to read in the "Read rank" chooser (setReadRanks).
    void readRankChosen(qint64 rank);

private:
    void fillMetrics();
    QString valueName() const;
    QString axisName() const; ///< valueName(), or a short one where it is too long for an axis
    void rebuild();
    void onBuilt();
    void drawHeatmap();
    void drawLines();
    void markAgreement(QCustomPlot *plot, double x);
    /// The row names of the heatmap for its present size (after every layout).
    void updateRowLabels();
    void updateHover();

    QComboBox *m_source, *m_metric, *m_group, *m_rank, *m_readRank;
    QLabel *m_readRankLabel;
    QLabel *m_title, *m_status, *m_hover, *m_heatNote;
    QToolButton *m_stop;
    QLabel *m_runSetLink;
    QCustomPlot *m_heat, *m_lines;
    QCPColorMap *m_map = nullptr, *m_marks = nullptr;
    QCPColorScale *m_scale = nullptr;
    QCPTextElement *m_linesTitle = nullptr;
    std::shared_ptr<const DumpIndex> m_statsIndex, m_npu;
    std::shared_ptr<const CompareResult> m_result;
    std::optional<qint64> m_agreeUpTo;
    QString m_statsRun, m_compareTitle, m_agreeText;
    std::shared_ptr<const monitor::MonitorDocument> m_monitor;
    QString m_monitorTitle;
    std::vector<std::pair<QString, QString>> m_monitorSeries; ///< (metric, statistic) per entry of the metric box
    std::shared_ptr<const TrendTable> m_table;
    static constexpr int kMaxBands = 600; ///< heatmap rows at most (a tall plot has about as many pixels)
    TrendBands m_bands;                   ///< of m_table
    QFutureWatcher<std::shared_ptr<const TrendTable>> m_watcher;
    int m_row = -1;
    int m_labelEvery = 0, m_labelWidth = 0; ///< of the row names shown
    std::optional<QPointF> m_hoverAt; ///< the mouse over the heatmap (widget coordinates)
    bool m_pending = false;
    bool m_building = false;
    /// The underflow trends of m_statsIndex (all targets: one pass reads the tensors), per
    /// row grouping, once computed; and the cancel flag of the job computing them.
    using UnderflowTables = std::array<std::shared_ptr<const TrendTable>, kHeadroomTargets>;
    std::array<std::shared_ptr<const UnderflowTables>, 2> m_underflow;
    std::shared_ptr<std::atomic<bool>> m_cancel;
};

} // namespace ds
