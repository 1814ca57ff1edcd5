#pragma once

#include "dump/dumpindex.h"
#include "dump/loadedtensor.h"
#include "util/cancel.h"

namespace ds {

/// Loads a tensor through the reader of its operator's format: maps the file and prepares
/// the elements (unpacked, in logical layout unless `layout` is Raw). Checks every size
/// against the file; never reads outside it. Fails with an error naming the file when the
/// file changed, the data type is not decodable, the record holds no tensor data
/// (ErrorKind::NoData), or the job was cancelled (ErrorKind::Cancelled).
Result<LoadedTensorPtr> loadTensor(const DumpIndex &index, const DumpIndex::TensorRef &ref,
                                   LayoutChoice layout = LayoutChoice::Logical, const JobControl *job = nullptr);

} // namespace ds
