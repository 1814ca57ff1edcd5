#include "dumptreemodel.h"
#include "dumptreemodel_p.h"

#include "formats/readers.h"
#include "tensor/dtype.h"
#include "tensor/format.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QLocale>
#include <QThreadPool>
#include <functional>
#include <span>

namespace ds {

namespace {

using Node = DumpTreeModel::Node;
using Kind = DumpTreeModel::Kind;

// A model index's internal id: a Node pointer (tag 0, nodes are aligned), or an operator
// (tag 1) or tensor (tag 2) item as dump serial | operator | tensor.
static_assert(sizeof(quintptr) == 8, "operator items are packed into a 64-bit internal id");
constexpr quintptr kOpTag = 1, kTensorTag = 2, kTagMask = 3;
constexpr int kSerialBits = 12, kOpBits = 30, kTensorBits = 20;
constexpr int kOpShift = 2 + kSerialBits, kTensorShift = kOpShift + kOpBits;
constexpr quintptr kMaxSerial = (quintptr(1) << kSerialBits) - 1;
constexpr int kMaxOps = (1 << kOpBits) - 1;
constexpr int kMaxTensorRows = (1 << kTensorBits) - 1; ///< rows shown under one operator

quintptr opId(quintptr serial, int op) { return kOpTag | serial << 2 | quintptr(op) << kOpShift; }
quintptr tensorId(quintptr serial, int op, int tensor)
{
    return kTensorTag | serial << 2 | quintptr(op) << kOpShift | quintptr(tensor) << kTensorShift;
}

QString sizeText(qulonglong bytes) { return QLocale().formattedDataSize(qint64(bytes), 1, QLocale::DataSizeTraditionalFormat); }

/// Numbers sort numerically, names alphabetically (a trailing number numerically: step2 <
/// step10), numbers first.
QString numericSortKey(const QString &s)
{
    bool ok = false;
    s.toULongLong(&ok);
    if (ok)
        return QStringLiteral("0%1").arg(s, 24, QLatin1Char('0'));
    qsizetype digits = s.size();
    while (digits > 0 && s[digits - 1].isDigit())
        --digits;
    if (digits == s.size() || s.size() - digits > 24)
        return QLatin1Char('1') + s;
    return QLatin1Char('1') + s.left(digits) + QStringLiteral("%1").arg(s.mid(digits), 24, QLatin1Char('0'));
}

std::unique_ptr<Node> makeNode(Kind kind, const QString &label, const QString &sortKey, Node *parent)
{
    auto n = std::make_unique<Node>();
    n->kind = kind;
    n->label = label;
    n->sortKey = sortKey;
    n->parent = parent;
    n->owner = parent->owner;
    return n;
}

/// An operator's name in the tree.
QString opLabel(const OpRecord &op)
{
    // Framework entries carry their type inside the name ("Functional.conv2d.0.forward").
    const QString opName = op.headerOpName().isEmpty() ? op.opName.toString() : op.headerOpName();
    const DumpReader &format = formatReader(op.source);
    QString name = format.opsAreFiles() || op.opType.isEmpty() ? op.opType + QLatin1Char(' ') + opName : opName;
    // MindSpore kernels: the scope makes every name start alike; the kernel first, its scope after.
    if (format.parentIsScope() && !op.parent.isEmpty())
        name = scopedOwnName(op) + QStringLiteral("  (") + op.parent.toString() + QLatin1Char(')');
    if (format.exporter()) // .h5 dumper ops: the dumper's call sequence id tells the calls apart
        name += QStringLiteral(" #%1").arg(op.timestamp);
    return name;
}

qulonglong opBytes(const OpRecord &op)
{
    qulonglong bytes = 0;
    for (const auto &t : op.tensors)
        bytes += t.dataBytes();
    return bytes;
}

QString tensorLabel(const TensorRecord &rec)
{
    return rec.name().isEmpty() ? ioKindName(rec.io()) + QLatin1Char('.') + QString::number(rec.index()) : rec.name();
}

constexpr int kLevelCount = 9;

std::pair<Kind, const QString *> levelList(const DumpLevels &l, int i)
{
    switch (i) {
    case 0: return {Kind::Part, &l.part};
    case 1: return {Kind::Run, &l.run};
    case 2: return {Kind::Time, &l.time};
    case 3: return {Kind::Step, &l.step};
    case 4: return {Kind::Rank, &l.rank};
    case 5: return {Kind::Device, &l.device};
    case 6: return {Kind::ModelName, &l.modelName};
    case 7: return {Kind::ModelId, &l.modelId};
    default: return {Kind::DataIndex, &l.dataIndex};
    }
}

void sortRecursively(Node *n)
{
    std::sort(n->children.begin(), n->children.end(),
              [](const std::unique_ptr<Node> &a, const std::unique_ptr<Node> &b) { return a->sortKey < b->sortKey; });
    n->renumber();
    for (auto &c : n->children)
        sortRecursively(c.get());
}

/// Totals of every level from the operators directly in it (and the producers below it).
void sumTotals(Node *n)
{
    for (auto &c : n->children) {
        sumTotals(c.get());
        n->bytes += c->bytes;
        n->opCount += c->opCount;
        for (const QString &p : std::as_const(c->producers))
            if (!n->producers.contains(p))
                n->producers << p;
    }
    n->producers.sort();
}

void addTotals(Node *n, qulonglong bytes, int ops)
{
    for (; n; n = n->parent) {
        n->bytes += bytes;
        n->opCount += ops;
    }
}

} // namespace

DumpTreeModel::DumpTreeModel(QObject *parent) : QAbstractItemModel(parent), m_markTimer(new QTimer(this))
{
    m_markTimer->setInterval(0);
    connect(m_markTimer, &QTimer::timeout, this, &DumpTreeModel::announceMarks);
}

DumpTreeModel::~DumpTreeModel() = default;

int DumpTreeModel::beginDump(const QString &path)
{
    const int row = int(m_dumps.size());
    const int id = m_nextId++;
    // The smallest serial no open dump uses: ids of items of open dumps never collide.
    quintptr serial = 0;
    while (serial < kMaxSerial && dumpOf(serial))
        ++serial;
    beginInsertRows({}, row, row);
    auto d = std::make_unique<Dump>();
    d->path = QFileInfo(path).absoluteFilePath();
    d->serial = serial;
    d->root.label = d->path;
    d->root.row = row;
    d->root.owner = d.get();
    d->id = id;
    m_dumps.push_back(std::move(d));
    endInsertRows();
    return id;
}

int DumpTreeModel::dumpCount() const { return int(m_dumps.size()); }

QList<int> DumpTreeModel::dumpIds() const
{
    QList<int> ids;
    for (const auto &d : m_dumps)
        ids << d->id;
    return ids;
}

DumpTreeModel::Dump *DumpTreeModel::dumpById(int dump) const
{
    for (const auto &d : m_dumps) // few dumps are open
        if (d->id == dump)
            return d.get();
    return nullptr;
}

QString DumpTreeModel::dumpPath(int dump) const
{
    const Dump *d = dumpById(dump);
    return d ? d->path : QString();
}

QModelIndex DumpTreeModel::dumpItem(int dump) const
{
    const Dump *d = dumpById(dump);
    return d ? indexOf(&d->root) : QModelIndex();
}

std::shared_ptr<const DumpIndex> DumpTreeModel::index(int dump) const
{
    const Dump *d = dumpById(dump);
    return d ? d->index : nullptr;
}

DumpTreeModel::Dump *DumpTreeModel::dumpOf(quintptr serial) const
{
    for (const auto &d : m_dumps) // few dumps are open
        if (d->serial == serial)
            return d.get();
    return nullptr;
}

int DumpTreeModel::dumpNumber(const Dump *d) const { return d ? d->id : -1; }

DumpTreeModel::Node *DumpTreeModel::levelNode(DumpTreeModel *notify, Node *root, const DumpLevels &levels)
{
    Node *n = root;
    for (int i = 0; i < kLevelCount; ++i) {
        const auto [kind, value] = levelList(levels, i);
        if (value->isEmpty())
            continue;
        const QString key = numericSortKey(*value);
        auto &c = n->children; // sorted by sortKey: a run's 1,024 ranks are not searched one by one
        const auto it = std::lower_bound(c.begin(), c.end(), key, [](const std::unique_ptr<Node> &x, const QString &k) { return x->sortKey < k; });
        Node *same = nullptr;
        for (auto e = it; e != c.end() && (*e)->sortKey == key && !same; ++e)
            if ((*e)->kind == kind)
                same = e->get();
        if (same) {
            n = same;
            continue;
        }
        const int row = int(it - c.begin());
        if (notify)
            notify->beginInsertRows(notify->indexOf(n), row, row);
        Node *created = c.insert(it, makeNode(kind, *value, key, n))->get();
        n->renumber(row);
        if (notify)
            notify->endInsertRows();
        n = created;
    }
    return n;
}

DumpTreeModel::Batch DumpTreeModel::summarizeBatch(const OpRecord *ops, size_t count, const std::vector<FileError> &errors)
{
    Batch batch;
    batch.errors = errors;
    const DumpLevels *last = nullptr;
    for (const OpRecord &op : std::span(ops, count)) {
        if (&*op.levels != last) { // the ops of one directory share their levels
            last = &*op.levels;
            const auto it = std::find_if(batch.levels.begin(), batch.levels.end(),
                                         [&](const LevelTotals &t) { return &*t.levels == last; });
            if (it == batch.levels.end())
                batch.levels.push_back({op.levels, 0, 0});
            else
                std::rotate(it, it + 1, batch.levels.end()); // the current one last
        }
        batch.levels.back().ops += 1;
        batch.levels.back().bytes += opBytes(op);
    }
    return batch;
}

std::shared_ptr<DumpTreeModel::BuiltTree> DumpTreeModel::buildTree(const DumpIndex &index, int dump)
{
    auto tree = std::make_shared<BuiltTree>();
    tree->dump = dump;
    Node *root = &tree->root;
    const size_t count = std::min(index.ops.size(), size_t(kMaxOps));
    tree->opParent.resize(count);
    tree->opPos.resize(count);
    const DumpLevels *lastLevels = nullptr;
    Node *parent = nullptr;
    for (size_t o = 0; o < count; ++o) { // the index is in execution order already
        const OpRecord &op = index.ops[o];
        if (&*op.levels != lastLevels || !parent) {
            lastLevels = &*op.levels;
            parent = levelNode(nullptr, root, *op.levels);
            // Ops of one directory share their levels, and a part's levels carry its framework.
            if (const QString producer = producerLabel(op); !producer.isEmpty() && !parent->producers.contains(producer))
                parent->producers << producer;
        }
        tree->opParent[o] = parent;
        tree->opPos[o] = int(parent->ops->size());
        parent->ops->push_back(int(o));
        parent->bytes += opBytes(op);
        parent->opCount += 1;
    }
    sumTotals(root);
    if (!index.errors.empty()) {
        auto group = makeNode(Kind::ErrorGroup, QString(), QStringLiteral("~errors"), root);
        group->problem = true;
        for (const auto &e : index.errors) {
            auto n = makeNode(Kind::Error, e.file, e.file, group.get());
            n->problem = true;
            n->message = e.message;
            group->children.push_back(std::move(n));
        }
        root->children.push_back(std::move(group));
    }
    sortRecursively(root);
    return tree;
}

void DumpTreeModel::addBatch(int dump, const Batch &batch)
{
    Dump *found = dumpById(dump);
    if (!found)
        return;
    Dump &d = *found;
    std::vector<Node *> touched;
    for (const LevelTotals &t : batch.levels) {
        Node *level = levelNode(this, &d.root, *t.levels);
        addTotals(level, t.bytes, t.ops);
        for (Node *n = level; n; n = n->parent)
            if (std::find(touched.begin(), touched.end(), n) == touched.end())
                touched.push_back(n);
    }
    for (Node *n : touched) {
        const QModelIndex i = indexOf(n, CountColumn);
        emit dataChanged(i, i.siblingAtColumn(SizeColumn));
    }
    if (!batch.errors.empty()) {
        Node *group = d.root.findChild(Kind::ErrorGroup, QStringLiteral("~errors"));
        if (!group) {
            const int row = int(d.root.children.size());
            beginInsertRows(indexOf(&d.root), row, row);
            d.root.children.push_back(makeNode(Kind::ErrorGroup, QString(), QStringLiteral("~errors"), &d.root));
            group = d.root.children.back().get();
            group->problem = true;
            d.root.renumber(row);
            endInsertRows();
        }
        const int first = int(group->children.size());
        beginInsertRows(indexOf(group), first, first + int(batch.errors.size()) - 1);
        for (const auto &e : batch.errors) {
            auto n = makeNode(Kind::Error, e.file, e.file, group);
            n->problem = true;
            n->message = e.message;
            group->children.push_back(std::move(n));
        }
        group->renumber(first);
        endInsertRows();
    }
    if (batch.ops && !d.index)
        appendLive(d, batch.ops);
}

void DumpTreeModel::appendLive(Dump &d, std::shared_ptr<const DumpIndex> chunk)
{
    const auto &ops = chunk->ops;
    const int first = d.liveCount;
    if (ops.empty() || size_t(first) + ops.size() > size_t(kMaxOps))
        return;
    d.live.push_back({chunk, first});
    d.liveCount += int(ops.size());
    d.opParent.resize(size_t(d.liveCount));
    d.opPos.resize(size_t(d.liveCount));
    // One insertion per run of operators of one directory (they share their levels).
    for (size_t o = 0; o < ops.size();) {
        const DumpLevels *levels = &*ops[o].levels;
        size_t end = o + 1;
        while (end < ops.size() && &*ops[end].levels == levels)
            ++end;
        Node *parent = levelNode(this, &d.root, *levels);
        if (const QString producer = producerLabel(ops[o]); !producer.isEmpty() && !parent->producers.contains(producer))
            for (Node *n = parent; n; n = n->parent)
                if (!n->producers.contains(producer)) {
                    n->producers << producer;
                    n->producers.sort();
                }
        const int row = int(parent->children.size() + parent->ops->size());
        beginInsertRows(indexOf(parent), row, row + int(end - o) - 1);
        for (size_t i = o; i < end; ++i) {
            const int number = first + int(i);
            d.opParent[size_t(number)] = parent;
            d.opPos[size_t(number)] = int(parent->ops->size());
            parent->ops->push_back(number);
        }
        endInsertRows();
        o = end;
    }
}

std::shared_ptr<const DumpIndex> DumpTreeModel::indexFor(int dump, const TensorId &tensorId) const
{
    const Dump *d = dumpById(dump);
    if (!d)
        return nullptr;
    if (d->index)
        return d->index;
    for (const auto &l : d->live)
        if (l.index->find(tensorId))
            return l.index;
    return nullptr;
}

int DumpTreeModel::liveOps(int dump) const
{
    const Dump *d = dumpById(dump);
    return d && !d->index ? d->liveCount : 0;
}

void DumpTreeModel::finishDump(int dump, std::shared_ptr<const DumpIndex> index, std::shared_ptr<BuiltTree> tree)
{
    Dump *found = dumpById(dump);
    if (!found || !index)
        return;
    Dump &d = *found;
    if (!tree || tree->dump != dump || tree->opParent.size() != std::min(index->ops.size(), size_t(kMaxOps)))
        tree = buildTree(*index, dump);
    const QModelIndex root = indexOf(&d.root);
    // Swap the provisional levels (and the operators shown while indexing) for the final
    // tree: two row-range notifications in all.
    std::vector<Dump::LiveOps> shownOps; // up to 100,000 copied operators: freed on a worker
    if (const int shown = int(d.root.children.size() + (d.hasOps() ? d.root.ops->size() : 0)); shown > 0) {
        beginRemoveRows(root, 0, shown - 1);
        d.root.children.clear();
        d.root.ops = std::make_shared<std::vector<int>>();
        shownOps.swap(d.live);
        d.liveCount = 0;
        d.opParent.clear();
        d.opPos.clear();
        endRemoveRows();
    }
    if (!shownOps.empty())
        QThreadPool::globalInstance()->start([shownOps = std::move(shownOps)]() mutable { shownOps.clear(); });
    d.index = std::move(index);
    d.opParent = std::move(tree->opParent);
    d.opPos = std::move(tree->opPos);
    auto built = std::move(tree->root.children);
    for (auto &c : built) {
        c->parent = &d.root;
        c->setOwner(&d);
    }
    d.root.bytes = tree->root.bytes;
    d.root.opCount = tree->root.opCount;
    d.root.producers = tree->root.producers;
    const int rows = int(built.size() + tree->root.ops->size());
    if (rows > 0) {
        beginInsertRows(root, 0, rows - 1);
        d.root.children = std::move(built);
        d.root.ops = tree->root.ops;
        for (int o : *d.root.ops)
            d.opParent[size_t(o)] = &d.root;
        d.root.renumber();
        endInsertRows();
    }
    applyMarks(d, false);
    emit dataChanged(root, root.siblingAtColumn(InfoColumn));
}

void DumpTreeModel::applyMarks(Dump &d, bool notify)
{
    std::unordered_map<const Node *, int> levels;
    if (d.index)
        for (const auto &[op, mark] : d.marks) {
            if (op < 0 || size_t(op) >= d.opParent.size() || mark <= 0)
                continue;
            // Up to the first level already this bad: the ones above it are too (8,860 marks
            // of a 175,000-operator level cost a lookup or two each, not one per level).
            for (const Node *n = d.opParent[size_t(op)]; n; n = n->parent) {
                int &worst = levels[n];
                if (worst >= mark)
                    break;
                worst = mark;
            }
        }
    std::swap(d.levelMarks, levels);
    if (!notify)
        return;
    // Items whose mark changed: the old marked levels and the new ones.
    levels.insert(d.levelMarks.begin(), d.levelMarks.end());
    for (const auto &[n, mark] : levels) {
        const QModelIndex i = indexOf(n);
        emit dataChanged(i, i.siblingAtColumn(ColumnCount - 1), {OverflowRole});
    }
}

void DumpTreeModel::setOverflowMarks(int dump, std::unordered_map<int, int> marks)
{
    Dump *found = dumpById(dump);
    if (!found)
        return;
    Dump &d = *found;
    std::swap(d.marks, marks); // `marks` now holds the old ones
    applyMarks(d, true);
    if (!d.index)
        return;
    // Operator items whose mark changed, announced one by one (a notification over a row
    // range makes QTreeView visit every row of the range, and a level can hold 175,000) in
    // the time slices of announceMarks.
    auto markOf = [](const std::unordered_map<int, int> &m, int op) {
        const auto it = m.find(op);
        return it == m.end() ? 0 : it->second;
    };
    auto announce = [&](int op) {
        if (op >= 0 && size_t(op) < d.opParent.size())
            m_markNotices.emplace_back(d.serial, op);
    };
    for (const auto &[op, mark] : marks) // the old ones: changed or gone
        if (markOf(d.marks, op) != mark)
            announce(op);
    for (const auto &[op, mark] : d.marks) // the new ones not among the old
        if (mark != 0 && !marks.count(op))
            announce(op);
    if (pendingMarkNotices())
        m_markTimer->start();
}

void DumpTreeModel::announceMarks()
{
    constexpr qint64 kSliceNs = 4'000'000; // of the event loop's turn, at most
    QElapsedTimer slice;
    slice.start();
    while (m_markNoticesDone < m_markNotices.size() && slice.nsecsElapsed() < kSliceNs) {
        const size_t end = std::min(m_markNotices.size(), m_markNoticesDone + 64);
        for (; m_markNoticesDone < end; ++m_markNoticesDone) {
            const auto [serial, op] = m_markNotices[m_markNoticesDone];
            const Dump *d = dumpOf(serial); // gone when the dump was closed meanwhile
            if (!d || !d->index || size_t(op) >= d->opParent.size())
                continue;
            const QModelIndex i = opIndex(*d, op);
            emit dataChanged(i, i.siblingAtColumn(ColumnCount - 1), {OverflowRole});
        }
    }
    if (m_markNoticesDone == m_markNotices.size()) {
        m_markNotices.clear();
        m_markNoticesDone = 0;
        m_markTimer->stop();
    }
}

void DumpTreeModel::removeDump(int dump)
{
    const Dump *d = dumpById(dump);
    if (!d)
        return;
    const int row = d->root.row;
    beginRemoveRows({}, row, row);
    m_dumps.erase(m_dumps.begin() + row);
    for (size_t i = 0; i < m_dumps.size(); ++i)
        m_dumps[i]->root.row = int(i);
    endRemoveRows();
}

QModelIndex DumpTreeModel::findOp(int dump, const QString &relPath) const
{
    const Dump *d = dumpById(dump);
    if (!d || !d->index)
        return {};
    return findOp(dump, d->index->opIndex(relPath));
}

QModelIndex DumpTreeModel::findOp(int dump, int op) const
{
    const Dump *found = dumpById(dump);
    if (!found)
        return {};
    const Dump &d = *found;
    return d.index && op >= 0 && size_t(op) < d.opParent.size() ? opIndex(d, op) : QModelIndex();
}

QModelIndex DumpTreeModel::findLevels(int dump, const DumpLevels &levels) const
{
    Dump *found = dumpById(dump);
    if (!found)
        return {};
    Node *n = &found->root;
    for (int i = 0; i < kLevelCount; ++i) {
        const auto [kind, value] = levelList(levels, i);
        if (value->isEmpty())
            continue;
        n = n->findChild(kind, numericSortKey(*value));
        if (!n)
            return {};
    }
    return indexOf(n);
}

QModelIndex DumpTreeModel::findTensor(int dump, const TensorId &tensorId) const
{
    const Dump *found = dumpById(dump);
    if (!found || !found->index)
        return {};
    const Dump &d = *found;
    const auto ref = d.index->find(tensorId);
    if (!ref || ref->op < 0 || size_t(ref->op) >= d.opParent.size() || ref->tensor < 0 || ref->tensor >= kMaxTensorRows)
        return {};
    return tensorIndex(d, ref->op, ref->tensor);
}

std::shared_ptr<const std::vector<int>> DumpTreeModel::opsUnder(const QModelIndex &index) const
{
    const Item it = item(index);
    const Node *n = it.node;
    if (!n && it.dump && it.op >= 0)
        n = it.dump->opParent[size_t(it.op)];
    if (!n)
        return std::make_shared<const std::vector<int>>();
    if (n->children.empty())
        return n->ops; // a level of operators only: its own list
    auto ops = std::make_shared<std::vector<int>>();
    ops->reserve(size_t(std::max(0, n->opCount)));
    std::function<void(const Node *)> collect = [&](const Node *x) {
        for (const auto &c : x->children)
            collect(c.get());
        ops->insert(ops->end(), x->ops->begin(), x->ops->end());
    };
    collect(n);
    return ops;
}

DumpTreeModel::Item DumpTreeModel::item(const QModelIndex &index) const
{
    Item it;
    if (!index.isValid())
        return it;
    const quintptr id = index.internalId();
    const quintptr tag = id & kTagMask;
    if (tag == 0) {
        it.node = reinterpret_cast<const Node *>(id);
        it.dump = it.node->owner;
        return it;
    }
    it.dump = dumpOf((id >> 2) & kMaxSerial);
    if (!it.dump)
        return {};
    it.op = int((id >> kOpShift) & quintptr(kMaxOps));
    if (tag == kTensorTag)
        it.tensor = int(id >> kTensorShift);
    return it;
}

QModelIndex DumpTreeModel::indexOf(const Node *n, int column) const
{
    return n ? createIndex(n->row, column, reinterpret_cast<quintptr>(n)) : QModelIndex();
}

QModelIndex DumpTreeModel::opIndex(const Dump &d, int op, int column) const
{
    const Node *parent = d.opParent[size_t(op)];
    return createIndex(int(parent->children.size()) + d.opPos[size_t(op)], column, opId(d.serial, op));
}

QModelIndex DumpTreeModel::tensorIndex(const Dump &d, int op, int tensor, int column) const
{
    return createIndex(tensor, column, tensorId(d.serial, op, tensor));
}

QModelIndex DumpTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid())
        return row < dumpCount() ? indexOf(&m_dumps[size_t(row)]->root, column) : QModelIndex();
    if (parent.column() != 0)
        return {};
    const Item p = item(parent);
    if (p.node) {
        const auto &children = p.node->children;
        if (row < int(children.size()))
            return indexOf(children[size_t(row)].get(), column);
        const size_t pos = size_t(row) - children.size();
        return pos < p.node->ops->size() && p.dump && p.dump->hasOps() ? opIndex(*p.dump, (*p.node->ops)[pos], column) : QModelIndex();
    }
    if (p.dump && p.tensor < 0 && p.op >= 0 && row < rowCount(parent))
        return tensorIndex(*p.dump, p.op, row, column);
    return {};
}

