#include "heatmapwidget.h"

#include "background.h"
#include "flowlayout.h"
#include "sliceselector.h"
#include "valuegridwidget.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPromise>
#include <QPushButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <qcustomplot.h>

#include <climits>
#include <cmath>

namespace ds {

namespace {

/// Tick steps of at least 1: the axes count elements.
class IntegerTicker : public QCPAxisTicker
{
protected:
    double getTickStep(const QCPRange &range) override { return std::max(1.0, std::round(QCPAxisTicker::getTickStep(range))); }
    int getSubTickCount(double tickStep) override { return tickStep <= 1.0 ? 0 : QCPAxisTicker::getSubTickCount(tickStep); }
};

QString num(double v) { return QString::number(v, 'g', 6); }

} // namespace

HeatmapWidget::HeatmapWidget(QWidget *parent) : QWidget(parent), m_plot(new QCustomPlot(this))
{
    m_selector = new SliceSelector(this);
    m_gradient = new QComboBox(this);
    m_gradient->addItem(tr("Jet"), int(QCPColorGradient::gpJet));
    m_gradient->addItem(tr("Polar (centred on 0)"), int(QCPColorGradient::gpPolar));
    m_gradient->setToolTip(tr("Colour gradient; Polar uses a range symmetric around zero"));
    auto *save = new QPushButton(tr("Export PNG\u2026"), this);

    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_map->setInterpolate(false);
    m_map->setTightBoundary(false);
    m_markers = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_markers->setInterpolate(false);
    m_markers->setTightBoundary(false);
    // Marker classes 0..4 map to exact levels: transparent, NaN, +Inf, -Inf, saturated.
    QCPColorGradient marks;
    marks.clearColorStops();
    marks.setColorStopAt(0.0, QColor(0, 0, 0, 0));
    marks.setColorStopAt(0.25, valueClassColor(ValueClass::NaN));
    marks.setColorStopAt(0.5, valueClassColor(ValueClass::PosInf));
    marks.setColorStopAt(0.75, valueClassColor(ValueClass::NegInf));
    marks.setColorStopAt(1.0, valueClassColor(ValueClass::Saturated));
    marks.setLevelCount(5);
    m_markers->setGradient(marks);
    m_markers->setDataRange(QCPRange(0, 4));

    const ValueClass dotClass[3] = {ValueClass::NaN, ValueClass::PosInf, ValueClass::Saturated};
    for (int k = 0; k < 3; ++k) {
        m_dots[k] = m_plot->addGraph(m_plot->xAxis, m_plot->yAxis);
        m_dots[k]->setLineStyle(QCPGraph::lsNone);
        const QColor c = valueClassColor(dotClass[k]);
        m_dots[k]->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, c, c, 6));
    }

    m_scale = new QCPColorScale(m_plot);
    m_plot->plotLayout()->addElement(0, 1, m_scale);
    m_scale->setType(QCPAxis::atRight);
    m_map->setColorScale(m_scale);
    auto *group = new QCPMarginGroup(m_plot);
    m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    m_plot->yAxis->setRangeReversed(true); // row 0 at the top, as in the grid
    m_plot->xAxis->setTicker(QSharedPointer<IntegerTicker>::create());
    m_plot->yAxis->setTicker(QSharedPointer<IntegerTicker>::create());
    m_plot->setMinimumHeight(200);
    m_plot->setMouseTracking(true);
    m_plot->installEventFilter(this);

    m_legend = new QLabel(this);
    m_legend->setTextFormat(Qt::RichText);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_hover = new QLabel(this);
    m_hover->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // The controls wrap in a narrow dock instead of widening it (FlowLayout); so do the legend
    // and the read-out.
    m_legend->setWordWrap(true);
    m_hover->setWordWrap(true);
    auto *gradient = new QWidget(this);
    auto *gradientLayout = new QHBoxLayout(gradient);
    gradientLayout->setContentsMargins(0, 0, 0, 0);
    auto *gradientLabel = new QLabel(tr("Gradient:"), gradient);
    gradientLabel->setBuddy(m_gradient);
    m_gradient->setParent(gradient);
    gradientLayout->addWidget(gradientLabel);
    gradientLayout->addWidget(m_gradient);
    auto *controls = new FlowLayout;
    controls->addWidget(m_selector);
    controls->addWidget(gradient);
    controls->addWidget(save);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_hover);
    layout->addWidget(m_legend);
    layout->addWidget(m_status);

    connect(m_selector, &SliceSelector::sliceChanged, this, [this](const TensorSlice &s) {
        m_slice = s;
        start();
    });
    connect(m_gradient, &QComboBox::currentIndexChanged, this, &HeatmapWidget::applyGradient);
    connect(save, &QPushButton::clicked, this, &HeatmapWidget::exportPlot);
    connect(&m_watcher, &QFutureWatcherBase::finished, this, &HeatmapWidget::onFinished);
    connect(&m_watcher, &QFutureWatcherBase::progressValueChanged, this, [this](int permille) {
        m_status->setText(tr("Computing the heatmap\u2026 %1%").arg(permille / 10));
    });
    applyGradient();
    clear();
}

