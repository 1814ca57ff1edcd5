#pragma once

#include <QString>

namespace ds {

/// `dumpscope-cli precheck PATH [--json]`: msprobe's API precheck results (acc_check and
/// api_precision_compare tables, ut_error_data* failed-API tensors) at PATH, a table file or a
/// folder; each failed API's device output compared with its bench output by DumpScope.
/// Exit 0, 1 when a file could not be read (the rest is still printed), 3 when PATH is missing.
int runPrecheckCommand(const QString &path, bool json);

/// `dumpscope-cli monitor PATH [--json]`: msprobe's training monitor output (v1 and v2 CSVs,
/// anomaly.json, anomaly_analyse.json) as series over step x module x rank and the anomalies in
/// msprobe's order. Exit codes as precheck.
int runMonitorCommand(const QString &path, bool json);

/// `dumpscope-cli overflow anomaly_analyze_*.json [--npu DUMP] [--json]`: msprobe
/// overflow_check's answer (the first anomaly node of each rank, its stack); with --npu, the
/// dump it was computed from, DumpScope's own first anomaly of each rank beside it. Exit 0,
/// 1 when the file (or the dump) cannot be read, 3 when a path is missing.
int runAnomalyAnalyzeCommand(const QString &path, const QString &dump, bool json);

/// `dumpscope-cli compare FILE.json [--npu A --bench B] [--json]`: msprobe `compare -da`'s answer
/// (diff_analyze_*.json: the first differing op of each rank; compare_result_rank*.json: that
/// rank's first entry with is_same false) and, when the dumps are given or found beside the
/// file, DumpScope's own first divergence of each rank beside it ("the same" / "differs").
/// Exit 0, 1 when the file cannot be read, 2 on usage errors, 3 when a path is missing.
int runDiffAnalyzeCommand(const QString &path, const QString &npu, const QString &bench, bool json);

} // namespace ds
