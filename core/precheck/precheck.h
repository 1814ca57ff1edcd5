#pragma once
// msprobe's API precheck results (acc_check / multi_acc_check and api_precision_compare,
// issue 33 item 2): the four CSV tables and the failed-API tensors of -save_error_data, read as
// a document. Files, columns and msprobe sources: ../shared/specs/msprobe-outputs.md §2.7,
// README "precheck".

#include "compare/pairdetail.h"
#include "compare/pairmetrics.h"
#include "dump/loadedtensor.h"
#include "util/error.h"

#include <QByteArrayView>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace ds::precheck {

/// A verdict as msprobe writes it (CompareConst.PASS/WARNING/ERROR/SKIP: `pass`, `warning`,
/// `error`, `SKIP`). `None` is an empty cell (an API without backward); `Unknown` a word msprobe
/// does not write (reported as an error of the table).
enum class Status : std::uint8_t { None, Pass, Warning, Error, Skip, Unknown };
/// msprobe's word ("pass", "warning", "error", "SKIP", "" for None, "?" for Unknown).
QString statusWord(Status s);
/// Reads a cell: msprobe's words (any case; surrounding spaces ignored; " " is None) and the
/// TRUE/FALSE of older run_ut result tables (pass/error). Unknown otherwise.
Status parseStatus(const QString &cell);
/// The worse of two: Error > Warning > Pass > Skip > None (Unknown counts as Error).
Status worse(Status a, Status b);

enum class TableKind : std::uint8_t {
    Result,           ///< accuracy_checking_result_{ts}.csv: API name, Forward/Backward Test Success, Message
    Details,          ///< accuracy_checking_details_{ts}.csv: one row per API output with every metric
    PrecisionResult,  ///< api_precision_compare_result_{ts}.csv
    PrecisionDetails, ///< api_precision_compare_details_{ts}.csv: NPU/GPU ratios and per-standard verdicts
};
/// The file name stem msprobe gives the kind ("accuracy_checking_result", ...).
QString tableKindName(TableKind kind);

/// One column msprobe writes, what it means and the threshold msprobe applies to it (from
/// msprobe's docs pytorch_accuracy_checker_instruct.md, "Pre-check Result Description" and
/// "Pre-check Result Comparison"). `meaning` and `threshold` are English source texts for
/// QCoreApplication::translate("ds::precheck", ...).
struct ColumnInfo
{
    const char *name;
    const char *meaning;
    const char *threshold; ///< empty when the column has none
    bool required = false; ///< the table cannot be read without it
};
/// Every column of `kind` in msprobe's order (compare_utils.py DETAIL_TEST_ROWS and
/// ApiPrecisionCompareColumn; compare.py write_csv_title), plus the optional stack column.
const std::vector<ColumnInfo> &tableColumns(TableKind kind);
/// The column's entry, or nullptr for a name msprobe does not write in `kind`.
const ColumnInfo *columnInfo(TableKind kind, const QString &name);

/// One row: an API (result tables) or one output of an API (details tables).
struct PrecheckRow
{
    QString api;    ///< "Tensor.__mul__.7"
    QString output; ///< details: "forward.output.0"; empty in result tables
    Status forward = Status::None, backward = Status::None; ///< result tables
    Status status = Status::None; ///< details: Status / 比对结果; result tables: the worse of both
    QStringList cells; ///< every header column, padded with "" where msprobe left the row short
    int line = 0;      ///< 1-based line in the file
};

struct PrecheckTable
{
    TableKind kind = TableKind::Result;
    QString file; ///< as shown (relative to the opened folder)
    QStringList header;
    std::vector<PrecheckRow> rows;
    /// Bad rows (left out), bad cells and unknown columns (kept), each naming the file, the line
    /// and the column.
    std::vector<FileError> errors;
    int count(Status s) const;
    /// The column index of `name`, -1 when absent.
    int column(const QString &name) const { return int(header.indexOf(name)); }
};

/// Parses the bytes of one table. Fails (naming the file) on text that is not CSV, an empty
/// file, or a header that is not one of msprobe's four tables (a table of another tool, a
/// required column missing: the message names the missing columns).
Result<PrecheckTable> parsePrecheckTable(QByteArrayView bytes, const QString &file);
/// Reads `path`; errors name `shownName`.
Result<PrecheckTable> readPrecheckTable(const QString &path, const QString &shownName);
/// accuracy_checking_{result,details}_*.csv, api_precision_compare_{result,details}_*.csv.
bool isPrecheckTableName(const QString &fileName);

/// The saved outputs of one failed API output (acc_check -save_error_data, acc_check.py
/// do_save_error_data: `{api}.{forward|backward}.output.{bench|device}.{i}.pt` and the inputs
/// `{api}.{forward|backward}.input.{i}.pt` in ut_error_data{ts}/).
struct FailedPair
{
    QString api;       ///< "Tensor.__mul__.7"
    QString direction; ///< "forward" or "backward"
    int index = 0;     ///< output index: matches the details row "{api}.{direction}.output.{index}"
    QString benchFile, deviceFile; ///< relative to the opened folder; one may be empty
    QStringList inputFiles;        ///< the API's inputs of that direction, by index
    QString output() const { return direction + QStringLiteral(".output.") + QString::number(index); }
};

/// The failed-API tensors of every ut_error_data* folder in or below `dir` (two levels), in
/// API order; files whose names do not follow msprobe's pattern are left out.
std::vector<FailedPair> findFailedPairs(const QString &dir, const QString &shownPrefix = {});

/// Everything found at one path: a table file, or a folder holding tables and ut_error_data*.
struct PrecheckDocument
{
    QString root; ///< the opened folder (a file's folder); paths below are relative to it
    std::vector<PrecheckTable> tables;
    std::vector<FailedPair> failed;
    std::vector<FileError> errors; ///< tables that could not be read, and the tables' own errors
};

/// Opens a table file or a folder (tables in it and one level below; ut_error_data* beside
/// them). Fails when the path holds none of them. Never writes.
Result<PrecheckDocument> openPrecheck(const QString &path);
/// True when `path` is a precheck table or a folder holding one or a ut_error_data* folder.
bool looksLikePrecheck(const QString &path);

/// DumpScope's own comparison of a failed pair: device as the NPU side, bench as the bench.
struct PairComparison
{
    int benchType = 0, deviceType = 0; ///< DataType of each file
    Shape benchShape, deviceShape;
    PairMetrics metrics;
    PairDetail detail;
    /// |device - bench| per element as float32 in the device's shape, for a heatmap; null when
    /// the pair has more than kMaxErrorTensorElements elements.
    std::shared_ptr<const LoadedTensor> absError;
};
inline constexpr size_t kMaxErrorTensorElements = size_t(16) << 20; // 64 MiB of float32
/// Loads both .pt files (the safe pickle subset of core/formats/torch) and compares them
/// element by element. Errors name the file.
Result<PairComparison> compareFailedPair(const QString &root, const FailedPair &pair, const JobControl *job = nullptr);

/// The JSON of `dumpscope-cli precheck`: tables (kind, file, header, rows with cells, counts),
/// the columns' meanings and thresholds, failed pairs (with `comparisons[i]` when given) and errors.
QJsonObject precheckJson(const PrecheckDocument &doc, const std::vector<std::optional<Result<PairComparison>>> &comparisons = {});

} // namespace ds::precheck
