#include "comparehistograms.h"

#include <QEvent>
#include <QResizeEvent>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <qcustomplot.h>

namespace ds {

namespace {

/// A plot with its legend (when it has one) in a row above the axis rect, centred and without
/// a frame, so that it never covers the bars.
QCustomPlot *makePlot(QWidget *parent, const QString &xLabel, bool legend)
{
    auto *plot = new QCustomPlot(parent);
    plot->xAxis->setLabel(xLabel);
    plot->yAxis->setLabel(CompareHistograms::tr("count"));
    plot->setMinimumSize(120, 100);
    for (QCPAxis *axis : {plot->xAxis, plot->yAxis})
        axis->setNumberPrecision(4);
    // Counts are whole numbers: ticks at multiples of 1 (no "2.5" on a count axis).
    QSharedPointer<QCPAxisTickerFixed> counts(new QCPAxisTickerFixed);
    counts->setTickStep(1.0);
    counts->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    plot->yAxis->setTicker(counts);
    if (legend) {
        plot->legend->setVisible(true);
        plot->axisRect()->insetLayout()->take(plot->legend);
        plot->plotLayout()->insertRow(0);
        plot->plotLayout()->addElement(0, 0, plot->legend);
        plot->plotLayout()->setRowStretchFactor(0, 0.001);
        plot->plotLayout()->setRowSpacing(0);
        plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
        plot->legend->setBorderPen(Qt::NoPen);
        plot->legend->setBrush(Qt::NoBrush);
        plot->legend->setMargins(QMargins(4, 2, 4, 0));
        plot->legend->setColumnSpacing(16);
    }
    return plot;
}

/// As many ticks as the axes' lengths hold with room between the labels: about 80 px per
/// label along x (numbers such as -0.0125 are up to ~50 px wide), 36 px along y.
void fitTicks(QCustomPlot *plot, QSize size)
{
    const QFontMetrics fm(plot->xAxis->tickLabelFont());
    const int labelWidth = fm.horizontalAdvance(QStringLiteral("-0.0000")) + 24;
    const int xLength = std::max(0, size.width() - 80), yLength = std::max(0, size.height() - 90);
    plot->xAxis->ticker()->setTickCount(std::clamp(xLength / labelWidth, 2, 8));
    plot->yAxis->ticker()->setTickCount(std::clamp(yLength / (fm.height() * 2 + 6), 2, 8));
}

/// A plot without data: no axes (an empty 0-5 grid reads as "all counts are zero"), only
/// `message` in its middle (nothing for an empty message). showData() brings the axes back.
void showEmpty(QCustomPlot *plot, const QString &message)
{
    plot->clearPlottables();
    plot->clearItems();
    plot->xAxis->setVisible(false);
    plot->yAxis->setVisible(false);
    plot->axisRect()->setBackground(Qt::NoBrush);
    if (!message.isEmpty()) {
        auto *text = new QCPItemText(plot);
        text->position->setType(QCPItemPosition::ptAxisRectRatio);
        text->position->setCoords(0.5, 0.5);
        text->setText(message);
        text->setColor(plot->palette().color(QPalette::PlaceholderText));
    }
    plot->legend->setVisible(false);
    plot->replot(QCustomPlot::rpQueuedReplot);
}

void showData(QCustomPlot *plot, bool legend)
{
    plot->clearPlottables();
    plot->clearItems();
    plot->xAxis->setVisible(true);
    plot->yAxis->setVisible(true);
    plot->legend->setVisible(legend);
}

} // namespace

CompareHistograms::CompareHistograms(QWidget *parent) : QWidget(parent)
{
    m_values = makePlot(this, tr("value"), true);
    m_error = makePlot(this, tr("|NPU \u2212 bench|"), false);
    m_split = new QSplitter(Qt::Horizontal, this);
    m_split->addWidget(m_values);
    m_split->addWidget(m_error);
    m_split->setChildrenCollapsible(false);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_split);
    for (QCustomPlot *plot : {m_values, m_error})
        plot->installEventFilter(this);
}

Qt::Orientation CompareHistograms::arrangement() const { return m_split->orientation(); }

void CompareHistograms::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    arrange();
}

void CompareHistograms::arrange()
{
    // Each arrangement scored by how far its plots are from the smallest readable one; the
    // better wins (ties: side by side, which compares the two plots at one glance).
    const int w = width(), h = height();
    auto score = [](int pw, int ph) { return std::min(double(pw) / kMinPlotWidth, double(ph) / kMinPlotHeight); };
    const Qt::Orientation o = score(w / 2, h) >= score(w, h / 2) ? Qt::Horizontal : Qt::Vertical;
    if (o != m_split->orientation()) {
        m_split->setOrientation(o);
        const int half = (o == Qt::Horizontal ? w : h) / 2;
        m_split->setSizes({half, half});
    }
}

bool CompareHistograms::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::Resize)
        if (auto *plot = qobject_cast<QCustomPlot *>(watched)) // before the plot lays itself out again
            fitTicks(plot, static_cast<QResizeEvent *>(event)->size());
    return QWidget::eventFilter(watched, event);
}

void CompareHistograms::setValues(const Histogram &npu, const Histogram &bench)
{
    if (npu.counts.empty()) {
        showEmpty(m_values, tr("No values were read (statistics only): no histogram."));
        return;
    }
    showData(m_values, true);
    // Overlaid steps over the same bins.
    auto steps = [this](const Histogram &h, const QColor &c, const QString &name) {
        QVector<double> x, y;
        const auto edges = h.edges();
        for (size_t i = 0; i < h.counts.size(); ++i) {
            x << edges[i] << edges[i + 1];
            y << double(h.counts[i]) << double(h.counts[i]);
        }
        QCPGraph *g = m_values->addGraph();
        g->setName(name);
        g->setPen(QPen(c, 1.6));
        QColor fill = c;
        fill.setAlpha(50);
        g->setBrush(fill);
        g->setData(x, y, true);
    };
    if (!npu.counts.empty()) {
        steps(npu, QColor(0x15, 0x65, 0xc0), tr("NPU"));
        steps(bench, QColor(0xef, 0x6c, 0x00), tr("bench"));
        m_values->rescaleAxes();
    }
    m_values->replot(QCustomPlot::rpQueuedReplot);
}

void CompareHistograms::setError(const Histogram &e)
{
    if (e.counts.empty()) {
        showEmpty(m_error, tr("No element-wise error to show."));
        return;
    }
    showData(m_error, false);
    if (!e.counts.empty()) {
        auto *bars = new QCPBars(m_error->xAxis, m_error->yAxis);
        const auto edges = e.edges();
        QVector<double> x, y;
        for (size_t i = 0; i < e.counts.size(); ++i) {
            x << (edges[i] + edges[i + 1]) / 2;
            y << double(e.counts[i]);
        }
        bars->setWidth((e.hi - e.lo) / double(e.counts.size()));
        bars->setData(x, y, true);
        bars->setBrush(QColor(0xd3, 0x2f, 0x2f, 160));
        bars->setPen(Qt::NoPen);
        m_error->rescaleAxes();
    }
    m_error->replot(QCustomPlot::rpQueuedReplot);
}

void CompareHistograms::clear()
{
    for (QCustomPlot *plot : {m_values, m_error})
        showEmpty(plot, QString());
}

} // namespace ds
