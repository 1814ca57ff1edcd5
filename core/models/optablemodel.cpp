#include "optablemodel.h"

#include "index/tensorloader.h"
#include "tensor/dtype.h"

#include <QSet>

namespace ds {

namespace {
QString num(double v) { return std::isfinite(v) ? QString::number(v, 'g', 6) : QString(); }
} // namespace

OpTableModel::OpTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void OpTableModel::setOps(int dump, std::shared_ptr<const DumpIndex> index, std::vector<int> ops)
{
    beginResetModel();
    m_dump = dump;
    m_index = std::move(index);
    m_ops = std::move(ops);
    m_stats.clear();
    m_rowOfOp.clear();
    for (size_t r = 0; r < m_ops.size(); ++r)
        m_rowOfOp[m_ops[r]] = int(r);
    endResetModel();
}

int OpTableModel::rowOf(int op) const
{
    const auto it = m_rowOfOp.find(op);
    return it == m_rowOfOp.end() ? -1 : it->second;
}

void OpTableModel::setStats(int op, const OpStats &stats)
{
    m_stats[op] = stats;
    const int row = rowOf(op);
    if (row >= 0)
        emit dataChanged(index(row, Min), index(row, Inf));
}

void OpTableModel::setOverflowMarks(std::unordered_map<int, int> marks)
{
    m_marks = std::move(marks);
    if (!m_ops.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int OpTableModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_ops.size()); }
int OpTableModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString OpTableModel::cellText(int row, int column) const
{
    const OpRecord &op = m_index->ops[size_t(m_ops[size_t(row)])];
    auto join = [&](auto fn) {
        QStringList parts;
        for (const auto &t : op.tensors)
            if ((t.io() == IoKind::Input || t.io() == IoKind::Output) && t.isTensor())
                parts << fn(t);
        return parts.join(QStringLiteral(", "));
    };
    const auto it = m_stats.find(m_ops[size_t(row)]);
    const OpStats *st = it == m_stats.end() ? nullptr : &it->second;
    switch (column) {
    case Type: return op.opType;
    case Name: return op.headerOpName().isEmpty() ? op.opName.toString() : op.headerOpName();
    case Task: return op.taskId() < 0 ? QString() : QString::number(op.taskId());
    case Stream: return op.streamId() < 0 ? QString() : QString::number(op.streamId());
    case Timestamp: return QString::number(op.timestamp);
    case Inputs: return QString::number(op.count(IoKind::Input));
    case Outputs: return QString::number(op.count(IoKind::Output));
    case DTypes: {
        QStringList types;
        for (const auto &t : op.tensors)
            if ((t.io() == IoKind::Input || t.io() == IoKind::Output) && t.isTensor() && !types.contains(dataTypeName(t.dataType())))
                types << dataTypeName(t.dataType());
        return types.join(QStringLiteral(", "));
    }
    case Shapes: return join([](const TensorRecord &t) { return shapeToString(t.originalShape().empty() ? t.shape() : t.originalShape()); });
    case Min: return st ? num(st->min) : QString();
    case Max: return st ? num(st->max) : QString();
    case Mean: return st ? num(st->mean) : QString();
    case NaN: return st ? QString::number(st->nan) : QString();
    case Inf: return st ? QString::number(st->inf) : QString();
    }
    return {};
}

QVariant OpTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_index)
        return {};
    const int row = index.row(), col = index.column();
    const int opIdx = m_ops[size_t(row)];
    const OpRecord &op = m_index->ops[size_t(opIdx)];
    const auto it = m_stats.find(opIdx);
    switch (role) {
    case Qt::DisplayRole:
        return cellText(row, col);
    case Qt::ToolTipRole:
        if (col == Name || col == Type)
            return op.relPath.toString();
        if (it != m_stats.end() && !it->second.error.isEmpty())
            return it->second.error;
        return {};
    case Qt::TextAlignmentRole:
        return col >= Task && col != DTypes && col != Shapes ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    case SortRole:
        switch (col) {
        case Task: return qlonglong(op.taskId());
        case Stream: return qlonglong(op.streamId());
        case Timestamp: return qulonglong(op.timestamp);
        case Inputs: return op.count(IoKind::Input);
        case Outputs: return op.count(IoKind::Output);
        case Min: return it == m_stats.end() ? QVariant() : QVariant(it->second.min);
        case Max: return it == m_stats.end() ? QVariant() : QVariant(it->second.max);
        case Mean: return it == m_stats.end() ? QVariant() : QVariant(it->second.mean);
        case NaN: return it == m_stats.end() ? QVariant() : QVariant(qulonglong(it->second.nan));
        case Inf: return it == m_stats.end() ? QVariant() : QVariant(qulonglong(it->second.inf));
        default: return cellText(row, col);
        }
    case OpRole: return opIdx;
    case OverflowRole: {
        const auto m = m_marks.find(opIdx);
        return m == m_marks.end() ? 0 : m->second;
    }
    case ProblemRole:
        return it != m_stats.end() && (it->second.nan || it->second.inf || !it->second.error.isEmpty());
    }
    return {};
}

