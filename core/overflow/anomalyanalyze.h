#pragma once

#include "util/error.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <vector>

namespace ds {

/// One answer of msprobe `overflow_check` (anomaly_analyze_{timestamp}.json, overflow.md §11):
/// per rank, the anomaly node(s) msprobe found first, with their call stack and parents.
struct MsprobeAnomaly
{
    QString rank;   ///< the file's key: "rank_1"
    QString opName; ///< "Torch.exp.0.forward"
    QStringList construct, stack;
};

/// `anomaly_analyze_*.json` (msprobe's name for overflow_check's answer).
bool isAnomalyAnalyzeName(const QString &fileName);

/// Reads msprobe's `{"rank_R": [{"op_name": ..., "data_info": ..., "construct_info": [...],
/// "stack_info": [...]}, ...], ...}` (bare NaN/Infinity tokens accepted). Errors name `shown`
/// and what is wrong (not JSON, not an object of rank lists, an entry without op_name).
Result<std::vector<MsprobeAnomaly>> parseAnomalyAnalyze(const QByteArray &text, const QString &shown);
Result<std::vector<MsprobeAnomaly>> readAnomalyAnalyze(const QString &path);

} // namespace ds
