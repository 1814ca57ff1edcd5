#pragma once

#include <QString>

namespace ds {

/// `dumpscope-cli compare NPU BENCH --ms-graph DIR`: msprobe's MindSpore graph compare of two
/// MindSpore kernel dump trees (core/compare/msgraphcompare.h), one
/// `compare_result_{rank}_{step}.csv` per rank and step in DIR (created; never inside a dump),
/// with a line per table on stdout. Returns the process exit code.
int runMsGraphCommand(const QString &npuPath, const QString &benchPath, const QString &outDir, bool quiet);

} // namespace ds
