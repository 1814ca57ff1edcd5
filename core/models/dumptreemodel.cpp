#include "dumptreemodel.h"

#include "formats/readers.h"
#include "tensor/dtype.h"
#include "tensor/format.h"

#include <QFileInfo>
#include <QLocale>
#include <QtConcurrent>

namespace ds {

struct DumpTreeModel::Node
{
    Kind kind = Kind::Dump;
    QString label, sortKey;
    Node *parent = nullptr;
    std::vector<std::unique_ptr<Node>> children;
    int row = 0;
    int dump = 0;
    int op = -1;     ///< index into the dump's ops (provisional or final)
    int tensor = -1; ///< index into the op's tensors
    qulonglong bytes = 0;
    int ops = 0;
    bool problem = false;
    QString message; // error text or warnings

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
};

/// A subtree built off the GUI thread, handed to finishDump().
struct DumpTreeModel::BuiltTree
{
    Node root;
};

struct DumpTreeModel::Dump
{
    Node root;
    QString path;
    std::vector<OpRecord> provisional; ///< ops while indexing
    std::shared_ptr<const DumpIndex> index;
    std::unordered_map<int, int> marks; ///< op -> overflow mark
    std::unordered_map<const Node *, int> levelMarks; ///< worst mark below a level item
    const OpRecord &op(int i) const { return index ? index->ops[size_t(i)] : provisional[size_t(i)]; }
};

namespace {

using Node = DumpTreeModel::Node;
using Kind = DumpTreeModel::Kind;

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
    n->dump = parent->dump;
    return n;
}

/// An operator item with its tensors (not yet attached to a parent's children).
std::unique_ptr<Node> makeOpNode(const OpRecord &op, int opNumber, Node *parent)
{
    // Framework entries carry their type inside the name ("Functional.conv2d.0.forward").
    const QString opName = op.headerOpName().isEmpty() ? op.opName.toString() : op.headerOpName();
    const DumpReader &format = formatReader(op.source);
    QString name = format.opsAreFiles() || op.opType.isEmpty() ? op.opType + QLatin1Char(' ') + opName : opName;
    if (format.exporter()) // .h5 dumper ops: the dumper's call sequence id tells the calls apart
        name += QStringLiteral(" #%1").arg(op.timestamp);
    // Execution order inside a data_index directory: timestamp, then file.
    auto n = makeNode(Kind::Op, name, QStringLiteral("%1 %2").arg(op.timestamp, 20, 10, QLatin1Char('0')).arg(op.relPath), parent);
    n->op = opNumber;
    n->ops = 1;
    n->problem = !op.warnings().isEmpty();
    n->message = op.warnings().join(QLatin1Char('\n'));
    for (size_t t = 0; t < op.tensors.size(); ++t) {
        const auto &rec = op.tensors[t];
        auto tn = makeNode(Kind::Tensor, rec.name().isEmpty() ? ioKindName(rec.io()) + QLatin1Char('.') + QString::number(rec.index()) : rec.name(),
                           QString(), n.get());
        tn->op = opNumber;
        tn->tensor = int(t);
        tn->row = int(t);
        tn->bytes = rec.dataBytes();
        n->bytes += tn->bytes;
        n->children.push_back(std::move(tn));
    }
    return n;
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
        if (c->kind != Kind::Op)
            sortRecursively(c.get());
}

void addTotals(Node *n, qulonglong bytes, int ops)
{
    for (; n; n = n->parent) {
        n->bytes += bytes;
        n->ops += ops;
    }
}

} // namespace

DumpTreeModel::DumpTreeModel(QObject *parent) : QAbstractItemModel(parent) {}
DumpTreeModel::~DumpTreeModel() = default;

int DumpTreeModel::beginDump(const QString &path)
{
    const int row = int(m_dumps.size());
    beginInsertRows({}, row, row);
    auto d = std::make_unique<Dump>();
    d->path = QFileInfo(path).absoluteFilePath();
    d->root.label = d->path;
    d->root.row = row;
    d->root.dump = row;
    m_dumps.push_back(std::move(d));
    endInsertRows();
    return row;
}

int DumpTreeModel::dumpCount() const { return int(m_dumps.size()); }

std::shared_ptr<const DumpIndex> DumpTreeModel::index(int dump) const
{
    return dump >= 0 && dump < dumpCount() ? m_dumps[size_t(dump)]->index : nullptr;
}

