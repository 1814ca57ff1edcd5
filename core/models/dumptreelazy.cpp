// DumpTreeModel: a run of thousands of scopes opened scope by scope (issue 35, item 3). The
// scopes found by the walk are level nodes marked unread; a scope's operators are read when
// its node is expanded (fetchMore -> scopeWanted) and arrive as the rows of a live dump.
#include "dumptreemodel.h"
#include "dumptreemodel_p.h"

#include <QLocale>

namespace ds {

void DumpTreeModel::addUnreadScopes(int dump, const std::vector<std::shared_ptr<const DumpLevels>> &scopes)
{
    Dump *d = dumpById(dump);
    if (!d)
        return;
    std::vector<Node *> touched;
    for (const auto &levels : scopes) {
        Node *n = levelNode(this, &d->root, *levels);
        if (n->unread || n == &d->root) // one node per scope (a scope's claims share their levels)
            continue;
        n->unread = levels;
        for (Node *up = n; up; up = up->parent)
            ++up->scopes;
        touched.push_back(n);
    }
    // The counts of the nodes above changed with them: one notice for the dump's row is what
    // a view needs to repaint the visible ones (their text is made in data()).
    if (!touched.empty()) {
        const QModelIndex root = indexOf(&d->root, CountColumn);
        emit dataChanged(root, root);
    }
}

void DumpTreeModel::scopeRead(int dump, const std::vector<std::shared_ptr<const DumpLevels>> &nodes, const Batch &batch)
{
    Dump *d = dumpById(dump);
    if (!d)
        return;
    for (const auto &levels : nodes) {
        Node *n = levelNode(this, &d->root, *levels);
        if (!n->unread)
            continue;
        n->unread.reset();
        n->reading = false;
        for (Node *up = n; up; up = up->parent) {
            ++up->scopesRead;
            const QModelIndex i = indexOf(up, CountColumn);
            emit dataChanged(i, i);
        }
    }
    addBatch(dump, batch);
}

bool DumpTreeModel::isUnreadScope(const QModelIndex &index, bool includeReading) const
{
    const Item it = item(index);
    return it.node && it.node->unread && (includeReading || !it.node->reading);
}

bool DumpTreeModel::requestScope(const QModelIndex &index)
{
    const Item it = item(index);
    if (!it.node || !it.node->unread || it.node->reading)
        return false;
    auto *n = const_cast<Node *>(it.node);
    n->reading = true;
    const QModelIndex count = indexOf(n, CountColumn);
    emit dataChanged(count, count);
    emit scopeWanted(dumpNumber(it.dump), n->unread);
    return true;
}

std::pair<int, int> DumpTreeModel::scopesRead(int dump) const
{
    const Dump *d = dumpById(dump);
    return d ? std::pair{d->root.scopes, d->root.scopesRead} : std::pair{0, 0};
}

std::pair<int, int> DumpTreeModel::scopesUnder(const QModelIndex &index) const
{
    const Item it = item(index);
    const Node *n = it.node;
    if (!n && it.dump && it.op >= 0 && size_t(it.op) < it.dump->opParent.size())
        n = it.dump->opParent[size_t(it.op)];
    while (n && n->scopes == 0) // a level inside a scope (below its node): that scope
        n = n->parent;
    return n ? std::pair{n->scopes, n->scopesRead} : std::pair{0, 0};
}

std::pair<std::shared_ptr<const DumpIndex>, std::shared_ptr<const std::vector<int>>> DumpTreeModel::scopeOpsUnder(const QModelIndex &index) const
{
    const Item it = item(index);
    if (!it.dump || it.dump->index || it.dump->live.empty())
        return {};
    const auto ops = opsUnder(index);
    if (ops->empty())
        return {};
    const Dump::LiveOps &scope = it.dump->liveOf(ops->front());
    const int end = scope.first + int(scope.index->ops.size());
    auto local = std::make_shared<std::vector<int>>();
    local->reserve(ops->size());
    for (const int op : *ops) {
        if (op < scope.first || op >= end)
            return {}; // operators of several scopes
        local->push_back(op - scope.first);
    }
    return {scope.index, std::move(local)};
}

QModelIndex DumpTreeModel::findScopeOp(int dump, const DumpIndex *scope, int op) const
{
    const Dump *d = dumpById(dump);
    if (!d || d->index || !scope || op < 0 || size_t(op) >= scope->ops.size())
        return {};
    for (const Dump::LiveOps &l : d->live)
        if (l.index.get() == scope)
            return opIndex(*d, l.first + op);
    return {};
}

bool DumpTreeModel::hasChildren(const QModelIndex &parent) const
{
    if (isUnreadScope(parent))
        return true;
    return QAbstractItemModel::hasChildren(parent);
}

bool DumpTreeModel::canFetchMore(const QModelIndex &parent) const { return parent.column() == 0 && isUnreadScope(parent, false); }

void DumpTreeModel::fetchMore(const QModelIndex &parent)
{
    if (parent.column() == 0)
        requestScope(parent);
}

QVariant DumpTreeModel::unreadCount(const Node &n) const
{
    if (n.unread)
        return n.reading ? tr("reading\u2026") : tr("not read (expand to read)");
    return tr("%1 in %2 of %3 scopes read")
        .arg(tr("%n op(s)", nullptr, n.opCount), QLocale().toString(n.scopesRead), QLocale().toString(n.scopes));
}

} // namespace ds
