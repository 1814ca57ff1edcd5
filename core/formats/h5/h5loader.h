#pragma once

#include "dump/dumpindex.h"
#include "dump/loadedtensor.h"
#include "util/cancel.h"

namespace ds {

/// Loads a TensorStorage::H5Dataset tensor: `rec.location` is a dataset path inside the
/// operator's .h5 file (OpRecord::dataFile). Reads through the HDF5 C library in hyperslab
/// chunks of about 8 MiB, checking cancellation between chunks. The bytes are kept as stored
/// (no value conversion; only big-endian data is swapped) and decoded as rec.dataType (uint8
/// and bool data written with a signed 8-bit file type). Refuses a dataset whose size does not
/// fit the file and a file that changed since indexing.
///
/// libhdf5 runs in forked children (h5::runIsolated): one opens and checks the dataset, then,
/// with the size checked against the file and against the record, a second one reads into an
/// anonymous shared mapping the parent created (LoadedTensor::keepAlive holds it). A crash of
/// the library becomes an error naming the file and dataset; cancelling kills the reader.
/// `chunkBytes` is the target size of one read (tests use small values to exercise the tiling).
Result<std::shared_ptr<const LoadedTensor>> loadH5Tensor(const DumpIndex &index, const OpRecord &op,
                                                          const TensorRecord &rec, const JobControl *job,
                                                          std::uint64_t chunkBytes = 8u << 20);

/// loadH5Tensor() in this process, into LoadedTensor::owned (the fuzz harness uses it for
/// coverage). A damaged file can crash the process inside libhdf5: product code calls loadH5Tensor().
Result<std::shared_ptr<const LoadedTensor>> loadH5TensorInProcess(const DumpIndex &index, const OpRecord &op,
                                                                   const TensorRecord &rec, const JobControl *job,
                                                                   std::uint64_t chunkBytes = 8u << 20);

} // namespace ds
