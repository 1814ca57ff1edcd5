// MainWindow: a dump opened scope by scope (DocumentContext::isScopeByScope; issue 35, item 3).
#include "mainwindow.h"

#include "background.h"
#include "compareview.h"
#include "documentcontext.h"
#include "graphpanel.h"
#include "optablepanel.h"
#include "runspanel.h"
#include "trendspanel.h"
#include "models/dumptreemodel.h"
#include "dump/dumpindex.h"
#include "run/runtree.h"

#include <QFileDialog>
#include <QFutureWatcher>
#include <QLabel>
#include <QLocale>
#include <QTabWidget>
#include <QTreeView>
#include <QtConcurrent>

namespace ds {

void MainWindow::showScopeByScopeTrends(int dump, const QString &runPath, qint64 rank)
{
    const auto tree = m_context->scopeByScopeRuns(dump);
    const RunInfo *run = tree ? tree->run(runPath) : nullptr;
    if (!run || run->scopes.empty())
        return;
    // No index of the whole run: the Trends read one rank's scopes, one per step, on a worker,
    // and say so in their title; the "Read rank" chooser picks the rank (the lowest at first).
    if (rank < 0 || !std::binary_search(run->ranks.begin(), run->ranks.end(), rank))
        rank = run->ranks.empty() ? -1 : run->ranks.front();
    std::vector<size_t> claims;
    std::map<qint64, const RunScope *> ofRank; // step -> its scope of that rank
    for (const RunScope &s : run->scopes)
        if (s.rankNumber == rank)
            ofRank.try_emplace(s.stepNumber, &s);
    QString rankLabel;
    for (const auto &[step, scope] : ofRank) {
        claims.insert(claims.end(), scope->claims.begin(), scope->claims.end());
        rankLabel = scope->rank;
    }
    std::vector<std::pair<QString, qint64>> ranks;
    if (run->ranks.size() > 1)
        for (const qint64 r : run->ranks)
            ranks.emplace_back(r < 0 ? tr("(no rank)") : tr("rank %1").arg(r), r);
    m_trends->setReadRanks(ranks, rank);
    m_trendRank = rank;
    const QString title = tr("%1 (%2: %3 of %4 scopes read, one per step; the other ranks are not read)")
                              .arg(tree->walk.openedPath + (runPath.isEmpty() ? QString() : QLatin1Char('/') + runPath), rankLabel,
                                   QLocale().toString(qulonglong(ofRank.size())), QLocale().toString(qulonglong(run->scopes.size())));
    auto *watcher = new QFutureWatcher<std::shared_ptr<const DumpIndex>>(this);
    const auto key = std::pair{dump, runPath};
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, key, title, rank] {
        watcher->deleteLater();
        if (m_trendRun == key && m_trendRank == rank && m_context->isScopeByScope(key.first)) // still the run and rank shown
            m_trends->setStatistics(watcher->result(), title);
    });
    watcher->setFuture(QtConcurrent::run(backgroundPool(), [tree, claims = std::move(claims)]() -> std::shared_ptr<const DumpIndex> {
        const BackgroundPriority background;
        return indexClaims(tree->walk, claims);
    }));
}

void MainWindow::showScopeItem(const QModelIndex &item)
{
    // No index of the whole run: the operator table and the graph show one read scope (its own
    // index, DumpTreeModel::scopeOpsUnder); the graph's folder is the scope's (its operators'
    // directory), so that no walk of the whole run looks for graph files.
    auto *model = m_context->treeModel();
    const int dump = item.data(DumpTreeModel::DumpRole).toInt();
    // a level above several scopes gets the note even when one of them is read: its operators
    // would otherwise be listed as if they were the whole level's
    const auto [scopes, read] = model->scopesUnder(item);
    if (const auto [index, ops] = scopes > 1 ? decltype(model->scopeOpsUnder(item)){} : model->scopeOpsUnder(item); index) {
        const QString opPath = item.data(DumpTreeModel::OpPathRole).toString();
        m_opTable->showOps(dump, index, ops, opPath.isEmpty() ? -1 : index->opIndex(opPath));
        m_opTable->model()->setOverflowMarks({});
        if (m_graph->dump() != dump || m_graph->loadedIndex() != index) {
            const QString first = index->ops.empty() ? QString() : index->ops.front().relPath.toString();
            m_graph->loadForDump(index->rootDir + QLatin1Char('/') + first.section(QLatin1Char('/'), 0, -2), index, dump);
        }
        return;
    }
    QString note;
    if (model->isUnreadScope(item)) {
        model->requestScope(item); // read on a worker, as expanding it does (nothing when it is being read)
        note = tr("Reading this scope's operators… This run is opened scope by scope (too many scopes to read at once): "
                  "a scope's operators and graph are read when it is selected or expanded.");
    } else if (scopes > 1) {
        note = tr("This item holds %1 scopes (%2 read). This run is opened scope by scope (too many scopes to read at once), so "
                  "the operator table and the graph show one scope at a time: select a scope (a rank of a step) in the dump tree.")
                   .arg(QLocale().toString(scopes), QLocale().toString(read));
    } else {
        note = tr("No operators were read in this scope (unreadable files are listed in the Problems panel).");
    }
    m_opTable->showNote(dump, note);
    m_graph->showNote(dump, note);
}

