#pragma once

// `dumpscope-cli compare NPU_PATH BENCH_PATH [--mapping FILE] [--fuzzy] [--json] [--csv FILE]
//                       [--xlsx FILE] [--style dumpscope|msprobe] [--fail-on error|warning]
//                       [--thresholds FILE] [--mode tensor|summary|md5]`
//
// Finds the run under each path (core/run: steps x ranks of scopes; a folder holding several
// runs is refused), then indexes and compares the runs scope by scope (any format buildIndex
// reads; docs/COMPARE.md). Text output: the run-level answer in one line ("runs agree up to
// step N; first divergence: step N+1, rank R, op X"), counts, the first divergence per scope
// and every row that is not a pass; --json prints the JSON report instead (with the `run`
// object); --csv / --xlsx write msprobe 26's table (--style msprobe: only its columns; never
// inside either dump directory).
//
// Exit codes: 0 compared; 1 a report could not be written; 2 usage error (bad option value,
// unreadable mapping or thresholds file, report path inside a dump, a path holding several
// runs); 3 a path does not exist;
// 4 --fail-on given and some row reached that verdict.

#include <QString>

namespace ds {

struct CompareCommand
{
    QString npuPath, benchPath;
    QString mappingFile, csvFile, thresholdsFile;
    QString failOn; ///< "", "error" or "warning"
    QString mode;   ///< "", "tensor", "summary" or "md5"
    bool fuzzy = false, json = false, quiet = false;
    QString xlsxFile;
    QString style;  ///< "", "dumpscope" or "msprobe"
};

int runCompareCommand(const CompareCommand &c);

} // namespace ds
