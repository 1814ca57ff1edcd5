#pragma once

#include "tensorloader.h"

namespace ds {

/// Loads a TensorStorage::H5Dataset tensor: `rec.location` is a dataset path inside the
/// operator's .h5 file (OpRecord::dataFile). Reads through the HDF5 C library in hyperslab
/// chunks of about 8 MiB into LoadedTensor::owned, checking job->cancelled() between chunks.
/// The bytes are kept as stored (no value conversion; only big-endian data is swapped) and
/// decoded as rec.dataType (uint8 and bool data written with a signed 8-bit file type).
/// Refuses a dataset whose size does not fit the file and a file that changed since indexing.
/// `chunkBytes` is the target size of one read (tests use small values to exercise the tiling).
Result<std::shared_ptr<const LoadedTensor>> loadH5Tensor(const DumpIndex &index, const OpRecord &op,
                                                          const TensorRecord &rec, const JobControl *job,
                                                          std::uint64_t chunkBytes = 8u << 20);

} // namespace ds
