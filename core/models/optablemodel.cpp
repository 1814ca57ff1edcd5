#include "optablemodel.h"

#include "index/tensorloader.h"
#include "tensor/dtype.h"
#include "tensor/shape.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ds {

namespace {
QString num(double v) { return std::isfinite(v) ? QString::number(v, 'g', 6) : QString(); }

/// The stats batch holding position `pos`, found among batches sorted by first position.
template<typename Batches>
auto batchAt(Batches &batches, int pos)
{
    return std::upper_bound(batches.begin(), batches.end(), pos, [](int p, const auto &b) { return p < b.first; });
}
} // namespace

OpTableModel::OpTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void OpTableModel::setOps(int dump, std::shared_ptr<const DumpIndex> index, std::shared_ptr<const std::vector<int>> ops, OpFilter filter)
{
    beginResetModel();
    m_dump = dump;
    m_index = std::move(index);
    m_ops = ops ? std::move(ops) : std::make_shared<const std::vector<int>>();
    const std::vector<int> &level = *m_ops;
    m_stats.clear();
    m_posOfOp.clear();
    if (!std::is_sorted(level.begin(), level.end())) {
        m_posOfOp.reserve(level.size());
        for (size_t p = 0; p < level.size(); ++p)
            m_posOfOp.emplace_back(level[p], int(p));
        std::sort(m_posOfOp.begin(), m_posOfOp.end());
    }
    m_filter = std::move(filter);
    m_regex = QRegularExpression(m_filter.text, QRegularExpression::CaseInsensitiveOption);
    m_validPattern = !m_filter.regex || m_regex.isValid();
    arrange();
    m_fetched = std::min(rowsTotal(), kFetchRows);
    endResetModel();
}

bool OpTableModel::canFetchMore(const QModelIndex &parent) const { return !parent.isValid() && m_fetched < rowsTotal(); }

void OpTableModel::fetchMore(const QModelIndex &parent)
{
    if (canFetchMore(parent))
        fetchTo(std::min(rowsTotal(), m_fetched + kFetchRows) - 1);
}

void OpTableModel::fetchTo(int row)
{
    row = std::min(row, rowsTotal() - 1);
    if (row < m_fetched)
        return;
    beginInsertRows({}, m_fetched, row);
    m_fetched = row + 1;
    endInsertRows();
}

void OpTableModel::setFilter(OpFilter filter)
{
    if (filter == m_filter)
        return;
    m_filter = std::move(filter);
    m_regex = QRegularExpression(m_filter.text, QRegularExpression::CaseInsensitiveOption);
    m_validPattern = !m_filter.regex || m_regex.isValid();
    rearrange();
}

void OpTableModel::sort(int column, Qt::SortOrder order)
{
    if (column < 0 || column >= ColumnCount)
        column = -1;
    if (column == m_sortColumn && (column < 0 || order == m_sortOrder))
        return;
    m_sortColumn = column;
    m_sortOrder = order;
    rearrange();
}

bool OpTableModel::accepts(const OpRecord &op) const
{
    if (!m_filter.type.isEmpty() && op.opType != m_filter.type)
        return false;
    if (m_filter.text.isEmpty())
        return true;
    const QString name = op.headerOpName().isEmpty() ? op.opName.toString() : op.headerOpName();
    if (m_filter.regex)
        return m_validPattern && (m_regex.match(name).hasMatch() || m_regex.match(op.opType).hasMatch());
    return name.contains(m_filter.text, Qt::CaseInsensitive) || op.opType.contains(m_filter.text, Qt::CaseInsensitive);
}

void OpTableModel::arrange()
{
    const std::vector<int> &level = *m_ops;
    const bool filtered = !m_filter.type.isEmpty() || !m_filter.text.isEmpty();
    m_whole = !filtered && m_sortColumn < 0;
    m_shown.clear();
    m_rowOfPos.clear();
    if (m_whole)
        return;
    m_shown.reserve(level.size());
    for (size_t p = 0; p < level.size(); ++p)
        if (!filtered || accepts(m_index->ops[size_t(level[p])]))
            m_shown.push_back(int(p));
    if (m_sortColumn >= 0) {
        // One key per shown operator, then a stable sort: ties keep execution order, and
        // operators without a value (statistics not computed yet) go last either way.
        const bool text = m_sortColumn == Type || m_sortColumn == Name || m_sortColumn == DTypes || m_sortColumn == Shapes;
        std::vector<QString> words;
        std::vector<double> numbers;
        if (text)
            words.reserve(m_shown.size());
        else
            numbers.reserve(m_shown.size());
        for (int p : m_shown) {
            if (text)
                words.push_back(cellText(p, m_sortColumn));
            else
                numbers.push_back(sortNumber(p, m_sortColumn));
        }
        std::vector<int> order(m_shown.size());
        for (size_t i = 0; i < order.size(); ++i)
            order[i] = int(i);
        const bool descending = m_sortOrder == Qt::DescendingOrder;
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
            if (text) {
                const int c = words[size_t(a)].compare(words[size_t(b)]);
                return descending ? c > 0 : c < 0;
            }
            const double x = numbers[size_t(a)], y = numbers[size_t(b)];
            if (std::isnan(x) || std::isnan(y))
                return !std::isnan(x) && std::isnan(y);
            return descending ? x > y : x < y;
        });
        std::vector<int> sorted(order.size());
        for (size_t i = 0; i < order.size(); ++i)
            sorted[i] = m_shown[size_t(order[i])];
        m_shown = std::move(sorted);
    }
    m_rowOfPos.assign(level.size(), -1);
    for (size_t r = 0; r < m_shown.size(); ++r)
        m_rowOfPos[size_t(m_shown[r])] = int(r);
}

