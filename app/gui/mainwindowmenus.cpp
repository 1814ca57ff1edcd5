// The main window's conveniences: Help menu, Ctrl+F, the file dialogs' folder, the first
// selection after a dump opens.
#include "compareview.h"
#include "mainwindow.h"

#include "documentcontext.h"
#include "graphpanel.h"
#include "helpdialog.h"
#include "models/dumptreemodel.h"
#include "optablepanel.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QTabWidget>
#include <QTimer>
#include <QTreeView>

namespace ds {

namespace {

const QString kDialogFolderKey = QStringLiteral("dialogs/lastFolder");

bool isErrorKind(const QModelIndex &i)
{
    const auto kind = DumpTreeModel::Kind(i.data(DumpTreeModel::KindRole).toInt());
    return kind == DumpTreeModel::Kind::ErrorGroup || kind == DumpTreeModel::Kind::Error;
}

} // namespace

void MainWindow::createHelpMenu()
{
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->setObjectName(QStringLiteral("helpMenu"));
    QAction *steps = help->addAction(tr("&First Steps"), this, &MainWindow::showFirstSteps);
    steps->setObjectName(QStringLiteral("firstSteps"));
    steps->setShortcut(QKeySequence::HelpContents);
    help->addSeparator();
    QAction *about = help->addAction(tr("&About DumpScope"), this, [this] {
        QMessageBox::about(this, tr("About DumpScope"),
                           tr("<b>DumpScope %1</b><p>A workbench for Ascend NPU dump data: operator tensors, "
                              "layouts, statistics and overflow records.</p>").arg(QStringLiteral(DUMPSCOPE_VERSION)));
    });
    about->setObjectName(QStringLiteral("about"));
    about->setMenuRole(QAction::AboutRole);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt)->setMenuRole(QAction::AboutQtRole);
}

void MainWindow::showFirstSteps()
{
    if (!m_firstSteps) {
        m_firstSteps = new FirstStepsDialog(this);
        m_firstSteps->setAttribute(Qt::WA_DeleteOnClose);
    }
    m_firstSteps->show();
    m_firstSteps->raise();
    m_firstSteps->activateWindow();
}

void MainWindow::focusSearch()
{
    QLineEdit *box = nullptr;
    if (m_tabs->currentWidget() == m_graph) {
        box = m_graph->searchBox();
    } else if (m_tabs->currentWidget() == m_compare) {
        box = m_compare->filterEdit();
    } else {
        m_tabs->setCurrentWidget(m_opTable);
        box = m_opTable->filterEdit();
    }
    box->setFocus(Qt::ShortcutFocusReason);
    box->selectAll();
}

QString MainWindow::dialogFolder()
{
    // The folder may have gone since: start in the nearest folder above it that exists.
    QString folder = QSettings().value(kDialogFolderKey).toString();
    while (!folder.isEmpty() && !QFileInfo(folder).isDir()) {
        const QString up = QFileInfo(folder).absolutePath();
        folder = up == folder ? QString() : up;
    }
    return folder;
}

void MainWindow::rememberDialogFolder(const QString &path)
{
    const QFileInfo info(path);
    if (info.exists())
        QSettings().setValue(kDialogFolderKey, info.absolutePath());
}

void MainWindow::selectInitialItem(int dump)
{
    auto *model = m_context->treeModel();
    // Expand down to the first level with operators (never into "Files that could not be
    // read") and show them in the table.
    auto firstChild = [model](const QModelIndex &parent) {
        for (int r = 0; r < model->rowCount(parent); ++r)
            if (const QModelIndex c = model->index(r, 0, parent); !isErrorKind(c))
                return c;
        return QModelIndex();
    };
    const QModelIndex root = model->dumpItem(dump);
    QModelIndex level = root;
    for (QModelIndex c = firstChild(level); c.isValid() && DumpTreeModel::Kind(c.data(DumpTreeModel::KindRole).toInt()) != DumpTreeModel::Kind::Op;
         c = firstChild(level)) {
        m_tree->expand(level);
        level = c;
    }
    if (!level.isValid())
        return;
    if (model->rowCount(level) <= 1000) // expanding tens of thousands of rows would stall the view
        m_tree->expand(level);
    const QModelIndex op = firstChild(level);
    // Selected on the next turn of the event loop: listing a level of 175,000 operators in the
    // table and starting the runs overview and trends is a turn's work of its own. An item
    // the user chose is kept; the dump's own item is current only by default (the tree takes
    // its first row when it gets the focus, and finishing the index replaces the items below).
    // An operator of a level left folded is not picked: scrollTo() would unfold it after all (a
    // level of 2.6 M operators stalled the GUI thread for 1.5 s laying them out).
    const bool opInView = op.isValid() && model->rowCount(level) <= 1000;
    QTimer::singleShot(0, this, [this, root = QPersistentModelIndex(root), pick = QPersistentModelIndex(opInView ? op : level)] {
        const QModelIndex current = m_tree->currentIndex().siblingAtColumn(0);
        if (pick.isValid() && (!current.isValid() || current == root)) {
            m_tree->scrollTo(pick);
            m_tree->setCurrentIndex(pick);
        }
    });
}

} // namespace ds
