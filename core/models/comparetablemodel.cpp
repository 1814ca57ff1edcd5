#include "comparetablemodel.h"

#include "compare/comparereport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QMimeData>
#include <QSet>

namespace ds {

namespace {

constexpr Metric kColumnMetric[] = {Metric::Cosine, Metric::MaxAbsErr, Metric::MaxRelativeErr, Metric::OneThousandthErrRatio,
                                    Metric::FiveThousandthsErrRatio, Metric::EucDist};

const MetricValue *cell(const CompareRow &row, int column)
{
    if (column < CompareTableModel::Cosine || column > CompareTableModel::EucDist)
        return nullptr;
    return &row.metrics[size_t(kColumnMetric[column - CompareTableModel::Cosine])];
}

bool isRowTensor(const TensorRecord &t)
{
    return t.io() == IoKind::Input || t.io() == IoKind::Output || t.io() == IoKind::Parameter;
}

} // namespace

QStringList npuOperatorsFromMime(const QMimeData *data)
{
    QStringList out;
    if (!data || !data->hasFormat(QLatin1String(kNpuOperatorsMime)))
        return out;
    for (const auto &v : QJsonDocument::fromJson(data->data(QLatin1String(kNpuOperatorsMime))).array())
        if (!v.toString().isEmpty())
            out << v.toString();
    return out;
}

CompareTableModel::CompareTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void CompareTableModel::setResult(std::shared_ptr<const CompareResult> result, std::shared_ptr<const DumpIndex> npu,
                                  std::shared_ptr<const DumpIndex> bench)
{
    beginResetModel();
    m_result = std::move(result);
    m_npu = std::move(npu);
    m_bench = std::move(bench);
    m_pinned = m_result && !m_result->divergences.empty() ? m_result->divergences.front().originRow : -1;
    m_pinnedCause = m_pinned >= 0 ? m_result->divergences.front().cause : DivergenceCause::Output;
    endResetModel();
}

void CompareTableModel::updateResult(std::shared_ptr<const CompareResult> result)
{
    if (!m_result || !result || result->rows.size() != m_result->rows.size()) {
        setResult(std::move(result), m_npu, m_bench);
        return;
    }
    m_result = std::move(result);
    m_pinned = !m_result->divergences.empty() ? m_result->divergences.front().originRow : -1;
    m_pinnedCause = m_pinned >= 0 ? m_result->divergences.front().cause : DivergenceCause::Output;
    if (!m_result->rows.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

QString CompareTableModel::npuOperator(int row) const
{
    if (!m_result || row < 0 || size_t(row) >= m_result->rows.size())
        return {};
    return opMatchKey(m_npu->op(m_result->rows[size_t(row)].npu));
}

QString CompareTableModel::benchOperator(int row) const
{
    if (!m_result || row < 0 || size_t(row) >= m_result->rows.size() || m_result->rows[size_t(row)].bench.op < 0)
        return {};
    return opMatchKey(m_bench->op(m_result->rows[size_t(row)].bench));
}

QStringList CompareTableModel::npuOperators(const QModelIndexList &rows) const
{
    std::vector<int> ops;
    for (const QModelIndex &i : rows)
        if (i.isValid() && i.model() == this && m_result)
            ops.push_back(m_result->rows[size_t(i.row())].npu.op);
    std::sort(ops.begin(), ops.end());
    ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
    QStringList names;
    for (int op : ops)
        names << opMatchKey(m_npu->ops[size_t(op)]);
    names.removeDuplicates();
    return names;
}

Qt::ItemFlags CompareTableModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid())
        f |= Qt::ItemIsDragEnabled | Qt::ItemIsDropEnabled;
    return f;
}

QStringList CompareTableModel::mimeTypes() const { return {QLatin1String(kNpuOperatorsMime)}; }

QMimeData *CompareTableModel::mimeData(const QModelIndexList &indexes) const
{
    const QStringList ops = npuOperators(indexes);
    if (ops.isEmpty())
        return nullptr;
    auto *data = new QMimeData;
    data->setData(QLatin1String(kNpuOperatorsMime), QJsonDocument(QJsonArray::fromStringList(ops)).toJson(QJsonDocument::Compact));
    data->setText(ops.join(QLatin1Char('\n')));
    return data;
}

Qt::DropActions CompareTableModel::supportedDragActions() const { return Qt::CopyAction | Qt::LinkAction; }

Qt::DropActions CompareTableModel::supportedDropActions() const { return Qt::CopyAction | Qt::LinkAction; }

bool CompareTableModel::canDropMimeData(const QMimeData *data, Qt::DropAction action, int row, int, const QModelIndex &parent) const
{
    // on a row (parent) only: between rows there is no bench operator
    return (action == Qt::CopyAction || action == Qt::LinkAction) && row < 0 && parent.isValid()
           && !benchOperator(parent.row()).isEmpty() && !npuOperatorsFromMime(data).isEmpty();
}

bool CompareTableModel::dropMimeData(const QMimeData *data, Qt::DropAction action, int row, int column, const QModelIndex &parent)
{
    if (!canDropMimeData(data, action, row, column, parent))
        return false;
    emit mappingRequested(npuOperatorsFromMime(data), {benchOperator(parent.row())});
    return true;
}

int CompareTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_result ? 0 : int(m_result->rows.size());
}

int CompareTableModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CompareTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_result)
        return {};
    const CompareRow &row = m_result->rows[size_t(index.row())];
    const int c = index.column();
    switch (role) {
    case Qt::DisplayRole:
        switch (c) {
        case Verdict:
            if (index.row() == m_pinned) {
                // a parameter or a model input starts it even where its own verdict is a pass
                switch (m_pinnedCause) {
                case DivergenceCause::Parameter: return tr("first divergence: parameter differs");
                case DivergenceCause::Input: return tr("first divergence: input differs");
                case DivergenceCause::Output: break;
                }
                return tr("%1 (first divergence)").arg(verdictName(row.verdict));
            }
            return row.compared() ? verdictName(row.verdict) : QStringLiteral("\u2014");
        case NpuName: return row.npuName;
        case BenchName: return row.benchName;
        case MsprobeResult: return row.result;
        case Reasons: {
            QStringList names;
            for (ReasonCode r : row.reasons)
                names << reasonCodeName(r);
            return names.join(QStringLiteral(", "));
        }
        default:
            if (const MetricValue *v = cell(row, c))
                return formatMetric(*v);
            return {};
        }
    case Qt::ToolTipRole: {
        QStringList lines;
        for (ReasonCode r : row.reasons)
            lines << reasonCodeText(r);
        lines << row.highlights << row.messages;
        if (!row.resultMessages.isEmpty())
            lines << tr("msprobe: %1").arg(row.resultMessages.join(QStringLiteral("; ")));
        if (row.source == MatchSource::User)
            lines.prepend(tr("Paired by the user mapping."));
        return lines.join(QLatin1Char('\n'));
    }
    case Qt::TextAlignmentRole:
        return c >= Cosine && c <= EucDist ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case SortRole:
        if (const MetricValue *v = cell(row, c))
            return v->isNumber() ? QVariant(v->value) : QVariant();
        if (c == Verdict)
            return int(row.verdict);
        return data(index, Qt::DisplayRole);
    case VerdictRole: return int(row.verdict);
    case RowRole: return index.row();
    case PinnedRole: return index.row() == m_pinned;
    case SourceRole: return int(row.source);
    default: return {};
    }
}

QVariant CompareTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Verdict: return tr("Verdict");
    case NpuName: return tr("NPU tensor");
    case BenchName: return tr("Bench tensor");
    case MsprobeResult: return tr("msprobe Result");
    case Reasons: return tr("Not compared because");
    default:
        if (section >= Cosine && section <= EucDist)
            return metricColumn(kColumnMetric[section - Cosine]);
        return {};
    }
}

CompareFilterProxy::CompareFilterProxy(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(CompareTableModel::SortRole);
}

