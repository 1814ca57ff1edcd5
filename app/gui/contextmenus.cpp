// Context menus of the dump tree, the operator table and the graph's nodes: copy the name or
// the id/path, export, compare with a bench dump, show in the graph.
#include "mainwindow.h"

#include "documentcontext.h"
#include "exportdialog.h"
#include "graphpanel.h"
#include "graphview.h"
#include "models/dumptreemodel.h"
#include "optablepanel.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFileInfo>
#include <QMenu>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>

#include <algorithm>
#include <functional>

namespace ds {

/// What a context menu acts on.
struct MenuTarget
{
    QString name;      ///< Copy Name (empty: no entry)
    QString tensorId;  ///< Copy Tensor ID (tensors)
    QString path;      ///< Copy Path: the file or folder on disk
    int dump = -1;
    int op = -1;       ///< Show in Graph (-1: none)
    std::vector<ExportItem> exportItems;
    std::function<void()> makeCurrent; ///< selects the target before Compare with… (null: no entry)
    bool inGraph = false; ///< the menu of a graph node: "Show in Operators" instead of "Show in Graph"
    bool closable = false; ///< a dump tree item: "Close Dump" closes its dump
};

namespace {

QString operatorName(const OpRecord &op)
{
    if (!op.headerOpName().isEmpty())
        return op.headerOpName();
    if (!op.opName.isEmpty())
        return op.opName.toString();
    return op.relPath.toString().section(QLatin1Char('/'), -1);
}

/// The operator's tensors that can be exported (inputs and outputs), as the export dialog takes them.
void addOpTensors(std::vector<ExportItem> &items, const std::shared_ptr<const DumpIndex> &index, int op)
{
    if (!index || op < 0 || size_t(op) >= index->ops.size())
        return;
    const auto &tensors = index->ops[size_t(op)].tensors;
    for (size_t t = 0; t < tensors.size(); ++t)
        if (tensors[t].io() == IoKind::Input || tensors[t].io() == IoKind::Output)
            items.push_back({index, {op, int(t)}});
}

void sortUnique(std::vector<ExportItem> &items)
{
    std::sort(items.begin(), items.end(), [](const ExportItem &a, const ExportItem &b) {
        return std::tie(a.index, a.ref.op, a.ref.tensor) < std::tie(b.index, b.ref.op, b.ref.tensor);
    });
    items.erase(std::unique(items.begin(), items.end(), [](const ExportItem &a, const ExportItem &b) {
                    return a.index == b.index && a.ref == b.ref;
                }), items.end());
}

void copyText(const QString &text) { QGuiApplication::clipboard()->setText(text); }

} // namespace

void MainWindow::setupContextMenus()
{
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_tree, &QWidget::customContextMenuRequested, this, [this](QPoint pos) {
        if (QMenu *menu = treeMenu(m_tree->indexAt(pos)))
            menu->popup(m_tree->viewport()->mapToGlobal(pos));
    });
    QTableView *table = m_opTable->view();
    table->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(table, &QWidget::customContextMenuRequested, this, [this, table](QPoint pos) {
        if (QMenu *menu = opTableMenu(table->indexAt(pos)))
            menu->popup(table->viewport()->mapToGlobal(pos));
    });
    GraphView *graph = m_graph->view();
    graph->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(graph, &QWidget::customContextMenuRequested, this, [this, graph](QPoint pos) {
        if (QMenu *menu = graphMenu(pos))
            menu->popup(graph->mapToGlobal(pos));
    });
}

