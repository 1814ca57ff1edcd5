#pragma once

#include "dump/dumpindex.h"
#include "dump/indexpart.h"
#include "formats/h5/h5protocol.h"
#include "util/cancel.h"

#include <QString>
#include <vector>

namespace ds::h5dumper {

/// Indexes a torch.utils.dumper .h5 file (h5-dumper.md): `/{op}/{seqId}/{input|output}/{arg}`
/// with list arguments as groups of `{arg}_{i}` datasets. One OpRecord per (op, seqId), in seqId
/// order (OpRecord::timestamp = seqId), relPath `relPath/{op}/{seqId}`, dataFile `relPath`.
/// Tensor datasets (Type 0) become H5Dataset leaves named after the argument ("mat1",
/// "tensors.1"), location = the dataset path: dataType from the stored type as the DataType
/// attribute reinterprets it (uint8 and bool written as int8), typeName the dumper's dtype
/// ("float16 (stored as float32)"), format = the FormatType attribute (informational: the data
/// is in logical layout; 2 when absent). Non-tensor values (Type VEC_I64, I64, BOOL, ...) become
/// Value leaves with typeName "int[] (VEC_I64)" etc. and the value as Python would print it.
/// Leaves are indexed per direction in link order (by name unless creation order is tracked;
/// list members by their numeric suffix). Writer defects and odd strides become op warnings.
/// Only attributes and small non-tensor values are read. A file that is not HDF5 and objects
/// that do not fit the layout become FileErrors naming the file and the object path; the rest
/// of the file still indexes. Fails only when cancelled.
///
/// libhdf5 runs in a dumpscope-h5worker process (h5isolate.h; indexFileInProcess there): a
/// crash or sanitizer abort inside the library on a damaged file becomes one FileError naming
/// the file ("HDF5 library crashed while reading this file (signal 11, SIGSEGV); ..."), and
/// cancelling kills the worker, so a file that makes the library loop can still be cancelled.
Result<IndexPart> indexFile(const QString &rootDir, const QString &relPath, const DumpLevels &levels,
                                const JobControl *job = nullptr);

/// indexFile() in this process (what the worker runs; the fuzz harness calls it for
/// coverage). A damaged file can crash the process inside libhdf5: product code calls indexFile().
Result<IndexPart> indexFileInProcess(const QString &rootDir, const QString &relPath, const DumpLevels &levels,
                                         const JobControl *job = nullptr);

/// Cheap check: the HDF5 superblock signature at offset 0, 512, 1024, 2048, ... .
bool looksLikeHdf5(const QString &path);

struct ExportOptions
{
    bool force = false; ///< replace an existing output file
};

/// Writes the selected operators (indexes into index.ops, all TorchH5) into a NEW .h5 file
/// with the same layout and attributes: each `/{op}/{seqId}` group is copied with everything
/// below it, like `h5copy -s /op/seqId/ -d /op/seqId/` (h5-dumper.md §6). Written to a
/// temporary name in the target directory and renamed, so a failed export leaves nothing.
/// Refuses to overwrite unless options.force and refuses to write inside index.rootDir.
/// Returns the number of operators written.
///
/// The copying runs in a dumpscope-h5worker too (copyGroupsInProcess there): H5Ocopy reads
/// every byte of the selected groups of a file the user opened, far more than indexing read,
/// so a damaged source must not be able to crash DumpScope; the checks above, the temporary
/// file and the rename stay here, so a crashed or cancelled worker leaves no file behind.
Result<int> exportOps(const DumpIndex &index, const std::vector<int> &ops, const QString &outFile,
                      const ExportOptions &options = {}, const JobControl *job = nullptr);

/// The worker's half of exportOps: creates request.outPath and copies each source's groups
/// into it (progress per group).
h5::ExportAnswer copyGroupsInProcess(const h5::ExportRequest &request, const JobControl &job);

// Decoders of the spec tables (h5-dumper.md §3, §4).

/// DataType attribute code -> our DataType (Float 1, Byte 2, Char 3, Short 5, Int 6, Long 7,
/// Bool 9, Half 10, Double 11); -1 for other codes.
int dataTypeFromCode(int code);
/// "float32", "uint8", ..., "code 42" for unknown codes.
QString dataTypeCodeName(int code);
/// DeviceType: "CPU" (0), "CUDA" (1), "NPU" (any other value).
QString deviceTypeName(int code);
/// SaveType (`Type` attribute): "TENSOR", "VEC_I64", "I64", ..., "SaveType 42".
QString saveTypeName(int code);

} // namespace ds::h5dumper
