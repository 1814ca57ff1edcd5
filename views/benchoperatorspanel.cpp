#include "benchoperatorspanel.h"

#include "models/comparetablemodel.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

namespace ds {

namespace {

/// Colours the bench operators the comparison did not (fully) use.
class StateDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        switch (BenchOperatorModel::State(index.data(BenchOperatorModel::StateRole).toInt())) {
        case BenchOperatorModel::State::Unmatched: option->backgroundBrush = QColor(0xff, 0xcc, 0x80); break;
        case BenchOperatorModel::State::Partial: option->backgroundBrush = QColor(0xff, 0xf1, 0x76); break;
        case BenchOperatorModel::State::FusedAway: option->backgroundBrush = QColor(0xe0, 0xe0, 0xe0); break;
        case BenchOperatorModel::State::Matched: break;
        }
    }
};

} // namespace

BenchOperatorsPanel::BenchOperatorsPanel(QWidget *parent) : QWidget(parent)
{
    m_model = new BenchOperatorModel(this);
    m_proxy = new BenchOperatorFilterProxy(this);
    m_proxy->setSourceModel(m_model);
    m_table = new QTableView(this);
    m_table->setModel(m_proxy);
    m_table->setItemDelegate(new StateDelegate(m_table));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setDragDropMode(QAbstractItemView::DropOnly);
    m_table->setDragDropOverwriteMode(true); // a drop lands on a row, never between rows
    m_table->setDefaultDropAction(Qt::CopyAction);
    m_table->setDropIndicatorShown(true);
    m_table->setAcceptDrops(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setMinimumWidth(80);
    m_table->setToolTip(tr("Drop NPU rows of the comparison on a bench operator to compare them with it. "
                           "Dropped on one of several selected operators, they map to all of them (an N:M group)."));

    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter bench operators\u2026"));
    m_filter->setClearButtonEnabled(true);
    m_unmatchedOnly = new QCheckBox(tr("Unmatched only"), this);
    m_unmatchedOnly->setToolTip(tr("Hide the bench operators whose tensors all have an NPU counterpart"));
    m_counts = new QLabel(this);
    m_counts->setWordWrap(true);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_unmatchedOnly);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_counts);
    layout->addWidget(m_table, 1);
    setMinimumWidth(100);

    connect(m_filter, &QLineEdit::textChanged, m_proxy, &BenchOperatorFilterProxy::setText);
    connect(m_unmatchedOnly, &QCheckBox::toggled, m_proxy, &BenchOperatorFilterProxy::setUnmatchedOnly);
    connect(m_model, &BenchOperatorModel::npuOperatorsDropped, this, &BenchOperatorsPanel::onDropped);
    updateCounts();
}

void BenchOperatorsPanel::setResult(std::shared_ptr<const CompareResult> result, std::shared_ptr<const DumpIndex> npu,
                                    std::shared_ptr<const DumpIndex> bench)
{
    const QStringList selected = selectedOperators();
    m_model->setResult(std::move(result), std::move(npu), std::move(bench));
    for (const QString &name : selected) {
        const QModelIndex i = m_proxy->mapFromSource(m_model->index(m_model->rowOf(name), 0));
        if (i.isValid())
            m_table->selectionModel()->select(i, QItemSelectionModel::Select | QItemSelectionModel::Rows);
    }
    m_table->resizeColumnToContents(BenchOperatorModel::Name);
    m_table->horizontalHeader()->resizeSection(BenchOperatorModel::Name,
                                               std::min(m_table->columnWidth(BenchOperatorModel::Name), 240));
    m_table->resizeColumnToContents(BenchOperatorModel::Type);
    m_table->resizeColumnToContents(BenchOperatorModel::Status);
    updateCounts();
}

QStringList BenchOperatorsPanel::selectedOperators() const
{
    std::vector<int> rows;
    for (const QModelIndex &i : m_table->selectionModel()->selectedRows())
        rows.push_back(m_proxy->mapToSource(i).row());
    std::sort(rows.begin(), rows.end()); // model rows are in execution order
    QStringList names;
    for (int r : rows)
        names << m_model->name(r);
    return names;
}

bool BenchOperatorsPanel::selectOperator(const QString &name)
{
    const QModelIndex i = m_proxy->mapFromSource(m_model->index(m_model->rowOf(name), 0));
    if (!i.isValid())
        return false;
    m_table->selectionModel()->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->scrollTo(i);
    return true;
}

void BenchOperatorsPanel::onDropped(const QStringList &npu, int row)
{
    const QString target = m_model->name(row);
    QStringList bench = selectedOperators();
    if (!bench.contains(target))
        bench = QStringList{target};
    emit mappingRequested(npu, bench);
}

void BenchOperatorsPanel::updateCounts()
{
    using S = BenchOperatorModel::State;
    if (m_model->rowCount() == 0) {
        m_counts->setText(tr("The bench operators appear here after a comparison."));
        return;
    }
    m_counts->setText(tr("%1 bench operators: %2 unmatched, %3 partly matched, %4 fused away.")
                          .arg(m_model->rowCount())
                          .arg(m_model->count(S::Unmatched))
                          .arg(m_model->count(S::Partial))
                          .arg(m_model->count(S::FusedAway)));
}

BenchOperatorChooser::BenchOperatorChooser(const QStringList &npu, std::shared_ptr<const CompareResult> result,
                                           std::shared_ptr<const DumpIndex> npuIndex, std::shared_ptr<const DumpIndex> bench,
                                           QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Map to bench operator"));
    auto *label = new QLabel(tr("Compare %1 with the bench operator(s) chosen below. Several NPU or bench operators "
                                "make an N:M group: the inputs of the first compare with the inputs of the first, "
                                "the outputs of the last with the outputs of the last.")
                                 .arg(npu.join(QStringLiteral(", "))),
                             this);
    label->setWordWrap(true);
    m_panel = new BenchOperatorsPanel(this);
    m_panel->table()->setDragDropMode(QAbstractItemView::NoDragDrop);
    m_panel->setResult(std::move(result), std::move(npuIndex), std::move(bench));
    m_panel->unmatchedOnly()->setChecked(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    QPushButton *ok = buttons->button(QDialogButtonBox::Ok);
    ok->setText(tr("Map"));
    ok->setEnabled(false);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_panel->table()->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this, ok] { ok->setEnabled(!chosen().isEmpty()); });
    connect(m_panel->table(), &QTableView::doubleClicked, this, [this] {
        if (!chosen().isEmpty())
            accept();
    });
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(label);
    layout->addWidget(m_panel, 1);
    layout->addWidget(buttons);
    resize(640, 420);
    m_panel->filter()->setFocus();
}

QStringList BenchOperatorChooser::chosen() const { return m_panel->selectedOperators(); }

} // namespace ds
