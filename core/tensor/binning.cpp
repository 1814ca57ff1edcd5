#include "binning.h"

#include <cstring>

namespace ds::binning {

namespace {

/// The order of the float64 values on integer keys (-0.0 just below +0.0), and back.
std::int64_t keyOf(double x)
{
    std::int64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b ^ ((b >> 63) & INT64_MAX);
}
double valueOf(std::int64_t k)
{
    const std::int64_t b = k ^ ((k >> 63) & INT64_MAX);
    double x;
    std::memcpy(&x, &b, sizeof x);
    return x;
}

} // namespace

/// T[k - 1] = the least float64 x in [lo, hi] with b.bin(x) >= k, for k = 1 .. n - 1; empty
/// when some bin holds no float64 value at all (or the range is not finite).
std::vector<double> binThresholds(const Binner &b)
{
    if (!std::isfinite(b.lo) || !std::isfinite(b.hi) || !std::isfinite(b.denom) || !(b.denom > 0))
        return {};
    // Bisection over the float64 values in order, on their integer keys. The keys are handled
    // as uint64: differences and midpoints wrap around correctly across the sign change.
    if (b.bin(b.hi) < b.n - 1)
        return {};
    std::vector<double> t;
    auto below = std::uint64_t(keyOf(b.lo)); // invariant: bin(value(below)) < k
    const auto top = std::uint64_t(keyOf(b.hi));
    for (std::int64_t k = 1; k < b.n; ++k) {
        if (b.bin(b.lo) >= k) { // only when the first edges coincide with lo (a degenerate range)
            t.push_back(b.lo);
            continue;
        }
        std::uint64_t atOrAbove = top; // bin(value(atOrAbove)) >= k
        while (atOrAbove - below > 1) {
            const std::uint64_t mid = below + (atOrAbove - below) / 2;
            (b.bin(valueOf(std::int64_t(mid))) >= k ? atOrAbove : below) = mid;
        }
        t.push_back(valueOf(std::int64_t(atOrAbove)));
    }
    return t;
}

} // namespace ds::binning
