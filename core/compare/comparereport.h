#pragma once

#include "compare.h"

#include <QByteArray>
#include <QStringList>

namespace ds {

/// The CSV header for a report mode: msprobe's columns (compare.md §10.1: real data, summary
/// or MD5), then msaccucmp's algorithm columns (tensor mode), then DumpScope's Verdict,
/// ReasonCode, MatchSource and NPU Saturated Count (§10.4).
QStringList compareCsvHeader(CompareMode mode);
/// One CSV line per row in result.mode's columns; msprobe number formatting (§3.3, §9).
QByteArray compareCsv(const DumpIndex &npu, const DumpIndex &bench, const CompareResult &result);
/// The JSON report of `dumpscope-cli compare --json` (docs/COMPARE.md).
QByteArray compareJson(const DumpIndex &npu, const DumpIndex &bench, const CompareResult &result);

/// A metric cell as msprobe prints it: "Nan", "unsupported", "N/A", "shape unmatched", or the
/// number with `decimals` digits after the point (-1: shortest round-trip form).
QString formatMetric(const MetricValue &v, int decimals = -1);

} // namespace ds
