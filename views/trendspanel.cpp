#include "trendspanel.h"

#include "run/monitortrend.h"

#include "background.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPointer>
#include <QStandardItemModel>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <qcustomplot.h>

#include <cmath>

namespace ds {

namespace {

enum Source { FromComparison, FromStatistics, FromMonitor };

QString num(double v)
{
    if (std::isnan(v))
        return QStringLiteral("\u2014");
    return QString::number(v, 'g', 5);
}

const QColor kNonFinite(0xd0, 0x1c, 0x8b); // magenta: in neither colour gradient

/// Recorded statistics: viridis (dark blue to yellow); white stays free for "no value".
QCPColorGradient statisticsGradient()
{
    QCPColorGradient g;
    g.clearColorStops();
    g.setColorStopAt(0.0, QColor(0x44, 0x01, 0x54));
    g.setColorStopAt(0.25, QColor(0x3b, 0x52, 0x8b));
    g.setColorStopAt(0.5, QColor(0x21, 0x91, 0x8c));
    g.setColorStopAt(0.75, QColor(0x5e, 0xc9, 0x62));
    g.setColorStopAt(1.0, QColor(0xfd, 0xe7, 0x25));
    return g;
}

/// White (agree) to dark red: how far the runs are apart.
QCPColorGradient errorGradient(bool verdict)
{
    QCPColorGradient g;
    g.clearColorStops();
    if (verdict) {
        g.setColorStopAt(0.0, QColor(0xd8, 0xf0, 0xd8));
        g.setColorStopAt(0.5, QColor(0xf6, 0xd3, 0x6b));
        g.setColorStopAt(1.0, QColor(0xd7, 0x30, 0x27));
        g.setLevelCount(3);
    } else {
        g.setColorStopAt(0.0, QColor(0xff, 0xff, 0xf0));
        g.setColorStopAt(0.35, QColor(0xfd, 0xb8, 0x63));
        g.setColorStopAt(0.7, QColor(0xe3, 0x4a, 0x33));
        g.setColorStopAt(1.0, QColor(0x7f, 0x00, 0x00));
    }
    return g;
}

/// `text` elided to fit along a vertical axis: QCustomPlot centres a label on its axis and
/// cuts a longer one at both ends ("Fraction that underflows in float8_e4m3fn (values read)"
/// beside a chart 150 px high).
QString fittedAxisLabel(const QCPAxis *axis, const QString &text)
{
    const int room = axis->axisRect()->height() > 0 ? axis->axisRect()->height() : axis->parentPlot()->height() - 60;
    return QFontMetrics(axis->labelFont()).elidedText(text, Qt::ElideMiddle, std::max(80, room));
}

} // namespace

TrendsPanel::TrendsPanel(QWidget *parent) : QWidget(parent), m_heat(new QCustomPlot(this)), m_lines(new QCustomPlot(this))
{
    // The row of choices and the two plots would ask for about 400 x 540 pixels: as the
    // centre tab's minimum that squeezed the dump tree dock (and its items out of view).
    // The panel may be narrower; its contents then shrink.
    setMinimumSize(240, 200);
    m_source = new QComboBox(this);
    m_source->addItem(tr("Comparison with the bench run"), int(FromComparison));
    m_source->addItem(tr("Statistics of the run"), int(FromStatistics));
    m_metric = new QComboBox(this);
    m_group = new QComboBox(this);
    m_group->addItem(tr("Operators"), int(TrendGroup::Operator));
    m_group->addItem(tr("Modules"), int(TrendGroup::Module));
    m_group->setToolTip(tr("Rows: every operator, or the modules they run in (an operator counts for its parent module)"));
    m_rank = new QComboBox(this);
    m_rank->setToolTip(tr("Heatmap cells: the largest value over the ranks, or one rank"));
    m_title = new QLabel(this);
    m_title->setWordWrap(true);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_hover = new QLabel(this);
    m_hover->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_stop = new QToolButton(this);
    m_stop->setText(tr("Stop"));
    m_stop->setToolTip(tr("Stop reading the tensors"));
    m_stop->setVisible(false);
    m_runSetLink = new QLabel(this);
    m_runSetLink->setObjectName(QStringLiteral("trendsRunSetLink"));
    m_runSetLink->setTextFormat(Qt::RichText);
    m_runSetLink->setWordWrap(true);
    m_runSetLink->setVisible(false);
    connect(m_runSetLink, &QLabel::linkActivated, this, &TrendsPanel::showRunSetRequested);
    m_heatNote = new QLabel(this);
    m_heatNote->setTextFormat(Qt::RichText);
    m_heatNote->setWordWrap(true);

    m_heat->setObjectName(QStringLiteral("trendsHeatmap"));
    m_map = new QCPColorMap(m_heat->xAxis, m_heat->yAxis);
    m_map->setInterpolate(false);
    m_map->setTightBoundary(false);
    m_marks = new QCPColorMap(m_heat->xAxis, m_heat->yAxis); // Inf/NaN cells on top, in one colour
    m_marks->setInterpolate(false);
    m_marks->setTightBoundary(false);
    QCPColorGradient marks;
    marks.clearColorStops();
    marks.setColorStopAt(0.0, QColor(0, 0, 0, 0));
    marks.setColorStopAt(1.0, kNonFinite);
    marks.setLevelCount(2);
    m_marks->setGradient(marks);
    m_marks->setDataRange(QCPRange(0, 1));
    m_scale = new QCPColorScale(m_heat);
    m_heat->plotLayout()->addElement(0, 1, m_scale);
    m_scale->setType(QCPAxis::atRight);
    m_map->setColorScale(m_scale);
    auto *group = new QCPMarginGroup(m_heat);
    m_heat->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    m_heat->yAxis->setRangeReversed(true); // execution order from the top
    m_heat->xAxis->grid()->setVisible(false);
    m_heat->yAxis->grid()->setVisible(false);
    m_heat->xAxis->setLabel(tr("step"));
    m_heat->setMinimumHeight(220);
    m_heat->setMouseTracking(true);
    m_lines->xAxis->setLabel(tr("step"));
    m_lines->legend->setVisible(true);
    m_lines->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignLeft | Qt::AlignTop); // diverging values rise to the right
    m_linesTitle = new QCPTextElement(m_lines, QString(), QFont(font().family(), font().pointSize(), QFont::Bold));
    m_lines->plotLayout()->insertRow(0);
    m_lines->plotLayout()->addElement(0, 0, m_linesTitle);
    for (QCustomPlot *p : {m_heat, m_lines}) // room for "agrees until step N" above the plot
        p->axisRect()->setMinimumMargins(QMargins(0, QFontMetrics(font()).height() + 4, 0, 0));
    m_lines->setMinimumHeight(160);

