#pragma once

#include "tensorloader.h"

namespace ds {

/// Loads a TensorStorage::NpyFile tensor: `rec.location` is a .npy file relative to the index
/// root. C-order little-endian data is a zero-copy view into the mapping; Fortran-order and
/// big-endian data are reordered / byte-swapped into LoadedTensor::owned. "|V2" items are
/// bfloat16 when the record says so (rec.dataType BFloat16), uint16 bit patterns otherwise.
/// Unicode arrays come back as raw bytes with a note. Fails when the file's header no longer
/// matches the record.
Result<std::shared_ptr<const LoadedTensor>> loadNpyTensor(const DumpIndex &index, const TensorRecord &rec,
                                                           const JobControl *job);

} // namespace ds
