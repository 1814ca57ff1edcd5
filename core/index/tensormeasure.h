#pragma once

#include "dump/dumpindex.h"
#include "dump/loadedtensor.h"
#include "tensor/stats.h"
#include "util/cancel.h"

#include <optional>

namespace ds {

/// What to measure about one tensor.
struct MeasureOptions
{
    LayoutChoice layout = LayoutChoice::Logical;
    int bins = 0;           ///< histogram bins (0: no histogram)
    double lo = 1, hi = 0;  ///< histogram range; lo > hi: the finite range of the data
    bool saturation = false; ///< count elements at the saturation limit (overflow scan)
    bool keepTensor = false; ///< keep the loaded tensor (the inspector shows its values)
};

/// One tensor measured: the numbers of `dumpscope-cli stats`, the inspector, the overflow scan
/// and the operator table. Shared by the CLI and the GUI so that both show the same numbers.
struct TensorMeasure
{
    TensorId id;
    DumpIndex::TensorRef ref;
    LoadedTensorPtr tensor;   ///< set while loaded; dropped after measuring unless keepTensor
    Shape shape;              ///< the shape the statistics cover (logical unless raw)
    QStringList notes;        ///< layout left raw, short payloads, unverified decoders
    TensorStats stats;
    std::optional<Histogram> histogram;
    std::uint64_t saturated = 0;
    std::optional<Error> error; ///< loading failed or the job was cancelled: no numbers
    bool measured = false;    ///< statistics are done
    double loadMs = 0, statsMs = 0;
};

/// Stage 1: loads the tensor (the inspector shows its metadata and values meanwhile).
TensorMeasure loadForMeasure(const DumpIndex &index, const DumpIndex::TensorRef &ref, const MeasureOptions &options,
                             const JobControl *job = nullptr);
/// Stage 2: statistics, and the histogram and saturation count when asked, of a loaded measure.
void measureLoaded(TensorMeasure &m, const MeasureOptions &options, const JobControl *job = nullptr);
/// Both stages.
TensorMeasure measureTensor(const DumpIndex &index, const DumpIndex::TensorRef &ref, const MeasureOptions &options = {},
                            const JobControl *job = nullptr);

} // namespace ds