    // Two rows of choices: the centre of the window must stay narrow enough for the docks.
    for (QComboBox *c : {m_source, m_metric, m_group, m_rank}) {
        c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        c->setMinimumContentsLength(12);
    }
    auto *controls = new QGridLayout;
    controls->addWidget(new QLabel(tr("Data:"), this), 0, 0);
    controls->addWidget(m_source, 0, 1);
    controls->addWidget(new QLabel(tr("Metric:"), this), 0, 2);
    controls->addWidget(m_metric, 0, 3);
    controls->addWidget(new QLabel(tr("Rows:"), this), 1, 0);
    controls->addWidget(m_group, 1, 1);
    controls->addWidget(new QLabel(tr("Cells:"), this), 1, 2);
    controls->addWidget(m_rank, 1, 3);
    m_readRank = new QComboBox(this);
    m_readRank->setToolTip(tr("This run was opened scope by scope: its statistics are read for one rank at a time (one scope per step); "
                              "choose the rank to read"));
    m_readRank->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_readRank->setMinimumContentsLength(12);
    m_readRankLabel = new QLabel(tr("Read rank:"), this);
    controls->addWidget(m_readRankLabel, 2, 0);
    controls->addWidget(m_readRank, 2, 1);
    m_readRank->setVisible(false);
    m_readRankLabel->setVisible(false);
    controls->setColumnStretch(1, 1);
    controls->setColumnStretch(3, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_runSetLink);
    layout->addWidget(m_title);
    layout->addWidget(m_heat, 3);
    layout->addWidget(m_heatNote);
    layout->addWidget(m_hover);
    layout->addWidget(m_lines, 2);
    auto *statusRow = new QHBoxLayout;
    statusRow->addWidget(m_status, 1);
    statusRow->addWidget(m_stop);
    layout->addLayout(statusRow);

