#pragma once
// msprobe's compare tables read back as a comparison (issue 33, item 1): compare_result*.csv
// and .xlsx of every mode (tensor, statistics, md5; per-rank files; _part_N splits; MindSpore
// kernel compares; debug_compare_*) fill the same CompareResult a computed compare does, so the
// JSON, the table model, its filters and the first divergence work on both (docs/COMPARE.md
// "Opening msprobe's tables").

#include "compare.h"
#include "util/error.h"

#include <QByteArrayView>
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

namespace ds {

/// The cells of a table file as text, with the file line each row started on (a quoted cell
/// may span lines).
struct TextTable
{
    QString path;
    QStringList header;
    std::vector<QStringList> rows;
    std::vector<int> lines; ///< file line (1-based) of each row; the header is on line 1
    QString sheet;          ///< xlsx: the sheet the rows came from
};

/// Parses CSV text as pandas' to_csv writes it (RFC 4180: "," separated, fields with , " or a
/// line break quoted, "" for a quote; an optional UTF-8 BOM; \n or \r\n). Errors name `path`,
/// the line and the column: a quoted field that never ends, a quote inside an unquoted
/// field, a row with another number of fields than the header, text that is not UTF-8.
Result<TextTable> parseCsvTable(QByteArrayView bytes, const QString &path);
/// Reads and parses a CSV file (parseCsvTable).
Result<TextTable> readCsvTable(const QString &path);
/// The rows of an .xlsx workbook (every sheet in workbook order: msprobe's part_0, part_1, ...
/// continue one table): shared strings, inline strings, numbers and booleans as text, numbers
/// as Python's repr() would print them. Errors name the file, the sheet and the cell.
Result<TextTable> readXlsxTable(const QString &path);

/// True when the file name is one msprobe gives its compare tables (compare_result*,
/// debug_compare_result*, with .csv or .xlsx).
bool isCompareTableName(const QString &fileName);

/// The scope a table was written for: the rank from compare_result_rank{R}_ (or MindSpore's
/// compare_result_{rank}_{step}_{ts}), the step from a step{N} folder up to three levels above it.
DumpLevels compareTableLevels(const QString &path);

/// A compare table opened as a comparison.
struct OpenedTable
{
    /// The NPU and bench sides: the dumps the table was linked to, or, without them, indexes
    /// made from the table's own names, dtypes, shapes, statistics and checksums (no data).
    std::shared_ptr<const DumpIndex> npu, bench;
    std::shared_ptr<const CompareResult> result;
    bool linked = false; ///< rows name tensors of real dumps (npu and bench were given)
    int unlinkedRows = 0; ///< linked: rows whose NPU name the NPU dump does not hold
};

/// The comparison a table holds: one row per table row, in the table's order, with msprobe's
/// cells (metrics, statistics, checksums), its Result and Err_message; each row's verdict is
/// its Result (pass / warning / error; MindSpore's "Accuracy Reached or Not": Yes pass, No
/// error) and the first divergence is found from those in the table's order. With `npu` and
/// `bench` (the dumps the table was written from), rows link to their tensors by name.
/// Errors name the file, the row and the column (missing columns, a table of another tool,
/// a cell that is not what the column holds).
Result<OpenedTable> openedTableFrom(const TextTable &table, std::shared_ptr<const DumpIndex> npu = nullptr,
                                    std::shared_ptr<const DumpIndex> bench = nullptr);
/// Reads a .csv or .xlsx table (by its extension) and opens it (openedTableFrom).
Result<OpenedTable> openCompareTable(const QString &path, std::shared_ptr<const DumpIndex> npu = nullptr,
                                     std::shared_ptr<const DumpIndex> bench = nullptr);

} // namespace ds