void CompareFilterProxy::setText(const QString &text)
{
    m_text = text;
    invalidateFilter();
}

void CompareFilterProxy::setMinimumVerdict(ds::Verdict v)
{
    m_minimum = v;
    invalidateFilter();
}

void CompareFilterProxy::setUnmatchedOnly(bool on)
{
    m_unmatchedOnly = on;
    invalidateFilter();
}

bool CompareFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &) const
{
    const auto *m = static_cast<const CompareTableModel *>(sourceModel());
    const CompareRow &row = m->result()->rows[size_t(sourceRow)];
    if (sourceRow == m->pinnedRow())
        return true; // the first divergence stays visible whatever the filter
    if (int(row.verdict) < int(m_minimum) || (m_unmatchedOnly && row.bench.op >= 0))
        return false;
    return m_text.isEmpty() || row.npuName.contains(m_text, Qt::CaseInsensitive)
           || row.benchName.contains(m_text, Qt::CaseInsensitive);
}

bool CompareFilterProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    // The pinned row is first in either sort order.
    const bool pl = left.data(CompareTableModel::PinnedRole).toBool(), pr = right.data(CompareTableModel::PinnedRole).toBool();
    if (pl != pr)
        return sortOrder() == Qt::AscendingOrder ? pl : pr;
    const QVariant a = left.data(sortRole()), b = right.data(sortRole());
    if (a.isValid() != b.isValid()) // cells without a number sort last in ascending order
        return a.isValid();
    if (a.typeId() == QMetaType::Double && b.typeId() == QMetaType::Double)
        return a.toDouble() < b.toDouble();
    if (a.typeId() == QMetaType::Int && b.typeId() == QMetaType::Int) {
        if (a.toInt() != b.toInt())
            return a.toInt() < b.toInt();
        // Equal verdicts stay in execution order whichever way the column is sorted.
        return sortOrder() == Qt::AscendingOrder ? left.row() < right.row() : left.row() > right.row();
    }
    return QString::compare(a.toString(), b.toString(), Qt::CaseInsensitive) < 0;
}

BenchOperatorModel::BenchOperatorModel(QObject *parent) : QAbstractTableModel(parent) {}

void BenchOperatorModel::setResult(std::shared_ptr<const CompareResult> result, std::shared_ptr<const DumpIndex> npu,
                                   std::shared_ptr<const DumpIndex> bench)
{
    beginResetModel();
    m_entries.clear();
    if (result && npu && bench) {
        std::vector<int> entryOf(bench->ops.size(), -1);
        for (size_t o = 0; o < bench->ops.size(); ++o) {
            const OpRecord &op = bench->ops[o];
            const int rows = int(std::count_if(op.tensors.begin(), op.tensors.end(), isRowTensor));
            if (rows == 0)
                continue;
            entryOf[o] = int(m_entries.size());
            m_entries.push_back({int(o), opMatchKey(op), op.opType, State::Unmatched, 0, rows, {}});
        }
        std::vector<char> fused(m_entries.size(), 0);
        for (const CompareRow &row : result->rows) {
            if (row.bench.op < 0 || entryOf[size_t(row.bench.op)] < 0)
                continue;
            Entry &e = m_entries[size_t(entryOf[size_t(row.bench.op)])];
            ++e.matchedRows;
            const QString n = opMatchKey(npu->op(row.npu));
            if (!e.npu.contains(n))
                e.npu << n;
        }
        for (const BenchOnlyRow &b : result->benchOnly)
            if (b.reason == ReasonCode::FusedAway && entryOf[size_t(b.bench.op)] >= 0)
                fused[size_t(entryOf[size_t(b.bench.op)])] = 1;
        for (size_t i = 0; i < m_entries.size(); ++i) {
            Entry &e = m_entries[i];
            e.state = e.matchedRows >= e.rows ? State::Matched
                      : e.matchedRows > 0      ? State::Partial
                      : fused[i]               ? State::FusedAway
                                               : State::Unmatched;
        }
    }
    endResetModel();
}