    connect(m_source, &QComboBox::activated, this, [this] {
        fillMetrics();
        rebuild();
    });
    connect(m_metric, &QComboBox::activated, this, &TrendsPanel::rebuild);
    connect(m_group, &QComboBox::activated, this, &TrendsPanel::rebuild);
    connect(m_rank, &QComboBox::activated, this, [this] {
        drawHeatmap();
        updateHover();
    });
    connect(m_readRank, &QComboBox::activated, this, [this] { emit readRankChosen(m_readRank->currentData().toLongLong()); });
    connect(&m_watcher, &QFutureWatcherBase::finished, this, &TrendsPanel::onBuilt);
    connect(m_stop, &QToolButton::clicked, this, [this] {
        if (m_cancel)
            m_cancel->store(true);
    });
    connect(m_heat, &QCustomPlot::mouseMove, this, [this](QMouseEvent *e) {
        m_hoverAt = e->position();
        updateHover();
    });
    connect(m_heat, &QCustomPlot::afterLayout, this, &TrendsPanel::updateRowLabels);
    connect(m_heat, &QCustomPlot::mousePress, this, [this](QMouseEvent *e) {
        if (!m_table)
            return;
        const int band = int(std::lround(m_heat->yAxis->pixelToCoord(e->position().y())));
        if (band >= 0 && band < m_bands.count)
            selectRow(worstRowOfBand(*m_table, m_bands, band, m_rank->currentData().isValid() ? m_rank->currentData().toInt() : -1));
    });
    fillMetrics();
    m_status->setText(tr("Open a run, or compare it with a bench run, to see its trends."));
}

TrendsPanel::~TrendsPanel()
{
    if (m_cancel)
        m_cancel->store(true);
    m_watcher.waitForFinished();
}

QString TrendsPanel::hoverText() const
{
    if (!m_table || m_table->empty() || m_building || !m_hoverAt)
        return {};
    const int step = int(std::lround(m_heat->xAxis->pixelToCoord(m_hoverAt->x())));
    const int band = int(std::lround(m_heat->yAxis->pixelToCoord(m_hoverAt->y())));
    if (step < 0 || band < 0 || size_t(step) >= m_table->steps.size() || band >= m_bands.count)
        return {};
    // A band of several rows names its worst row, the one a click charts.
    const int row = worstRowOfBand(*m_table, m_bands, band, m_rank->currentData().isValid() ? m_rank->currentData().toInt() : -1);
    QStringList ranks;
    for (size_t r = 0; r < m_table->ranks.size() && r < 8; ++r)
        ranks << QStringLiteral("%1 %2").arg(m_table->rankLabels[qsizetype(r)], num(m_table->value(row, step, int(r))));
    const QString where = m_bands.rowsPerBand == 1 ? m_table->rows[row]
                                                   : tr("%1 (worst of rows %2–%3)").arg(m_table->rows[row]).arg(m_bands.firstRow(band) + 1).arg(m_bands.endRow(band));
    return tr("%1, %2: %3").arg(m_table->stepLabels[step], where, ranks.join(QStringLiteral(", ")));
}

void TrendsPanel::updateHover() { m_hover->setText(hoverText()); }

QPointF TrendsPanel::cellPosition(int step, int band) const
{
    return {m_heat->xAxis->coordToPixel(step), m_heat->yAxis->coordToPixel(band)};
}

void TrendsPanel::setRunSet(int runs, int rows)
{
    m_runSetLink->setVisible(runs > 0);
    if (runs > 0)
        m_runSetLink->setText(tr("Runs × operators agreement of the open run set (%1, %2): <a href=\"runset\">show the matrix on the Run Set tab</a>")
                                  .arg(tr("%n run(s)", nullptr, runs), tr("%n row(s)", nullptr, rows)));
}

void TrendsPanel::setReadRanks(const std::vector<std::pair<QString, qint64>> &ranks, qint64 current)
{
    m_readRank->clear();
    for (const auto &[label, number] : ranks) {
        m_readRank->addItem(label, number);
        if (number == current)
            m_readRank->setCurrentIndex(m_readRank->count() - 1);
    }
    m_readRank->setVisible(!ranks.empty());
    m_readRankLabel->setVisible(!ranks.empty());
}

void TrendsPanel::clearStatistics()
{
    setReadRanks({}, -1);
    m_statsIndex.reset();
    m_underflow = {};
    m_statsRun.clear();
    if (m_source->currentData().toInt() != FromComparison)
        m_row = -1;
    rebuild();
}

void TrendsPanel::clearComparison()
{
    m_npu.reset();
    m_result.reset();
    m_agreeUpTo.reset();
    m_compareTitle.clear();
    if (m_source->currentData().toInt() == FromComparison)
        m_row = -1;
    if (m_statsIndex) { // back to the run's own statistics
        m_source->setCurrentIndex(m_source->findData(int(FromStatistics)));
        fillMetrics();
    }
    rebuild();
}

void TrendsPanel::setStatistics(std::shared_ptr<const DumpIndex> index, const QString &run)
{
    m_statsIndex = std::move(index);
    m_statsRun = run;
    m_underflow = {};
    if (!m_result) {
        m_source->setCurrentIndex(m_source->findData(int(FromStatistics)));
        fillMetrics();
    }
    rebuild();
}