QModelIndex DumpTreeModel::parent(const QModelIndex &child) const
{
    const Item c = item(child);
    if (c.node)
        return indexOf(c.node->parent);
    if (!c.dump || c.op < 0)
        return {};
    if (c.tensor >= 0)
        return opIndex(*c.dump, c.op);
    return indexOf(c.dump->opParent[size_t(c.op)]);
}

int DumpTreeModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return dumpCount();
    if (parent.column() != 0)
        return 0;
    const Item p = item(parent);
    if (p.node)
        return int(p.node->children.size() + (p.dump && p.dump->hasOps() ? p.node->ops->size() : 0));
    if (p.dump && p.op >= 0 && p.tensor < 0)
        return int(std::min(p.dump->op(p.op).tensors.size(), size_t(kMaxTensorRows)));
    return 0;
}

int DumpTreeModel::columnCount(const QModelIndex &) const { return ColumnCount; }

QVariant DumpTreeModel::data(const QModelIndex &index, int role) const
{
    const Item it = item(index);
    if (it.node)
        return nodeData(*it.node, index.column(), role);
    if (!it.dump || !it.dump->hasOps() || it.op < 0)
        return {};
    if (it.tensor >= 0)
        return tensorData(*it.dump, it.op, it.tensor, index.column(), role);
    return opData(*it.dump, it.op, index.column(), role);
}

