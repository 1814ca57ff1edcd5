#pragma once

#include "records.h"

#include <QStringList>

namespace ds {

/// Classifies the directory components above a CANN dump file into the levels of
/// cann-dump.md §2.2 (time, device, model_name, model_id, data_index). `components` are the
/// directory names from the outermost to the file's own directory.
DumpLevels classifyLevels(const QStringList &components);

/// The step{N} / rank{R} / rank / proc{pid} levels of a framework dump directory (msprobe.md §2),
/// and the spellings of other producers: step_{N} (verl), rank_{id} (MindSpore), pid{pid} (aclgraph).
/// Below a MindSpore jit split's `graph/` or `pynative/` folder, that folder is the part.
DumpLevels frameworkLevels(const QString &absDir);

/// "graph" or "pynative": the folders of MindSpore's jit split (`dump_path/{graph,pynative}/step{N}/rank{R}`),
/// which frameworkLevels() puts in DumpLevels::part; the run is the folder above them.
bool isJitModeName(const QString &name);

/// True for rank directory names: rank, rank{N}, rank_{N}, proc{pid}, pid{pid}.
bool isRankDirName(const QString &name);

/// Orders level values numerically when both are all digits ("9" < "10"), else as text.
int compareNumericAware(const QString &a, const QString &b);

/// Execution order of directories: the levels outermost first, numeric-aware.
bool levelsBefore(const DumpLevels &a, const DumpLevels &b);
bool sameLevels(const DumpLevels &a, const DumpLevels &b);

bool allDigits(const QString &s);

/// The run a claimed directory (or file) belongs to, as a path relative to the opened folder
/// ("" = the opened folder itself): the folder above the step/rank levels of a framework dump
/// (`experiments/npu_bf16` for `experiments/npu_bf16/step0/rank0`), the folder above the time
/// level of a CANN tree (`npu` for `npu/20200808163566/0/ge_default/1/0`), else the opened
/// folder. `relPath` is relative to the opened folder, `levels` are the claim's.
QString runRootOf(const QString &relPath, const DumpLevels &levels);

/// The id of the scope a record with these levels belongs to: its step, rank, device and
/// iteration levels joined by '/', e.g. "step0/rank1" (msprobe), "device0/iteration3" (CANN),
/// "" when the dump has none of them (the whole run is one scope).
QString scopeIdOf(const DumpLevels &levels);

} // namespace ds