void TrendsPanel::setComparison(std::shared_ptr<const DumpIndex> npu, std::shared_ptr<const CompareResult> result,
                                std::optional<qint64> agreeUpTo, const QString &title)
{
    m_npu = std::move(npu);
    m_result = std::move(result);
    m_agreeUpTo = agreeUpTo;
    m_compareTitle = title;
    m_row = -1;
    m_source->setCurrentIndex(m_source->findData(int(FromComparison)));
    fillMetrics();
    rebuild();
}

void TrendsPanel::setMonitor(std::shared_ptr<const monitor::MonitorDocument> doc, const QString &title)
{
    m_monitor = std::move(doc);
    m_monitorTitle = title;
    if (m_source->findData(int(FromMonitor)) < 0)
        m_source->addItem(tr("msprobe monitor series"), int(FromMonitor));
    m_row = -1;
    m_source->setCurrentIndex(m_source->findData(int(FromMonitor)));
    fillMetrics();
    rebuild();
}

QString TrendsPanel::axisName() const
{
    // the axes are ~150 px long: the underflow metrics' full name does not fit, its target must
    if (m_table && m_source->currentData().toInt() != FromMonitor)
        if (const auto target = underflowTarget(m_table->metric))
            return tr("underflow in %1").arg(QString::fromLatin1(headroomLimits(*target).name));
    return valueName();
}

QString TrendsPanel::valueName() const
{
    // the monitor's own metric and statistic ("actv / norm"), else the metric's name
    if (m_source->currentData().toInt() == FromMonitor)
        return m_metric->currentText();
    return m_table ? trendMetricName(m_table->metric) : QString();
}

void TrendsPanel::fillMetrics()
{
    const bool compare = m_source->currentData().toInt() == FromComparison;
    const bool monitor = m_source->currentData().toInt() == FromMonitor;
    m_group->setEnabled(!monitor); // the monitor's rows are its modules
    if (monitor) {
        const QString previous = m_metric->currentText();
        m_metric->clear();
        m_monitorSeries.clear();
        if (m_monitor)
            for (const auto &[metric, stats] : m_monitor->metrics())
                for (const QString &stat : stats) {
                    m_metric->addItem(QStringLiteral("%1 / %2").arg(metric, stat), int(m_monitorSeries.size()));
                    m_monitorSeries.emplace_back(metric, stat);
                }
        const int i = m_metric->findText(previous);
        m_metric->setCurrentIndex(i >= 0 ? i : 0);
        return;
    }
    const int previous = m_metric->currentData().toInt();
    m_metric->clear();
    if (compare)
        for (TrendMetric m : kCompareMetrics)
            m_metric->addItem(trendMetricName(m), int(m));
    else {
        for (TrendMetric m : kStatisticsMetrics)
            m_metric->addItem(trendMetricName(m), int(m));
        for (const HeadroomLimits &l : headroomLimits()) {
            m_metric->addItem(trendMetricName(underflowMetric(l.target)), int(underflowMetric(l.target)));
            m_metric->setItemData(m_metric->count() - 1,
                                  tr("Reads every output tensor of the run (statistics-only outputs have no value: their statistics cannot tell underflow)"),
                                  Qt::ToolTipRole);
        }
    }
    const int i = m_metric->findData(previous);
    m_metric->setCurrentIndex(i >= 0 ? i : compare ? m_metric->findData(int(TrendMetric::NormRelativeError)) : 0);
}

