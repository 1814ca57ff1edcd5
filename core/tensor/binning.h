#pragma once

// numpy-compatible histogram binning, shared by stats.cpp's histogram pass and its kernels
// (histkernels.h): Binner (numpy's bin of a float64), and the certified estimate.
//
// Binner::bin() costs a float64 division, a dependent load of an edge and two data-dependent
// branches per element. For big inputs a certified estimate replaces it for almost every element:
//
// numpy's bin is a monotone (non-decreasing) function of x on [lo, hi]: the first estimate
// is a chain of correctly rounded monotone operations and the correction compares against
// non-decreasing edges. So bin k starts at a threshold T[k], the least float64 x with
// bin(x) >= k, found once per histogram by bisection with bin() itself. Any monotone estimate
// t(x), here (x - lo) * scale in float32 for float32 tensors and in float64 otherwise, then
// certifies itself: with margin = max_k |t(T[k]) - k|, an element x in [lo, hi] whose t has a
// fractional part in (margin, 1 - margin) and whose integer part j is below n lies in
// [T[j], T[j + 1]), so its bin is j. (If x < T[j] then t(x) <= t(T[j]) <= j + margin; if
// x >= T[j + 1] then t(x) >= j + 1 - margin.) margin is a few ulps of n, so bin() is left
// only for the elements within that distance of an edge.

#include "stats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace ds::binning {

struct Binner
{
    double lo, hi, denom;
    int n;
    std::vector<double> edges;

    Binner(int bins, double l, double h) : lo(l), hi(h), denom(h - l), n(bins)
    {
        Histogram tmp;
        tmp.lo = lo; tmp.hi = hi; tmp.counts.resize(size_t(bins));
        edges = tmp.edges();
    }

    /// numpy's bin of x, which must lie in [lo, hi]: a first estimate from ((x - lo) / denom) * n,
    /// corrected by one against the float64 edges.
    std::int64_t bin(double x) const
    {
        auto i = static_cast<std::int64_t>(((x - lo) / denom) * n);
        if (i >= n) i = n - 1;
        if (i < 0) i = 0;
        if (x < edges[size_t(i)])
            --i;
        else if (i != n - 1 && x >= edges[size_t(i) + 1])
            ++i;
        return i;
    }

    /// Adds x (already known to be finite) to counts; out-of-range goes to below/above.
    void add(double x, std::uint64_t *counts, std::uint64_t &below, std::uint64_t &above, std::uint64_t w = 1) const
    {
        if (!(x >= lo)) { below += w; return; }
        if (!(x <= hi)) { above += w; return; }
        counts[bin(x)] += w;
    }
};


/// T[k - 1] = the least float64 x in [lo, hi] with b.bin(x) >= k, for k = 1 .. n - 1; empty
/// when some bin holds no float64 value at all (or the range is not finite).
std::vector<double> binThresholds(const Binner &b);

/// Below this many elements per bin the thresholds cost more than they save.
constexpr size_t kCertifyElemsPerBin = 1024;

/// The certified estimate in arithmetic E (float or double); see above.
template<typename E>
struct CertifiedBinner
{
    E lo = 0, scale = 0;
    E fracLo = 1, fracHi = 0; ///< certified when fracLo < fractional part < fracHi
    std::int32_t n = 0;
    bool usable = false;

    E estimate(E x) const { return (x - lo) * scale; }

    CertifiedBinner() = default;
    CertifiedBinner(const Binner &b, const std::vector<double> &thresholds)
        : lo(E(b.lo)), scale(E(double(b.n) / b.denom)), n(b.n)
    {
        // n < 2^24: every estimate converts to int32, and float32 still resolves the fractions.
        if (b.n >= (1 << 24) || thresholds.size() != size_t(b.n - 1) || !std::isfinite(scale) || !(scale > 0)
            || !std::isfinite(lo))
            return;
        double margin = 0;
        for (size_t k = 1; k < size_t(b.n); ++k) {
            const double d = std::abs(double(estimate(E(thresholds[k - 1]))) - double(k));
            if (!(d < 0.25))
                return; // the estimate is too coarse here (or NaN): leave everything to bin()
            margin = std::max(margin, d);
        }
        // Round the bounds inwards in E: fracLo >= margin, fracHi <= 1 - margin.
        fracLo = E(margin);
        if (double(fracLo) < margin)
            fracLo = std::nextafter(fracLo, E(1));
        fracHi = E(1.0 - margin);
        if (double(fracHi) > 1.0 - margin)
            fracHi = std::nextafter(fracHi, E(0));
        usable = true;
    }
};

/// Estimates in float32 for float32 tensors (twice the vector width), else in float64.
template<typename T>
using EstimateType = std::conditional_t<std::is_same_v<T, float>, float, double>;

} // namespace ds::binning