QVariant OpTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Type: return tr("Op type");
    case Name: return tr("Op name");
    case Task: return tr("Task");
    case Stream: return tr("Stream");
    case Timestamp: return tr("Timestamp");
    case Inputs: return tr("Inputs");
    case Outputs: return tr("Outputs");
    case DTypes: return tr("Data types");
    case Shapes: return tr("Shapes");
    case Min: return tr("Out min");
    case Max: return tr("Out max");
    case Mean: return tr("Out mean");
    case NaN: return tr("NaN");
    case Inf: return tr("Inf");
    }
    return {};
}

QString OpTableModel::rowsText(const QList<int> &rows, QChar separator) const
{
    QStringList lines, header;
    for (int c = 0; c < ColumnCount; ++c)
        header << headerData(c, Qt::Horizontal).toString();
    lines << header.join(separator);
    const bool csv = separator == QLatin1Char(',');
    for (int r : rows) {
        QStringList cells;
        for (int c = 0; c < ColumnCount; ++c) {
            QString t = cellText(r, c);
            if (csv && (t.contains(QLatin1Char(',')) || t.contains(QLatin1Char('"'))))
                t = QLatin1Char('"') + t.replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
            cells << t;
        }
        lines << cells.join(separator);
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

OpFilterProxy::OpFilterProxy(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(OpTableModel::SortRole);
    setDynamicSortFilter(false);
}

void OpFilterProxy::setPattern(const QString &text, bool regex)
{
    m_text = text;
    m_useRegex = regex;
    m_regex = QRegularExpression(text, QRegularExpression::CaseInsensitiveOption);
    m_valid = !regex || m_regex.isValid();
    invalidateFilter();
}

void OpFilterProxy::setOpType(const QString &type)
{
    m_type = type;
    invalidateFilter();
}

bool OpFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &) const
{
    const auto *m = static_cast<const OpTableModel *>(sourceModel());
    const OpRecord &op = m->dumpIndex()->ops[size_t(m->opAt(sourceRow))];
    if (!m_type.isEmpty() && op.opType != m_type)
        return false;
    if (m_text.isEmpty())
        return true;
    const QString name = op.headerOpName().isEmpty() ? op.opName.toString() : op.headerOpName();
    if (m_useRegex)
        return m_valid && (m_regex.match(name).hasMatch() || m_regex.match(op.opType).hasMatch());
    return name.contains(m_text, Qt::CaseInsensitive) || op.opType.contains(m_text, Qt::CaseInsensitive);
}

OpStats computeOpStats(const DumpIndex &index, int op, const JobControl *job)
{
    OpStats out;
    const auto &tensors = index.ops[size_t(op)].tensors;
    double sum = 0;
    std::uint64_t finite = 0;
    bool any = false;
    for (size_t t = 0; t < tensors.size(); ++t) {
        if (tensors[t].io() != IoKind::Output || !tensors[t].isTensor())
            continue;
        if (tensors[t].storage() == TensorStorage::Absent) {
            // Statistics the producer recorded (msprobe Max/Min/Mean): no tensor to read.
            const RecordedStats r = tensors[t].recorded();
            if (!r.has(RecordedStats::Max) || !r.has(RecordedStats::Min)) {
                out.error = QStringLiteral("no data and no statistics were saved for %1").arg(tensors[t].name());
                continue;
            }
            for (double v : {r.max, r.min}) {
                out.nan += std::isnan(v);
                out.inf += std::isinf(v);
            }
            if (std::isfinite(r.max) && std::isfinite(r.min)) {
                out.min = any ? std::min(out.min, r.min) : r.min;
                out.max = any ? std::max(out.max, r.max) : r.max;
                any = true;
            }
            continue;
        }
        auto loaded = loadTensor(index, {op, int(t)}, LayoutChoice::Logical, job);
        if (!loaded) {
            out.error = loaded.errorText();
            continue;
        }
        TensorStats s;
        if (!computeStats((*loaded)->view, s, job))
            return out;
        out.nan += s.nan;
        out.inf += s.posinf + s.neginf;
        if (s.finite) {
            out.min = any ? std::min(out.min, s.min) : s.min;
            out.max = any ? std::max(out.max, s.max) : s.max;
            any = true;
            sum += s.mean * double(s.finite);
            finite += s.finite;
        }
    }
    if (finite)
        out.mean = sum / double(finite);
    return out;
}

} // namespace ds
