// check_kernels: randomised equivalence test of the optimised statistics kernels (run by ctest).
//
// For every element type with a direct kernel (float32/64, int32/64, uint32/64) and for inputs
// chosen to hit the fallbacks (NaN/Inf in some blocks, ranges narrower than the data, constant
// data, tiny ranges far from zero, signed zeros, unaligned buffers, sizes that are not multiples
// of the lane/block sizes, below and above the certified-binning threshold), the results of
// ds::computeStats / computeHistogram / computeStatsAndHistogram are compared with a naive
// per-element reference: counts, min and max exactly, mean / std / l2norm within 1e-12
// relative of a long double two-pass computation (the mean also within 1e-15 std), histograms bin for bin against a per-element
// copy of numpy's binning (the pre-optimisation code). The tiled NC1HWC0 / NDC1HWC0 /
// FRACTAL_NZ conversions are compared byte for byte with naive per-element index formulas for
// every element size, odd shapes and sizes above the parallel threshold (4 MiB of output).
// The compare kernels (ds::computePairMetrics) are checked the same way: counts, extrema and
// error ratios exactly and the sums within 1e-12 relative of a long double per-element
// reference, over float32/float64/float16/bfloat16/int32 pairs with specials and odd sizes.
//
// Every kernel build this binary has and this CPU can run is tested (util/kernelisa.h:
// baseline, avx2, x86-64-v4), each against the reference, and every build must give the same
// bits as the baseline build. A build the CPU lacks is reported as skipped; the baseline build
// always runs. Prints failures, exits 1 on any.
#include "compare/pairmetrics.h"
#include "tensor/format.h"
#include "tensor/layout.h"
#include "tensor/stats.h"
#include "util/kernelisa.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

int failures = 0;
std::string isaTag; // the kernel build under test, prefixed to every failure

void fail(const std::string &what)
{
    if (++failures <= 50)
        std::printf("FAIL [%s] %s\n", isaTag.c_str(), what.c_str());
}

// ---- reference -------------------------------------------------------------------------

struct RefStats
{
    std::uint64_t finite = 0, nan = 0, posinf = 0, neginf = 0, zero = 0;
    double min = NAN, max = NAN, mean = NAN, std = NAN, l2 = NAN;
};

RefStats refStats(const std::vector<double> &v)
{
    RefStats r;
    // Sums of x - x0 (x0 = the first finite value) keep the long double sums exact enough even
    // when |mean| >> std.
    long double x0 = 0, sum = 0, sq = 0;
    for (double x : v)
        if (std::isfinite(x)) {
            x0 = x;
            break;
        }
    for (double x : v) {
        if (std::isnan(x)) { ++r.nan; continue; }
        if (std::isinf(x)) { (x > 0 ? r.posinf : r.neginf)++; continue; }
        ++r.finite;
        r.zero += x == 0;
        sum += x - x0;
        sq += (long double)x * x;
        if (r.finite == 1 || x < r.min) r.min = x;
        if (r.finite == 1 || x > r.max) r.max = x;
    }
    if (!r.finite)
        return r;
    const long double shiftedMean = sum / r.finite, mean = x0 + shiftedMean;
    long double m2 = 0;
    for (double x : v)
        if (std::isfinite(x)) {
            const long double d = (x - x0) - shiftedMean;
            m2 += d * d;
        }
    r.mean = double(mean);
    r.std = double(std::sqrt(m2 / r.finite));
    r.l2 = double(std::sqrt(sq));
    return r;
}

/// numpy.histogram's binning, per element, exactly as stats.cpp had it before optimisation.
ds::Histogram refHistogram(const std::vector<double> &v, int bins, double lo, double hi)
{
    if (lo == hi) { lo -= 0.5; hi += 0.5; }
    ds::Histogram h;
    h.lo = lo; h.hi = hi;
    h.counts.assign(size_t(bins), 0);
    const std::vector<double> edges = h.edges();
    const double denom = hi - lo;
    for (double x : v) {
        if (std::isnan(x)) { ++h.nan; continue; }
        if (std::isinf(x)) { (x > 0 ? h.posinf : h.neginf)++; continue; }
        if (!(x >= lo)) { ++h.below; continue; }
        if (!(x <= hi)) { ++h.above; continue; }
        auto i = static_cast<std::int64_t>(((x - lo) / denom) * bins);
        if (i >= bins) i = bins - 1;
        if (i < 0) i = 0;
        if (x < edges[size_t(i)]) --i;
        else if (i != bins - 1 && x >= edges[size_t(i) + 1]) ++i;
        ++h.counts[size_t(i)];
    }
    return h;
}

