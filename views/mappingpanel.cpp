#include "mappingpanel.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

namespace ds {

MappingPanel::MappingPanel(QWidget *parent) : QWidget(parent)
{
    m_table = new QTableWidget(0, ColumnCount, this);
    m_table->setHorizontalHeaderLabels({tr("NPU operator"), tr("Bench operator"), tr("Kind")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setMinimumWidth(80);

    auto button = [this](const QString &text, const QString &tip) {
        auto *b = new QToolButton(this);
        b->setText(text);
        b->setToolTip(tip);
        return b;
    };
    m_remove = button(tr("Remove"), tr("Remove the selected entries; their rows are matched again"));
    m_remove->setShortcut(QKeySequence::Delete);
    m_load = button(tr("Load mapping\u2026"), tr("Replace the mapping by a YAML or JSON mapping file"));
    m_save = button(tr("Save mapping\u2026"), tr("Write the mapping as JSON (names and N:M groups) or YAML (names only), "
                                                 "readable by dumpscope-cli compare --mapping"));
    m_clear = button(tr("Clear"), tr("Remove every entry"));
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_remove);
    bar->addWidget(m_clear);
    bar->addStretch(1);
    bar->addWidget(m_load);
    bar->addWidget(m_save);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_status);
    layout->addWidget(m_table, 1);
    setMinimumWidth(100);

    connect(m_remove, &QToolButton::clicked, this, [this] {
        if (const QList<int> e = selectedEntries(); !e.isEmpty())
            emit removeRequested(e);
    });
    connect(m_load, &QToolButton::clicked, this, &MappingPanel::loadRequested);
    connect(m_save, &QToolButton::clicked, this, &MappingPanel::saveRequested);
    connect(m_clear, &QToolButton::clicked, this, &MappingPanel::clearRequested);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this] { m_remove->setEnabled(!selectedEntries().isEmpty()); });
    setMapping({}, {}, false);
}

void MappingPanel::setMapping(const UserMapping &mapping, const QString &file, bool modified, const QStringList &notes)
{
    m_table->setRowCount(int(mapping.entryCount()));
    auto cell = [](const QString &text) {
        auto *i = new QTableWidgetItem(text);
        i->setToolTip(text);
        return i;
    };
    int r = 0;
    for (const auto &[n, b] : mapping.names) {
        m_table->setItem(r, Npu, cell(n));
        m_table->setItem(r, Bench, cell(b));
        m_table->setItem(r++, Kind, cell(tr("1:1")));
    }
    const QString plus = QStringLiteral(" + ");
    for (const UserMapping::Group &g : mapping.groups) {
        m_table->setItem(r, Npu, cell(g.npu.join(plus)));
        m_table->setItem(r, Bench, cell(g.bench.join(plus)));
        m_table->setItem(r++, Kind, cell(tr("group %1:%2").arg(g.npu.size()).arg(g.bench.size())));
    }
    if (mapping.entryCount() > 0) {
        m_table->resizeColumnToContents(Npu);
        m_table->horizontalHeader()->resizeSection(Npu, std::min(m_table->columnWidth(Npu), 220));
        m_table->resizeColumnToContents(Bench);
        m_table->horizontalHeader()->resizeSection(Bench, std::min(m_table->columnWidth(Bench), 220));
    }
    QString status;
    if (mapping.isEmpty())
        status = tr("No user mapping. Drag NPU rows onto a bench operator (or use \u201cMap to bench operator\u2026\u201d "
                    "in the rows' context menu), or load a mapping file.");
    else
        status = tr("%n entry(ies)", nullptr, int(mapping.entryCount()));
    if (!file.isEmpty())
        status += QLatin1Char(' ') + (modified ? tr("(changed since %1)").arg(QFileInfo(file).fileName())
                                               : tr("(as in %1)").arg(QFileInfo(file).fileName()));
    else if (!mapping.isEmpty())
        status += QLatin1Char(' ') + tr("(not saved)");
    for (const QString &n : notes)
        status += QLatin1Char('\n') + n;
    m_status->setText(status);
    m_status->setToolTip(file);
    m_save->setEnabled(!mapping.isEmpty());
    m_clear->setEnabled(!mapping.isEmpty());
    m_remove->setEnabled(!selectedEntries().isEmpty());
}

QList<int> MappingPanel::selectedEntries() const
{
    QList<int> rows;
    for (const QModelIndex &i : m_table->selectionModel()->selectedRows())
        rows << i.row();
    std::sort(rows.begin(), rows.end());
    return rows;
}

} // namespace ds
