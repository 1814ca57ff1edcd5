#pragma once

#include "compare.h"
#include "msprobecells.h"

#include <QByteArray>
#include <QStringList>
#include <functional>

namespace ds {

/// Which columns a report holds.
enum class ReportStyle : std::uint8_t {
    DumpScope, ///< msprobe 26's columns for the mode, then msaccucmp's (tensor mode) and DumpScope's own
    Msprobe,   ///< msprobe 26's columns only: the table `msprobe compare` writes for the same pair
};

/// The report header: msprobe 26's columns for the mode (msprobeHeader; NPU_Stack_Info when the
/// NPU dump has stacks), then, in the DumpScope style, msaccucmp's algorithm columns (tensor
/// mode) and DumpScope's Verdict, ReasonCode, MatchSource, NPU Saturated Count and Notes.
QStringList compareCsvHeader(CompareMode mode, ReportStyle style = ReportStyle::DumpScope, bool stack = false);
/// True when the NPU index holds call stacks (msprobe stack.json): the NPU_Stack_Info column.
bool reportHasStack(const DumpIndex &npu);
/// Calls fn with the typed cells of every row, in compareCsvHeader's order.
void forEachReportRow(const DumpIndex &npu, const DumpIndex &bench, const CompareResult &result, ReportStyle style,
                      const std::function<void(const std::vector<MsCell> &)> &fn);
/// One CSV line of the report (fields quoted as the report quotes them), with its newline.
QByteArray csvLine(const QStringList &cells);
/// The CSV report (msprobe's number formatting and placeholders), header first.
QByteArray compareCsv(const DumpIndex &npu, const DumpIndex &bench, const CompareResult &result,
                      ReportStyle style = ReportStyle::DumpScope);
/// The JSON report of `dumpscope-cli compare --json` (docs/COMPARE.md).
QByteArray compareJson(const DumpIndex &npu, const DumpIndex &bench, const CompareResult &result);

/// A metric cell as msprobe prints it: "Nan", "unsupported", "N/A", "shape unmatched", or the
/// number with `decimals` digits after the point (-1: shortest round-trip form).
QString formatMetric(const MetricValue &v, int decimals = -1);

} // namespace ds
