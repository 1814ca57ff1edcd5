#pragma once

#include "util/error.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <string>
#include <utility>
#include <vector>

namespace ds {

/// One answer of msprobe `overflow_check` (anomaly_analyze_{timestamp}.json, overflow.md §11):
/// per rank, the anomaly node(s) msprobe found first, with their call stack and parents.
struct MsprobeAnomaly
{
    QString rank;   ///< the file's key: "rank_1"
    QString opName; ///< "Torch.exp.0.forward"
    QStringList construct, stack;
    /// data_info's members (input_args, input_kwargs, output; input, output) as Python's
    /// json.dumps writes them: the dump.json entry msprobe copied them from (findAnomalyDump).
    std::vector<std::pair<std::string, std::string>> data;
};

/// `anomaly_analyze_*.json` (msprobe's name for overflow_check's answer).
bool isAnomalyAnalyzeName(const QString &fileName);

/// Reads msprobe's `{"rank_R": [{"op_name": ..., "data_info": ..., "construct_info": [...],
/// "stack_info": [...]}, ...], ...}` (bare NaN/Infinity tokens accepted). Errors name `shown`
/// and what is wrong (not JSON, not an object of rank lists, an entry without op_name).
Result<std::vector<MsprobeAnomaly>> parseAnomalyAnalyze(const QByteArray &text, const QString &shown);
Result<std::vector<MsprobeAnomaly>> readAnomalyAnalyze(const QString &path);

/// The dump overflow_check read, found beside its answer (msprobe `overflow_check -i STEP -o OUT`
/// records neither path: -i is a folder of rank{R} dumps, -o defaults to ./output): folders
/// holding rank{R}/dump.json in the file's folder, below it and up to four folders above it
/// (never the file system root or the home folder), nearest first. A folder is taken only when,
/// for every rank the file lists, rank{R}/dump.json has the op with the very data_info msprobe
/// copied from it (so a tensor dump and a statistics dump of the same run are told apart).
/// Ties at the same distance go to the folder whose path shares most words with the file's (then has
/// the fewest other words).
struct AnomalyDump
{
    QString path;      ///< the step folder, empty when none fits
    QString how;       ///< one sentence: where it was found, or that none was and how to give it
    QStringList notes; ///< other folders that fit too, folders too big to read
};
AnomalyDump findAnomalyDump(const QString &file, const std::vector<MsprobeAnomaly> &anomalies);

} // namespace ds
