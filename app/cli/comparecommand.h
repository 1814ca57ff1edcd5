#pragma once

// `dumpscope-cli compare NPU_PATH BENCH_PATH [--mapping FILE] [--fuzzy] [--json] [--csv FILE]
//                       [--xlsx FILE] [--style dumpscope|msprobe] [--fail-on error|warning]
//                       [--thresholds FILE] [--mode tensor|summary|md5]`
//
// Indexes both paths (any format buildIndex reads), matches the bench rows to the NPU rows
// and compares them (docs/COMPARE.md). Text output: counts, the first divergence per scope
// and every row that is not a pass; --json prints the JSON report instead; --csv / --xlsx write
// msprobe 26's table (--style msprobe: only its columns; never inside either dump directory).
//
// Exit codes: 0 compared; 1 a report could not be written; 2 usage error (bad option value,
// unreadable mapping or thresholds file, report path inside a dump); 3 a path does not exist;
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
