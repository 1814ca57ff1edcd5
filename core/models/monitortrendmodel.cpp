#include "monitortrendmodel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace ds {

MonitorTrendModel::MonitorTrendModel(QObject *parent) : QAbstractTableModel(parent) {}

void MonitorTrendModel::setSeries(std::shared_ptr<const monitor::MonitorDocument> doc, const QString &metric, const QString &stat)
{
    beginResetModel();
    m_steps.clear();
    m_rows.clear();
    if (doc) {
        const auto points = monitor::trendPoints(*doc, metric, stat);
        std::set<std::int64_t> steps;
        std::map<std::pair<int, QString>, size_t> rowOf;
        for (const auto &p : points) {
            steps.insert(p.step);
            if (rowOf.try_emplace({p.rank, p.module}, m_rows.size()).second)
                m_rows.push_back(Row{p.rank, p.module, {}, {}, 0, 0});
        }
        m_steps.assign(steps.begin(), steps.end());
        for (Row &r : m_rows) {
            r.values.assign(m_steps.size(), std::numeric_limits<double>::quiet_NaN());
            r.anomaly.assign(m_steps.size(), false);
        }
        for (const auto &p : points) {
            Row &r = m_rows[rowOf[{p.rank, p.module}]];
            const size_t c = size_t(std::lower_bound(m_steps.begin(), m_steps.end(), p.step) - m_steps.begin());
            r.values[c] = p.value;
            r.anomaly[c] = p.anomaly;
        }
        for (Row &r : m_rows) {
            bool any = false;
            for (double v : r.values)
                if (std::isfinite(v)) {
                    r.lo = any ? std::min(r.lo, v) : v;
                    r.hi = any ? std::max(r.hi, v) : v;
                    any = true;
                }
        }
        std::stable_sort(m_rows.begin(), m_rows.end(), [](const Row &a, const Row &b) { return std::tie(a.module, a.rank) < std::tie(b.module, b.rank); });
    }
    endResetModel();
}

int MonitorTrendModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }
int MonitorTrendModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_steps.size()); }

QVariant MonitorTrendModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const Row &r = m_rows[size_t(index.row())];
    const double v = r.values[size_t(index.column())];
    switch (role) {
    case Qt::DisplayRole: return std::isnan(v) ? QStringLiteral("nan") : QString::number(v, 'g', 4);
    case Qt::ToolTipRole:
        return (r.anomaly[size_t(index.column())] ? tr("rank %1, %2, step %3: %4 (anomaly)") : tr("rank %1, %2, step %3: %4"))
            .arg(r.rank).arg(r.module).arg(m_steps[size_t(index.column())]).arg(QString::number(v, 'g', 8));
    case ValueRole: return v;
    case NormalizedRole:
        if (!std::isfinite(v))
            return -1.0; // NaN / Inf: shown apart from the scale
        return r.hi > r.lo ? (v - r.lo) / (r.hi - r.lo) : 0.0;
    case AnomalyRole: return bool(r.anomaly[size_t(index.column())]);
    case RankRole: return r.rank;
    case StepRole: return qlonglong(m_steps[size_t(index.column())]);
    default: return {};
    }
}

QVariant MonitorTrendModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (orientation == Qt::Horizontal && section >= 0 && size_t(section) < m_steps.size())
        return QString::number(m_steps[size_t(section)]);
    if (orientation == Qt::Vertical && section >= 0 && size_t(section) < m_rows.size())
        return tr("%1 @ rank %2").arg(m_rows[size_t(section)].module).arg(m_rows[size_t(section)].rank);
    return {};
}

} // namespace ds