DumpTreeModel::Node *DumpTreeModel::levelNode(DumpTreeModel *notify, Node *root, const DumpLevels &levels)
{
    Node *n = root;
    for (int i = 0; i < kLevelCount; ++i) {
        const auto [kind, value] = levelList(levels, i);
        if (value->isEmpty())
            continue;
        const QString key = numericSortKey(*value);
        if (Node *c = n->findChild(kind, key)) {
            n = c;
            continue;
        }
        auto &c = n->children;
        const auto it = std::lower_bound(c.begin(), c.end(), key, [](const std::unique_ptr<Node> &x, const QString &k) { return x->sortKey < k; });
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

std::shared_ptr<DumpTreeModel::BuiltTree> DumpTreeModel::buildTree(const DumpIndex &index, int dump)
{
    auto tree = std::make_shared<BuiltTree>();
    Node *root = &tree->root;
    root->dump = dump;
    for (size_t o = 0; o < index.ops.size(); ++o) {
        const OpRecord &op = index.ops[o];
        Node *parent = levelNode(nullptr, root, *op.levels);
        auto opNode = makeOpNode(op, int(o), parent);
        addTotals(parent, opNode->bytes, 1);
        parent->children.push_back(std::move(opNode));
    }
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

void DumpTreeModel::addBatch(int dump, const std::vector<OpRecord> &ops, const std::vector<FileError> &errors)
{
    Dump &d = *m_dumps[size_t(dump)];
    // Group new operators by parent so each parent gets one row-range insertion; while
    // indexing they are appended in arrival order (finishDump puts them in execution order).
    std::vector<std::pair<Node *, std::vector<std::unique_ptr<Node>>>> groups;
    for (const auto &op : ops) {
        d.provisional.push_back(op);
        Node *parent = levelNode(this, &d.root, *op.levels);
        auto it = std::find_if(groups.begin(), groups.end(), [&](const auto &g) { return g.first == parent; });
        if (it == groups.end()) {
            groups.emplace_back(parent, std::vector<std::unique_ptr<Node>>{});
            it = groups.end() - 1;
        }
        it->second.push_back(makeOpNode(d.provisional.back(), int(d.provisional.size()) - 1, parent));
    }
    std::vector<Node *> touched;
    for (auto &[parent, nodes] : groups) {
        const int first = int(parent->children.size());
        beginInsertRows(indexOf(parent), first, first + int(nodes.size()) - 1);
        qulonglong bytes = 0;
        for (auto &n : nodes) {
            bytes += n->bytes;
            parent->children.push_back(std::move(n));
        }
        parent->renumber(first);
        endInsertRows();
        addTotals(parent, bytes, int(nodes.size()));
        for (Node *n = parent; n; n = n->parent)
            if (std::find(touched.begin(), touched.end(), n) == touched.end())
                touched.push_back(n);
    }
    for (Node *n : touched) {
        const QModelIndex i = indexOf(n, CountColumn);
        emit dataChanged(i, i.siblingAtColumn(SizeColumn));
    }
    if (!errors.empty()) {
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
        beginInsertRows(indexOf(group), first, first + int(errors.size()) - 1);
        for (const auto &e : errors) {
            auto n = makeNode(Kind::Error, e.file, e.file, group);
            n->problem = true;
            n->message = e.message;
            group->children.push_back(std::move(n));
        }
        group->renumber(first);
        endInsertRows();
    }
}

void DumpTreeModel::finishDump(int dump, std::shared_ptr<const DumpIndex> index, std::shared_ptr<BuiltTree> tree)
{
    Dump &d = *m_dumps[size_t(dump)];
    if (!tree || tree->root.dump != d.root.dump)
        tree = buildTree(*index, d.root.dump);
    const QModelIndex root = indexOf(&d.root);
    // Swap the provisional subtree for the final one: two row-range notifications in all.
    // The provisional nodes and records are freed on a worker: hundreds of thousands of
    // small objects would otherwise stall the GUI thread.
    struct Garbage
    {
        std::vector<std::unique_ptr<Node>> nodes;
        std::vector<OpRecord> ops;
    };
    auto garbage = std::make_shared<Garbage>();
    if (!d.root.children.empty()) {
        beginRemoveRows(root, 0, int(d.root.children.size()) - 1);
        garbage->nodes = std::move(d.root.children);
        d.root.children.clear();
        endRemoveRows();
    }
    garbage->ops = std::move(d.provisional);
    d.provisional = {};
    (void)QtConcurrent::run([g = std::move(garbage)]() mutable { g.reset(); });
    d.index = std::move(index);
    auto built = std::move(tree->root.children);
    for (auto &c : built)
        c->parent = &d.root;
    d.root.bytes = tree->root.bytes;
    d.root.ops = tree->root.ops;
    if (!built.empty()) {
        beginInsertRows(root, 0, int(built.size()) - 1);
        d.root.children = std::move(built);
        d.root.renumber();
        endInsertRows();
    }
    emit dataChanged(root, root.siblingAtColumn(InfoColumn));
}

void DumpTreeModel::setOverflowMarks(int dump, std::unordered_map<int, int> marks)
{
    if (dump < 0 || dump >= dumpCount())
        return;
    Dump &d = *m_dumps[size_t(dump)];
    d.marks = std::move(marks);
    d.levelMarks.clear();
    std::vector<const Node *> changed;
    std::function<int(const Node *)> worst = [&](const Node *n) {
        if (n->kind == Kind::Op) {
            const auto it = d.marks.find(n->op);
            if (it != d.marks.end())
                changed.push_back(n);
            return it == d.marks.end() ? 0 : it->second;
        }
        int w = 0;
        for (const auto &c : n->children)
            w = std::max(w, worst(c.get()));
        if (w) {
            d.levelMarks[n] = w;
            changed.push_back(n);
        }
        return w;
    };
    worst(&d.root);
    for (const Node *n : changed) {
        const QModelIndex i = indexOf(const_cast<Node *>(n));
        emit dataChanged(i, i.siblingAtColumn(ColumnCount - 1), {OverflowRole});
    }
}

void DumpTreeModel::removeDump(int dump)
{
    if (dump < 0 || dump >= dumpCount())
        return;
    beginRemoveRows({}, dump, dump);
    m_dumps.erase(m_dumps.begin() + dump);
    for (size_t i = 0; i < m_dumps.size(); ++i) {
        m_dumps[i]->root.row = int(i);
        std::function<void(Node *)> renumber = [&](Node *n) {
            n->dump = int(i);
            for (auto &c : n->children)
                renumber(c.get());
        };
        renumber(&m_dumps[i]->root);
    }
    endRemoveRows();
}

QModelIndex DumpTreeModel::findOp(int dump, const QString &relPath) const
{
    if (dump < 0 || dump >= dumpCount())
        return {};
    const Dump &d = *m_dumps[size_t(dump)];
    std::function<Node *(Node *)> search = [&](Node *n) -> Node * {
        if (n->kind == Kind::Op)
            return d.op(n->op).relPath == relPath ? n : nullptr;
        for (auto &c : n->children)
            if (Node *hit = search(c.get()))
                return hit;
        return nullptr;
    };
    Node *hit = search(const_cast<Node *>(&d.root));
    return hit ? indexOf(hit) : QModelIndex();
}

QModelIndex DumpTreeModel::findLevels(int dump, const DumpLevels &levels) const
{
    if (dump < 0 || dump >= dumpCount())
        return {};
    Node *n = &m_dumps[size_t(dump)]->root;
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
    if (dump < 0 || dump >= dumpCount() || !m_dumps[size_t(dump)]->index)
        return {};
    const auto &idx = *m_dumps[size_t(dump)]->index;
    const auto ref = idx.find(tensorId);
    if (!ref)
        return {};
    const QModelIndex op = findOp(dump, idx.op(*ref).relPath);
    return op.isValid() ? index(ref->tensor, 0, op) : QModelIndex();
}

std::vector<int> DumpTreeModel::opsUnder(const QModelIndex &item) const
{
    std::vector<int> ops;
    Node *n = node(item);
    if (!n)
        return ops;
    while (n->kind == Kind::Op || n->kind == Kind::Tensor)
        n = n->parent;
    std::function<void(const Node *)> collect = [&](const Node *x) {
        if (x->kind == Kind::Op) {
            ops.push_back(x->op);
            return;
        }
        for (const auto &c : x->children)
            collect(c.get());
    };
    collect(n);
    return ops;
}

DumpTreeModel::Node *DumpTreeModel::node(const QModelIndex &index) const { return static_cast<Node *>(index.internalPointer()); }

QModelIndex DumpTreeModel::indexOf(Node *n, int column) const { return n ? createIndex(n->row, column, n) : QModelIndex(); }

QModelIndex DumpTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid())
        return row < dumpCount() ? createIndex(row, column, &m_dumps[size_t(row)]->root) : QModelIndex();
    Node *p = node(parent);
    return row < int(p->children.size()) ? createIndex(row, column, p->children[size_t(row)].get()) : QModelIndex();
}

QModelIndex DumpTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    Node *p = node(child)->parent;
    return p ? indexOf(p) : QModelIndex();
}

int DumpTreeModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return dumpCount();
    if (parent.column() != 0)
        return 0;
    return int(node(parent)->children.size());
}

int DumpTreeModel::columnCount(const QModelIndex &) const { return ColumnCount; }

QVariant DumpTreeModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    const Node *n = node(index);
    const Dump &d = *m_dumps[size_t(n->dump)];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            switch (n->kind) {
            case Kind::Time: return tr("time %1").arg(n->label);
            case Kind::Device: return tr("device %1").arg(n->label);
            case Kind::ModelName: return tr("model %1").arg(n->label);
            case Kind::ModelId: return tr("model id %1").arg(n->label);
            case Kind::DataIndex: return tr("step %1").arg(n->label);
            case Kind::ErrorGroup: return tr("Files that could not be read");
            case Kind::Run: // the run's folder relative to the opened one ("." = the opened folder)
                return n->label == QLatin1String(".") ? QFileInfo(d.path).fileName() : n->label;
            default: return n->label;
            }
        case CountColumn:
            if (n->kind == Kind::ErrorGroup)
                return QString::number(n->children.size());
            if (n->kind == Kind::Op || n->kind == Kind::Tensor || n->kind == Kind::Error)
                return {};
            return tr("%n op(s)", nullptr, n->ops);
        case SizeColumn:
            return n->kind == Kind::Error || n->kind == Kind::ErrorGroup ? QVariant() : QVariant(sizeText(n->bytes));
        case InfoColumn:
            if (n->kind == Kind::Tensor) {
                const auto &t = d.op(n->op).tensors[size_t(n->tensor)];
                if (!t.isTensor())
                    return QStringLiteral("%1 = %2").arg(t.typeName(), t.value());
                if (!formatReader(d.op(n->op).source).opsAreFiles())
                    return QStringLiteral("%1 %2%3").arg(dataTypeName(t.dataType()), shapeToString(t.shape()),
                                                         t.storage() == TensorStorage::Absent ? tr(" (statistics only)") : QString());
                return QStringLiteral("%1 %2 %3").arg(dataTypeName(t.dataType()), formatName(t.format()), shapeToString(t.shape()));
            }
            if (n->kind == Kind::Error)
                return n->message;
            if (n->kind == Kind::Op)
                return d.op(n->op).relPath.section(QLatin1Char('/'), -1);
            return {};
        }
        return {};
    case Qt::ToolTipRole:
        if (n->kind == Kind::Run)
            return tr("Run in %1").arg(n->label == QLatin1String(".") ? d.path : d.path + QLatin1Char('/') + n->label);
        if (n->kind == Kind::Op || n->kind == Kind::Tensor)
            return QString(d.op(n->op).relPath + (n->message.isEmpty() ? QString() : QLatin1Char('\n') + n->message));
        return n->message.isEmpty() ? QVariant() : QVariant(n->message);
    case KindRole: return int(n->kind);
    case DumpRole: return n->dump;
    case TensorIdRole:
        if (n->kind == Kind::Tensor && d.index)
            return QVariant::fromValue(d.index->tensorId({n->op, n->tensor}));
        return {};
    case OpPathRole:
        return n->kind == Kind::Op || n->kind == Kind::Tensor ? QVariant(d.op(n->op).relPath) : QVariant();
    case ProblemRole: return n->problem;
    case OverflowRole: {
        if (n->kind == Kind::Op || n->kind == Kind::Tensor) {
            const auto it = d.marks.find(n->op);
            return it == d.marks.end() ? 0 : it->second;
        }
        const auto it = d.levelMarks.find(n);
        return it == d.levelMarks.end() ? 0 : it->second;
    }
    case BytesRole: return n->bytes;
    case LevelRole:
        return n->kind == Kind::Op || n->kind == Kind::Tensor || n->kind == Kind::Dump || n->kind == Kind::Error
                       || n->kind == Kind::ErrorGroup
                   ? QVariant()
                   : QVariant(n->label);
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
