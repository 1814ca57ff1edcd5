#pragma once

#include "dump/dumpindex.h"
#include "dump/loadedtensor.h"
#include "util/cancel.h"

#include <memory>

namespace ds {

/// Loads a TensorStorage::H5Dataset tensor: `rec.location` is a dataset path inside the
/// operator's .h5 file (OpRecord::dataFile). Reads through the HDF5 C library in hyperslab
/// chunks of about 8 MiB, checking cancellation between chunks. The bytes are kept as stored
/// (no value conversion; only big-endian data is swapped) and decoded as rec.dataType (uint8
/// and bool data written with a signed 8-bit file type). Refuses a dataset whose size does not
/// fit the file and a file that changed since indexing.
///
/// libhdf5 runs in a dumpscope-h5worker process (h5isolate.h): it opens the dataset and checks
/// it against the record and the file, and answers its byte count; that count must equal what
/// the record implies. Then this process sizes a memfd to it, seals the size (the worker can
/// neither shrink nor grow it) and lets the worker read into it; the mapping of that memory is
/// the tensor's (LoadedTensor::keepAlive): no copy. A crash of the library becomes an error
/// naming the file and dataset; cancelling kills the worker. `chunkBytes` is the target size of
/// one read (tests use small values to exercise the tiling).
Result<std::shared_ptr<const LoadedTensor>> loadH5Tensor(const DumpIndex &index, const OpRecord &op,
                                                          const TensorRecord &rec, const JobControl *job,
                                                          std::uint64_t chunkBytes = 8u << 20);

/// loadH5Tensor() in this process, into LoadedTensor::owned (the fuzz harness uses it for
/// coverage). A damaged file can crash the process inside libhdf5: product code calls loadH5Tensor().
Result<std::shared_ptr<const LoadedTensor>> loadH5TensorInProcess(const DumpIndex &index, const OpRecord &op,
                                                                   const TensorRecord &rec, const JobControl *job,
                                                                   std::uint64_t chunkBytes = 8u << 20);

namespace h5 {

struct LoadRequest;
struct LoadAnswer;

/// The worker's half of loadH5Tensor (h5workermain.cpp): open() opens the dataset and checks
/// it against the request's record and file size, and answers its byte count; read() then
/// reads it into `out` (`bytes` must be that count).
class CheckedRead
{
public:
    CheckedRead();
    ~CheckedRead();
    CheckedRead(const CheckedRead &) = delete;
    CheckedRead &operator=(const CheckedRead &) = delete;
    LoadAnswer open(const LoadRequest &request);
    LoadAnswer read(std::byte *out, std::uint64_t bytes, const JobControl &job);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace h5

} // namespace ds
