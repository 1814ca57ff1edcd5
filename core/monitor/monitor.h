#pragma once
// msprobe's training monitor output (issue 33 item 3): the per-step statistics CSVs of
// TrainerMon (v1: {time}-rank{R}-{uuid}/{prefix}_{a}-{b}.csv) and TrainerMonitorV2
// (rank_{R}/{slug}_step{a}-{b}.csv), the rule hits of anomaly_detected/rank{R}/anomaly.json and
// msprobe's ranking anomaly_analyse.json, read as series over step x module x rank.
// Files and msprobe sources: ../shared/specs/msprobe-outputs.md §2.8, README "monitor".

#include "util/error.h"

#include <QByteArrayView>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace ds::monitor {

enum class Version : std::uint8_t { V1, V2 };

/// One row of a monitor CSV: the statistics of one module (or parameter) at one step.
struct MonitorRow
{
    int vppStage = 0;
    QString name;        ///< v1 `name`; v2 `module_name`
    QString scope;       ///< v2 `scope` (forward, backward, reduced, exp_avg, ...); empty in v1
    std::int64_t step = 0;
    int microStep = -1;  ///< -1 when the file has no micro_step column
    std::vector<double> values; ///< one per MonitorTable::stats; NaN for "nan" and empty cells
    QStringList text;    ///< cells of columns that are not numbers (shape, dtype): as written
    int line = 0;
};

/// One CSV file.
struct MonitorTable
{
    Version version = Version::V1;
    QString file;     ///< relative to the opened folder
    QString metric;   ///< the file's prefix: actv, actv_grad, grad_reduced, param_origin, ... (v2: module, optimizer, ...)
    int rank = -1;    ///< from the folder name (-rank{R}- or rank_{R}); -1 when not found
    std::int64_t firstStep = 0, lastStep = 0; ///< the step range of the file name
    QStringList header;
    QStringList stats;     ///< numeric statistic columns (norm, min, max, mean, zeros, nans, ...)
    QStringList textStats; ///< shape, dtype, id
    std::vector<MonitorRow> rows;
    std::vector<FileError> errors; ///< bad rows (left out) and cells, naming file, line and column
};

/// The metric a row belongs to: the file's prefix, and in v2 "{slug}/{scope}" ("module/forward").
QString rowMetric(const MonitorTable &t, const MonitorRow &r);

/// A rule hit (GradAnomalyData, core/monitor/anomaly_processor.py).
struct Anomaly
{
    int rank = 0;
    std::int64_t step = 0;
    int microStep = 0, ppStage = 0, vppStage = 0, callId = 0;
    QString tagName;  ///< "0:fc2.input:0/rank0/actv"
    QString message;  ///< "Rule AnomalyTurbulence reports anomaly signal in ('...', 'norm') at step 3, ..."
    QString key;      ///< the JSON key ("{tag}_step_{s}_call_{c}")
    QString file;     ///< the anomaly.json or anomaly_analyse.json it came from
    // derived
    QString module() const;  ///< the row name: "fc2.input" of "0:fc2.input:0/rank0/actv"
    QString kind() const;    ///< the tag's last segment: actv, actv_grad, pre_grad, post_grad, exp_avg, ...
    QString stat() const;    ///< the statistic named in the message ("norm"), or empty
    int trainStage() const;  ///< 0 forward, 1 backward, 2 optimizer, -1 other (MonitorConst.TRAIN_STAGE)
};

/// msprobe's order of anomalies (GradAnomalyData.__lt__): step, micro step, train stage, then
/// vpp and pp stage (ascending in the forward stage, descending otherwise), then call id.
bool anomalyBefore(const Anomaly &a, const Anomaly &b);
/// The CSV prefix an anomaly's kind is written under (pre_grad -> grad_unreduced,
/// post_grad -> grad_reduced; the others are their own prefix).
QString metricOfKind(const QString &kind);

/// Parses one monitor CSV. `file` names it in errors; `metric`, rank and steps come from its
/// path (see monitorFileInfo). Fails on text that is not CSV, or a header without the key
/// columns of v1 (vpp_stage, name, step) or v2 (vpp_stage, step, module_name): a table of
/// another tool.
Result<MonitorTable> parseMonitorCsv(QByteArrayView bytes, const QString &file);

/// Parses anomaly.json / anomaly_analyse.json ({key: {rank, step, ...}}) in file order. Fails
/// naming the file (and the line and column of a JSON syntax error) when it is not JSON or not
/// an object; an entry without rank or step is an error naming its key, the others are kept.
struct AnomalyFile
{
    std::vector<Anomaly> anomalies;
    std::vector<FileError> errors;
};
Result<AnomalyFile> parseAnomalyJson(QByteArrayView bytes, const QString &file);

/// Everything under an opened monitor output folder.
struct MonitorDocument
{
    QString root;
    std::vector<MonitorTable> tables;
    std::vector<Anomaly> anomalies; ///< every anomaly.json, in msprobe's order (anomalyBefore)
    std::vector<Anomaly> analysed;  ///< anomaly_analyse.json as msprobe ranked it (file order)
    std::vector<FileError> errors;
    /// Metrics (file prefixes) in first-seen order, with their numeric statistics.
    std::vector<std::pair<QString, QStringList>> metrics() const;
    std::vector<int> ranks() const;
};

/// Opens a monitor output folder (or one CSV / anomaly JSON file): v1 and v2 rank folders up to
/// three levels below, anomaly_detected/. Fails when nothing of the monitor is there. Never writes.
Result<MonitorDocument> openMonitor(const QString &path);
bool looksLikeMonitor(const QString &path);

/// One cell of the Trends view: the value of `stat` of `module` at `step` on `rank`.
struct TrendPoint
{
    std::int64_t step = 0;
    int rank = 0;
    QString module;
    double value = 0;
    /// An anomaly of this rank, step, module and metric. Every statistic of the cell is marked:
    /// msprobe keys an anomaly by tag, step and call id (GradAnomalyData.get_key), so a later
    /// statistic that fired replaces an earlier one and the message names only the last.
    bool anomaly = false;
};
/// The points of one metric and statistic, over every table of that metric; micro steps of a
/// step are reduced to their last one (the value the step ended with).
std::vector<TrendPoint> trendPoints(const MonitorDocument &doc, const QString &metric, const QString &stat);

/// The JSON of `dumpscope-cli monitor`.
QJsonObject monitorJson(const MonitorDocument &doc);

} // namespace ds::monitor