QVariant DumpTreeModel::nodeData(const Node &n, int column, int role) const
{
    const Dump &d = *n.owner;
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn:
            switch (n.kind) {
            case Kind::Time: return tr("time %1").arg(n.label);
            case Kind::Device: return tr("device %1").arg(n.label);
            case Kind::ModelName: return tr("model %1").arg(n.label);
            case Kind::ModelId: return tr("model id %1").arg(n.label);
            case Kind::DataIndex: return tr("step %1").arg(n.label);
            case Kind::Step: // a bare iteration number (MindSpore kernel dumps) says what it is
                return std::all_of(n.label.begin(), n.label.end(), [](QChar c) { return c.isDigit(); }) && !n.label.isEmpty()
                           ? tr("step %1").arg(n.label)
                           : n.label;
            case Kind::ErrorGroup: return tr("Files that could not be read");
            case Kind::Run: // the run's folder relative to the opened one ("." = the opened folder)
                return n.label == QLatin1String(".") ? QFileInfo(d.path).fileName() : n.label;
            default: return n.label;
            }
        case CountColumn:
            if (n.scopes > n.scopesRead)
                return unreadCount(n);
            if (n.kind == Kind::ErrorGroup)
                return QString::number(n.children.size());
            if (n.kind == Kind::Error)
                return {};
            return tr("%n op(s)", nullptr, n.opCount);
        case SizeColumn:
            return n.kind == Kind::Error || n.kind == Kind::ErrorGroup ? QVariant() : QVariant(sizeText(n.bytes));
        case InfoColumn:
            if (n.kind == Kind::Error)
                return n.message;
            // The producer where it is first known: on the dump's own row, and below it where
            // the parts of a mixed folder differ (a MindSpore kernel dump beside an msprobe one).
            if (!n.producers.isEmpty() && (!n.parent || n.parent->producers != n.producers))
                return n.producers.join(QStringLiteral(", "));
            return {};
        }
        return {};
    case Qt::ToolTipRole: {
        QStringList tip;
        if (n.kind == Kind::Run)
            tip << tr("Run in %1").arg(n.label == QLatin1String(".") ? d.path : d.path + QLatin1Char('/') + n.label);
        if (!n.message.isEmpty())
            tip << n.message;
        if (!n.producers.isEmpty())
            tip << tr("Written by: %1").arg(n.producers.join(QStringLiteral(", ")));
        return tip.isEmpty() ? QVariant() : QVariant(tip.join(QLatin1Char('\n')));
    }
    case ProducerRole: return n.producers.join(QStringLiteral(", "));
    case KindRole: return int(n.kind);
    case DumpRole: return dumpNumber(&d);
    case ProblemRole: return n.problem;
    case OverflowRole: {
        const auto it = d.levelMarks.find(&n);
        return it == d.levelMarks.end() ? 0 : it->second;
    }
    case BytesRole: return n.bytes;
    case LevelRole:
        return n.kind == Kind::Dump || n.kind == Kind::Error || n.kind == Kind::ErrorGroup ? QVariant() : QVariant(n.label);
    default: return {};
    }
}