void MainWindow::compareScopeByScope(int dump, QString benchPath)
{
    const auto tree = m_context->scopeByScopeRuns(dump);
    if (!tree)
        return;
    if (benchPath.isEmpty())
        benchPath = QFileDialog::getExistingDirectory(this, tr("Bench dump (GPU/CPU) to compare %1 with").arg(tree->walk.openedPath), dialogFolder());
    if (benchPath.isEmpty())
        return;
    rememberDialogFolder(benchPath);
    // The run's scope pairs compared one by one on a worker (the CLI's run compare), their
    // verdicts in the Runs overview as they come; the Compare tab's table needs the whole index.
    m_tabs->setCurrentWidget(m_runs);
    m_runStatus->setVisible(false);
    CompareOptions options;
    options.thresholds = m_compare->thresholds();
    options.mapping = m_compare->mapping();
    m_runs->compareScopes(dump, m_compareRun, tree, benchPath, options);
}

void MainWindow::onScopesCompared(int dump, const QString &runPath, qulonglong done, qulonglong total, bool finished, const QString &error)
{
    Q_UNUSED(dump);
    Q_UNUSED(runPath);
    if (!finished)
        return;
    const QString line = m_runs->compareAnswer();
    if (!error.isEmpty() || line.isEmpty()) {
        m_statusText->setText(tr("Compare: %1").arg(error.isEmpty() ? tr("nothing compared") : error));
        return;
    }
    m_runStatus->setText(done < total ? tr("Run (%1 of %2 scope pairs): %3").arg(done).arg(total).arg(line) : tr("Run: %1").arg(line));
    m_runStatus->setVisible(true);
}

bool MainWindow::scanScopeByScope()
{
    int dump = m_tree->currentIndex().isValid() ? m_tree->currentIndex().data(DumpTreeModel::DumpRole).toInt() : -1;
    if (!m_context->isScopeByScope(dump))
        dump = -1;
    for (const int d : m_context->treeModel()->dumpIds())
        if (dump < 0 && m_context->isScopeByScope(d))
            dump = d;
    if (dump < 0 || m_runs->isScanning())
        return dump >= 0;
    if (m_scopeScans.count(dump)) { // scanned already: its answer
        m_statusText->setText(m_scopeScans[dump]);
        m_tabs->setCurrentWidget(m_runs);
        return true;
    }
    m_runs->scanScopes(dump, m_context->scopeByScopeRuns(dump));
    m_tabs->setCurrentWidget(m_runs);
    return true;
}

void MainWindow::onScopesScanned(int dump, qulonglong done, qulonglong total, bool finished, const QString &first, const QString &error)
{
    if (!finished) {
        m_statusText->setText(tr("Looking for the first overflow scope by scope: %1 of %2 scopes scanned\u2026")
                                  .arg(QLocale().toString(done), QLocale().toString(total)));
        return;
    }
    if (!error.isEmpty()) {
        m_statusText->setText(tr("Overflow scan: %1").arg(error));
        return;
    }
    const QString line = first.isEmpty() ? tr("No overflow found in %1 scopes.").arg(QLocale().toString(total))
                                         : tr("First overflow: %1").arg(first);
    m_scopeScans[dump] = line;
    m_statusText->setText(line);
    updateOverflowStatus(); // kept in the overflow label: later status messages replace m_statusText
}

} // namespace ds
