#include "dumptreemodel.h"

#include "tensor/dtype.h"
#include "tensor/format.h"

#include <QFileInfo>
#include <QLocale>

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
};

struct DumpTreeModel::Dump
{
    Node root;
    QString path;
    std::vector<OpRecord> provisional; ///< ops while indexing
    std::shared_ptr<const DumpIndex> index;
    Node *errors = nullptr;
    const OpRecord &op(int i) const { return index ? index->ops[size_t(i)] : provisional[size_t(i)]; }
};

namespace {

QString sizeText(qulonglong bytes) { return QLocale().formattedDataSize(qint64(bytes), 1, QLocale::DataSizeTraditionalFormat); }

/// Numbers sort numerically, names alphabetically, numbers first.
QString numericSortKey(const QString &s)
{
    bool ok = false;
    s.toULongLong(&ok);
    return ok ? QStringLiteral("0%1").arg(s, 24, QLatin1Char('0')) : QLatin1Char('1') + s;
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

DumpTreeModel::Node *DumpTreeModel::childFor(Node *parent, Kind kind, const QString &key, const QString &sortKey)
{
    // Children are kept sorted; binary search by sort key.
    auto &c = parent->children;
    auto it = std::lower_bound(c.begin(), c.end(), sortKey, [](const std::unique_ptr<Node> &n, const QString &k) { return n->sortKey < k; });
    if (it != c.end() && (*it)->sortKey == sortKey && (*it)->kind == kind)
        return it->get();
    const int row = int(it - c.begin());
    if (!m_silent)
        beginInsertRows(indexOf(parent), row, row);
    auto n = std::make_unique<Node>();
    n->kind = kind;
    n->label = key;
    n->sortKey = sortKey;
    n->parent = parent;
    n->dump = parent->dump;
    Node *raw = n.get();
    c.insert(c.begin() + row, std::move(n));
    for (int i = row; i < int(c.size()); ++i)
        c[size_t(i)]->row = i;
    if (!m_silent)
        endInsertRows();
    return raw;
}

void DumpTreeModel::updateTotals(Node *n, qulonglong bytes, int ops)
{
    for (; n; n = n->parent) {
        n->bytes += bytes;
        n->ops += ops;
        if (!m_silent) {
            const QModelIndex i = indexOf(n, CountColumn);
            emit dataChanged(i, i.siblingAtColumn(SizeColumn));
        }
    }
}

void DumpTreeModel::addOp(Dump &d, const OpRecord &op, int opNumber)
{
    static const QString dash = QStringLiteral("\u2014");
    const DumpLevels &l = op.levels;
    Node *n = &d.root;
    const std::pair<Kind, const QString *> levels[] = {{Kind::Time, &l.time}, {Kind::Device, &l.device},
                                                       {Kind::ModelName, &l.modelName}, {Kind::ModelId, &l.modelId},
                                                       {Kind::DataIndex, &l.dataIndex}};
    for (const auto &[kind, value] : levels)
        if (!value->isEmpty())
            n = childFor(n, kind, *value, numericSortKey(*value));
    const QString name = op.opType + QLatin1Char(' ') + (op.headerOpName.isEmpty() ? op.opName : op.headerOpName);
    // Execution order inside a data_index directory: timestamp, then file.
    Node *opNode = childFor(n, Kind::Op, name, QStringLiteral("%1 %2").arg(op.timestamp, 20, 10, QLatin1Char('0')).arg(op.relPath));
    opNode->op = opNumber;
    opNode->problem = !op.warnings.isEmpty();
    opNode->message = op.warnings.join(QLatin1Char('\n'));
    qulonglong bytes = 0;
    if (opNode->children.empty() && !op.tensors.empty()) {
        if (!m_silent)
            beginInsertRows(indexOf(opNode), 0, int(op.tensors.size()) - 1);
        for (size_t t = 0; t < op.tensors.size(); ++t) {
            const auto &rec = op.tensors[t];
            auto tn = std::make_unique<Node>();
            tn->kind = Kind::Tensor;
            tn->label = ioKindName(rec.io) + QLatin1Char('.') + QString::number(rec.index);
            tn->parent = opNode;
            tn->dump = d.root.dump;
            tn->op = opNumber;
            tn->tensor = int(t);
            tn->row = int(t);
            tn->bytes = rec.size;
            bytes += rec.size;
            opNode->children.push_back(std::move(tn));
        }
        if (!m_silent)
            endInsertRows();
    }
    updateTotals(opNode, bytes, 1);
}

void DumpTreeModel::addError(Dump &d, const FileError &e)
{
    if (!d.errors) {
        d.errors = childFor(&d.root, Kind::ErrorGroup, tr("Files that could not be read"), QStringLiteral("~errors"));
        d.errors->problem = true;
    }
    Node *n = childFor(d.errors, Kind::Error, e.file, e.file);
    n->problem = true;
    n->message = e.message;
    if (!m_silent) {
        const QModelIndex i = indexOf(d.errors, CountColumn);
        emit dataChanged(i, i);
    }
}

void DumpTreeModel::addBatch(int dump, const std::vector<OpRecord> &ops, const std::vector<FileError> &errors)
{
    Dump &d = *m_dumps[size_t(dump)];
    for (const auto &op : ops) {
        d.provisional.push_back(op);
        addOp(d, d.provisional.back(), int(d.provisional.size()) - 1);
    }
    for (const auto &e : errors)
        addError(d, e);
}

void DumpTreeModel::finishDump(int dump, std::shared_ptr<const DumpIndex> index)
{
    Dump &d = *m_dumps[size_t(dump)];
    // Rebuild from the final (sorted, complete) index: resets only this dump's subtree.
    const QModelIndex root = indexOf(&d.root);
    if (!d.root.children.empty()) {
        beginRemoveRows(root, 0, int(d.root.children.size()) - 1);
        d.root.children.clear();
        d.errors = nullptr;
        endRemoveRows();
    }
    d.root.bytes = 0;
    d.root.ops = 0;
    d.provisional.clear();
    d.provisional.shrink_to_fit();
    d.index = std::move(index);
    // Build the new subtree without per-node notifications, then announce it at once.
    m_silent = true;
    for (size_t o = 0; o < d.index->ops.size(); ++o)
        addOp(d, d.index->ops[o], int(o));
    for (const auto &e : d.index->errors)
        addError(d, e);
    m_silent = false;
    auto built = std::move(d.root.children);
    if (!built.empty()) {
        beginInsertRows(root, 0, int(built.size()) - 1);
        d.root.children = std::move(built);
        endInsertRows();
    }
    emit dataChanged(root, root.siblingAtColumn(InfoColumn));
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

QModelIndex DumpTreeModel::findTensor(int dump, const QString &tensorId) const
{
    if (dump < 0 || dump >= dumpCount() || !m_dumps[size_t(dump)]->index)
        return {};
    const auto &idx = *m_dumps[size_t(dump)]->index;
    const auto ref = idx.findTensor(tensorId);
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
                return QStringLiteral("%1 %2 %3").arg(dataTypeName(t.dataType), formatName(t.format), shapeToString(t.shape));
            }
            if (n->kind == Kind::Error)
                return n->message;
            if (n->kind == Kind::Op)
                return d.op(n->op).relPath.section(QLatin1Char('/'), -1);
            return {};
        }
        return {};
    case Qt::ToolTipRole:
        if (n->kind == Kind::Op || n->kind == Kind::Tensor)
            return QString(d.op(n->op).relPath + (n->message.isEmpty() ? QString() : QLatin1Char('\n') + n->message));
        return n->message.isEmpty() ? QVariant() : QVariant(n->message);
    case KindRole: return int(n->kind);
    case DumpRole: return n->dump;
    case TensorIdRole:
        if (n->kind == Kind::Tensor && d.index)
            return d.index->tensorId({n->op, n->tensor});
        return {};
    case OpPathRole:
        return n->kind == Kind::Op || n->kind == Kind::Tensor ? QVariant(d.op(n->op).relPath) : QVariant();
    case ProblemRole: return n->problem;
    case BytesRole: return n->bytes;
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