QVariant DumpTreeModel::opData(const Dump &d, int opNumber, int column, int role) const
{
    const OpRecord &op = d.op(opNumber);
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn: return opLabel(op);
        case SizeColumn: return sizeText(opBytes(op));
        case InfoColumn: return op.relPath.section(QLatin1Char('/'), -1);
        }
        return {};
    case Qt::ToolTipRole: {
        QString tip = op.relPath.toString();
        if (const QString producer = producerLabel(op); !producer.isEmpty())
            tip += QLatin1Char('\n') + tr("Written by: %1").arg(producer);
        return op.warnings().isEmpty() ? tip : tip + QLatin1Char('\n') + op.warnings().join(QLatin1Char('\n'));
    }
    case ProducerRole: return producerLabel(op);
    case KindRole: return int(Kind::Op);
    case DumpRole: return dumpNumber(&d);
    case OpPathRole: return op.relPath.toString();
    case ProblemRole: return !op.warnings().isEmpty();
    case OverflowRole: {
        const auto it = d.marks.find(opNumber);
        return it == d.marks.end() ? 0 : it->second;
    }
    case BytesRole: return opBytes(op);
    default: return {};
    }
}

QVariant DumpTreeModel::tensorData(const Dump &d, int opNumber, int tensor, int column, int role) const
{
    const OpRecord &op = d.op(opNumber);
    if (size_t(tensor) >= op.tensors.size())
        return {};
    const TensorRecord &t = op.tensors[size_t(tensor)];
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn: return tensorLabel(t);
        case SizeColumn: return sizeText(t.dataBytes());
        case InfoColumn:
            if (!t.isTensor())
                return QStringLiteral("%1 = %2").arg(t.typeName(), t.value());
            if (!formatReader(op.source).opsAreFiles())
                return QStringLiteral("%1 %2%3").arg(dataTypeName(t.dataType()), shapeToString(t.shape()),
                                                     t.storage() == TensorStorage::Absent ? tr(" (statistics only)") : QString());
            return QStringLiteral("%1 %2 %3").arg(dataTypeName(t.dataType()), formatName(t.format()), shapeToString(t.shape()));
        }
        return {};
    case Qt::ToolTipRole: return op.relPath.toString();
    case KindRole: return int(Kind::Tensor);
    case DumpRole: return dumpNumber(&d);
    case TensorIdRole: return QVariant::fromValue(d.tensorIdOf(opNumber, tensor));
    case OpPathRole: return op.relPath.toString();
    case ProblemRole: return false;
    case OverflowRole: {
        const auto it = d.marks.find(opNumber);
        return it == d.marks.end() ? 0 : it->second;
    }
    case BytesRole: return qulonglong(t.dataBytes());
    default: return {};
    }
}

QVariant DumpTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Name");
    case CountColumn: return tr("Operators");
    case SizeColumn: return tr("Size");
    case InfoColumn: return tr("Details");
    }
    return {};
}

} // namespace ds
