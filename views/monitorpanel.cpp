#include "monitorpanel.h"

#include "models/monitortrendmodel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

namespace ds {

namespace {

// the model's place on the row's scale as a colour; NaN/Inf purple; anomalies outlined red
class TrendCellDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        const double t = index.data(MonitorTrendModel::NormalizedRole).toDouble();
        const QColor c = t < 0 ? QColor(150, 60, 170) : QColor::fromHsvF(0.6 - 0.6 * t, 0.55, 0.95);
        painter->fillRect(option.rect, c);
        QStyleOptionViewItem o = option;
        o.palette.setColor(QPalette::Text, t < 0 ? Qt::white : Qt::black);
        QStyledItemDelegate::paint(painter, o, index);
        if (index.data(MonitorTrendModel::AnomalyRole).toBool()) {
            painter->save();
            painter->setPen(QPen(QColor(220, 0, 0), 3));
            painter->drawRect(option.rect.adjusted(1, 1, -2, -2));
            painter->restore();
        }
    }
};

} // namespace

MonitorPanel::MonitorPanel(QWidget *parent)
    : QWidget(parent), m_summary(new QLabel(this)), m_metric(new QComboBox(this)), m_stat(new QComboBox(this)), m_view(new QTableView(this)),
      m_model(new MonitorTrendModel(this)), m_anomalies(new QListWidget(this))
{
    m_summary->setWordWrap(true);
    m_summary->setText(tr("Open msprobe's monitor output (File \u2192 Open): its output folder, a rank folder or an anomaly file."));
    m_view->setModel(m_model);
    m_view->setItemDelegate(new TrendCellDelegate(m_view));
    m_view->horizontalHeader()->setDefaultSectionSize(70);
    auto *pick = new QHBoxLayout;
    pick->addWidget(new QLabel(tr("Metric:"), this));
    pick->addWidget(m_metric, 1);
    pick->addWidget(new QLabel(tr("Statistic:"), this));
    pick->addWidget(m_stat, 1);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_view);
    split->addWidget(m_anomalies);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addLayout(pick);
    layout->addWidget(split, 1);
    connect(&m_load, &QFutureWatcherBase::finished, this, &MonitorPanel::showDocument);
    connect(m_metric, &QComboBox::currentIndexChanged, this, [this](int i) {
        const QSignalBlocker block(m_stat);
        const QString keep = m_stat->currentText();
        m_stat->clear();
        if (m_doc && i >= 0) {
            const auto metrics = m_doc->metrics();
            if (size_t(i) < metrics.size())
                m_stat->addItems(metrics[size_t(i)].second);
            const int again = m_stat->findText(keep);
            m_stat->setCurrentIndex(again >= 0 ? again : 0);
        }
        showSeries();
    });
    connect(m_stat, &QComboBox::currentIndexChanged, this, &MonitorPanel::showSeries);
    connect(m_anomalies, &QListWidget::currentRowChanged, this, &MonitorPanel::goToAnomaly);
    connect(m_anomalies, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) {
        const int row = m_anomalies->row(item);
        if (m_doc && row >= 0 && size_t(row) < m_doc->anomalies.size())
            emit anomalyActivated(m_doc->anomalies[size_t(row)]);
    });
    m_anomalies->setToolTip(tr("Double-click an anomaly to select its module in an open dump of the same step and rank."));
}

MonitorPanel::~MonitorPanel() { m_load.waitForFinished(); }

void MonitorPanel::open(const QString &path)
{
    m_summary->setText(tr("Reading msprobe's monitor output %1\u2026").arg(path));
    m_load.setFuture(readInBackground<monitor::MonitorDocument>([path] { return monitor::openMonitor(path); }));
}

void MonitorPanel::showDocument()
{
    const Loaded loaded = m_load.result();
    m_doc = loaded.doc;
    const QSignalBlocker b1(m_metric), b2(m_anomalies);
    m_metric->clear();
    m_anomalies->clear();
    if (!m_doc) {
        m_model->setSeries(nullptr, {}, {});
        m_summary->setText(loaded.error);
        emit opened();
        return;
    }
    for (const auto &m : m_doc->metrics())
        m_metric->addItem(m.first);
    for (const monitor::Anomaly &a : m_doc->anomalies)
        m_anomalies->addItem(tr("rank %1, step %2, micro step %3: %4 \u2014 %5").arg(a.rank).arg(a.step).arg(a.microStep).arg(a.tagName, a.message));
    QString text = tr("msprobe's training monitor output in %1: %n metric(s), ", nullptr, int(m_doc->metrics().size())).arg(m_doc->root)
                 + tr("%n anomal(ies) in msprobe's order below. ", nullptr, int(m_doc->anomalies.size()))
                 + tr("Each row is a module on a rank, each column a step; colour runs from the row's smallest (blue) to its largest value (red), NaN/Inf purple, anomalies outlined red. "
                      "Pick a metric and a statistic; select an anomaly to go to its cell.");
    if (!m_doc->errors.empty())
        text += QLatin1Char(' ') + tr("%n problem(s): %1", nullptr, int(m_doc->errors.size())).arg(m_doc->errors.front().text());
    m_summary->setText(text);
    // start where msprobe's first anomaly is
    int metric = 0;
    if (!m_doc->anomalies.empty()) {
        const QString first = monitor::metricOfKind(m_doc->anomalies.front().kind());
        for (int i = 0; i < m_metric->count(); ++i)
            if (m_metric->itemText(i) == first || m_metric->itemText(i).startsWith(first + QLatin1Char('/')))
                metric = i;
    }
    m_metric->setCurrentIndex(metric);
    {
        const QSignalBlocker block(m_stat);
        m_stat->clear();
        const auto metrics = m_doc->metrics();
        if (!metrics.empty())
            m_stat->addItems(metrics[size_t(metric)].second);
        const int norm = m_stat->findText(QStringLiteral("norm"));
        m_stat->setCurrentIndex(norm >= 0 ? norm : 0);
    }
    showSeries();
    emit opened();
}

void MonitorPanel::showSeries()
{
    m_model->setSeries(m_doc, m_metric->currentText(), m_stat->currentText());
}

void MonitorPanel::goToAnomaly(int row)
{
    if (!m_doc || row < 0 || size_t(row) >= m_doc->anomalies.size())
        return;
    const monitor::Anomaly &a = m_doc->anomalies[size_t(row)];
    const QString metric = monitor::metricOfKind(a.kind());
    for (int i = 0; i < m_metric->count(); ++i)
        if (m_metric->itemText(i) == metric) {
            m_metric->setCurrentIndex(i);
            break;
        }
    for (int r = 0; r < m_model->rowCount(); ++r)
        for (int c = 0; c < m_model->columnCount(); ++c) {
            const QModelIndex idx = m_model->index(r, c);
            if (idx.data(MonitorTrendModel::AnomalyRole).toBool() && idx.data(MonitorTrendModel::RankRole).toInt() == a.rank
                && idx.data(MonitorTrendModel::StepRole).toLongLong() == a.step
                && m_model->headerData(r, Qt::Vertical).toString().startsWith(a.module() + QLatin1Char(' '))) {
                m_view->setCurrentIndex(idx);
                m_view->scrollTo(idx);
                return;
            }
        }
}

} // namespace ds
