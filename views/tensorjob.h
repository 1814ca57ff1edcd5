#pragma once

#include "index/tensorloader.h"
#include "tensor/stats.h"

#include <QFuture>
#include <memory>

namespace ds {

/// Everything the inspector shows for one tensor, computed off the GUI thread.
struct TensorReport
{
    std::shared_ptr<const DumpIndex> index;
    DumpIndex::TensorRef ref;
    QString id, error;
    std::shared_ptr<const LoadedTensor> tensor;
    TensorStats stats;
    Histogram histogram;
    double loadMs = 0, statsMs = 0;
};

/// Loads the tensor (layout converted unless raw), then statistics and a histogram over
/// [lo, hi] (the finite data range when lo > hi). Honors `cancel`.
QFuture<std::shared_ptr<const TensorReport>> runTensorJob(std::shared_ptr<const DumpIndex> index, DumpIndex::TensorRef ref,
                                                          LayoutChoice layout, int bins, double lo, double hi,
                                                          std::shared_ptr<std::atomic<bool>> cancel);

} // namespace ds
