#include "histogramwidget.h"

#include "settingsdialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleValidator>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPushButton>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <cmath>

namespace ds {

namespace {
QString num(double v) { return QString::number(v, 'g', 6); }
} // namespace

HistogramWidget::HistogramWidget(QWidget *parent) : QWidget(parent), m_plot(new QCustomPlot(this))
{
    m_bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    m_bars->setWidthType(QCPBars::wtPlotCoords);
    m_bars->setPen(Qt::NoPen);
    m_bars->setBrush(palette().color(QPalette::Highlight));
    m_plot->xAxis->setLabel(tr("value"));
    m_plot->yAxis->setLabel(tr("count"));
    m_plot->setMinimumHeight(160);
    m_plot->installEventFilter(this);
    m_plot->setMouseTracking(true);

    m_bins = new QSpinBox(this);
    m_bins->setRange(1, 4096);
    m_bins->setValue(SettingsDialog::histogramBins());
    m_bins->setPrefix(tr("bins: "));
    m_log = new QCheckBox(tr("log count"), this);
    m_log->setChecked(SettingsDialog::histogramLog());
    m_customRange = new QCheckBox(tr("range"), this);
    m_customRange->setToolTip(tr("Use a fixed range instead of the data's min and max"));
    m_lo = new QLineEdit(this);
    m_hi = new QLineEdit(this);
    for (QLineEdit *e : {m_lo, m_hi}) {
        e->setValidator(new QDoubleValidator(e));
        e->setMaximumWidth(90);
        e->setEnabled(false);
    }
    m_bands = new QComboBox(this);
    m_bands->setToolTip(tr("Shade the ranges where the values would underflow, be subnormal or overflow in a narrower type"));
    m_bands->addItem(tr("none"), -1);
    for (const auto &l : headroomLimits())
        m_bands->addItem(QString::fromLatin1(l.name), int(l.target));
    m_bandNote = new QLabel(this);
    m_bandNote->setWordWrap(true);
    m_bandNote->setTextFormat(Qt::RichText);
    m_bandNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_bandNote->hide();
    auto *save = m_save = new QPushButton(tr("Export plot..."), this);
    m_counts = new QLabel(this);
    m_counts->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // The counts are a few short lines; a message (no data) wraps instead of squeezing the plot.
    m_counts->setWordWrap(true);
    m_counts->setMaximumWidth(fontMetrics().averageCharWidth() * 26);
    m_hover = new QLabel(this);

    auto *controls = new QHBoxLayout;
    controls->addWidget(m_bins);
    controls->addWidget(m_log);
    controls->addWidget(m_customRange);
    controls->addWidget(m_lo);
    controls->addWidget(new QLabel(QStringLiteral("\u2013"), this));
    controls->addWidget(m_hi);
    controls->addStretch();
    controls->addWidget(save);
    // The bands get a row of their own: beside the range fields they widened the inspector dock
    // past a 1280-pixel window (its right edge and "Copy statistics" cut off).
    auto *bandRow = new QHBoxLayout;
    auto *bandLabel = new QLabel(tr("Shade the ranges of:"), this);
    bandLabel->setBuddy(m_bands);
    bandRow->addWidget(bandLabel);
    bandRow->addWidget(m_bands);
    bandRow->addStretch();
    m_plotPage = new QWidget(this);
    auto *side = new QHBoxLayout(m_plotPage);
    side->setContentsMargins(0, 0, 0, 0);
    side->addWidget(m_plot, 1);
    side->addWidget(m_counts, 0, Qt::AlignTop);
    // Without a histogram a message takes the plot's place: an empty plot with 0-5 axes
    // looked like a histogram of nothing.
    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setMargin(8);
    m_pages = new QStackedWidget(this);
    m_pages->addWidget(m_plotPage);
    m_pages->addWidget(m_message);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addLayout(bandRow);
    layout->addWidget(m_pages, 1);
    layout->addWidget(m_bandNote);
    layout->addWidget(m_hover);

    connect(m_bins, &QSpinBox::editingFinished, this, &HistogramWidget::parametersChanged);
    connect(m_log, &QCheckBox::toggled, this, &HistogramWidget::applyScale);
    connect(m_customRange, &QCheckBox::toggled, this, [this](bool on) {
        m_lo->setEnabled(on);
        m_hi->setEnabled(on);
        if (on && m_lo->text().isEmpty() && !m_hist.counts.empty()) {
            m_lo->setText(num(m_hist.lo));
            m_hi->setText(num(m_hist.hi));
        }
        emit parametersChanged();
    });
    connect(m_lo, &QLineEdit::editingFinished, this, &HistogramWidget::parametersChanged);
    connect(m_hi, &QLineEdit::editingFinished, this, &HistogramWidget::parametersChanged);
    connect(save, &QPushButton::clicked, this, &HistogramWidget::exportPlot);
    connect(m_bands, &QComboBox::currentIndexChanged, this, &HistogramWidget::drawBands);
    clear();
}

int HistogramWidget::bins() const { return m_bins->value(); }

std::pair<double, double> HistogramWidget::range() const
{
    bool okLo = false, okHi = false;
    const double lo = QLocale().toDouble(m_lo->text(), &okLo), hi = QLocale().toDouble(m_hi->text(), &okHi);
    if (!m_customRange->isChecked() || !okLo || !okHi || !(lo <= hi))
        return {1.0, 0.0};
    return {lo, hi};
}

void HistogramWidget::showPlot(bool on)
{
    m_pages->setCurrentWidget(on ? m_plotPage : static_cast<QWidget *>(m_message));
    for (QWidget *w : std::initializer_list<QWidget *>{m_bins, m_log, m_customRange, m_save, m_bands})
        w->setEnabled(on);
    m_lo->setEnabled(on && m_customRange->isChecked());
    m_hi->setEnabled(on && m_customRange->isChecked());
    if (!on)
        m_hover->clear();
}

bool HistogramWidget::hasPlot() const { return m_pages->currentWidget() == m_plotPage; }

QString HistogramWidget::messageText() const { return hasPlot() ? QString() : m_message->text(); }

void HistogramWidget::clear(const QString &message)
{
    m_hist = Histogram{};
    m_stats = TensorStats{};
    m_bars->data()->clear();
    m_counts->clear();
    m_message->setTextFormat(Qt::PlainText);
    m_message->setText(message.isEmpty() ? tr("Select a tensor to see the histogram of its values.") : message);
    showPlot(false);
    drawBands();
}

void HistogramWidget::showRecorded(const RecordedStats &recorded, const QString &message)
{
    clear();
    auto text = [](double v) {
        return std::isnan(v) ? QStringLiteral("NaN") : std::isinf(v) ? QString::fromLatin1(v > 0 ? "+Inf" : "-Inf") : QString::number(v, 'g', 8);
    };
    QString html = QStringLiteral("<p>%1</p>").arg(message.toHtmlEscaped());
    const std::pair<RecordedStats::Field, std::pair<QString, double>> fields[] = {
        {RecordedStats::Max, {tr("max"), recorded.max}},
        {RecordedStats::Min, {tr("min"), recorded.min}},
        {RecordedStats::Mean, {tr("mean"), recorded.mean}},
        {RecordedStats::Norm, {tr("L2 norm"), recorded.norm}},
    };
    QString rows;
    for (const auto &[field, row] : fields)
        if (recorded.has(field))
            rows += QStringLiteral("<tr><td>%1</td><td align=\"right\">&nbsp;&nbsp;%2</td></tr>").arg(row.first.toHtmlEscaped(), text(row.second));
    if (!rows.isEmpty())
        html += QStringLiteral("<p>%1</p><table>%2</table>").arg(tr("Recorded statistics:").toHtmlEscaped(), rows);
    m_message->setTextFormat(Qt::RichText);
    m_message->setText(html);
}

void HistogramWidget::setHistogram(const Histogram &h, const TensorStats &stats)
{
    showPlot(true);
    m_hist = h;
    const auto edges = h.edges();
    QVector<double> keys, values;
    keys.reserve(qsizetype(h.counts.size()));
    values.reserve(qsizetype(h.counts.size()));
    for (size_t i = 0; i < h.counts.size(); ++i) {
        keys << (edges[i] + edges[i + 1]) / 2;
        values << double(h.counts[i]);
    }
    m_bars->setWidth(h.counts.empty() ? 1 : (h.hi - h.lo) / double(h.counts.size()));
    m_bars->setData(keys, values, true);
    m_plot->xAxis->setRange(h.lo, h.hi);
    m_counts->setText(tr("NaN: %1\n+Inf: %2\n-Inf: %3\nzero: %4\nout of range: %5")
                          .arg(h.nan).arg(h.posinf).arg(h.neginf).arg(stats.zero).arg(h.below + h.above));
    m_stats = stats;
    drawBands();
    applyScale();
}

void HistogramWidget::setBandTarget(int target) { m_bands->setCurrentIndex(std::max(0, m_bands->findData(target))); }

int HistogramWidget::bandTarget() const { return m_bands->currentData().toInt(); }

QString HistogramWidget::bandText() const { return m_bandNote->isHidden() ? QString() : m_bandPlain; }

void HistogramWidget::drawBands()
{
    for (QCPItemRect *item : m_bandItems)
        m_plot->removeItem(item);
    m_bandItems.clear();
    m_bandNote->clear();
    m_bandPlain.clear();
    m_bandNote->hide();
    const int target = bandTarget();
    if (target < 0 || !hasPlot() || !m_stats.headroom.valid || m_hist.counts.empty()) {
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const HeadroomLimits &l = headroomLimits(HeadroomTarget(target));
    const HeadroomCounts &c = m_stats.headroom.at(l.target);
    // x in values, y the whole height; a pen as well as a brush, so that a band narrower than a
    // pixel (subnormal ranges next to 0 on a linear axis) still shows as a line.
    auto band = [this](double from, double to, const QColor &colour) {
        auto *rect = new QCPItemRect(m_plot);
        for (QCPItemPosition *p : {rect->topLeft, rect->bottomRight})
            p->setTypeY(QCPItemPosition::ptAxisRectRatio);
        rect->topLeft->setCoords(from, 0);
        rect->bottomRight->setCoords(to, 1);
        QColor fill = colour;
        fill.setAlpha(70);
        rect->setBrush(fill);
        rect->setPen(QPen(colour, 1));
        m_bandItems.push_back(rect);
    };
    const double span = std::max(std::abs(m_hist.lo), std::abs(m_hist.hi)) * 2 + l.maxFinite;
    const QColor overflow(200, 30, 30), subnormal(230, 150, 0), underflow(90, 90, 90);
    band(l.maxFinite, span, overflow);
    band(-span, -l.maxFinite, overflow);
    band(-l.minNormal, l.minNormal, subnormal);
    band(-l.minSubnormal / 2, l.minSubnormal / 2, underflow);
    // One line per band, its colour as a square before it: the range and how many values fall there.
    const std::pair<QColor, QString> lines[] = {
        {overflow, tr("overflow, |x| > %1: %2").arg(num(l.maxFinite)).arg(c.overflow)},
        {subnormal, tr("subnormal, %1 \u2264 |x| < %2: %3").arg(num(l.minSubnormal / 2), num(l.minNormal)).arg(c.subnormal)},
        {underflow, tr("become zero, 0 < |x| < %1: %2").arg(num(l.minSubnormal / 2)).arg(c.underflow)},
    };
    QStringList plain, html;
    for (const auto &[colour, line] : lines) {
        plain << line;
        html << QStringLiteral("<span style=\"color:%1\">\u25a0</span> %2").arg(colour.name(), line.toHtmlEscaped());
    }
    const QString tail = tr("Unshaded values are normal in %1; a band narrower than a pixel shows as a line.").arg(QString::fromLatin1(l.name));
    plain << tail;
    html << tail.toHtmlEscaped();
    m_bandPlain = plain.join(QLatin1Char('\n'));
    m_bandNote->setText(html.join(QStringLiteral("<br>")));
    m_bandNote->show();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void HistogramWidget::applyScale()
{
    const bool log = m_log->isChecked();
    double top = 1;
    for (auto c : m_hist.counts)
        top = std::max(top, double(c));
    if (log) {
        m_plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
        m_bars->setBaseValue(0.5);
        m_plot->yAxis->setRange(0.5, top * 2);
    } else {
        m_plot->yAxis->setScaleType(QCPAxis::stLinear);
        // Counts are whole numbers: fixed integer steps (1, 2, 5 x 10^k) instead of 0.5 ticks.
        auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
        const double raw = std::max(1.0, top / 5.0), mag = std::pow(10.0, std::floor(std::log10(raw)));
        const double norm = raw / mag;
        ticker->setTickStep((norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag);
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssNone);
        m_plot->yAxis->setTicker(ticker);
        m_bars->setBaseValue(0);
        m_plot->yAxis->setRange(0, top * 1.05);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

bool HistogramWidget::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_plot && event->type() == QEvent::MouseMove && !m_hist.counts.empty()) {
        const auto *me = static_cast<QMouseEvent *>(event);
        const double x = m_plot->xAxis->pixelToCoord(me->position().x());
        const auto edges = m_hist.edges();
        const auto it = std::upper_bound(edges.begin(), edges.end(), x);
        const qsizetype bin = qsizetype(it - edges.begin()) - 1;
        if (bin >= 0 && bin < qsizetype(m_hist.counts.size())) {
            const bool last = bin + 1 == qsizetype(m_hist.counts.size());
            m_hover->setText(tr("bin [%1, %2%3: %4 values").arg(num(edges[size_t(bin)]), num(edges[size_t(bin) + 1]),
                                                                 last ? QStringLiteral("]") : QStringLiteral(")"))
                                 .arg(m_hist.counts[size_t(bin)]));
        } else {
            m_hover->clear();
        }
    }
    return QWidget::eventFilter(watched, event);
}

bool HistogramWidget::savePlot(const QString &path)
{
    return path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive) ? m_plot->savePdf(path) : m_plot->savePng(path);
}

void HistogramWidget::exportPlot()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export histogram"), QStringLiteral("histogram.png"),
                                                      tr("PNG image (*.png);;PDF document (*.pdf)"));
    if (!path.isEmpty() && !savePlot(path))
        m_hover->setText(tr("Could not write %1").arg(path));
}

} // namespace ds
