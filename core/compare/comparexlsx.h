#pragma once

#include "comparereport.h"

#include <functional>
#include <vector>

namespace ds {

/// Writes the report as an .xlsx workbook the way msprobe 26's `compare --xlsx` does (its
/// pandas/openpyxl output): one sheet "Sheet1" (above 1,048,500 rows, sheets "part_0", ...), a
/// bold, centred, thin-bordered header row, strings, numbers and booleans as msprobe's table
/// holds them, and no highlighted cells (msprobe 26 writes none). Non-finite numbers are written
/// as the strings "inf", "-inf" and "nan" (Excel has no such numbers). The file is written next to
/// `path` and renamed over it. Returns an error text, empty on success.
QString writeCompareXlsx(const QString &path, const DumpIndex &npu, const DumpIndex &bench, const CompareResult &result,
                         ReportStyle style = ReportStyle::DumpScope);

/// Receives the typed cells of one row, in the header's order.
using ReportRowSink = std::function<void(const std::vector<MsCell> &)>;
/// The same workbook from rows assembled elsewhere (a run compared scope by scope): `columns`
/// is the header, `rowCount` the number of rows `rows` passes to its sink, in order.
QString writeCompareXlsx(const QString &path, const QStringList &columns, size_t rowCount,
                         const std::function<void(const ReportRowSink &)> &rows);

} // namespace ds
