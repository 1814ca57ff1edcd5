#include "optablepanel.h"

#include "background.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QElapsedTimer>
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
#include <string_view>
#include <unordered_set>

namespace ds {

OpTablePanel::OpTablePanel(QWidget *parent)
    : QWidget(parent), m_model(new OpTableModel(this))
{
    m_view = new QTableView(this);
    m_view->setModel(m_model);
    m_view->setSortingEnabled(true);
    m_view->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder); // execution order until a header is clicked
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setWordWrap(false);
    // Column widths come from the first rows only (Qt's default reads 1,000 rows of every
    // column, and a row's text is made when asked: tens of milliseconds on a large level).
    m_view->horizontalHeader()->setResizeContentsPrecision(kSizedRows);

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
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_note->setVisible(false);
    layout->addWidget(m_note);
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

void OpTablePanel::showOps(int dump, std::shared_ptr<const DumpIndex> index, std::shared_ptr<const std::vector<int>> ops, int currentOp)
{
    if (dump == m_model->dump() && index == m_model->dumpIndex() && ops && (ops == m_model->sharedOps() || *ops == m_model->ops())) {
        selectOp(currentOp);
        return;
    }
    stopStats();
    m_note->setVisible(false);
    // A new level starts with all op types, and keeps the text filter.
    m_model->setOps(dump, std::move(index), std::move(ops), OpFilter{{}, m_filter->text(), m_regex->isChecked()});
    // The op types of the level come from the statistics job (setTypes).
    setTypes({});
    showCount();
    m_view->resizeColumnsToContents(); // from the first kSizedRows rows (set in the constructor)
    m_view->setColumnWidth(OpTableModel::Name, std::min(m_view->columnWidth(OpTableModel::Name), 320));
    m_view->setColumnWidth(OpTableModel::Shapes, std::min(m_view->columnWidth(OpTableModel::Shapes), 220));
    selectOp(currentOp);
    startStats();
}

void OpTablePanel::showNote(int dump, const QString &text)
{
    stopStats();
    m_model->setOps(dump, nullptr, nullptr, OpFilter{{}, m_filter->text(), m_regex->isChecked()});
    setTypes({});
    showCount();
    m_note->setText(text);
    m_note->setVisible(true);
}

QString OpTablePanel::note() const { return m_note->isVisibleTo(this) ? m_note->text() : QString(); }

void OpTablePanel::setTypes(const QStringList &types)
{
    const QSignalBlocker block(m_type);
    m_type->clear();
    m_type->addItem(tr("All op types"));
    for (const QString &t : types)
        m_type->addItem(t, t);
}

void OpTablePanel::selectOp(int op)
{
    const int row = op < 0 ? -1 : m_model->rowOf(op);
    if (row < 0)
        return;
    m_model->fetchTo(row);
    const QModelIndex i = m_model->index(row, 0);
    if (!i.isValid() || i == m_view->currentIndex())
        return;
    const QSignalBlocker block(m_view->selectionModel());
    m_view->setCurrentIndex(i);
    m_view->scrollTo(i);
}

void OpTablePanel::applyFilter()
{
    m_model->setFilter(OpFilter{m_type->currentData().toString(), m_filter->text(), m_regex->isChecked()});
    showCount();
}

void OpTablePanel::showCount()
{
    m_filter->setStyleSheet(m_model->isValidPattern() ? QString() : QStringLiteral("color: red"));
    m_count->setText(tr("%1 of %2 operators").arg(m_model->rowsTotal()).arg(m_model->ops().size()));
}

void OpTablePanel::startStats()
{
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    auto cancel = m_cancel;
    auto index = m_model->dumpIndex();
    const auto ops = m_model->sharedOps(); // no copy: 175,000 operators are 700 KB of fresh pages
    QPointer<OpTablePanel> self(this);
    // Results reach the table in batches of consecutive operators, about ten a second: one queued
    // call and one notification per batch, not per operator (a level can hold 175,000, and
    // recorded statistics come in a microsecond each).
    m_statsJob = QtConcurrent::run(backgroundPool(), [=] {
        const BackgroundPriority background;
        JobControl job;
        job.cancelFlag = cancel.get();
        std::vector<OpStats> batch;
        size_t first = 0; // the batch's first position in the level
        QElapsedTimer sent;
        sent.start();
        // First the op types present, for the type filter (distinct ones first: a level can
        // hold 175,000 operators and a few dozen types; 3-8 ms on the GUI thread before).
        std::unordered_set<std::string_view> distinct;
        for (int o : *ops)
            distinct.insert(index->ops[size_t(o)].opType.utf8());
        std::set<QString> sorted;
        for (std::string_view t : distinct)
            sorted.insert(QString::fromUtf8(t.data(), qsizetype(t.size())));
        QMetaObject::invokeMethod(qApp, [self, cancel, types = QStringList(sorted.begin(), sorted.end())] {
            if (self && !*cancel)
                self->setTypes(types);
        }, Qt::QueuedConnection);
        auto deliver = [&] {
            QMetaObject::invokeMethod(qApp, [self, cancel, first = int(first), batch = std::exchange(batch, {})]() mutable {
                if (self && !*cancel)
                    self->m_model->setStats(first, std::move(batch));
            }, Qt::QueuedConnection);
            sent.restart();
        };
        for (size_t pos = 0; pos < ops->size(); ++pos) {
            if (*cancel)
                return;
            if (batch.empty())
                first = pos;
            batch.push_back(computeOpStats(*index, (*ops)[pos], &job));
            if (*cancel)
                return;
            if (sent.elapsed() >= kStatsBatchMs)
                deliver();
        }
        if (!batch.empty())
            deliver();
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
        rows << i.row();
    std::sort(rows.begin(), rows.end());
    if (!rows.isEmpty())
        QGuiApplication::clipboard()->setText(m_model->rowsText(rows));
}

bool OpTablePanel::exportCsv(const QString &path) const
{
    QList<int> rows;
    for (int r = 0; r < m_model->rowsTotal(); ++r)
        rows << r;
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return false;
    f.write(m_model->rowsText(rows, QLatin1Char(',')).toUtf8());
    return f.commit();
}

} // namespace ds
