#pragma once

#include "dump/dumpindex.h"
#include "util/cancel.h"

#include <functional>
#include <memory>

namespace ds {

/// Partial results while indexing (for progressive display). Called from a worker thread.
using IndexBatchSink = std::function<void(std::vector<OpRecord> ops, std::vector<FileError> errors)>;

/// Indexes a dump at any level (dump_path, a time or data_index directory, or a single file):
/// walks the tree once, lets every reader of formats/readers.h claim what is its own in each
/// directory, then indexes the claims on all cores (headers only). A missing path is an
/// error; bad files become entries in DumpIndex::errors and never stop the rest.
Result<std::shared_ptr<DumpIndex>> buildIndex(const QString &path, const JobControl *job = nullptr,
                                              const IndexBatchSink &sink = {});

} // namespace ds
