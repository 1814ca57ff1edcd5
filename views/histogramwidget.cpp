#include "histogramwidget.h"

#include "settingsdialog.h"

#include <QCheckBox>
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
    layout->addWidget(m_pages, 1);
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
    for (QWidget *w : std::initializer_list<QWidget *>{m_bins, m_log, m_customRange, m_save})
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
    m_bars->data()->clear();
    m_counts->clear();
    m_message->setTextFormat(Qt::PlainText);
    m_message->setText(message.isEmpty() ? tr("Select a tensor to see the histogram of its values.") : message);
    showPlot(false);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
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
    applyScale();
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
