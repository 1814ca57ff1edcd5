#pragma once

#include "dtype.h"
#include "headroom.h"
#include "util/cancel.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace ds {

/// Unpacked elements in memory (mapped or converted): what the kernels read.
struct TensorView
{
    Elem elem = Elem::None;
    const std::byte *data = nullptr;
    size_t count = 0;
};

/// Single-pass statistics in float64. min/max/mean/std/l2norm cover the finite values only
/// (NaN when there are none); std is the population standard deviation (ddof = 0).
/// Complex tensors use the magnitude; bool counts true as 1.
struct TensorStats
{
    std::uint64_t count = 0, finite = 0, nan = 0, posinf = 0, neginf = 0, zero = 0;
    double min = std::numeric_limits<double>::quiet_NaN();
    double max = std::numeric_limits<double>::quiet_NaN();
    double mean = std::numeric_limits<double>::quiet_NaN();
    double std = std::numeric_limits<double>::quiet_NaN();
    double l2norm = std::numeric_limits<double>::quiet_NaN();
    Headroom headroom; ///< real floating kinds only (headroom.h); computed in the same pass
};

struct StatsOptions
{
    bool headroom = true; ///< false: skip the headroom counts (bench_stats measures their cost)
    /// computeStatsAndHistogram over a mapped tensor of at most this many bytes whose pages are
    /// all in the page cache (a warm file): both passes read one mapping of it (not released
    /// between the passes, no read-ahead thread) and hand it back once at the end. Larger or cold tensors stream: each pass hands its pages back behind it, so the
    /// resident set stays a few tasks (docs/scale/files.md, sections 4 and 5).
    std::size_t keepMappedBytes = std::size_t(1) << 30;
};

/// Whether computeStats gives a Headroom for this element kind (real floating kinds).
bool hasHeadroom(Elem e);

/// Histogram with numpy.histogram's binning (float64 edges from linspace, the last bin closed)
/// over [lo, hi]; NaN, +Inf, -Inf and out-of-range values are counted apart.
struct Histogram
{
    double lo = 0, hi = 0;
    std::vector<std::uint64_t> counts;
    std::uint64_t nan = 0, posinf = 0, neginf = 0, below = 0, above = 0;

    /// bins + 1 edges exactly as numpy.linspace(lo, hi, bins + 1).
    std::vector<double> edges() const;
};

/// Returns false (and leaves the output unspecified) when cancelled.
bool computeStats(const TensorView &t, TensorStats &out, const JobControl *job = nullptr, StatsOptions options = {});

/// Elements equal to ±saturationLimit() of a real element kind (0 for kinds that do not
/// saturate, complex kinds included). Hands mapped pages back behind it.
std::uint64_t countSaturated(const TensorView &t);
/// lo == hi widens the range to [lo - 0.5, hi + 0.5] as numpy does.
bool computeHistogram(const TensorView &t, int bins, double lo, double hi, Histogram &out,
                      const JobControl *job = nullptr);
/// Statistics, then a histogram over the finite data range [min, max] (one table pass for
/// 8/16-bit types).
bool computeStatsAndHistogram(const TensorView &t, int bins, TensorStats &stats, Histogram &hist,
                              const JobControl *job = nullptr, StatsOptions options = {});

} // namespace ds