void OpTableModel::rearrange()
{
    emit layoutAboutToBeChanged();
    const QModelIndexList before = persistentIndexList();
    std::vector<int> ops;
    ops.reserve(size_t(before.size()));
    for (const QModelIndex &i : before)
        ops.push_back(i.row() < rowCount() ? opAt(i.row()) : -1);
    arrange();
    std::vector<int> rows(size_t(before.size()));
    int fetched = std::min(rowsTotal(), std::max(m_fetched, kFetchRows)); // and the rows kept
    for (qsizetype k = 0; k < before.size(); ++k) {
        rows[size_t(k)] = ops[size_t(k)] < 0 ? -1 : rowOf(ops[size_t(k)]);
        fetched = std::max(fetched, rows[size_t(k)] + 1);
    }
    m_fetched = fetched;
    QModelIndexList after;
    after.reserve(before.size());
    for (qsizetype k = 0; k < before.size(); ++k)
        after << (rows[size_t(k)] < 0 ? QModelIndex() : index(rows[size_t(k)], before[k].column()));
    changePersistentIndexList(before, after);
    emit layoutChanged();
}

int OpTableModel::posOf(int op) const
{
    if (m_posOfOp.empty()) {
        const std::vector<int> &level = *m_ops;
        const auto it = std::lower_bound(level.begin(), level.end(), op);
        return it != level.end() && *it == op ? int(it - level.begin()) : -1;
    }
    const auto it = std::lower_bound(m_posOfOp.begin(), m_posOfOp.end(), std::pair{op, 0});
    return it != m_posOfOp.end() && it->first == op ? it->second : -1;
}

int OpTableModel::rowOf(int op) const
{
    const int pos = posOf(op);
    return pos < 0 || m_whole ? pos : m_rowOfPos[size_t(pos)];
}

const OpStats *OpTableModel::statsAt(int pos) const
{
    const auto after = batchAt(m_stats, pos);
    if (after == m_stats.begin())
        return nullptr;
    const StatsBatch &b = *std::prev(after);
    const size_t k = size_t(pos - b.first);
    return k < b.stats.size() ? &b.stats[k] : nullptr;
}

bool OpTableModel::hasStats(int op) const
{
    const int pos = posOf(op);
    return pos >= 0 && statsAt(pos);
}

void OpTableModel::setStats(int first, std::vector<OpStats> stats)
{
    if (first < 0 || stats.empty() || size_t(first) + stats.size() > m_ops->size())
        return;
    const int last = first + int(stats.size()) - 1;
    m_stats.insert(batchAt(m_stats, first), StatsBatch{first, std::move(stats)});
    int top = first, bottom = last; // rows of the positions
    if (!m_whole) {
        top = std::numeric_limits<int>::max(), bottom = -1;
        for (int p = first; p <= last; ++p)
            if (const int row = m_rowOfPos[size_t(p)]; row >= 0) {
                top = std::min(top, row);
                bottom = std::max(bottom, row);
            }
    }
    bottom = std::min(bottom, m_fetched - 1); // rows not fetched are read when they are
    if (bottom >= top)
        emit dataChanged(index(top, Min), index(bottom, Inf));
}

void OpTableModel::setOverflowMarks(std::unordered_map<int, int> marks)
{
    std::swap(m_marks, marks); // `marks` now holds the old ones
    // One notification over the rows whose mark changed, none for a level without marks.
    int top = std::numeric_limits<int>::max(), bottom = -1;
    auto changed = [&](int op) {
        if (const int row = rowOf(op); row >= 0) {
            top = std::min(top, row);
            bottom = std::max(bottom, row);
        }
    };
    for (const auto &[op, mark] : marks)
        if (const auto it = m_marks.find(op); it == m_marks.end() || it->second != mark)
            changed(op);
    for (const auto &[op, mark] : m_marks)
        if (const auto it = marks.find(op); it == marks.end() || it->second != mark)
            changed(op);
    bottom = std::min(bottom, m_fetched - 1);
    if (bottom >= top)
        emit dataChanged(index(top, 0), index(bottom, ColumnCount - 1));
}

int OpTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : std::min(m_fetched, rowsTotal());
}

int OpTableModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

double OpTableModel::sortNumber(int pos, int column) const
{
    constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
    const OpRecord &op = m_index->ops[size_t((*m_ops)[size_t(pos)])];
    const OpStats *st = statsAt(pos);
    switch (column) {
    case Task: return op.taskId() < 0 ? kNone : double(op.taskId());
    case Stream: return op.streamId() < 0 ? kNone : double(op.streamId());
    case Timestamp: return double(op.timestamp);
    case Inputs: return double(op.count(IoKind::Input));
    case Outputs: return double(op.count(IoKind::Output));
    case Min: return st ? st->min : kNone;
    case Max: return st ? st->max : kNone;
    case Mean: return st ? st->mean : kNone;
    case NaN: return st ? double(st->nan) : kNone;
    case Inf: return st ? double(st->inf) : kNone;
    }
    return kNone;
}

QString OpTableModel::cellText(int pos, int column) const
{
    const OpRecord &op = m_index->ops[size_t((*m_ops)[size_t(pos)])];
    auto join = [&](auto fn) {
        QStringList parts;
        for (const auto &t : op.tensors)
            if ((t.io() == IoKind::Input || t.io() == IoKind::Output) && t.isTensor())
                parts << fn(t);
        return parts.join(QStringLiteral(", "));
    };
    const OpStats *st = statsAt(pos);
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
    if (!index.isValid() || !m_index || index.row() >= rowCount())
        return {};
    const int pos = posAt(index.row()), col = index.column();
    const int opIdx = (*m_ops)[size_t(pos)];
    const OpRecord &op = m_index->ops[size_t(opIdx)];
    const OpStats *st = statsAt(pos);
    switch (role) {
    case Qt::DisplayRole:
        return cellText(pos, col);
    case Qt::ToolTipRole:
        if (col == Name || col == Type)
            return op.relPath.toString();
        if (st && !st->error.isEmpty())
            return st->error;
        return {};
    case Qt::TextAlignmentRole:
        return col >= Task && col != DTypes && col != Shapes ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    case SortRole:
        switch (col) {
        case Type:
        case Name:
        case DTypes:
        case Shapes: return cellText(pos, col);
        default: {
            const double v = sortNumber(pos, col);
            return std::isnan(v) && !st ? QVariant() : QVariant(v);
        }
        }
    case OpRole: return opIdx;
    case OverflowRole: {
        const auto m = m_marks.find(opIdx);
        return m == m_marks.end() ? 0 : m->second;
    }
    case ProblemRole:
        return st && (st->nan || st->inf || !st->error.isEmpty());
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
            QString t = cellText(posAt(r), c);
            if (csv && (t.contains(QLatin1Char(',')) || t.contains(QLatin1Char('"'))))
                t = QLatin1Char('"') + t.replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
            cells << t;
        }
        lines << cells.join(separator);
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

OpStats computeOpStats(const DumpIndex &index, int op, const JobControl *job)
{
    OpStats out;
    const auto &tensors = index.ops[size_t(op)].tensors;
    double sum = 0;
    std::uint64_t finite = 0;
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
            // Each recorded statistic that is finite is a fact about all the elements (Min 0
            // stays the minimum when Max is Inf); a loaded tensor's are over its finite values.
            if (std::isfinite(r.min))
                out.min = std::isnan(out.min) ? r.min : std::min(out.min, r.min);
            if (std::isfinite(r.max))
                out.max = std::isnan(out.max) ? r.max : std::max(out.max, r.max);
            // The recorded Mean is over all the output's elements: weighted by their count, as
            // the means of loaded outputs are by their finite values.
            if (const auto n = elementCount(tensors[t].shape()); r.has(RecordedStats::Mean) && std::isfinite(r.mean) && n && *n) {
                sum += r.mean * double(*n);
                finite += *n;
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
            out.min = std::isnan(out.min) ? s.min : std::min(out.min, s.min);
            out.max = std::isnan(out.max) ? s.max : std::max(out.max, s.max);
            sum += s.mean * double(s.finite);
            finite += s.finite;
        }
        if (s.headroom.valid) {
            out.headroomFinite += s.finite;
            for (int k = 0; k < kHeadroomTargets; ++k)
                out.underflow[size_t(k)] += s.headroom.targets[size_t(k)].underflow;
        }
    }
    if (finite)
        out.mean = sum / double(finite);
    return out;
}

} // namespace ds
