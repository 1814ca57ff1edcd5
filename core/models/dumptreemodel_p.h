#pragma once

// The nodes behind DumpTreeModel (its implementation files only).

#include "dumptreemodel.h"

#include <QStringList>
#include <algorithm>

namespace ds {

struct DumpTreeModel::Node
{
    Kind kind = Kind::Dump;
    QString label, sortKey;
    Node *parent = nullptr;
    Dump *owner = nullptr; ///< set when the node belongs to a live dump
    std::vector<std::unique_ptr<Node>> children; ///< sub-levels and unreadable files, sorted by sortKey
    /// Operators directly in this directory (rows after children), execution order; shared with
    /// the operator table when it lists this level (opsUnder: no copy of 175,000 numbers).
    std::shared_ptr<std::vector<int>> ops = std::make_shared<std::vector<int>>();
    int row = 0;
    qulonglong bytes = 0; ///< payload below
    int opCount = 0;      ///< operators below
    bool problem = false;
    QString message; // error text
    /// Who wrote the operators below (producerLabel: "msprobe · MindSpore", "MindSpore kernel
    /// dump"), each once, sorted; empty for formats that record no framework.
    QStringList producers;
    /// A scope of a dump opened scope by scope (DumpTreeModel::addUnreadScopes): its levels
    /// while its operators are not read (expanding it asks for them); empty levels once read.
    std::shared_ptr<const DumpLevels> unread;
    bool reading = false;  ///< asked for (scopeWanted), not arrived yet
    int scopes = 0;        ///< scopes opened scope by scope below (this one included)
    int scopesRead = 0;    ///< of them, read

    Node *findChild(Kind k, const QString &key) const
    {
        for (const auto &c : children) // level nodes have few siblings
            if (c->kind == k && c->sortKey == key)
                return c.get();
        return nullptr;
    }
    void renumber(int from = 0)
    {
        for (int i = from; i < int(children.size()); ++i)
            children[size_t(i)]->row = i;
    }
    void setOwner(Dump *d)
    {
        owner = d;
        for (auto &c : children)
            c->setOwner(d);
    }
};

/// A subtree built off the GUI thread, handed to finishDump().
struct DumpTreeModel::BuiltTree
{
    Node root;
    int dump = -1;
    std::vector<Node *> opParent; ///< per operator: its level node
    std::vector<int> opPos;       ///< per operator: its place in opParent->ops
};

struct DumpTreeModel::Dump
{
    Node root;
    int id = -1; ///< the dump number: stays while the dump is open, never reused (root.row is the row)
    QString path;
    quintptr serial = 0; ///< tells this dump's operator items apart from other dumps' (see item())
    std::shared_ptr<const DumpIndex> index;
    std::vector<Node *> opParent; ///< per operator of the index: its level node
    std::vector<int> opPos;       ///< per operator: its place in opParent->ops
    std::unordered_map<int, int> marks; ///< op -> overflow mark
    std::unordered_map<const Node *, int> levelMarks; ///< worst mark below a level item
    /// While indexing: the batches of operators shown (Batch::ops), each with the number of
    /// its first operator; operator numbers run on across them.
    struct LiveOps
    {
        std::shared_ptr<const DumpIndex> index;
        int first = 0;
    };
    std::vector<LiveOps> live;
    int liveCount = 0;
    bool hasOps() const { return index || liveCount > 0; }
    const LiveOps &liveOf(int i) const
    {
        const auto it = std::upper_bound(live.begin(), live.end(), i, [](int v, const LiveOps &l) { return v < l.first; });
        return *(it - 1);
    }
    const OpRecord &op(int i) const
    {
        if (index)
            return index->ops[size_t(i)];
        const LiveOps &l = liveOf(i);
        return l.index->ops[size_t(i - l.first)];
    }
    TensorId tensorIdOf(int op, int tensor) const
    {
        if (index)
            return index->tensorId({op, tensor});
        const LiveOps &l = liveOf(op);
        return l.index->tensorId({op - l.first, tensor});
    }
};

} // namespace ds
