// MainWindow: a dump opened scope by scope (DocumentContext::isScopeByScope; issue 35, item 3).
#include "mainwindow.h"

#include "background.h"
#include "documentcontext.h"
#include "trendspanel.h"
#include "run/runtree.h"

#include <QFutureWatcher>
#include <QLocale>
#include <QtConcurrent>

namespace ds {

void MainWindow::showScopeByScopeTrends(int dump, const QString &runPath)
{
    const auto tree = m_context->scopeByScopeRuns(dump);
    const RunInfo *run = tree ? tree->run(runPath) : nullptr;
    if (!run || run->scopes.empty())
        return;
    // No index of the whole run: the Trends read one rank's scopes, one per step (the lowest
    // rank of each step), on a worker, and say so in their title.
    std::vector<size_t> claims;
    std::map<qint64, const RunScope *> firstRank; // step -> its scope of the lowest rank
    for (const RunScope &s : run->scopes) {
        auto [it, added] = firstRank.try_emplace(s.stepNumber, &s);
        if (!added && s.rankNumber < it->second->rankNumber)
            it->second = &s;
    }
    QStringList ranks;
    for (const auto &[step, scope] : firstRank) {
        claims.insert(claims.end(), scope->claims.begin(), scope->claims.end());
        if (!ranks.contains(scope->rank))
            ranks << scope->rank;
    }
    const QString title = tr("%1 (%2: %3 of %4 scopes read, one per step; the other ranks are not read)")
                              .arg(tree->walk.openedPath + (runPath.isEmpty() ? QString() : QLatin1Char('/') + runPath),
                                   ranks.join(QStringLiteral(", ")), QLocale().toString(qulonglong(firstRank.size())),
                                   QLocale().toString(qulonglong(run->scopes.size())));
    auto *watcher = new QFutureWatcher<std::shared_ptr<const DumpIndex>>(this);
    const auto key = std::pair{dump, runPath};
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, key, title] {
        watcher->deleteLater();
        if (m_trendRun == key && m_context->isScopeByScope(key.first)) // still the run shown
            m_trends->setStatistics(watcher->result(), title);
    });
    watcher->setFuture(QtConcurrent::run(backgroundPool(), [tree, claims = std::move(claims)]() -> std::shared_ptr<const DumpIndex> {
        const BackgroundPriority background;
        return indexClaims(tree->walk, claims);
    }));
}

} // namespace ds