void TrendsPanel::rebuild()
{
    if (m_watcher.isRunning()) {
        m_pending = true;
        // reading the tensors for an underflow metric is long: stop it when something else is asked for
        if (m_cancel && (m_source->currentData().toInt() != FromStatistics || !underflowTarget(TrendMetric(m_metric->currentData().toInt()))))
            m_cancel->store(true);
        return;
    }
    if (m_source->currentData().toInt() == FromMonitor) {
        const int series = m_metric->currentData().isValid() ? m_metric->currentData().toInt() : -1;
        if (!m_monitor || series < 0 || size_t(series) >= m_monitorSeries.size()) {
            m_building = false;
            m_table.reset();
            m_bands = {};
            m_status->setText(tr("Open msprobe's monitor output (File \u2192 Open) to see its series here."));
            m_title->clear();
            drawHeatmap();
            drawLines();
            updateHover();
            return;
        }
        m_title->setText(m_monitorTitle);
        m_status->setText(tr("Building the trend\u2026"));
        m_building = true;
        updateHover();
        m_watcher.setFuture(QtConcurrent::run(backgroundPool(), [doc = m_monitor, s = m_monitorSeries[size_t(series)]]() {
            const BackgroundPriority background;
            return std::make_shared<const TrendTable>(monitorTrend(*doc, s.first, s.second));
        }));
        return;
    }
    const bool compare = m_source->currentData().toInt() == FromComparison;
    const auto metric = TrendMetric(m_metric->currentData().toInt());
    const auto group = TrendGroup(m_group->currentData().toInt());
    if ((compare && !m_result) || (!compare && !m_statsIndex)) {
        m_building = false;
        m_table.reset();
        m_bands = {};
        m_status->setText(compare ? tr("Compare the run with a bench run (Analysis \u2192 Compare with\u2026) to see how far they are apart.")
                                  : tr("Open a run to see its recorded statistics."));
        m_title->clear();
        drawHeatmap();
        drawLines();
        updateHover();
        return;
    }
    // an underflow fraction is read from the tensors, not from the recorded statistics
    m_title->setText(compare ? m_compareTitle
                     : underflowTarget(metric)
                         ? tr("%1, read from the tensors of %2").arg(trendMetricName(metric), m_statsRun)
                         : tr("Recorded statistics of %1").arg(m_statsRun));
    m_status->setText(tr("Building the trend\u2026"));
    m_building = true;
    updateHover(); // the table it named is being replaced
    if (const auto target = underflowTarget(metric); !compare && target) {
        const size_t g = group == TrendGroup::Module ? 1 : 0;
        if (m_underflow[g]) { // the tensors were read already
            m_watcher.setFuture(QtConcurrent::run(backgroundPool(), [t = (*m_underflow[g])[size_t(*target)]] { return t; }));
            return;
        }
        m_status->setText(tr("Reading the run's tensors for the underflow fractions…"));
        m_cancel = std::make_shared<std::atomic<bool>>(false);
        m_stop->setVisible(true);
        auto tables = std::make_shared<UnderflowTables>();
        m_watcher.setFuture(QtConcurrent::run(backgroundPool(), [self = QPointer<TrendsPanel>(this), stats = m_statsIndex, group, g, target = *target, tables,
                                               cancel = m_cancel]() -> std::shared_ptr<const TrendTable> {
            const BackgroundPriority background;
            JobControl job;
            job.cancelFlag = cancel.get();
            job.progress = [self](int permille) {
                QMetaObject::invokeMethod(
                    self, [self, permille] {
                        if (self && self->m_building)
                            self->m_status->setText(tr("Reading the run's tensors for the underflow fractions… %1 %").arg(permille / 10));
                    },
                    Qt::QueuedConnection);
            };
            auto built = underflowTrends(*stats, group, &job);
            if (!built)
                return nullptr;
            for (size_t k = 0; k < built->size(); ++k)
                (*tables)[k] = std::make_shared<const TrendTable>(std::move((*built)[k]));
            QMetaObject::invokeMethod(
                self, [self, g, tables, stats] {
                    if (self && self->m_statsIndex == stats)
                        self->m_underflow[g] = tables;
                },
                Qt::QueuedConnection);
            return (*tables)[size_t(target)];
        }));
        return;
    }
    m_watcher.setFuture(QtConcurrent::run(backgroundPool(), [compare, metric, group, npu = m_npu, result = m_result, stats = m_statsIndex,
                                           agree = m_agreeUpTo]() -> std::shared_ptr<const TrendTable> {
        const BackgroundPriority background;
        if (compare)
            return std::make_shared<const TrendTable>(compareTrend(*npu, *result, metric, group, agree));
        return std::make_shared<const TrendTable>(statisticsTrend(*stats, metric, group));
    }));
}

