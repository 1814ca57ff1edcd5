#pragma once

#include "dump/dumpindex.h"
#include "dump/loadedtensor.h"
#include "util/cancel.h"

namespace ds {

struct PtTensor;

/// loadTensor() for TensorStorage::PtFile: maps `index.absolute(rec.location)`, reads the one
/// tensor of the torch.save file and returns a zero-copy view into the mapping when the tensor
/// is contiguous, STORED and little-endian; otherwise gathers (and byte-swaps) its elements
/// into LoadedTensor::owned. Errors start with the record's location. `keyPath` picks one
/// tensor of a file holding several (a state dict: "fc1.weight"); empty: the file's only one.
Result<std::shared_ptr<const LoadedTensor>> loadPtTensor(const DumpIndex &index, const TensorRecord &rec,
                                                          const JobControl *job = nullptr, const QString &keyPath = QString());

/// A lone torch.save file (`relPath` under `root`, one tensor) loaded as loadPtTensor does,
/// without a record to check it against. Errors start with `relPath`.
Result<std::shared_ptr<const LoadedTensor>> loadPtFile(const QString &root, const QString &relPath,
                                                        const JobControl *job = nullptr);

/// Copies the strided elements of `t` (record bytes at `record`) into `out` in row-major order,
/// swapping bytes for big-endian files. False when cancelled.
bool gatherPtElements(const PtTensor &t, const std::byte *record, std::byte *out, const JobControl *job);

} // namespace ds
