#pragma once
// msprobe's training monitor series as a Trends table (issue 33, item 5): the step x module x
// rank values of one metric and statistic (monitor::trendPoints), so the Trends view draws them
// as it draws a run's recorded statistics.

#include "monitor/monitor.h"
#include "trend.h"

namespace ds {

/// Rows: the modules in the order they first appear; columns: the steps ("step N"); ranks
/// ("rank R"); NaN where the monitor recorded nothing. The table's metric is Norm (a value
/// scale, not verdicts). `anomalies` receives the (row, step index, rank index) cells msprobe
/// flagged, when given.
struct TrendCell
{
    int row = 0, step = 0, rank = 0;
};
TrendTable monitorTrend(const monitor::MonitorDocument &doc, const QString &metric, const QString &stat,
                        std::vector<TrendCell> *anomalies = nullptr);

class DumpIndex;

/// The dump op a monitor anomaly points at (issue 33, item 5): the module entry of the same step
/// ("step{N}") and rank ("rank{R}") whose module path is the anomaly's module without its leaf
/// ("fc2.input", "fc2.weight" -> Module.fc2.<Class>.*), the backward entry for gradient kinds
/// (actv_grad, pre_grad, post_grad, acc_grad), else the forward one; the first call of the step.
/// -1 when the dump holds none (another step or rank, or no module entries: level L1).
int monitorAnomalyOp(const DumpIndex &index, const monitor::Anomaly &anomaly);

} // namespace ds