void TrendsPanel::onBuilt()
{
    m_table = m_watcher.result();
    const bool stopped = m_cancel && m_cancel->load();
    m_cancel.reset();
    m_stop->setVisible(false);
    if (m_pending) {
        m_pending = false;
        rebuild();
        return;
    }
    m_building = false;
    if (!m_table) { // the underflow job was stopped
        m_bands = {};
        m_status->setText(stopped ? tr("Stopped: the underflow fractions need every output tensor read.") : QString());
        drawHeatmap();
        drawLines();
        updateHover();
        emit tableReady();
        return;
    }
    m_bands = trendBands(*m_table, kMaxBands);
    const QString previousRank = m_rank->currentText();
    m_rank->clear();
    m_rank->addItem(tr("largest over the ranks"), -1);
    for (qsizetype r = 0; r < m_table->rankLabels.size(); ++r)
        m_rank->addItem(m_table->rankLabels[r].isEmpty() ? tr("(no rank)") : m_table->rankLabels[r], int(r));
    if (const int i = m_rank->findText(previousRank); i >= 0)
        m_rank->setCurrentIndex(i);
    const bool hasValue = std::any_of(m_table->values.begin(), m_table->values.end(), [](double v) { return !std::isnan(v); });
    m_status->setText(!hasValue ? tr("No values: %1 is not recorded or not comparable in this run.").arg(valueName())
                                  : tr("%1 rows \u00d7 %2 \u00d7 %3 \u2014 click a row of the heatmap to chart it over the steps.")
                                        .arg(m_table->rows.size())
                                        .arg(tr("%n step(s)", nullptr, int(m_table->steps.size())), tr("%n rank(s)", nullptr, int(m_table->ranks.size()))));
    // The chart starts on the row with the largest value (where the runs are furthest apart).
    if (m_row < 0 || m_row >= m_table->rows.size()) {
        double best = -1;
        m_row = m_table->rows.isEmpty() ? -1 : 0;
        for (int r = 0; r < m_table->rows.size(); ++r)
            for (size_t s = 0; s < m_table->steps.size(); ++s) {
                const double v = m_table->maxOverRanks(r, int(s));
                if (std::isfinite(v) && v > best) {
                    best = v;
                    m_row = r;
                }
            }
    }
    drawHeatmap();
    drawLines();
    updateHover(); // the row under the mouse in the new table, not a row of the old one
    emit tableReady();
}

void TrendsPanel::markAgreement(QCustomPlot *plot, double x)
{
    auto *line = new QCPItemStraightLine(plot);
    line->point1->setCoords(x, 0);
    line->point2->setCoords(x, 1);
    line->setPen(QPen(QColor(0x1a, 0x7f, 0x37), 2, Qt::DashLine));
    auto *text = new QCPItemText(plot); // above the plot, over the line: it covers no cell
    text->setClipToAxisRect(false);
    text->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    text->position->setTypeX(QCPItemPosition::ptPlotCoords);
    text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    text->position->setCoords(x, -0.01);
    text->setText(m_agreeText);
    text->setColor(QColor(0x1a, 0x7f, 0x37));
    text->setBrush(QColor(255, 255, 255, 210));
    text->setPadding(QMargins(3, 1, 3, 1));
}

