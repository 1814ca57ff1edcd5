// Closing one of several open dumps (issue 30): the window's part. DocumentContext::closeDump
// stops its indexing and removes its tree item; here every panel forgets it, so that each
// summary, mark, answer and status line is again derived from the dumps still open
// (STYLE.md "One source of truth"; RenderDoc's OnCaptureClosed).
#include "mainwindow.h"

#include "compareview.h"
#include "documentcontext.h"
#include "graphpanel.h"
#include "models/dumptreemodel.h"
#include "optablepanel.h"
#include "overflowpanel.h"
#include "runspanel.h"
#include "trendspanel.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QToolButton>
#include <QTreeView>

namespace ds {

void MainWindow::closeCurrentDump()
{
    const QList<int> open = m_context->treeModel()->dumpIds();
    if (open.isEmpty())
        return;
    const QModelIndex current = m_tree->currentIndex();
    closeDump(current.isValid() ? current.data(DumpTreeModel::DumpRole).toInt() : open.back());
}

void MainWindow::closeDump(int dump)
{
    const QString path = m_context->treeModel()->dumpPath(dump);
    if (path.isEmpty())
        return;
    m_context->closeDump(dump);
    m_statusText->setText(tr("Closed %1.").arg(path));
}

void MainWindow::onDumpClosed(int dump)
{
    m_scopeErrors.remove(dump);
    if (m_context->indexingDump() < 0) { // it was the one indexing (or nothing is)
        m_progress->setVisible(false);
        m_cancel->setVisible(false);
    }
    m_overflow->closeDump(dump); // its list, header and the status bar's overflow line (summaryChanged)
    m_firstOverflow.erase(dump);
    if (m_scopeScans.erase(dump))
        updateOverflowStatus();
    m_runs->closeDump(dump);
    if (m_trendRun.first == dump) {
        m_trendRun = {-1, QString()};
        m_trends->clearStatistics();
    }
    if (m_compare->npuDump() == dump) { // the comparison was of this dump: it goes with it
        m_compare->clear();
        m_trends->clearComparison();
        m_runStatus->clear();
        m_runStatus->setVisible(false);
    }
    m_graph->closeDump(dump);
    if (m_opTable->model()->dump() == dump)
        m_opTable->showOps(-1, nullptr, nullptr, -1);
    for (int i = m_problems->count() - 1; i >= 0; --i)
        if (m_problems->item(i)->data(Qt::UserRole).toInt() == dump)
            delete m_problems->takeItem(i);
    if (m_problems->count() == 0)
        m_problemsDock->hide();
    m_closeDump->setEnabled(m_context->treeModel()->dumpCount() > 0);
    // The tree's current item moved to another dump (or none): the table, runs and trends follow it.
    onCurrentChanged();
}

} // namespace ds
