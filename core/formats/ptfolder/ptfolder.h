#pragma once

#include "dump/indexpart.h"
#include "util/cancel.h"

#include <QHash>
#include <QString>
#include <QStringList>

#include <cstddef>
#include <cstdint>

namespace ds::ptfolder {

/// Where the tensors of one loose `.pt` file go, from its name alone.
struct PtName
{
    QString op;     ///< the operator the file belongs to (its name without ".pt" when not grouped)
    QString tensor; ///< the tensor's leaf name ("input.0", "output", "input_kwargs.dim"); "" when not grouped
    IoKind io = IoKind::Output;
    bool grouped = false; ///< the name follows msprobe's `{entry}.{input|output|...}[.{path}]` naming
};

/// msprobe's tensor file naming (dump_tensor_data `{entry}.{input|output|parameters|kwargs}.{path}`,
/// aclgraph `tensor_data/{api}.{call}.{input|input_kwargs|output}[.{i}]`, msaccucmp
/// `convert -t pt` `{dump name}.{input|output}.{n}`): the last dot-separated word that is a
/// category (input, input_args, input_kwargs, kwargs, output, parameters, parameters_grad)
/// and is not the first word splits the operator from the leaf. Any other name is one
/// operator of its own (acl_save `{base}_{seq}`, `parse -t pt` `{bin name}`, state dicts).
PtName splitPtName(const QString &fileName);

/// Adds the tensors of one `.pt` file held in memory (`rel`: its path under the index root,
/// `fileName` its name) to `part`: grouped files join the operator of `groupOf`; a file of
/// several tensors (a state dict, a tuple) gives one tensor per key path ("fc1.weight",
/// "output.0" + ".1"). Reads the pickle with the safe subset of formats/torch: an unsafe
/// global or a bad archive becomes an error naming `rel`, and nothing of that file is added.
void addPtFile(IndexPart &part, QHash<QString, size_t> &groupOf, const QString &rel, const QString &fileName,
               const std::byte *data, std::uint64_t size, const SharedLevels &levels, std::uint64_t order);

/// Indexes the `.pt` files directly inside `rootDir/relDir` (not its subdirectories), or only
/// `files` (names in that directory) when given, in natural name order. Fails only when the
/// directory cannot be listed or the job was cancelled.
Result<IndexPart> indexDir(const QString &rootDir, const QString &relDir, const DumpLevels &levels, const JobControl *job = nullptr,
                           const QStringList &files = {});

} // namespace ds::ptfolder