void TrendsPanel::drawHeatmap()
{
    m_heat->clearItems();
    m_agreeText.clear();
    if (!m_table || m_table->empty()) {
        m_map->data()->clear();
        m_marks->data()->clear();
        m_heatNote->clear();
        m_heat->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const TrendTable &t = *m_table;
    const int nSteps = int(t.steps.size()), nRows = m_bands.count; // heatmap rows: bands of table rows
    const int rank = m_rank->currentData().isValid() ? m_rank->currentData().toInt() : -1;
    std::vector<double> cells(size_t(nRows) * size_t(nSteps)); // band-major
    for (int r = 0; r < nRows; ++r)
        for (int s = 0; s < nSteps; ++s)
            cells[size_t(r) * size_t(nSteps) + size_t(s)] = bandValue(t, m_bands, r, s, rank);
    auto cell = [&](int r, int s) { return cells[size_t(r) * size_t(nSteps) + size_t(s)]; };
    for (QCPColorMap *map : {m_map, m_marks}) {
        map->data()->setSize(nSteps, nRows);
        // The range runs from the first cell's centre to the last one's; a single column or row
        // is drawn across the whole range, so it spans its cell (a range of 0.0001 drew a
        // one-step run as a hairline: an empty heatmap).
        map->data()->setRange(nSteps == 1 ? QCPRange(-0.5, 0.5) : QCPRange(0, nSteps - 1),
                              nRows == 1 ? QCPRange(-0.5, 0.5) : QCPRange(0, nRows - 1));
    }
    double lo = INFINITY, hi = -INFINITY, minPositive = INFINITY;
    bool nonFinite = false, missingAny = false;
    for (int r = 0; r < nRows; ++r)
        for (int s = 0; s < nSteps; ++s) {
            const double v = cell(r, s);
            if (std::isfinite(v)) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
                if (v > 0)
                    minPositive = std::min(minPositive, v);
            }
            nonFinite |= std::isinf(v);
            missingAny |= std::isnan(v);
        }
    if (!std::isfinite(lo))
        lo = 0, hi = 1;
    const bool verdict = t.metric == TrendMetric::Verdict || t.metric == TrendMetric::Result;
    // Norms and errors span decades: a logarithmic colour scale when they do.
    const bool logScale = !verdict && lo >= 0 && std::isfinite(minPositive) && hi / minPositive >= 1000;
    const double floor = logScale ? minPositive : lo;
    for (int r = 0; r < nRows; ++r)
        for (int s = 0; s < nSteps; ++s) {
            const double v = cell(r, s);
            const bool shown = std::isfinite(v);
            m_map->data()->setCell(s, r, shown ? std::max(v, floor) : floor);
            m_map->data()->setAlpha(s, r, shown ? 255 : 0);
            m_marks->data()->setCell(s, r, std::isinf(v) ? 1 : 0);
            m_marks->data()->setAlpha(s, r, std::isinf(v) ? 255 : 0);
        }
    m_map->setGradient(isCompareMetric(t.metric) ? errorGradient(verdict) : statisticsGradient());
    m_map->setDataScaleType(logScale ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    m_scale->setDataScaleType(logScale ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (logScale)
        m_scale->axis()->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    else
        m_scale->axis()->setTicker(QSharedPointer<QCPAxisTicker>::create());
    m_map->setDataRange(verdict ? QCPRange(0, 2) : QCPRange(floor, hi > floor ? hi : floor + 1));
    QStringList notes;
    if (logScale)
        notes << tr("logarithmic colour scale");
    if (nonFinite)
        notes << tr("<span style=\"color:%1\">\u25a0</span> Inf (or NaN) value").arg(kNonFinite.name());
    if (missingAny)
        notes << (underflowTarget(t.metric) ? tr("blank: cannot tell (no output saved as a floating tensor: recorded statistics do not tell underflow)")
                                            : tr("blank: no value (not recorded or not compared)"));
    if (m_bands.rowsPerBand > 1)
        notes << tr("%1 rows in bands of %2, each showing its largest value (click a band to chart its worst row)")
                     .arg(t.rows.size())
                     .arg(m_bands.rowsPerBand);
    m_heatNote->setText(notes.join(QStringLiteral(" \u00b7 ")));
    m_scale->axis()->setLabel(fittedAxisLabel(m_scale->axis(), axisName()));
    // Every k-th step labelled, k a round number that leaves each label its width (a hundred
    // steps' labels side by side would overwrite each other).
    const auto stepLabel = [&](int s) { return t.steps[size_t(s)] >= 0 ? QString::number(t.steps[size_t(s)]) : t.stepLabels[s]; };
    const QFontMetrics tickFont(m_heat->xAxis->tickLabelFont());
    int widest = 1;
    for (int s = 0; s < nSteps; ++s)
        widest = std::max(widest, tickFont.horizontalAdvance(stepLabel(s)));
    const int room = std::max(2, (m_heat->width() > 200 ? m_heat->width() - 160 : 480) / (widest + tickFont.horizontalAdvance(QStringLiteral("00"))));
    int every = 1;
    for (const int k : {1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000})
        if ((every = k) * room >= nSteps)
            break;
    auto xTicks = QSharedPointer<QCPAxisTickerText>::create();
    for (int s = 0; s < nSteps; s += every)
        xTicks->addTick(s, stepLabel(s));
    m_heat->xAxis->setTicker(xTicks);
    m_heat->yAxis->setTickLabelFont(QFont(font().family(), std::max(7, font().pointSize() - 1)));
    m_labelEvery = m_labelWidth = 0;
    updateRowLabels();
    m_heat->xAxis->setRange(-0.5, nSteps - 0.5);
    m_heat->yAxis->setRange(-0.5, nRows - 0.5);
    if (t.agreeUpTo) {
        const int i = t.stepIndex(*t.agreeUpTo);
        if (i >= 0) {
            m_agreeText = tr("agrees until step %1").arg(*t.agreeUpTo);
            markAgreement(m_heat, i + 0.5);
        }
    }
    if (m_row >= 0 && m_row < t.rows.size()) { // the row charted below (its band)
        const int band = m_bands.bandOf(m_row);
        auto *outline = new QCPItemRect(m_heat);
        outline->topLeft->setCoords(-0.5, band - 0.5);
        outline->bottomRight->setCoords(nSteps - 0.5, band + 0.5);
        outline->setPen(QPen(QColor(0x20, 0x4a, 0x87), 2));
        outline->setBrush(Qt::NoBrush);
    }
    m_heat->replot(QCustomPlot::rpQueuedReplot);
}

void TrendsPanel::updateRowLabels()
{
    const int nRows = m_bands.count;
    if (!m_table || m_table->empty() || nRows <= 0)
        return;
    // As many names as fit one above the other at the heatmap's height (every k-th row), each
    // elided to a share of its width: 31 names drawn over 230 pixels overlapped. Elided on the
    // left: the end of "Functional.linear.0.forward" tells rows apart, the prefix repeats.
    const QFontMetrics fm(m_heat->yAxis->tickLabelFont());
    const double rowPixels = double(std::max(1, m_heat->axisRect()->height())) / nRows;
    const int every = std::max(1, int(std::ceil((fm.height() + 1) / rowPixels)));
    const int width = std::max(fm.horizontalAdvance(QStringLiteral("\u2026linear.0.forward")), m_heat->width() * 2 / 5);
    if (every == m_labelEvery && width == m_labelWidth)
        return;
    m_labelEvery = every;
    m_labelWidth = width;
    auto ticks = QSharedPointer<QCPAxisTickerText>::create();
    const QString bandMark = m_bands.rowsPerBand > 1 ? QStringLiteral(" …") : QString();
    for (int r = 0; r < nRows; r += every)
        ticks->addTick(r, fm.elidedText(m_table->rows[m_bands.firstRow(r)], Qt::ElideLeft, width - fm.horizontalAdvance(bandMark)) + bandMark);
    m_heat->yAxis->setTicker(ticks);
    m_heat->replot(QCustomPlot::rpQueuedReplot); // the ticks are laid out before afterLayout
}

QList<QPair<QRectF, QString>> TrendsPanel::rowLabelRects() const
{
    QList<QPair<QRectF, QString>> out;
    const auto ticker = m_heat->yAxis->ticker().dynamicCast<QCPAxisTickerText>();
    if (!ticker)
        return out;
    const QFontMetrics fm(m_heat->yAxis->tickLabelFont());
    const QCPRange range = m_heat->yAxis->range();
    const double right = m_heat->axisRect()->left() - m_heat->yAxis->tickLengthOut() - m_heat->yAxis->tickLabelPadding();
    for (auto it = ticker->ticks().cbegin(); it != ticker->ticks().cend(); ++it) {
        if (!range.contains(it.key()))
            continue;
        const double y = m_heat->yAxis->coordToPixel(it.key());
        const QSizeF size(fm.horizontalAdvance(it.value()), fm.height());
        out.append({QRectF(QPointF(right - size.width(), y - size.height() / 2), size), it.value()});
    }
    return out;
}

void TrendsPanel::selectRow(int row)
{
    m_row = row;
    drawHeatmap(); // the row's outline
    drawLines();
}

void TrendsPanel::drawLines()
{
    m_lines->clearGraphs();
    m_lines->clearItems();
    if (!m_table || m_row < 0 || m_row >= m_table->rows.size()) {
        m_linesTitle->setText(QString());
        m_lines->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const TrendTable &t = *m_table;
    static const QColor colors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c), QColor(0xd6, 0x27, 0x28),
                                    QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b), QColor(0xe3, 0x77, 0xc2), QColor(0x7f, 0x7f, 0x7f)};
    constexpr size_t kMaxLines = 32;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t r = 0; r < t.ranks.size() && r < kMaxLines; ++r) {
        QVector<double> x, y;
        for (size_t s = 0; s < t.steps.size(); ++s) {
            const double v = t.value(m_row, int(s), int(r));
            x << double(s);
            y << (std::isfinite(v) ? v : std::numeric_limits<double>::quiet_NaN());
            if (std::isfinite(v)) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        }
        QCPGraph *g = m_lines->addGraph();
        g->setData(x, y, true);
        g->setPen(QPen(colors[r % std::size(colors)], 2));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 6));
        g->setName(t.rankLabels[qsizetype(r)].isEmpty() ? tr("(no rank)") : t.rankLabels[qsizetype(r)]);
    }
    m_lines->xAxis->setTicker(m_heat->xAxis->ticker());
    m_lines->xAxis->setRange(-0.5, double(t.steps.size()) - 0.5);
    if (!std::isfinite(lo))
        lo = 0, hi = 1;
    const double pad = hi > lo ? (hi - lo) * 0.08 : std::max(std::fabs(hi) * 0.1, 1e-9);
    m_lines->yAxis->setRange(lo - pad, hi + pad);
    m_lines->yAxis->setLabel(fittedAxisLabel(m_lines->yAxis, axisName()));
    m_linesTitle->setText(t.rows[m_row] + (t.ranks.size() > kMaxLines ? tr(" (first %1 ranks)").arg(kMaxLines) : QString()));
    if (t.agreeUpTo)
        if (const int i = t.stepIndex(*t.agreeUpTo); i >= 0)
            markAgreement(m_lines, i + 0.5);
    m_lines->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace ds
