#include "comparetablemodel.h"

#include "compare/comparereport.h"

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

} // namespace

CompareTableModel::CompareTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void CompareTableModel::setResult(std::shared_ptr<const CompareResult> result, std::shared_ptr<const DumpIndex> npu,
                                  std::shared_ptr<const DumpIndex> bench)
{
    beginResetModel();
    m_result = std::move(result);
    m_npu = std::move(npu);
    m_bench = std::move(bench);
    m_pinned = m_result && !m_result->divergences.empty() ? m_result->divergences.front().originRow : -1;
    endResetModel();
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
            if (index.row() == m_pinned)
                return tr("%1 (first divergence)").arg(verdictName(row.verdict));
            return row.compared() ? verdictName(row.verdict) : QStringLiteral("\u2014");
        case NpuName: return row.npuName;
        case BenchName: return row.benchName;
        case Accuracy: return row.accuracyReached;
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
    case Accuracy: return tr("Accuracy reached");
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

bool CompareFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &) const
{
    const auto *m = static_cast<const CompareTableModel *>(sourceModel());
    const CompareRow &row = m->result()->rows[size_t(sourceRow)];
    if (sourceRow == m->pinnedRow())
        return true; // the first divergence stays visible whatever the filter
    if (int(row.verdict) < int(m_minimum))
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

} // namespace ds