QMenu *MainWindow::treeMenu(const QModelIndex &clicked)
{
    const QModelIndex item = clicked.siblingAtColumn(0);
    if (!item.isValid())
        return nullptr;
    auto *model = m_context->treeModel();
    MenuTarget t;
    t.dump = item.data(DumpTreeModel::DumpRole).toInt();
    t.closable = t.dump >= 0;
    const auto index = m_context->index(t.dump);
    const auto kind = DumpTreeModel::Kind(item.data(DumpTreeModel::KindRole).toInt());
    const int op = index && (kind == DumpTreeModel::Kind::Op || kind == DumpTreeModel::Kind::Tensor)
                       ? index->opIndex(item.data(DumpTreeModel::OpPathRole).toString())
                       : -1;
    switch (kind) {
    case DumpTreeModel::Kind::Dump:
        t.name = QFileInfo(index ? index->openedPath : item.data().toString()).fileName();
        t.path = index ? index->openedPath : item.data().toString();
        break;
    case DumpTreeModel::Kind::Op:
        if (op >= 0) {
            t.name = operatorName(index->ops[size_t(op)]);
            t.path = index->absolutePath(index->ops[size_t(op)]);
        }
        break;
    case DumpTreeModel::Kind::Tensor: {
        const auto id = item.data(DumpTreeModel::TensorIdRole).value<TensorId>();
        t.tensorId = id.toString();
        t.name = t.tensorId.section(QLatin1Char('/'), -1);
        if (op >= 0)
            t.path = index->absolutePath(index->ops[size_t(op)]);
        break;
    }
    case DumpTreeModel::Kind::Error:
        t.name = item.data().toString();
        if (index)
            t.path = index->rootDir + QLatin1Char('/') + t.name;
        break;
    case DumpTreeModel::Kind::ErrorGroup:
        break;
    default: // a directory level
        t.name = item.data().toString();
        break;
    }
    t.op = op;
    if (index && kind != DumpTreeModel::Kind::Error && kind != DumpTreeModel::Kind::ErrorGroup) {
        // The selection when the item is part of it, else the item: its tensors, its
        // operator's, or the operators below a level.
        QModelIndexList rows = m_tree->selectionModel()->selectedRows();
        if (!rows.contains(item))
            rows = {item};
        for (const QModelIndex &i : rows) {
            const auto rowIndex = m_context->index(i.data(DumpTreeModel::DumpRole).toInt());
            if (!rowIndex)
                continue;
            switch (DumpTreeModel::Kind(i.data(DumpTreeModel::KindRole).toInt())) {
            case DumpTreeModel::Kind::Tensor:
                if (auto ref = rowIndex->find(i.data(DumpTreeModel::TensorIdRole).value<TensorId>()))
                    t.exportItems.push_back({rowIndex, *ref});
                break;
            case DumpTreeModel::Kind::Op: addOpTensors(t.exportItems, rowIndex, rowIndex->opIndex(i.data(DumpTreeModel::OpPathRole).toString())); break;
            case DumpTreeModel::Kind::Error:
            case DumpTreeModel::Kind::ErrorGroup: break;
            default:
                if (const auto ops = model->opsUnder(i))
                    for (int o : *ops)
                        addOpTensors(t.exportItems, rowIndex, o);
            }
        }
        t.makeCurrent = [this, item = QPersistentModelIndex(item)] {
            if (item.isValid() && item != m_tree->currentIndex().siblingAtColumn(0))
                m_tree->setCurrentIndex(item);
        };
    }
    return targetMenu(t);
}

QMenu *MainWindow::opTableMenu(const QModelIndex &row)
{
    const auto index = m_opTable->model()->dumpIndex();
    if (!row.isValid() || !index)
        return nullptr;
    MenuTarget t;
    t.dump = m_opTable->model()->dump();
    t.op = row.data(OpTableModel::OpRole).toInt();
    if (t.op < 0 || size_t(t.op) >= index->ops.size())
        return nullptr;
    t.name = operatorName(index->ops[size_t(t.op)]);
    t.path = index->absolutePath(index->ops[size_t(t.op)]);
    QModelIndexList rows = m_opTable->view()->selectionModel()->selectedRows();
    if (!rows.contains(row.siblingAtColumn(0)))
        rows = {row};
    for (const QModelIndex &r : rows)
        addOpTensors(t.exportItems, index, r.data(OpTableModel::OpRole).toInt());
    t.makeCurrent = [this, dump = t.dump, op = t.op] { onOpActivated(dump, op); };
    return targetMenu(t);
}

