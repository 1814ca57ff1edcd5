#pragma once
// The dumps an msprobe compare table was written from, found beside it (issue 33, item 1):
// msprobe writes its table into the output folder of `msprobe compare`, so the dumps are the
// ones named by the compare JSON it was given (`-i compare.json`: npu_path, bench_path) when
// that file is kept beside the table, or else msprobe dump folders (dump.json in the table's
// step/rank) near it. A candidate is taken only when every row's tensor is in it with the
// table's values (NPU columns for the NPU dump, Bench columns for the bench dump); see
// docs/COMPARE-TABLES.md "Opening msprobe's tables".

#include "resulttable.h"

#include <QString>
#include <QStringList>
#include <memory>

namespace ds {

struct JobControl;

/// How a table's dumps were found (or why none were).
struct TableDumps
{
    std::shared_ptr<const DumpIndex> npu, bench;
    QString how;       ///< one sentence: where they came from, or that none was found and how to give them
    QStringList notes; ///< ties and candidates that did not fit, in words
    bool found() const { return npu && bench; }
};

/// Looks for the NPU and bench dumps of `table` (its path names the folder): first a compare
/// JSON (`{"npu_path", "bench_path", ...}`, msprobe's `-i` input) in the table's folder or
/// the one above, then msprobe dump folders in the table's scope (rank, step) below the
/// table's folder and up to four folders above it (never the file system root or the home
/// folder itself), nearest first, stopping at the nearest folder that holds any (and never
/// descending into a folder of more than 200 subfolders, at most 2,000 folders in all). Each candidate is indexed and kept only when it holds every
/// row of its side with the table's dtype and statistics (md5: its CRC). Ties (two dumps with
/// the same values) are broken by the folder names (npu / bench, base, gpu, golden, cpu) and
/// by the words the dump's path shares with the table's, and said in `notes`. Reads only.
TableDumps findTableDumps(const TextTable &table, const JobControl *job = nullptr);

/// Reads a table and opens it linked to `npu`/`bench` when given, else to the dumps found
/// beside it (findTableDumps); the result's `tableDumps` says which and how.
Result<OpenedTable> openCompareTableWithDumps(const QString &path, std::shared_ptr<const DumpIndex> npu = nullptr,
                                              std::shared_ptr<const DumpIndex> bench = nullptr,
                                              const JobControl *job = nullptr);

} // namespace ds
