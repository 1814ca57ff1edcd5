#pragma once
// msprobe `compare -da` answers read back (issue 33, item 1): diff_analyze_{time_ns}.json (the
// first differing op of each rank with a finding, ordered by communication ops;
// find_first/analyzer.py:276-281) and compare_result_rank{R}_{ts}.json (per entry is_same and
// op_items with every column of the statistics compare; acc_compare.py:137-138,196-206).
// DumpScope's own answer beside it: run/firstdiffanswers.h.

#include "resulttable.h"
#include "util/error.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

namespace ds {

/// msprobe's first differing op of one rank.
struct MsprobeFirstDiff
{
    QString rank;     ///< "rank_0" (diff_analyze's key; from the file name for compare_result_rank{R})
    QString opName;   ///< "Functional.linear.0.forward"
    QStringList rows; ///< the op's rows msprobe lists (data_info input then output; op_items)
    QStringList stack;
};

/// One -da file.
struct DiffAnalyzeFile
{
    enum class Kind : std::uint8_t { DiffAnalyze, CompareResult };
    Kind kind = Kind::DiffAnalyze;
    QString path;
    /// DiffAnalyze: the file's entries in its order. CompareResult: the first entry with
    /// is_same false (msprobe's ignored ops Torch.empty, Torch.fill, Tensor.__setitem__ skipped),
    /// none when every entry is the same.
    std::vector<MsprobeFirstDiff> diffs;
    int entries = 0, differing = 0; ///< CompareResult: entries and entries with is_same false
    /// CompareResult: the op_items as a table with msprobe's columns (cells as its CSV writes
    /// them), used to find the dumps beside the file (findTableDumps).
    TextTable table;
};

bool isDiffAnalyzeName(const QString &fileName);           ///< diff_analyze_*.json
bool isCompareResultJsonName(const QString &fileName);     ///< compare_result_rank*.json (-da's per-rank file)
inline bool isFirstDiffJsonName(const QString &fileName) { return isDiffAnalyzeName(fileName) || isCompareResultJsonName(fileName); }

/// Parses a diff_analyze JSON: `{"rank_R": [{"op_name", "data_info": {"input": {row: ...},
/// "output": {...}}, "stack_info": [...]}, ...]}`. Errors name `shown` and what is wrong.
Result<DiffAnalyzeFile> parseDiffAnalyze(const QByteArray &text, const QString &shown);
/// Parses a compare_result_rank{R}_{ts}.json: `{entry: {"is_same": bool, "op_items": [{column:
/// value}, ...]}}`. Errors name `shown` and the entry.
Result<DiffAnalyzeFile> parseCompareResultJson(const QByteArray &text, const QString &shown);
/// Reads either kind (by the file name; a name of neither kind is read by its content).
Result<DiffAnalyzeFile> readFirstDiffFile(const QString &path);

} // namespace ds
