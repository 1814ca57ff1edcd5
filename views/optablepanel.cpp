#include "optablepanel.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QSaveFile>
#include <QShortcut>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent>
#include <set>

namespace ds {

OpTablePanel::OpTablePanel(QWidget *parent)
    : QWidget(parent), m_model(new OpTableModel(this)), m_proxy(new OpFilterProxy(this))
{
    m_proxy->setSourceModel(m_model);
    m_view = new QTableView(this);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder); // execution order until a header is clicked
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setWordWrap(false);

    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter by op name or type"));
    m_filter->setClearButtonEnabled(true);
    m_regex = new QCheckBox(tr("Regex"), this);
    m_type = new QComboBox(this);
    m_type->setToolTip(tr("Show one op type only"));
    m_count = new QLabel(this);
    auto *copy = new QPushButton(tr("Copy"), this);
    copy->setToolTip(tr("Copy the selected rows as tab-separated text (Ctrl+C)"));
    auto *csv = new QPushButton(tr("Export CSV\u2026"), this);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_regex);
    bar->addWidget(m_type);
    auto *actions = new QHBoxLayout;
    actions->addWidget(m_count, 1);
    actions->addWidget(copy);
    actions->addWidget(csv);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);
    layout->addLayout(actions);

    connect(m_filter, &QLineEdit::textChanged, this, &OpTablePanel::applyFilter);
    connect(m_regex, &QCheckBox::toggled, this, &OpTablePanel::applyFilter);
    connect(m_type, &QComboBox::currentIndexChanged, this, &OpTablePanel::applyFilter);
    connect(copy, &QPushButton::clicked, this, &OpTablePanel::copySelection);
    connect(csv, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export table"), QStringLiteral("operators.csv"),
                                                          tr("CSV files (*.csv)"));
        if (!path.isEmpty())
            exportCsv(path);
    });
    auto *shortcut = new QShortcut(QKeySequence::Copy, m_view, nullptr, nullptr, Qt::WidgetShortcut);
    connect(shortcut, &QShortcut::activated, this, &OpTablePanel::copySelection);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &current) {
        if (current.isValid())
            emit opActivated(m_model->dump(), current.data(OpTableModel::OpRole).toInt());
    });
}

OpTablePanel::~OpTablePanel() { stopStats(); }

void OpTablePanel::showOps(int dump, std::shared_ptr<const DumpIndex> index, std::vector<int> ops, int currentOp)
{
    if (dump == m_model->dump() && index == m_model->dumpIndex() && ops == m_model->ops()) {
        selectOp(currentOp);
        return;
    }
    stopStats();
    m_model->setOps(dump, std::move(index), std::move(ops));
    // Op types present at this level, for the type filter.
    std::set<QString> types;
    for (int o : m_model->ops())
        types.insert(m_model->dumpIndex()->ops[size_t(o)].opType);
    const QSignalBlocker block(m_type);
    m_type->clear();
    m_type->addItem(tr("All op types"));
    for (const auto &t : types)
        m_type->addItem(t, t);
    applyFilter();
    m_view->resizeColumnsToContents();
    m_view->setColumnWidth(OpTableModel::Name, std::min(m_view->columnWidth(OpTableModel::Name), 320));
    m_view->setColumnWidth(OpTableModel::Shapes, std::min(m_view->columnWidth(OpTableModel::Shapes), 220));
    selectOp(currentOp);
    startStats();
}

void OpTablePanel::selectOp(int op)
{
    const int row = op < 0 ? -1 : m_model->rowOf(op);
    if (row < 0)
        return;
    const QModelIndex i = m_proxy->mapFromSource(m_model->index(row, 0));
    if (!i.isValid() || i == m_view->currentIndex())
        return;
    const QSignalBlocker block(m_view->selectionModel());
    m_view->setCurrentIndex(i);
    m_view->scrollTo(i);
}

void OpTablePanel::applyFilter()
{
    m_proxy->setOpType(m_type->currentData().toString());
    m_proxy->setPattern(m_filter->text(), m_regex->isChecked());
    m_filter->setStyleSheet(m_proxy->isValidPattern() ? QString() : QStringLiteral("color: red"));
    m_count->setText(tr("%1 of %2 operators").arg(m_proxy->rowCount()).arg(m_model->rowCount()));
}

void OpTablePanel::startStats()
{
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    auto cancel = m_cancel;
    auto index = m_model->dumpIndex();
    const std::vector<int> ops = m_model->ops();
    QPointer<OpTablePanel> self(this);
    m_statsJob = QtConcurrent::run([=] {
        JobControl job;
        job.cancelFlag = cancel.get();
        for (int op : ops) {
            if (*cancel)
                return;
            const OpStats stats = computeOpStats(*index, op, &job);
            if (*cancel)
                return;
            QMetaObject::invokeMethod(qApp, [self, cancel, op, stats] {
                if (self && !*cancel)
                    self->m_model->setStats(op, stats);
            }, Qt::QueuedConnection);
        }
    });
}

void OpTablePanel::stopStats()
{
    if (m_cancel)
        *m_cancel = true;
    m_statsJob.waitForFinished();
}

void OpTablePanel::copySelection() const
{
    QList<int> rows;
    for (const QModelIndex &i : m_view->selectionModel()->selectedRows())
        rows << m_proxy->mapToSource(i).row();
    std::sort(rows.begin(), rows.end());
    if (!rows.isEmpty())
        QGuiApplication::clipboard()->setText(m_model->rowsText(rows));
}

bool OpTablePanel::exportCsv(const QString &path) const
{
    QList<int> rows;
    for (int r = 0; r < m_proxy->rowCount(); ++r)
        rows << m_proxy->mapToSource(m_proxy->index(r, 0)).row();
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return false;
    f.write(m_model->rowsText(rows, QLatin1Char(',')).toUtf8());
    return f.commit();
}

} // namespace ds