HeatmapWidget::~HeatmapWidget()
{
    if (m_cancel)
        *m_cancel = true;
    m_watcher.waitForFinished();
}

void HeatmapWidget::setTensor(std::shared_ptr<const LoadedTensor> tensor)
{
    const int type = tensor ? tensor->dataType : 0;
    setTensor(std::move(tensor), type);
}

void HeatmapWidget::setTensor(std::shared_ptr<const LoadedTensor> tensor, int headerDataType)
{
    if (!tensor) {
        clear();
        return;
    }
    const Shape shape = displayShape(*tensor);
    const bool sameShape = m_tensor && shape == m_slice.shape();
    m_tensor = std::move(tensor);
    m_dataType = headerDataType;
    if (!sameShape) {
        m_slice = TensorSlice::defaultFor(shape);
        m_selector->setShape(shape);
    }
    m_selector->setEnabled(true);
    m_legend->setText(valueClassLegend(m_tensor->view.elem, dataTypeName(m_tensor->dataType)));
    m_blocks.reset(); // never show (or hover over) another tensor's picture
    m_map->data()->clear();
    m_markers->data()->clear();
    for (QCPGraph *g : m_dots)
        g->data()->clear();
    m_hover->clear();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    start();
}

void HeatmapWidget::clear(const QString &message)
{
    if (m_cancel)
        *m_cancel = true;
    ++m_job; // a running job's result is dropped
    m_deferred = false;
    m_tensor.reset();
    m_blocks.reset();
    m_slice = TensorSlice();
    m_selector->setShape({});
    m_selector->setEnabled(false);
    m_map->data()->clear();
    m_markers->data()->clear();
    for (QCPGraph *g : m_dots)
        g->data()->clear();
    m_legend->clear();
    m_hover->clear();
    m_status->setText(message);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapWidget::setSlice(const TensorSlice &slice)
{
    if (!m_tensor)
        return;
    m_slice = TensorSlice(displayShape(*m_tensor), slice.rowDim(), slice.colDim(), slice.fixed());
    m_selector->setSlice(m_slice);
    start();
}

void HeatmapWidget::setMaxSide(int cells)
{
    m_maxSide = std::max(1, cells);
    if (m_tensor)
        start();
}

void HeatmapWidget::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_deferred)
        start();
}

void HeatmapWidget::start()
{
    if (!m_tensor)
        return;
    if (m_cancel)
        *m_cancel = true; // the stale job stops early; its result is dropped
    m_deferred = !isVisible();
    if (m_deferred) {
        ++m_job;
        m_status->clear();
        return;
    }
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    m_cancel = cancel;
    const quint64 job = ++m_job;
    m_status->setText(tr("Computing the heatmap\u2026"));
    m_watcher.setFuture(QtConcurrent::run(backgroundPool(), [tensor = m_tensor, slice = m_slice, maxSide = m_maxSide, cancel, job](QPromise<JobResult> &promise) {
        const BackgroundPriority background;
        promise.setProgressRange(0, 1000);
        JobControl control;
        control.cancelFlag = cancel.get();
        control.progress = [&promise](int permille) { promise.setProgressValue(permille); };
        auto blocks = std::make_shared<SliceBlocks>();
        if (downsampleSlice(tensor->view, slice, maxSide, *blocks, &control))
            promise.addResult(JobResult{job, std::move(blocks)});
    }));
}

void HeatmapWidget::onFinished()
{
    const QFuture<JobResult> f = m_watcher.future();
    if (!f.isFinished() || f.resultCount() == 0)
        return; // cancelled
    JobResult r = f.result();
    if (r.first != m_job)
        return; // a newer job is on its way
    m_blocks = std::move(r.second);
    draw();
    emit blocksReady();
}

