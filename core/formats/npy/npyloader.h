#pragma once

#include "dump/dumpindex.h"
#include "dump/loadedtensor.h"
#include "util/cancel.h"

namespace ds {

/// Loads a TensorStorage::NpyFile tensor: `rec.location` is a .npy file relative to the index
/// root. The file's header decides the element type and shape (LoadedTensor::dataType). C-order
/// little-endian data is a zero-copy view into the mapping; Fortran-order and big-endian data
/// are reordered / byte-swapped into LoadedTensor::owned. "|V2" items are bfloat16 when the
/// record says bfloat16, uint16 bit patterns otherwise. Unicode arrays come back as raw bytes
/// with a note.
/// A record indexed from the header itself (rec.size != 0, as npyfolder makes them) must still
/// match it, else the file changed since indexing and loading fails. A record that describes
/// the tensor from other metadata (rec.size == 0, e.g. msprobe dump.json) gets notes where the
/// file differs from it (MindSpore saves bfloat16 as float32).
Result<std::shared_ptr<const LoadedTensor>> loadNpyTensor(const DumpIndex &index, const TensorRecord &rec,
                                                           const JobControl *job);

} // namespace ds
