#pragma once

#include "index/tensormeasure.h"

#include <QFuture>
#include <atomic>
#include <memory>

namespace ds {

/// Everything the inspector shows for one tensor: the same measure the CLI's `stats` makes
/// (index/tensormeasure.h), computed off the GUI thread in two stages: load (mapping, dtype
/// unpacking, layout conversion), then statistics and histogram.
struct TensorReport : TensorMeasure
{
    std::shared_ptr<const DumpIndex> index;
};

/// Stage 1: loads the tensor (layout converted unless raw). Honors `cancel`.
QFuture<std::shared_ptr<TensorReport>> runLoadJob(std::shared_ptr<const DumpIndex> index, DumpIndex::TensorRef ref,
                                                  LayoutChoice layout, std::shared_ptr<std::atomic<bool>> cancel);

/// Stage 2: statistics and a histogram over [lo, hi] (the finite data range when lo > hi),
/// on a copy of the loaded report.
QFuture<std::shared_ptr<TensorReport>> runStatsJob(std::shared_ptr<const TensorReport> loaded, int bins, double lo, double hi,
                                                   std::shared_ptr<std::atomic<bool>> cancel);

} // namespace ds