bool sameDouble(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

bool close(double a, double b, double rel)
{
    if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) && std::isnan(b);
    return std::abs(a - b) <= rel * std::abs(b) + 1e-300;
}

void compareHist(const ds::Histogram &got, const ds::Histogram &want, const std::string &where)
{
    if (got.counts != want.counts || got.nan != want.nan || got.posinf != want.posinf
        || got.neginf != want.neginf || got.below != want.below || got.above != want.above
        || !sameDouble(got.lo, want.lo) || !sameDouble(got.hi, want.hi)) {
        size_t diff = 0;
        while (diff < got.counts.size() && diff < want.counts.size() && got.counts[diff] == want.counts[diff])
            ++diff;
        fail(where + ": histogram differs (first differing bin " + std::to_string(diff) + ", nan "
             + std::to_string(got.nan) + "/" + std::to_string(want.nan) + ", below "
             + std::to_string(got.below) + "/" + std::to_string(want.below) + ", above "
             + std::to_string(got.above) + "/" + std::to_string(want.above) + ")");
    }
}

// ---- one case ----------------------------------------------------------------------------

template<typename T>
void runCase(const std::string &name, ds::Elem elem, const std::vector<T> &values, int bins,
             double userLo, double userHi)
{
    // Copy to an odd offset: mapped tensors need not be aligned.
    std::vector<std::byte> raw(values.size() * sizeof(T) + 3);
    if (!values.empty())
        std::memcpy(raw.data() + 3, values.data(), values.size() * sizeof(T));
    const ds::TensorView view{elem, raw.data() + 3, values.size()};
    std::vector<double> asDouble(values.begin(), values.end());
    const std::string where = name + " n=" + std::to_string(values.size()) + " bins=" + std::to_string(bins);

    const RefStats ref = refStats(asDouble);
    ds::TensorStats s;
    if (!ds::computeStats(view, s)) {
        fail(where + ": computeStats failed");
        return;
    }
    if (s.count != values.size() || s.finite != ref.finite || s.nan != ref.nan || s.posinf != ref.posinf
        || s.neginf != ref.neginf || s.zero != ref.zero)
        fail(where + ": counters differ");
    if (!sameDouble(s.min, ref.min) || !sameDouble(s.max, ref.max))
        fail(where + ": min/max differ");
    // The mean is ill-conditioned when |mean| << std: allow 1e-15 std absolute there (float64
    // numpy's own pairwise sum is good to about log2(n) ulps of the mean |x|, more than that).
    const bool meanOk = std::isnan(ref.mean) ? std::isnan(s.mean)
                                              : std::abs(s.mean - ref.mean) <= 1e-12 * std::abs(ref.mean) + 1e-15 * ref.std;
    if (!meanOk || !close(s.l2norm, ref.l2, 1e-12))
        fail(where + ": mean/l2norm beyond 1e-12 relative (mean " + std::to_string(s.mean) + " vs " + std::to_string(ref.mean)
             + ", l2 error " + std::to_string(std::abs(s.l2norm - ref.l2) / ref.l2 * 1e12) + "e-12, mean error " + std::to_string(std::abs(s.mean - ref.mean) / std::abs(ref.mean) * 1e12) + "e-12)");
    // std is ill-conditioned when |mean| >> std: each deviation x - mean carries about
    // eps * |mean| of rounding, so float64 cannot do better than ~1e-16 |mean| / std relative.
    const double stdTol = 1e-12 + (ref.std > 0 ? 1e-15 * std::abs(ref.mean) / ref.std : 0.0);
    if (!close(s.std, ref.std, stdTol))
        fail(where + ": std beyond its conditioning-scaled tolerance (relative error " + std::to_string(std::abs(s.std - ref.std) / ref.std * 1e12) + "e-12)");

    ds::Histogram h;
    ds::computeHistogram(view, bins, userLo, userHi, h);
    compareHist(h, refHistogram(asDouble, bins, userLo, userHi), where + " [user range]");

    ds::TensorStats s2;
    ds::Histogram h2;
    ds::computeStatsAndHistogram(view, bins, s2, h2);
    const bool any = ref.finite > 0;
    compareHist(h2, refHistogram(asDouble, bins, any ? ref.min : 0.0, any ? ref.max : 0.0), where + " [data range]");
}