int BenchOperatorModel::rowOf(const QString &name) const
{
    for (size_t i = 0; i < m_entries.size(); ++i)
        if (m_entries[i].name == name)
            return int(i);
    return -1;
}

QString BenchOperatorModel::name(int row) const
{
    return row >= 0 && size_t(row) < m_entries.size() ? m_entries[size_t(row)].name : QString();
}

int BenchOperatorModel::count(State s) const
{
    return int(std::count_if(m_entries.begin(), m_entries.end(), [s](const Entry &e) { return e.state == s; }));
}

int BenchOperatorModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_entries.size()); }

int BenchOperatorModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant BenchOperatorModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || size_t(index.row()) >= m_entries.size())
        return {};
    const Entry &e = m_entries[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Name: return e.name;
        case Type: return e.type;
        case Status:
            switch (e.state) {
            case State::Matched: return tr("matched");
            case State::Partial: return tr("%1 of %2 tensors matched").arg(e.matchedRows).arg(e.rows);
            case State::FusedAway: return tr("fused away");
            case State::Unmatched: return tr("unmatched");
            }
            return {};
        case ComparedWith: return e.npu.join(QStringLiteral(", "));
        default: return {};
        }
    case Qt::ToolTipRole:
        return e.npu.isEmpty() ? tr("%1 (%2): no NPU operator is compared with it. Drop NPU rows here to map them.").arg(e.name, e.type)
                               : tr("%1 (%2) is compared with %3.").arg(e.name, e.type, e.npu.join(QStringLiteral(", ")));
    case StateRole: return int(e.state);
    case OpRole: return e.op;
    case NameRole: return e.name;
    default: return {};
    }
}

QVariant BenchOperatorModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name: return tr("Bench operator");
    case Type: return tr("Type");
    case Status: return tr("Status");
    case ComparedWith: return tr("Compared with (NPU)");
    default: return {};
    }
}

Qt::ItemFlags BenchOperatorModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid())
        f |= Qt::ItemIsDropEnabled;
    return f;
}

QStringList BenchOperatorModel::mimeTypes() const { return {QLatin1String(kNpuOperatorsMime)}; }

Qt::DropActions BenchOperatorModel::supportedDropActions() const { return Qt::CopyAction | Qt::LinkAction; }

bool BenchOperatorModel::canDropMimeData(const QMimeData *data, Qt::DropAction action, int row, int, const QModelIndex &parent) const
{
    return (action == Qt::CopyAction || action == Qt::LinkAction) && row < 0 && parent.isValid()
           && size_t(parent.row()) < m_entries.size() && !npuOperatorsFromMime(data).isEmpty();
}

bool BenchOperatorModel::dropMimeData(const QMimeData *data, Qt::DropAction action, int row, int column, const QModelIndex &parent)
{
    if (!canDropMimeData(data, action, row, column, parent))
        return false;
    emit npuOperatorsDropped(npuOperatorsFromMime(data), parent.row());
    return true;
}

BenchOperatorFilterProxy::BenchOperatorFilterProxy(QObject *parent) : QSortFilterProxyModel(parent) {}

void BenchOperatorFilterProxy::setText(const QString &text)
{
    m_text = text;
    invalidateFilter();
}

void BenchOperatorFilterProxy::setUnmatchedOnly(bool on)
{
    m_unmatchedOnly = on;
    invalidateFilter();
}

bool BenchOperatorFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex i = sourceModel()->index(sourceRow, 0, sourceParent);
    if (m_unmatchedOnly && BenchOperatorModel::State(i.data(BenchOperatorModel::StateRole).toInt()) == BenchOperatorModel::State::Matched)
        return false;
    return m_text.isEmpty() || i.data().toString().contains(m_text, Qt::CaseInsensitive)
           || i.siblingAtColumn(BenchOperatorModel::Type).data().toString().contains(m_text, Qt::CaseInsensitive);
}

} // namespace ds