QMenu *MainWindow::graphMenu(QPoint pos)
{
    GraphView *view = m_graph->view();
    const int item = view->itemAt(pos);
    const auto layout = view->currentLayout();
    if (item < 0 || !layout || !view->graph() || layout->items[size_t(item)].kind != LayoutItem::Kind::Node)
        return nullptr;
    const NodeId node = layout->items[size_t(item)].node();
    MenuTarget t;
    t.inGraph = true;
    t.name = view->graph()->node(node).name;
    t.dump = m_graph->dump();
    const auto ops = m_graph->opsOfNode(node);
    if (const auto index = m_context->index(t.dump); index && !ops.empty()) {
        t.op = ops.front();
        t.path = index->absolutePath(index->ops[size_t(t.op)]);
        for (int op : ops)
            addOpTensors(t.exportItems, index, op);
        t.makeCurrent = [this, dump = t.dump, op = t.op] { onOpActivated(dump, op); };
    }
    return targetMenu(t);
}

QMenu *MainWindow::targetMenu(const MenuTarget &t)
{
    auto *menu = new QMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    if (!t.name.isEmpty())
        menu->addAction(tr("Copy &Name"), this, [name = t.name] { copyText(name); })->setObjectName(QStringLiteral("copyName"));
    if (!t.tensorId.isEmpty())
        menu->addAction(tr("Copy &Tensor ID"), this, [id = t.tensorId] { copyText(id); })->setObjectName(QStringLiteral("copyTensorId"));
    if (!t.path.isEmpty())
        menu->addAction(tr("Copy &Path"), this, [path = t.path] { copyText(path); })->setObjectName(QStringLiteral("copyPath"));
    if (t.makeCurrent) {
        menu->addSeparator();
        std::vector<ExportItem> items = t.exportItems;
        sortUnique(items);
        QAction *exportAction = menu->addAction(tr("&Export %n Tensor(s)\u2026", nullptr, int(items.size())), this, [this, items] {
            auto *dialog = new ExportDialog(items, this);
            dialog->setAttribute(Qt::WA_DeleteOnClose);
            dialog->open();
        });
        exportAction->setObjectName(QStringLiteral("exportItems"));
        exportAction->setEnabled(!items.empty());
        QAction *compare = menu->addAction(tr("&Compare with\u2026"), this, [this, select = t.makeCurrent] {
            select();
            compareWith();
        });
        compare->setObjectName(QStringLiteral("compareWith"));
        compare->setToolTip(tr("Compare this dump (NPU) with a bench dump (GPU/CPU)"));
        if (t.inGraph) {
            menu->addAction(tr("Show in &Operators"), this, [this, select = t.makeCurrent] {
                select();
                m_tabs->setCurrentWidget(m_opTable);
            })->setObjectName(QStringLiteral("showInOperators"));
        } else if (t.op >= 0) {
            QAction *show = menu->addAction(tr("Show in &Graph"), this, [this, dump = t.dump, op = t.op] {
                m_tabs->setCurrentWidget(m_graph);
                m_graph->showOp(dump, op);
            });
            show->setObjectName(QStringLiteral("showInGraph"));
            show->setEnabled(m_graph->canShowOp(t.dump, t.op));
        }
    }
    if (t.closable) {
        menu->addSeparator();
        QAction *close = menu->addAction(tr("C&lose Dump"), this, [this, dump = t.dump] { closeDump(dump); });
        close->setObjectName(QStringLiteral("closeDump"));
        close->setToolTip(tr("Close this dump; the other open dumps stay"));
    }
    if (menu->isEmpty()) {
        delete menu;
        return nullptr;
    }
    return menu;
}

} // namespace ds