template<typename T>
std::vector<T> draw(std::mt19937_64 &rng, size_t n, double mean, double sd)
{
    std::normal_distribution<double> d(mean, sd);
    std::vector<T> v(n);
    for (auto &x : v) {
        const double y = d(rng);
        if constexpr (std::is_floating_point_v<T>)
            x = T(y);
        else
            x = T(std::clamp(std::round(y), double(std::numeric_limits<T>::lowest()), 
                             double(std::numeric_limits<T>::max()) / 2));
    }
    return v;
}

template<typename T>
void suite(const char *type, ds::Elem elem, std::mt19937_64 &rng)
{
    constexpr bool isFloat = std::is_floating_point_v<T>;
    const double inf = std::numeric_limits<double>::infinity();
    // 300,007 elements certify 256 bins; 2,100,001 span three parallel tasks.
    const std::vector<size_t> sizes = {0, 1, 7, 17, 4095, 4097, 300'007, 2'100'001};
    for (size_t n : sizes) {
        for (int bins : {1, 3, 256, 1000}) {
            if (n > 1'000'000 && bins != 256)
                continue;
            const double sd = isFloat ? 1.0 : 1000.0;
            auto v = draw<T>(rng, n, std::is_signed_v<T> ? 0.0 : 5000.0, sd);
            const std::string base = std::string(type) + " normal";
            runCase(base, elem, v, bins, isFloat ? -1.0 : 4000.0, isFloat ? 1.5 : 6500.0);
            if (n > 1000 && bins == 256) {
                // Far from zero with a tiny spread: the certified estimate is coarse or unusable.
                runCase(std::string(type) + " offset", elem, draw<T>(rng, n, isFloat ? 1e6 : 2e9, isFloat ? 1e-2 : 3.0),
                        bins, isFloat ? 1e6 : 2e9, isFloat ? 1e6 + 0.01 : 2e9 + 2);
                // Constant data (range widened by numpy's rule).
                runCase(std::string(type) + " constant", elem, std::vector<T>(n, T(5)), bins, 5, 5);
                if constexpr (isFloat) {
                    // Specials sprinkled over some blocks, and signed zeros.
                    auto w = v;
                    std::uniform_int_distribution<size_t> pos(0, n - 1);
                    for (int k = 0; k < 5; ++k) {
                        w[pos(rng)] = T(NAN);
                        w[pos(rng)] = T(inf);
                        w[pos(rng)] = T(-inf);
                        w[pos(rng)] = T(0.0);
                        w[pos(rng)] = T(-0.0);
                    }
                    runCase(std::string(type) + " specials", elem, w, bins, -2.0, 2.0);
                    // Only non-finite values in one whole block-sized stretch.
                    std::fill(w.begin(), w.begin() + std::min<size_t>(n, 5000), T(NAN));
                    runCase(std::string(type) + " nan-block", elem, w, bins, -0.5, 0.5);
                    // Degenerate float64 binning: the bin width is below the spacing of the
                    // values near lo, so many edges coincide.
                    runCase(std::string(type) + " degenerate", elem, draw<T>(rng, n, 1e16, 4.0), bins, 1e16, 1e16 + 8);
                    // Huge range: the estimate's scale is tiny; also values beyond float range for f64.
                    runCase(std::string(type) + " wide", elem, draw<T>(rng, n, 0.0, isFloat ? 1e30 : 1.0), bins,
                            -1e31, 1e31);
                    // Subnormals (float32 only: float64 subnormal squares underflow, unlike the
                    // long double reference).
                    if constexpr (std::is_same_v<T, float>)
                        runCase(std::string(type) + " subnormal", elem,
                            draw<T>(rng, n, 0.0, double(std::numeric_limits<T>::denorm_min()) * 1000), bins, -1e-30, 1e-30);
                }
            }
        }
    }
}

// ---- compare kernels ----------------------------------------------------------------------

/// One side of a pair: its element kind, stored bytes and the values they decode to (decoded
/// here without DumpScope's decoders: _Float16 for float16, the upper half of a float32 for
/// bfloat16).
struct Side
{
    ds::Elem elem = ds::Elem::F32;
    std::vector<std::byte> bytes;
    std::vector<double> values;
};

template<typename T>
Side sideOf(ds::Elem elem, const std::vector<T> &v)
{
    Side s;
    s.elem = elem;
    s.bytes.resize(v.size() * sizeof(T) + 5);
    if (!v.empty())
        std::memcpy(s.bytes.data() + 5, v.data(), v.size() * sizeof(T)); // unaligned on purpose
    for (const T &x : v)
        s.values.push_back(double(x));
    return s;
}

Side bf16Side(const std::vector<float> &v)
{
    Side s;
    s.elem = ds::Elem::BF16;
    s.bytes.resize(v.size() * 2 + 5);
    for (size_t i = 0; i < v.size(); ++i) {
        const auto hi = std::uint16_t(std::bit_cast<std::uint32_t>(v[i]) >> 16); // truncation: exact
        std::memcpy(s.bytes.data() + 5 + 2 * i, &hi, 2);
        s.values.push_back(double(std::bit_cast<float>(std::uint32_t(hi) << 16)));
    }
    return s;
}

ds::TensorView viewOf(const Side &s) { return {s.elem, s.bytes.data() + 5, s.values.size()}; }

/// Every double of the result, in a fixed order (for bit-for-bit comparison between builds).
std::vector<double> fieldsOf(const ds::PairMetrics &m)
{
    std::vector<double> f = {double(m.count), double(m.infNanMismatch), double(m.infNanShared), m.dot, m.npuNorm,
                             m.benchNorm, m.eucDist, m.maxAbsErr, m.maxRelErr, m.oneThousandthRatio,
                             m.fiveThousandthsRatio, m.meanAbsErr, m.rmse, m.relEuclid, m.accRelErr, m.maxRelErrAcc,
                             m.meanRelErr, m.kl};
    for (const ds::PairSide *s : {&m.npu, &m.bench})
        for (double v : {double(s->finite), double(s->nan), double(s->posinf), double(s->neginf), s->min, s->max,
                         s->mean, s->l2norm, s->comparedMean, s->comparedStd})
            f.push_back(v);
    return f;
}

bool sameBits(const std::vector<double> &a, const std::vector<double> &b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

/// The per-element reference of the exact quantities and the plain sums (compare_numpy.py's
/// formulas: non-finite values at equal positions become 0 on both sides; RE adds eps where
/// the bench value is 0: msprobe Gen C's numpy.result_type(npu, bench, float32) epsilon, so
/// float32's when both sides are float16/bfloat16/float32, else float64's; in that type: RE in
/// float32 arithmetic for float32 pairs, as numpy computes it).
void checkPairAgainstReference(const std::string &where, const Side &x, const Side &y, const ds::PairMetrics &m)
{
    auto narrow = [](ds::Elem e) { return e == ds::Elem::F16 || e == ds::Elem::BF16 || e == ds::Elem::F32; };
    const double eps = narrow(x.elem) && narrow(y.elem) ? double(std::numeric_limits<float>::epsilon())
                                                        : std::numeric_limits<double>::epsilon();
    const size_t n = x.values.size();
    std::uint64_t mismatch = 0, shared = 0, c1 = 0, c5 = 0;
    double maxAbs = 0, maxRe = 0, xmin = INFINITY, xmax = -INFINITY;
    long double dot = 0, xx = 0, yy = 0, dd = 0;
    for (size_t i = 0; i < n; ++i) {
        double a = x.values[i], b = y.values[i];
        if (std::isfinite(a)) { xmin = std::min(xmin, a); xmax = std::max(xmax, a); }
        mismatch += std::isnan(a) != std::isnan(b) || std::isinf(a) != std::isinf(b);
        if (!std::isfinite(a) || !std::isfinite(b)) {
            shared += (std::isnan(a) == std::isnan(b) && std::isinf(a) == std::isinf(b));
            a = b = 0;
        }
        const double d = a - b;
        maxAbs = std::max(maxAbs, std::abs(d));
        if (eps == double(std::numeric_limits<float>::epsilon())) {
            // numpy on float32 arrays: every step rounded to float32, limits compared as float32
            float a32 = float(a), b32 = float(b);
            if (b32 == 0) {
                a32 += std::numeric_limits<float>::epsilon();
                b32 += std::numeric_limits<float>::epsilon();
            }
            const float re = std::abs((a32 - b32) / b32);
            maxRe = std::max(maxRe, double(re));
            c1 += re < 0.001f;
            c5 += re < 0.005f;
        } else {
            const double re = b == 0 ? std::abs(((a + eps) - (b + eps)) / (b + eps)) : std::abs((a - b) / b);
            maxRe = std::max(maxRe, re);
            c1 += re < 0.001;
            c5 += re < 0.005;
        }
        // Products in float64 as numpy forms them (a square may overflow to Inf), sums in long double.
        dot += a * b;
        xx += a * a;
        yy += b * b;
        dd += d * d;
    }
    if (m.count != n || m.infNanMismatch != mismatch)
        fail(where + ": count or Inf/NaN mismatch count differs");
    if (mismatch)
        return; // the metrics are not meaningful then (callers show N/A)
    if (m.infNanShared != shared)
        fail(where + ": shared non-finite count differs");
    if (n && (m.maxAbsErr != maxAbs || m.maxRelErr != maxRe))
        fail(where + ": MaxAbsErr/MaxRelativeErr differ (" + std::to_string(m.maxAbsErr) + " vs " + std::to_string(maxAbs)
             + ", " + std::to_string(m.maxRelErr) + " vs " + std::to_string(maxRe) + ")");
    if (n && (m.oneThousandthRatio != double(c1) / double(n) || m.fiveThousandthsRatio != double(c5) / double(n)))
        fail(where + ": error ratios differ");
    if (n && xmax >= xmin && (m.npu.min != xmin || m.npu.max != xmax))
        fail(where + ": NPU min/max differ");
    auto within = [](double got, long double want) {
        if (std::isinf(want) || std::isnan(want))
            return std::isnan(want) ? std::isnan(got) : got == double(want);
        return std::abs((long double)got - want) <= 1e-12L * std::abs(want) + 1e-300L;
    };
    if (n && (!within(m.dot, dot) || !within(m.npuNorm, std::sqrt(xx)) || !within(m.benchNorm, std::sqrt(yy))
              || !within(m.eucDist, std::sqrt(dd))))
        fail(where + ": dot/norms/EucDist beyond 1e-12 relative (" + std::to_string(m.dot) + " vs "
             + std::to_string(double(dot)) + ", " + std::to_string(m.npuNorm) + " vs " + std::to_string(double(std::sqrt(xx)))
             + ", " + std::to_string(m.eucDist) + " vs " + std::to_string(double(std::sqrt(dd))) + ")");
}

/// Runs computePairMetrics on the pair with the kernel build under test (and genB off/on for
/// float16 pairs), checks it against the reference and, for non-baseline builds, against the
/// baseline build's bits recorded in `baseline` (filled on the baseline pass).
void pairCase(const std::string &name, const Side &x, const Side &y, std::vector<std::vector<double>> &baseline,
              size_t &slot)
{
    const bool genBPossible = x.elem == ds::Elem::F16 && y.elem == ds::Elem::F16;
    for (bool genB : {false, true}) {
        if (genB && !genBPossible)
            continue;
        const std::string where = name + " n=" + std::to_string(x.values.size()) + (genB ? " genB" : "");
        ds::PairMetrics m;
        ds::PairMetricOptions options;
        options.genBCompat = genB;
        if (!ds::computePairMetrics(viewOf(x), viewOf(y), m, options)) {
            fail(where + ": computePairMetrics failed");
            continue;
        }
        if (!genB)
            checkPairAgainstReference(where, x, y, m);
        const std::vector<double> bits = fieldsOf(m);
        if (ds::kernelIsa() == ds::KernelIsa::Baseline)
            baseline.push_back(bits);
        else if (slot >= baseline.size() || !sameBits(bits, baseline[slot]))
            fail(where + ": result bits differ from the baseline build");
        ++slot;
    }
}

void pairSuite(std::vector<std::vector<double>> &baseline)
{
    std::mt19937_64 rng(20261122); // the same inputs for every build
    size_t slot = 0;
    for (size_t n : {size_t(1), size_t(7), size_t(2047), size_t(2049), size_t(100'003), size_t(2'100'001)}) {
        const auto a = draw<float>(rng, n, 0.0, 1.0);
        auto b = a;
        std::normal_distribution<double> noise(0.0, 1e-3);
        for (auto &v : b)
            v = float(v + noise(rng));
        for (size_t i = 0; i < n; i += 997)
            b[i] = 0.0f; // bench zeros: the eps rule of RE
        pairCase("f32/f32", sideOf(ds::Elem::F32, a), sideOf(ds::Elem::F32, b), baseline, slot);
        std::vector<double> ad(a.begin(), a.end()), bd(b.begin(), b.end());
        for (auto &v : bd)
            v *= 1.0001;
        pairCase("f64/f64", sideOf(ds::Elem::F64, ad), sideOf(ds::Elem::F64, bd), baseline, slot);
        pairCase("f32/f64", sideOf(ds::Elem::F32, a), sideOf(ds::Elem::F64, bd), baseline, slot);
        std::vector<_Float16> ah(a.begin(), a.end()), bh(b.begin(), b.end());
        pairCase("f16/f16", sideOf(ds::Elem::F16, ah), sideOf(ds::Elem::F16, bh), baseline, slot);
        pairCase("f16/f32", sideOf(ds::Elem::F16, ah), sideOf(ds::Elem::F32, b), baseline, slot);
        pairCase("bf16/f32", bf16Side(a), sideOf(ds::Elem::F32, b), baseline, slot);
        std::vector<std::int32_t> ai(n);
        for (size_t i = 0; i < n; ++i)
            ai[i] = std::int32_t(std::lround(a[i] * 1000));
        pairCase("i32/f32", sideOf(ds::Elem::I32, ai), sideOf(ds::Elem::F32, b), baseline, slot);
        if (n > 1000) {
            // Specials at equal positions (the fix-up path) and, separately, at different ones.
            auto sa = a, sb = b;
            std::uniform_int_distribution<size_t> pos(0, n - 1);
            for (int k = 0; k < 5; ++k) {
                const size_t i = pos(rng), j = pos(rng);
                sa[i] = sb[i] = NAN;
                sa[j] = INFINITY;
                sb[j] = -INFINITY;
            }
            pairCase("f32/f32 shared specials", sideOf(ds::Elem::F32, sa), sideOf(ds::Elem::F32, sb), baseline, slot);
            sb[pos(rng)] = NAN;
            pairCase("f32/f32 Inf/NaN mismatch", sideOf(ds::Elem::F32, sa), sideOf(ds::Elem::F32, sb), baseline, slot);
            // Finite values whose squared difference overflows.
            std::vector<double> ha(ad), hb(ad);
            ha[n / 2] = 1e200;
            hb[n / 2] = -1e200;
            pairCase("f64 huge difference", sideOf(ds::Elem::F64, ha), sideOf(ds::Elem::F64, hb), baseline, slot);
            // Every fifth ratio far from 1 (both KL lane kinds).
            auto ma = a;
            for (size_t i = 0; i < n; ++i)
                ma[i] = float(a[i] * (i % 5 == 0 ? 1.5 : 1.0001));
            pairCase("f32 mixed ratios", sideOf(ds::Elem::F32, a), sideOf(ds::Elem::F32, ma), baseline, slot);
        }
    }
}

// ---- layouts ------------------------------------------------------------------------------

/// Converts a random device buffer with ds::convertLayout and compares with host[i] =
/// dev[deviceIndex(i)] for every host element i.
template<typename DeviceIndex>
void checkLayout(const std::string &name, int format, const ds::Shape &device, const ds::Shape &host,
                 DeviceIndex deviceIndex, std::mt19937_64 &rng)
{
    for (size_t size : {1, 2, 4, 8, 16}) {
        const std::string where = name + " " + qPrintable(ds::shapeToString(host)) + " elem " + std::to_string(size);
        auto plan = ds::planLayout(format, 0, ds::DataType::Float16, device, host);
        if (!plan) {
            fail(where + ": " + qPrintable(plan.errorText()));
            return;
        }
        std::vector<std::byte> dev(plan->deviceCount * size), out(plan->hostCount * size, std::byte{0xAB});
        for (size_t i = 0; i < dev.size(); i += 8) {
            const std::uint64_t r = rng();
            std::memcpy(dev.data() + i, &r, std::min<size_t>(8, dev.size() - i));
        }
        ds::convertLayout(*plan, dev.data(), out.data(), size);
        for (size_t i = 0; i < plan->hostCount; ++i)
            if (std::memcmp(out.data() + i * size, dev.data() + deviceIndex(i) * size, size) != 0) {
                fail(where + ": host element " + std::to_string(i) + " differs");
                break;
            }
    }
}

void layoutSuite(std::mt19937_64 &rng)
{
    auto ceilDiv = [](size_t a, size_t b) { return (a + b - 1) / b; };
    struct Nchw { size_t n, c, h, w, c0; };
    for (const Nchw s : {Nchw{1, 3, 2, 2, 16}, Nchw{2, 20, 3, 5, 16}, Nchw{3, 67, 7, 9, 16}, Nchw{2, 35, 5, 5, 32},
                         Nchw{1, 3, 4, 5, 4}, Nchw{4, 67, 40, 40, 16}, Nchw{4, 16, 33, 31, 16}}) {
        const size_t c1 = ceilDiv(s.c, s.c0);
        checkLayout("NC1HWC0", int(ds::Format::NC1HWC0), {s.n, c1, s.h, s.w, s.c0}, {s.n, s.c, s.h, s.w},
                    [&](size_t i) {
                        const size_t w = i % s.w, h = i / s.w % s.h, c = i / (s.w * s.h) % s.c, n = i / (s.w * s.h * s.c);
                        return (((n * c1 + c / s.c0) * s.h + h) * s.w + w) * s.c0 + c % s.c0;
                    }, rng);
        const size_t d = 3;
        checkLayout("NDC1HWC0", int(ds::Format::NDC1HWC0), {s.n, d, c1, s.h, s.w, s.c0}, {s.n, s.c, d, s.h, s.w},
                    [&](size_t i) {
                        const size_t w = i % s.w, h = i / s.w % s.h, dd = i / (s.w * s.h) % d,
                                     c = i / (s.w * s.h * d) % s.c, n = i / (s.w * s.h * d * s.c);
                        return ((((n * d + dd) * c1 + c / s.c0) * s.h + h) * s.w + w) * s.c0 + c % s.c0;
                    }, rng);
    }
    struct Bhw { size_t b, h, w, h0, w0; };
    for (const Bhw s : {Bhw{1, 3, 18, 16, 16}, Bhw{2, 17, 33, 16, 16}, Bhw{3, 40, 70, 16, 32}, Bhw{4, 600, 700, 16, 16},
                        Bhw{1, 1, 1, 16, 16}, Bhw{2, 300, 257, 16, 16}}) {
        const size_t h1 = ceilDiv(s.h, s.h0), w1 = ceilDiv(s.w, s.w0);
        checkLayout("FRACTAL_NZ", int(ds::Format::FRACTAL_NZ), {s.b, w1, h1, s.h0, s.w0}, {s.b, s.h, s.w},
                    [&](size_t i) {
                        const size_t w = i % s.w, h = i / s.w % s.h, b = i / (s.w * s.h);
                        return (((b * w1 + w / s.w0) * h1 + h / s.h0) * s.h0 + h % s.h0) * s.w0 + w % s.w0;
                    }, rng);
    }
}

} // namespace

int main(int argc, char **argv)
{
    // --expect-initial NAME: only check that the build selected before any setKernelIsa() call
    // is NAME (ctest runs this with DUMPSCOPE_KERNEL_ISA=baseline to prove the variable is obeyed).
    const ds::KernelIsa initial = ds::kernelIsa();
    std::printf("initial kernel build: %s\n", ds::kernelIsaName(initial));
    if (argc == 3 && std::strcmp(argv[1], "--expect-initial") == 0) {
        const bool ok = std::strcmp(argv[2], ds::kernelIsaName(initial)) == 0;
        std::printf("%s: initial kernel build %s, expected %s\n", ok ? "ok" : "FAILED", ds::kernelIsaName(initial), argv[2]);
        return ok ? 0 : 1;
    }
    // --only NAME: one kernel build (baseline, avx2, x86-64-v4) or the layout conversions, so
    // that ctest runs the parts side by side (bench/CMakeLists.txt); a build other than the
    // baseline still compares its compare-kernel bits with the baseline's, computed first.
    const char *only = argc == 3 && std::strcmp(argv[1], "--only") == 0 ? argv[2] : nullptr;
    bool known = !only || std::strcmp(only, "layout") == 0;
    for (ds::KernelIsa isa : ds::kKernelIsas)
        known = known || std::strcmp(only, ds::kernelIsaName(isa)) == 0;
    if ((argc > 1 && !only) || !known) {
        std::printf("usage: check_kernels [--only baseline|avx2|x86-64-v4|layout] [--expect-initial NAME]\n");
        return 2;
    }
    std::vector<std::vector<double>> pairBaseline;
    int builds = 0;
    for (ds::KernelIsa isa : ds::kKernelIsas) {
        if (only && std::strcmp(only, ds::kernelIsaName(isa)) != 0) {
            if (isa == ds::KernelIsa::Baseline && std::strcmp(only, "layout") != 0 && ds::setKernelIsa(isa)) {
                isaTag = ds::kernelIsaName(isa);
                pairSuite(pairBaseline); // the reference bits of the build under test
            }
            continue;
        }
        isaTag = ds::kernelIsaName(isa);
        if (!ds::setKernelIsa(isa)) {
            if (isa == ds::KernelIsa::Baseline)
                fail("the baseline kernels cannot be selected");
            std::printf("skip [%s]: this CPU or this build has no %s kernels\n", isaTag.c_str(), isaTag.c_str());
            continue;
        }
        if (ds::kernelIsa() != isa)
            fail("setKernelIsa did not select the build");
        ++builds;
        const int before = failures;
        std::mt19937_64 rng(20240315);
        suite<float>("float32", ds::Elem::F32, rng);
        suite<double>("float64", ds::Elem::F64, rng);
        suite<std::int32_t>("int32", ds::Elem::I32, rng);
        suite<std::uint32_t>("uint32", ds::Elem::U32, rng);
        suite<std::int64_t>("int64", ds::Elem::I64, rng);
        suite<std::uint64_t>("uint64", ds::Elem::U64, rng);
        pairSuite(pairBaseline);
        std::printf("[%s] statistics and compare kernels: %d failure(s)\n", isaTag.c_str(), failures - before);
    }
    if (!only || std::strcmp(only, "layout") == 0) {
        isaTag = "layout";
        std::mt19937_64 rng(20240315);
        layoutSuite(rng);
    }
    std::printf("%s: %d failure(s), %d kernel build(s) tested\n", failures ? "FAILED" : "ok", failures, builds);
    return failures ? 1 : 0;
}
