#pragma once

#include "dump/indexpart.h"
#include "util/cancel.h"

#include <QString>

namespace ds::npyfolder {

struct NpyFolderOptions
{
    /// Decode "|V2" items as bfloat16 (the user confirmed it); otherwise they are uint16.
    bool v2AsBfloat16 = false;
};

/// Indexes the .npy files directly inside `rootDir/relDir` (not its subdirectories):
/// - msaccucmp / MindSpore conversion output `{op_type}.{op_name}.{task}[.{stream}].{timestamp}
///   .{input|output}.{n}[.{format}[.{dtype}]].npy` is grouped back into one OpRecord per
///   operator (relPath `relDir/{dump name}`), inputs and outputs indexed by n;
/// - every other .npy (MindSpore `{name}_{dtype}_{count}.npy`, anything else) becomes one
///   operator with one output (relPath = the file).
/// Only headers are read. A file whose header is bad becomes a FileError; the rest still index.
/// Fails only when the directory cannot be listed or the job was cancelled.
Result<IndexPart> indexDir(const QString &rootDir, const QString &relDir, const DumpLevels &levels,
                               const JobControl *job = nullptr, const NpyFolderOptions &options = {});

/// Cheap check: `dir` holds at least one file whose name ends in ".npy" and which starts with
/// the .npy magic, and neither `dir` nor its parent holds a dump.json or dump.pkl (then the
/// .npy files belong to an msprobe / ptdbg dump).
bool looksLikeNpyFolder(const QString &dir);

} // namespace ds::npyfolder