void HeatmapWidget::draw()
{
    m_hover->clear();
    const SliceBlocks &b = *m_blocks;
    const TensorSlice &s = b.slice;
    for (QCPGraph *g : m_dots)
        g->data()->clear();
    if (b.rows == 0 || b.cols == 0) {
        m_map->data()->clear();
        m_markers->data()->clear();
        m_status->setText(tr("The slice is empty."));
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    // Cells sit at the centres of their blocks, in element coordinates. QCPColorMap needs two
    // cells along an axis to give it a width: a single block is drawn as two halves.
    const int dupC = b.cols == 1 ? 2 : 1, dupR = b.rows == 1 ? 2 : 1;
    auto range = [](int blocks, std::uint64_t size, int dup) {
        const double half = (double(size) - 1) / 2;
        if (dup == 2)
            return QCPRange(half - double(size) / 4, half + double(size) / 4);
        return QCPRange(half, double(blocks - 1) * double(size) + half);
    };
    const QCPRange keys = range(b.cols, b.blockCols, dupC), values = range(b.rows, b.blockRows, dupR);
    for (QCPColorMap *map : {m_map, m_markers}) {
        map->data()->setSize(b.cols * dupC, b.rows * dupR);
        map->data()->setRange(keys, values);
    }
    for (int r = 0; r < b.rows * dupR; ++r) {
        for (int c = 0; c < b.cols * dupC; ++c) {
            const size_t i = b.at(r / dupR, c / dupC);
            m_map->data()->setCell(c, r, b.mean[i]);
            m_markers->data()->setCell(c, r, double(b.cls[i]));
        }
    }
    // Dots at the centres of marked cells, unless there are so many that the map shows them.
    QVector<double> dotKeys[3], dotValues[3];
    size_t marked = 0;
    for (auto c : b.cls)
        marked += c != 0;
    if (marked <= 20000) {
        for (int r = 0; r < b.rows; ++r) {
            for (int c = 0; c < b.cols; ++c) {
                const auto cls = ValueClass(b.cls[b.at(r, c)]);
                if (cls == ValueClass::Normal)
                    continue;
                const int k = cls == ValueClass::NaN ? 0 : cls == ValueClass::Saturated ? 2 : 1;
                dotKeys[k] << double(c) * double(b.blockCols) + (double(b.blockCols) - 1) / 2;
                dotValues[k] << double(r) * double(b.blockRows) + (double(b.blockRows) - 1) / 2;
            }
        }
    }
    for (int k = 0; k < 3; ++k)
        m_dots[k]->setData(dotKeys[k], dotValues[k]);
    m_plot->xAxis->setRange(-0.5, double(s.cols()) - 0.5);
    m_plot->yAxis->setRange(-0.5, double(s.rows()) - 0.5);
    m_plot->xAxis->setLabel(s.colDim() >= 0 ? tr("dim %1 (columns)").arg(s.colDim()) : QString());
    m_plot->yAxis->setLabel(s.rowDim() >= 0 ? tr("dim %1 (rows)").arg(s.rowDim()) : QString());
    m_scale->axis()->setLabel(b.downsampled() ? tr("block mean") : tr("value"));

    std::uint64_t special = 0;
    for (auto n : b.special)
        special += n;
    const QString where = sliceRangeToString(s, 0, s.rows(), 0, s.cols());
    QString status = b.downsampled()
                         ? tr("%1 \u00d7 %2 slice %3 in %4 \u00d7 %5 cells of %6 \u00d7 %7 elements (mean of the finite values).")
                               .arg(s.rows()).arg(s.cols()).arg(where).arg(b.rows).arg(b.cols).arg(b.blockRows).arg(b.blockCols)
                         : tr("%1 \u00d7 %2 slice %3.").arg(s.rows()).arg(s.cols()).arg(where);
    if (special)
        status += QLatin1Char(' ') + tr("%1 NaN/Inf/saturated marked.").arg(special);
    m_status->setText(status);
    applyGradient();
}

void HeatmapWidget::applyGradient()
{
    QCPColorGradient g(QCPColorGradient::GradientPreset(m_gradient->currentData().toInt()));
    g.setNanHandling(QCPColorGradient::nhTransparent); // the marker map paints these cells
    m_map->setGradient(g);
    double lo = 0, hi = 1;
    if (m_blocks && std::isfinite(m_blocks->min)) {
        lo = m_blocks->min;
        hi = m_blocks->max;
    }
    if (m_gradient->currentData().toInt() == int(QCPColorGradient::gpPolar)) {
        const double m = std::max(std::fabs(lo), std::fabs(hi));
        lo = -m;
        hi = m;
    }
    if (!(hi > lo)) {
        const double pad = lo == 0 ? 1.0 : std::fabs(lo) * 0.5;
        lo -= pad;
        hi += pad;
    }
    m_map->setDataRange(QCPRange(lo, hi));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

bool HeatmapWidget::cellAt(const QPointF &pos, int &blockRow, int &blockCol) const
{
    if (!m_blocks || m_blocks->rows == 0 || !m_plot->axisRect()->rect().contains(pos.toPoint()))
        return false;
    const TensorSlice &s = m_blocks->slice;
    const double col = std::floor(m_plot->xAxis->pixelToCoord(pos.x()) + 0.5);
    const double row = std::floor(m_plot->yAxis->pixelToCoord(pos.y()) + 0.5);
    if (col < 0 || row < 0 || col >= double(s.cols()) || row >= double(s.rows()))
        return false;
    blockRow = int(std::uint64_t(row) / m_blocks->blockRows);
    blockCol = int(std::uint64_t(col) / m_blocks->blockCols);
    return blockRow < m_blocks->rows && blockCol < m_blocks->cols;
}

void HeatmapWidget::updateHover(const QPointF &pos)
{
    int br, bc;
    if (!m_tensor || !cellAt(pos, br, bc)) {
        m_hover->clear();
        return;
    }
    const SliceBlocks &b = *m_blocks;
    const TensorSlice &s = b.slice;
    const std::uint64_t r0 = std::uint64_t(br) * b.blockRows, c0 = std::uint64_t(bc) * b.blockCols;
    if (!b.downsampled()) {
        const auto flat = size_t(s.flatIndex(r0, c0));
        const TensorView &v = m_tensor->view;
        QString text = tr("%1 = %2").arg(ndIndexToString(s.ndIndex(r0, c0)), formatElement(v.elem, v.data, flat, 'g', 8));
        switch (ValueClass(b.cls[b.at(br, bc)])) {
        case ValueClass::NaN: text += tr(" (NaN)"); break;
        case ValueClass::PosInf: text += tr(" (+Inf)"); break;
        case ValueClass::NegInf: text += tr(" (-Inf)"); break;
        case ValueClass::Saturated: text += tr(" (saturated)"); break;
        case ValueClass::Normal: break;
        }
        m_hover->setText(text);
        return;
    }
    const std::uint64_t r1 = std::min(s.rows(), r0 + b.blockRows), c1 = std::min(s.cols(), c0 + b.blockCols);
    const size_t i = b.at(br, bc);
    QString text = tr("%1: mean %2").arg(sliceRangeToString(s, r0, r1, c0, c1),
                                         std::isnan(b.mean[i]) ? tr("\u2014 (no finite value)") : num(b.mean[i]));
    if (b.special[i])
        text += tr(", %1 NaN/Inf/saturated").arg(b.special[i]);
    m_hover->setText(text);
}

bool HeatmapWidget::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_plot) {
        if (event->type() == QEvent::MouseMove) {
            updateHover(static_cast<QMouseEvent *>(event)->position());
        } else if (event->type() == QEvent::Leave) {
            m_hover->clear();
        } else if (event->type() == QEvent::MouseButtonDblClick) {
            int br, bc;
            if (cellAt(static_cast<QMouseEvent *>(event)->position(), br, bc))
                emit indexActivated(m_blocks->slice.ndIndex(std::uint64_t(br) * m_blocks->blockRows,
                                                            std::uint64_t(bc) * m_blocks->blockCols));
        }
    }
    return QWidget::eventFilter(watched, event);
}

bool HeatmapWidget::savePng(const QString &path)
{
    return m_plot->savePng(path);
}

void HeatmapWidget::exportPlot()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export heatmap"), QStringLiteral("heatmap.png"), tr("PNG image (*.png)"));
    if (!path.isEmpty() && !savePng(path))
        m_status->setText(tr("Could not write %1").arg(path));
}

} // namespace ds
