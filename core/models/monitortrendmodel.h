#pragma once
// One metric and statistic of msprobe's monitor output (core/monitor) as a grid for the
// Monitor tab: a row per (rank, module), a column per step; the value, its place between the
// row's smallest and largest finite value (NormalizedRole, for the colour scale) and whether an
// anomaly marks the cell.

#include "monitor/monitor.h"

#include <QAbstractTableModel>
#include <memory>

namespace ds {

class MonitorTrendModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Roles { ValueRole = Qt::UserRole + 1, NormalizedRole, AnomalyRole, RankRole, StepRole };
    explicit MonitorTrendModel(QObject *parent = nullptr);

    void setSeries(std::shared_ptr<const monitor::MonitorDocument> doc, const QString &metric, const QString &stat);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row
    {
        int rank = 0;
        QString module;
        std::vector<double> values; ///< per step column; NaN where none
        std::vector<bool> anomaly;
        double lo = 0, hi = 0;
    };
    std::vector<std::int64_t> m_steps;
    std::vector<Row> m_rows;
};

} // namespace ds
