#include "pairmetrics.h"
#include "pairsaturation.h"

#include "pairkernels.h"
#include "io/pagerelease.h"
#include "io/readahead.h"
#include "tensor/saturation.h"
#include "util/kernelisa.h"
#include "util/parallel.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <optional>
#include <type_traits>
#include <vector>

namespace ds {

namespace {

using pairkernels::kBlock;
using pairkernels::orderValue;

constexpr size_t kTaskElems = size_t(1) << 20; // element pairs per parallel task
constexpr size_t kLanes = 8;                   // independent accumulators per sum (vectorisable)
constexpr double kInf = std::numeric_limits<double>::infinity();

// The block kernels (firstSums, klSums) are built for baseline x86-64, AVX2 and x86-64-v4 with
// GCC and picked per CPU by util/kernelisa.h, as the statistics kernels are; each lane is a
// sequential float64 sum, so every build gives the same bits.

bool cancelled(const JobControl *job) { return job && job->cancelled(); }

struct SideAcc
{
    std::uint64_t finite = 0, nan = 0, posinf = 0, neginf = 0;
    double sum = 0, sumsq = 0, min = kInf, max = -kInf; // finite values
    double zsum = 0, zmin = kInf, zmax = -kInf;          // compared values

    void merge(const SideAcc &o)
    {
        finite += o.finite; nan += o.nan; posinf += o.posinf; neginf += o.neginf;
        sum += o.sum; sumsq += o.sumsq; zsum += o.zsum;
        min = std::min(min, o.min); max = std::max(max, o.max);
        zmin = std::min(zmin, o.zmin); zmax = std::max(zmax, o.zmax);
    }
};

struct Acc
{
    SideAcc x, y;
    std::uint64_t mismatch = 0, shared = 0, c1 = 0, c5 = 0, saturated = 0;
    double sxy = 0, sxx = 0, syy = 0, sdd = 0, sad = 0, sar = 0;
    std::int64_t maxAd = INT64_MIN, maxRe = INT64_MIN, maxAr = INT64_MIN; // orderKey of |values|

    void merge(const Acc &o)
    {
        x.merge(o.x); y.merge(o.y);
        mismatch += o.mismatch; shared += o.shared; c1 += o.c1; c5 += o.c5; saturated += o.saturated;
        sxy += o.sxy; sxx += o.sxx; syy += o.syy; sdd += o.sdd; sad += o.sad; sar += o.sar;
        maxAd = std::max(maxAd, o.maxAd); maxRe = std::max(maxRe, o.maxRe); maxAr = std::max(maxAr, o.maxAr);
    }
};

// ---- explicit 8-lane vectors --------------------------------------------------------------
//
// The kernels work on GCC vector types of kLanes doubles: every lane is its own sequential
// float64 sum, so the result is the same bits in every clone (x86-64-v4, AVX2, baseline) and
// for every thread count; the compiler maps a V onto one zmm, two ymm or four xmm registers.
// Tails shorter than kLanes take the scalar code of the same formulas. Every function taking or
// returning a vector is always inlined: a call between a clone and a helper built for another
// ISA would pass the vector in a different way (GCC's -Wpsabi note).
#define DS_INLINE [[gnu::always_inline]] inline

using V = double __attribute__((vector_size(kLanes * sizeof(double))));
using VI = std::int64_t __attribute__((vector_size(kLanes * sizeof(double))));

/// bitCast through memcpy (a register move once optimised): GCC 12's UBSan flags
/// __builtin_bit_cast of vector types as a null load.
template<typename To, typename From>
DS_INLINE To bitCast(const From &f)
{
    static_assert(sizeof(To) == sizeof(From));
    To t;
    std::memcpy(&t, &f, sizeof t);
    return t;
}

DS_INLINE VI bitsOf(V v) { return bitCast<VI>(v); }
DS_INLINE V vabs(V v) { return bitCast<V>(bitsOf(v) & INT64_MAX); }
DS_INLINE double total(V v)
{
    double t = 0;
    for (size_t j = 0; j < kLanes; ++j)
        t += v[j];
    return t;
}
DS_INLINE std::int64_t maxOf(VI v)
{
    std::int64_t m = v[0];
    for (size_t j = 1; j < kLanes; ++j)
        m = std::max(m, std::int64_t(v[j]));
    return m;
}

// ---- element loaders ------------------------------------------------------------------------

using VF = float __attribute__((vector_size(kLanes * sizeof(float))));

/// Element loader over float32 or float64 data in place (mapped, possibly unaligned): kLanes
/// values at element i as float64 lanes (float32 widened in registers, exactly), or one value.
template<typename E>
struct Lanes
{
    const std::byte *p;
    DS_INLINE V vec(size_t i) const
    {
        if constexpr (std::is_same_v<E, double>) {
            V v;
            std::memcpy(&v, p + i * sizeof(E), sizeof v);
            return v;
        } else {
            VF f;
            std::memcpy(&f, p + i * sizeof(E), sizeof f);
            return __builtin_convertvector(f, V);
        }
    }
    DS_INLINE double one(size_t i) const
    {
        E e;
        std::memcpy(&e, p + i * sizeof(E), sizeof e);
        return double(e);
    }
    /// The same values rounded to float32 (exact for float32 data, read as they are).
    DS_INLINE VF vecF(size_t i) const
    {
        if constexpr (std::is_same_v<E, float>) {
            VF f;
            std::memcpy(&f, p + i * sizeof(E), sizeof f);
            return f;
        } else {
            return __builtin_convertvector(vec(i), VF);
        }
    }
    DS_INLINE float oneF(size_t i) const
    {
        E e;
        std::memcpy(&e, p + i * sizeof(E), sizeof e);
        return float(e);
    }
};

// ---- first pass: every sum in one loop ----------------------------------------------------

/// How the first pass computes msprobe's relative error (get_relative_err): in the type
/// numpy.result_type(npu, bench, float32) gives. F64: float64 with its eps; F32: both sides
/// rounded to float32 (exact for float32/float16/bfloat16/fp8 values) and every operation in
/// float32, as numpy does on float32 arrays; GenB: the Gen B float16 quirk.
enum class ReMode { F64, F32, GenB };

using VI32 = std::int32_t __attribute__((vector_size(kLanes * sizeof(float))));
DS_INLINE VI32 ones32(VI32 mask) { return -mask; }
DS_INLINE std::int32_t ones32(bool b) { return b; }
DS_INLINE VI32 bits32(VF v)
{
    VI32 b;
    std::memcpy(&b, &v, sizeof b);
    return b;
}
DS_INLINE std::int32_t bits32(float v) { return std::bit_cast<std::int32_t>(v); }
DS_INLINE VI32 imax32(VI32 a, VI32 b) { return a > b ? a : b; }
DS_INLINE std::int32_t imax32(std::int32_t a, std::int32_t b) { return a > b ? a : b; }

/// msprobe's RE in float32 (ReMode::F32): n[b == 0] += eps32; b[b == 0] += eps32;
/// |(n − b) / b|, each step rounded to float32. F is VF or float.
template<typename F>
DS_INLINE F relError32(F xf, F yf)
{
    const auto zero = yf == 0.0f;
    const F e = F{} + float(kEps32);
    const F xe = xf + e;
    const F yy = zero ? e : yf, xx = zero ? xe : xf;
    const F q = (xx - yy) / yy;
    return q < 0.0f ? -q : q;
}

/// msprobe RE (eps added where y = 0; Gen B float16 quirk on request) and msaccucmp's
/// |x/y − 1| for |y| > eps, computed as |x − y| / |y|. Written once for a lane type T (V or
/// double): every operation runs unconditionally and only values are selected.
template<bool GenB, typename T>
DS_INLINE T relError(T xv, T yv, double eps)
{
    const auto zero = yv == 0.0;
    if constexpr (GenB) {
        const T q = (xv - yv) / yv;
        const T atZero = xv != 0.0 ? T{} + kInf : T{} + std::numeric_limits<double>::quiet_NaN();
        return zero ? atZero : (q < 0.0 ? -q : q);
    } else {
        const T xe = xv + eps;
        const T yy = zero ? T{} + eps : yv, xx = zero ? xe : xv;
        const T q = (xx - yy) / yy;
        return q < 0.0 ? -q : q;
    }
}

// Lane-type overloads, not lambdas: a lambda is a separate function (not inlined at -O0),
// built for the default ISA, and passing a vector to it from a clone breaks the ABI.
DS_INLINE VI ones(VI mask) { return -mask; } // a true lane is -1
DS_INLINE std::int64_t ones(bool b) { return b; }
DS_INLINE std::int64_t bitsOf(double d) { return std::bit_cast<std::int64_t>(d); }
DS_INLINE VI imax(VI a, VI b) { return a > b ? a : b; }
DS_INLINE std::int64_t imax(std::int64_t a, std::int64_t b) { return a > b ? a : b; }

/// Per-lane sums of the first pass (T = V, I = VI), or of one scalar tail (double, int64).
template<typename T, typename I>
struct FirstLanes
{
    T xy{}, xx{}, yy{}, x{}, y{}, dd{}, ad{}, ar{};
    T xlo = T{} + kInf, xhi = T{} - kInf, ylo = T{} + kInf, yhi = T{} - kInf;
    I c1{}, c5{}, maxAd = I{} + INT64_MIN, maxRe = I{} + INT64_MIN, maxAr = I{} + INT64_MIN;
    /// ReMode::F32: the counts and the largest RE (float bits) in float32 lanes
    using J = std::conditional_t<std::is_same_v<I, VI>, VI32, std::int32_t>;
    J c1f{}, c5f{}, maxRef = J{} + INT32_MIN;
};

/// One element or kLanes elements of the first pass: products, sums, extremes, differences
/// and relative errors. The extremes compare values (every value is finite here); the error
/// maxima compare bits (|d| and the relative errors are >= 0, or a positive NaN in Gen B).
/// `xf`, `yf`: the same values as float32 (ReMode::F32 only; F is VF or float).
template<ReMode RM, typename T, typename I, typename F>
DS_INLINE void firstStep(T xv, T yv, F xf, F yf, FirstLanes<T, I> &a, double eps)
{
    a.xy += xv * yv;
    a.xx += xv * xv;
    a.yy += yv * yv;
    a.x += xv;
    a.y += yv;
    a.xlo = xv < a.xlo ? xv : a.xlo;
    a.xhi = xv > a.xhi ? xv : a.xhi;
    a.ylo = yv < a.ylo ? yv : a.ylo;
    a.yhi = yv > a.yhi ? yv : a.yhi;
    const T d = xv - yv, ad = d < 0.0 ? -d : d;
    a.dd += d * d;
    a.ad += ad;
    a.maxAd = imax(a.maxAd, bitsOf(ad));
    const T ay = yv < 0.0 ? -yv : yv;
    if constexpr (RM == ReMode::F32) {
        const T ar = ay > kEps64 ? ad / ay : T{}; // y != 0 there: the float64 |x − y| / |y|
        a.ar += ar;
        a.maxAr = imax(a.maxAr, bitsOf(ar));
        // numpy compares a float32 array with 0.001 in float32 (value-based casting, NEP 50)
        // (re32 >= 0 and never NaN: its bits order as the values do)
        const F re32 = relError32(xf, yf);
        a.c1f += ones32(re32 < 0.001f);
        a.c5f += ones32(re32 < 0.005f);
        a.maxRef = imax32(a.maxRef, bits32(re32));
    } else {
        const T re = relError<RM == ReMode::GenB>(xv, yv, eps);
        const T ar = ay > kEps64 ? re : T{};
        a.ar += ar;
        a.maxAr = imax(a.maxAr, bitsOf(ar));
        a.c1 += ones(re < 0.001);
        a.c5 += ones(re < 0.005);
        a.maxRe = imax(a.maxRe, bitsOf(re));
    }
}

/// The first-pass sums of a block.
struct FirstSums
{
    double xy = 0, xx = 0, yy = 0, x = 0, y = 0, dd = 0, ad = 0, ar = 0;
    double xlo = kInf, xhi = -kInf, ylo = kInf, yhi = -kInf;
    std::int64_t c1 = 0, c5 = 0, maxAd = INT64_MIN, maxRe = INT64_MIN, maxAr = INT64_MIN;
};

DS_INLINE double minOf(V v)
{
    double m = v[0];
    for (size_t j = 1; j < kLanes; ++j)
        m = v[j] < m ? v[j] : m;
    return m;
}
DS_INLINE double maxOf(V v)
{
    double m = v[0];
    for (size_t j = 1; j < kLanes; ++j)
        m = v[j] > m ? v[j] : m;
    return m;
}
DS_INLINE std::int64_t totalI(VI v)
{
    std::int64_t t = 0;
    for (size_t j = 0; j < kLanes; ++j)
        t += v[j];
    return t;
}

/// The first pass over n elements of a block, all sums in one loop (each lane a sequential
/// float64 sum: the same bits in every clone). With non-finite values in the block the sums
/// are not finite (dd is then Inf or NaN) and the caller takes the fix-up path.
template<ReMode RM, typename LX, typename LY>
DS_INLINE FirstSums firstSumsBody(LX x, LY y, size_t n, double eps)
{
    FirstLanes<V, VI> a;
    const size_t whole = n - n % kLanes;
    for (size_t i = 0; i < whole; i += kLanes) {
        if constexpr (RM == ReMode::F32)
            firstStep<RM>(x.vec(i), y.vec(i), x.vecF(i), y.vecF(i), a, eps);
        else
            firstStep<RM>(x.vec(i), y.vec(i), VF{}, VF{}, a, eps);
    }
    FirstLanes<double, std::int64_t> t;
    for (size_t i = whole; i < n; ++i)
        firstStep<RM>(x.one(i), y.one(i), x.oneF(i), y.oneF(i), t, eps);
    FirstSums r;
    r.xy = total(a.xy) + t.xy; r.xx = total(a.xx) + t.xx; r.yy = total(a.yy) + t.yy;
    r.x = total(a.x) + t.x; r.y = total(a.y) + t.y;
    r.dd = total(a.dd) + t.dd; r.ad = total(a.ad) + t.ad; r.ar = total(a.ar) + t.ar;
    r.xlo = std::min(minOf(a.xlo), t.xlo); r.xhi = std::max(maxOf(a.xhi), t.xhi);
    r.ylo = std::min(minOf(a.ylo), t.ylo); r.yhi = std::max(maxOf(a.yhi), t.yhi);
    r.c1 = totalI(a.c1) + t.c1; r.c5 = totalI(a.c5) + t.c5;
    r.maxAd = std::max(maxOf(a.maxAd), t.maxAd);
    r.maxRe = std::max(maxOf(a.maxRe), t.maxRe);
    r.maxAr = std::max(maxOf(a.maxAr), t.maxAr);
    if constexpr (RM == ReMode::F32) {
        std::int32_t maxRef = t.maxRef;
        for (size_t j = 0; j < kLanes; ++j) {
            r.c1 += a.c1f[j];
            r.c5 += a.c5f[j];
            maxRef = std::max(maxRef, std::int32_t(a.maxRef[j]));
        }
        r.c1 += t.c1f;
        r.c5 += t.c5f;
        if (maxRef != INT32_MIN)
            r.maxRe = bitsOf(double(std::bit_cast<float>(maxRef)));
    }
    return r;
}
template<ReMode RM, typename LX, typename LY>
FirstSums firstSums(LX x, LY y, size_t n, double eps)
{
    DS_KERNEL_DISPATCH_V4(firstSumsBody<RM>(x, y, n, eps));
}

/// The first-pass sums in the relative-error mode of the pair.
template<typename LX, typename LY>
FirstSums firstSumsIn(ReMode rm, LX x, LY y, size_t n, double eps)
{
    switch (rm) {
    case ReMode::F32: return firstSums<ReMode::F32>(x, y, n, eps);
    case ReMode::GenB: return firstSums<ReMode::GenB>(x, y, n, eps);
    case ReMode::F64: break;
    }
    return firstSums<ReMode::F64>(x, y, n, eps);
}

int valueClass(double v) { return std::isfinite(v) ? 0 : std::isnan(v) ? 1 : v > 0 ? 2 : 3; }

/// Counts the element classes of a block holding non-finite values, records the finite
/// statistics of both sides, and sets every non-finite position to 0 on both sides.
void fixupBlock(double *x, double *y, size_t n, Acc &a)
{
    auto side = [](SideAcc &s, double v, int cls) {
        switch (cls) {
        case 0:
            ++s.finite; s.sum += v; s.sumsq += v * v;
            s.min = std::min(s.min, v); s.max = std::max(s.max, v);
            break;
        case 1: ++s.nan; break;
        case 2: ++s.posinf; break;
        default: ++s.neginf; break;
        }
    };
    for (size_t i = 0; i < n; ++i) {
        const int cx = valueClass(x[i]), cy = valueClass(y[i]);
        side(a.x, x[i], cx);
        side(a.y, y[i], cy);
        if (cx || cy) {
            // msprobe compares the NaN masks and the Inf masks (not the sign of Inf)
            ((cx == 1) == (cy == 1) && (cx >= 2) == (cy >= 2) ? a.shared : a.mismatch) += 1;
            x[i] = y[i] = 0.0;
        }
    }
}

void zeroNonFinite(double *x, double *y, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (!std::isfinite(x[i]) || !std::isfinite(y[i]))
            x[i] = y[i] = 0.0;
}

/// Adds a block's first-pass sums; `finite`: the block held no non-finite value, so the
/// compared values are the values (otherwise fixupBlock recorded the finite statistics).
void addFirst(const FirstSums &f, size_t n, bool finite, Acc &a)
{
    a.sxy += f.xy; a.sxx += f.xx; a.syy += f.yy;
    auto compared = [&](SideAcc &s, double sum, double lo, double hi, double sumsq) {
        s.zsum += sum;
        s.zmin = std::min(s.zmin, lo);
        s.zmax = std::max(s.zmax, hi);
        if (finite) {
            s.finite += n; s.sum += sum; s.sumsq += sumsq;
            s.min = std::min(s.min, lo);
            s.max = std::max(s.max, hi);
        }
    };
    compared(a.x, f.x, f.xlo, f.xhi, f.xx);
    compared(a.y, f.y, f.ylo, f.yhi, f.yy);
    a.sdd += f.dd; a.sad += f.ad; a.sar += f.ar;
    a.c1 += std::uint64_t(f.c1); a.c5 += std::uint64_t(f.c5);
    a.maxAd = std::max(a.maxAd, f.maxAd);
    a.maxRe = std::max(a.maxRe, f.maxRe);
    a.maxAr = std::max(a.maxAr, f.maxAr);
}

/// Calls fn(lx, ly) with loaders reading elements [i, ...) of x and y in place when both are
/// float32 or float64 (the common pairs: no decoding buffer); false when they are not or fn
/// declines the block.
template<typename Fn>
bool directLanes(const TensorView &x, const TensorView &y, size_t i, Fn &&fn)
{
    auto at = [i](const TensorView &v, auto e) { return Lanes<decltype(e)>{v.data + i * sizeof e}; };
    const bool xf = x.elem == Elem::F32, yf = y.elem == Elem::F32;
    const bool xd = x.elem == Elem::F64, yd = y.elem == Elem::F64;
    if (xf && yf)
        return fn(at(x, float{}), at(y, float{}));
    if (xd && yd)
        return fn(at(x, 0.0), at(y, 0.0));
    if (xf && yd)
        return fn(at(x, float{}), at(y, 0.0));
    if (xd && yf)
        return fn(at(x, 0.0), at(y, float{}));
    return false;
}

Lanes<double> buffer(const double *b) { return {reinterpret_cast<const std::byte *>(b)}; }

/// The first pass over elements [i, i + n): straight from the mapping when both sides are
/// float32/float64 and the block is finite, else decoded into bx/by with the non-finite
/// values counted and zeroed.
void firstBlock(const TensorView &x, const TensorView &y, size_t i, size_t n, ReMode rm, double eps, Acc &a,
                double *bx, double *by)
{
    if (rm != ReMode::GenB && directLanes(x, y, i, [&](auto lx, auto ly) {
            const FirstSums f = firstSumsIn(rm, lx, ly, n, eps);
            if (!std::isfinite(f.dd))
                return false; // a non-finite value (or an overflowing difference): fix-up path
            addFirst(f, n, true, a);
            return true;
        }))
        return;
    const bool finite = pairkernels::loadBlock(x.elem, x.data, i, n, bx)
                        & pairkernels::loadBlock(y.elem, y.data, i, n, by);
    if (!finite)
        fixupBlock(bx, by, n, a);
    addFirst(firstSumsIn(rm, buffer(bx), buffer(by), n, eps), n, finite, a);
}

// ---- second pass: KL divergence and centred squares ---------------------------------------

/// ln(v) for positive normal doubles (T = V or double), branch-free: v = 2^e · m with m in
/// [√½, √2), ln m = 2 atanh(s), s = (m − 1)/(m + 1), |s| < 0.172, series to s^23 (truncation
/// below 1e-17).
template<typename T>
DS_INLINE T fastLog(T v)
{
    using I = std::conditional_t<std::is_same_v<T, double>, std::int64_t, VI>;
    const I b = bitCast<I>(v);
    // exponent field as a double without an int->double conversion: (2^52 + field) − 2^52
    T e = bitCast<T>(I((b >> 52) & std::int64_t(0x7FF)) | std::int64_t(0x4330000000000000LL)) - (4503599627370496.0 + 1023.0);
    T m = bitCast<T>((b & std::int64_t(0x000FFFFFFFFFFFFFLL)) | std::int64_t(0x3FF0000000000000LL));
    const auto big = m > 1.4142135623730951;
    const T half = m * 0.5, e1 = e + 1.0; // computed unconditionally: selects only
    m = big ? half : m;
    e = big ? e1 : e;
    const T s = (m - 1.0) / (m + 1.0), s2 = s * s;
    T poly = T{} + 1.0 / 23;
    for (int k = 10; k >= 0; --k)
        poly = poly * s2 + 1.0 / double(2 * k + 1);
    return e * 0.6931471805599453 + (e * 2.3190468138462996e-17 + 2.0 * s * poly);
}

/// True when any lane of a comparison result is set: three halvings, then one lane.
DS_INLINE bool anyLane(VI m)
{
    static_assert(kLanes == 8);
    m |= __builtin_shufflevector(m, m, 4, 5, 6, 7, 0, 1, 2, 3);
    m |= __builtin_shufflevector(m, m, 2, 3, 0, 1, 6, 7, 4, 5);
    m |= __builtin_shufflevector(m, m, 1, 0, 3, 2, 5, 4, 7, 6);
    return m[0] != 0;
}
DS_INLINE bool anyLane(bool b) { return b; }

/// 2 atanh(s) = ln((1 + s)/(1 − s)) for |s| < 1/16: 2 (s + s³/3 + … + s¹³/13), truncation
/// below 1e-18 relative, in Estrin's scheme (a short dependency chain).
template<typename T>
DS_INLINE T atanh2(T s)
{
    const T t = s * s, t2 = t * t, t4 = t2 * t2;
    const T a0 = 1.0 + t * (1.0 / 3), a1 = 1.0 / 5 + t * (1.0 / 7), a2 = 1.0 / 9 + t * (1.0 / 11);
    const T b0 = a0 + t2 * a1, b1 = a2 + t2 * (1.0 / 13);
    return 2.0 * s * (b0 + t4 * b1);
}

/// ln(p/q) for positive p and q. When p/q lies within [0.88, 1.13] (|s| < 1/16) — nearly every
/// element of two tensors worth comparing — ln(p/q) = atanh2(s) with s = (p − q)/(p + q): one
/// division instead of the two of fastLog(p / q), and p − q is exact for close p and q.
DS_INLINE double lnRatio(double p, double q)
{
    const double s = (p - q) / (p + q);
    return std::fabs(s) >= 0.0625 ? fastLog(p / q) : atanh2(s);
}

/// lnRatio of two vectors at once: they take fastLog together when any of their 16 lanes is
/// far from 1 (one lane test per 16 elements; a bench tensor with a zero every 1000 elements
/// sends 1.6 % of the pairs there).
DS_INLINE void lnRatio2(V p0, V q0, V p1, V q1, V &l0, V &l1)
{
    const V s0 = (p0 - q0) / (p0 + q0), s1 = (p1 - q1) / (p1 + q1);
    const V a0 = vabs(s0), a1 = vabs(s1);
    if (anyLane((a0 > a1 ? a0 : a1) >= 0.0625)) [[unlikely]] {
        l0 = fastLog(p0 / q0);
        l1 = fastLog(p1 / q1);
    } else {
        l0 = atanh2(s0);
        l1 = atanh2(s1);
    }
}

/// Normalisation (v − offset) · scale per side (scale = 1 / range: one multiplication instead of
/// a division per element; within an ulp of numpy's division) and the compared means.
struct KlParams { double ox, sx, oy, sy, mx, my; };
struct KlSums
{
    double p = 0, q = 0, pl = 0, cx = 0, cy = 0;
    void add(const KlSums &o) { p += o.p; q += o.q; pl += o.pl; cx += o.cx; cy += o.cy; }
};

/// Per-lane sums of the second pass (T = V), or of one scalar tail (double).
template<typename T>
struct KlLanes { T p{}, q{}, pl{}, cx{}, cy{}; };

template<typename T>
DS_INLINE T clampedNorm(T v, double offset, double scale)
{
    const T n = (v - offset) * scale;
    return n > kEps32 ? n : T{} + kEps32;
}

/// Everything of one element or lane vector but p · ln(p/q).
template<typename T>
DS_INLINE void klCommon(T xv, T yv, T p, T q, const KlParams &k, KlLanes<T> &a)
{
    a.p += p;
    a.q += q;
    const T dx = xv - k.mx, dy = yv - k.my;
    a.cx += dx * dx;
    a.cy += dy * dy;
}

/// The KL / centred-squares pass over n elements. With a non-finite value the centred squares
/// are not finite and the caller takes the fix-up path.
template<typename LX, typename LY>
DS_INLINE KlSums klSumsBody(LX x, LY y, size_t n, const KlParams &k)
{
    KlLanes<V> a;
    const size_t pairs = n - n % (2 * kLanes);
    for (size_t i = 0; i < pairs; i += 2 * kLanes) {
        const V x0 = x.vec(i), y0 = y.vec(i), x1 = x.vec(i + kLanes), y1 = y.vec(i + kLanes);
        const V p0 = clampedNorm(x0, k.ox, k.sx), q0 = clampedNorm(y0, k.oy, k.sy);
        const V p1 = clampedNorm(x1, k.ox, k.sx), q1 = clampedNorm(y1, k.oy, k.sy);
        V l0, l1;
        lnRatio2(p0, q0, p1, q1, l0, l1);
        a.pl += p0 * l0;
        a.pl += p1 * l1;
        klCommon(x0, y0, p0, q0, k, a);
        klCommon(x1, y1, p1, q1, k, a);
    }
    KlLanes<double> t;
    for (size_t i = pairs; i < n; ++i) {
        const double xv = x.one(i), yv = y.one(i);
        const double p = clampedNorm(xv, k.ox, k.sx), q = clampedNorm(yv, k.oy, k.sy);
        t.pl += p * lnRatio(p, q);
        klCommon(xv, yv, p, q, k, t);
    }
    return {total(a.p) + t.p, total(a.q) + t.q, total(a.pl) + t.pl, total(a.cx) + t.cx, total(a.cy) + t.cy};
}
template<typename LX, typename LY>
KlSums klSums(LX x, LY y, size_t n, const KlParams &k)
{
    DS_KERNEL_DISPATCH_V4(klSumsBody(x, y, n, k));
}

/// The second pass over elements [i, i + n), like firstBlock.
void klBlock(const TensorView &x, const TensorView &y, size_t i, size_t n, const KlParams &k, KlSums &s,
             double *bx, double *by)
{
    if (directLanes(x, y, i, [&](auto lx, auto ly) {
            const KlSums b = klSums(lx, ly, n, k);
            if (!std::isfinite(b.cx) || !std::isfinite(b.cy))
                return false;
            s.add(b);
            return true;
        }))
        return;
    const bool finite = pairkernels::loadBlock(x.elem, x.data, i, n, bx)
                        & pairkernels::loadBlock(y.elem, y.data, i, n, by);
    if (!finite)
        zeroNonFinite(bx, by, n);
    s.add(klSums(buffer(bx), buffer(by), n, k));
}

/// A side larger than this gives its pages back during the first pass too (they are read again,
/// with minor faults, by the second); smaller ones only behind the second pass.
constexpr size_t kReleaseFirstPassBytes = size_t(1) << 30;

bool largeSide(const TensorView &v) { return v.count * elemBytes(v.elem) > kReleaseFirstPassBytes; }

/// A side that the passes stream (io/readahead.h): a mapped range large enough for a read-ahead.
/// Its pages are handed back behind every pass, so two cold files stream from the disk as for
/// `cat A B` and the resident set stays bounded (docs/scale/files.md, section 4).
bool streamedSide(const TensorView &v)
{
    const size_t bytes = v.count * elemBytes(v.elem);
    return bytes >= ReadAhead::kMinBytes && isMappedRange(v.data, bytes);
}

/// Runs fn(i, n, part, bx, by) over blocks [i, i + n) of both tensors in parallel tasks (bx, by:
/// decoding buffers of kBlock values); `release` hands each task's mapped pages back behind it
/// (releaseMappedPages), for the last pass or for very large tensors.
template<typename Part, typename Fn>
bool runTasks(const TensorView &x, const TensorView &y, std::vector<Part> &parts, unsigned threads,
              const JobControl *job, bool release, Fn &&fn)
{
    parts.assign((x.count + kTaskElems - 1) / kTaskElems, Part{});
    // both mapped sides read ahead, in turn, of a releasing pass; not when both are already in
    // the page cache (a warm pair, or the second pass after a cold first one): the thread would
    // only fault every page in and hand it back, a third thread on the cores of the pass
    const size_t xBytes = x.count * elemBytes(x.elem), yBytes = y.count * elemBytes(y.elem);
    std::optional<ReadAhead> ahead;
    auto cached = [](const TensorView &v, size_t bytes) { return bytes < ReadAhead::kMinBytes || isCachedRange(v.data, bytes); };
    if (release && !(cached(x, xBytes) && cached(y, yBytes)))
        ahead.emplace(x.data, xBytes, y.data, yBytes);
    return parallelChunks(x.count, kTaskElems, [&](size_t c, size_t b, size_t e) {
        double bx[kBlock], by[kBlock];
        for (size_t i = b; i < e; i += kBlock)
            fn(i, std::min(e, i + kBlock) - i, parts[c], bx, by);
        if (release)
            for (const TensorView *v : {&x, &y})
                releaseMappedPages(v->data + b * elemBytes(v->elem), (e - b) * elemBytes(v->elem));
        return !cancelled(job);
    }, threads ? threads : workerCount()) && !cancelled(job);
}

void storeSide(const SideAcc &s, std::uint64_t count, PairSide &out)
{
    out.finite = s.finite; out.nan = s.nan; out.posinf = s.posinf; out.neginf = s.neginf;
    if (s.finite) {
        out.min = s.min;
        out.max = s.max;
        out.mean = s.sum / double(s.finite);
        out.l2norm = std::sqrt(s.sumsq);
    }
    out.comparedMean = s.zsum / double(count);
}

/// Offset and scale of msaccucmp's normalisation: (v − min) / (max − min), or v itself when
/// the range is 0.
void normalisation(const SideAcc &s, double &offset, double &scale)
{
    const double range = s.zmax - s.zmin;
    offset = range > 0 ? s.zmin : 0.0;
    scale = range > 0 ? 1.0 / range : 1.0;
}

} // namespace

double relativeErrorEpsilon(Elem npu, Elem bench)
{
    // msprobe Gen C: numpy.result_type(npu, bench, float32); integers and bools are cast to
    // float64 first, bfloat16 is loaded as float32
    auto narrow = [](Elem e) {
        switch (e) {
        case Elem::F16: case Elem::BF16: case Elem::F32: case Elem::F8E5M2: case Elem::F8E4M3FN: case Elem::F8E8M0:
        case Elem::HiF8: case Elem::F4E2M1:
            return true;
        default: return false;
        }
    };
    return narrow(npu) && narrow(bench) ? kEps32 : kEps64;
}

namespace {

/// computePairMetrics, with the NPU saturation count when npuSaturated is set.
bool pairMetrics(const TensorView &npu, const TensorView &bench, PairMetrics &out, const PairMetricOptions &options,
                 std::uint64_t *npuSaturated, const JobControl *job)
{
    out = PairMetrics{};
    out.count = std::min(npu.count, bench.count);
    if (out.count == 0 || npu.count != bench.count) {
        if (npuSaturated)
            *npuSaturated = countSaturated(npu);
        return !cancelled(job);
    }
    const double eps = relativeErrorEpsilon(npu.elem, bench.elem);
    const ReMode rm = options.genBCompat && npu.elem == Elem::F16 && bench.elem == Elem::F16 ? ReMode::GenB
                      : eps == kEps32                                                  ? ReMode::F32
                                                                                       : ReMode::F64;
    std::vector<Acc> parts;
    const bool releaseFirst = largeSide(npu) || largeSide(bench) || !options.secondPass || streamedSide(npu)
                              || streamedSide(bench);
    if (!runTasks(npu, bench, parts, options.threads, job, releaseFirst, [&](size_t i, size_t n, Acc &a, double *bx, double *by) {
            if (npuSaturated) // while the block's bytes are in L1 for firstBlock
                a.saturated += countSaturatedIn(npu, i, i + n);
            firstBlock(npu, bench, i, n, rm, eps, a, bx, by);
        }))
        return false;
    Acc t;
    for (const Acc &p : parts)
        t.merge(p);
    if (npuSaturated)
        *npuSaturated = t.saturated;
    const double n = double(out.count);
    out.infNanMismatch = t.mismatch;
    out.infNanShared = t.shared;
    storeSide(t.x, out.count, out.npu);
    storeSide(t.y, out.count, out.bench);
    out.dot = t.sxy;
    out.npuNorm = std::sqrt(t.sxx);
    out.benchNorm = std::sqrt(t.syy);
    out.eucDist = std::sqrt(t.sdd);
    out.maxAbsErr = orderValue(t.maxAd);
    out.maxRelErr = orderValue(t.maxRe);
    out.oneThousandthRatio = double(t.c1) / n;
    out.fiveThousandthsRatio = double(t.c5) / n;
    out.meanAbsErr = t.sad / n;
    out.rmse = std::sqrt(t.sdd / n);
    out.relEuclid = out.benchNorm <= kEps64 ? 0.0 : std::sqrt(t.sdd / t.syy);
    out.accRelErr = t.sar;
    out.maxRelErrAcc = orderValue(t.maxAr);
    out.meanRelErr = t.sar / n;
    if (!options.secondPass)
        return true;

    KlParams k{};
    normalisation(t.x, k.ox, k.sx);
    normalisation(t.y, k.oy, k.sy);
    k.mx = out.npu.comparedMean;
    k.my = out.bench.comparedMean;
    std::vector<KlSums> sums;
    if (!runTasks(npu, bench, sums, options.threads, job, true, [&](size_t i, size_t n, KlSums &s, double *bx, double *by) {
            klBlock(npu, bench, i, n, k, s, bx, by);
        }))
        return false;
    KlSums s;
    for (const KlSums &b : sums)
        s.add(b);
    // KL = Σ p ln(p/q) with p = P/ΣP, q = Q/ΣQ  =  ΣP ln(P/Q) / ΣP + ln(ΣQ/ΣP)
    const double kl = s.pl / s.p + std::log(s.q / s.p);
    out.kl = std::fabs(kl) < kEps64 ? 0.0 : kl;
    out.npu.comparedStd = std::sqrt(s.cx / n);
    out.bench.comparedStd = std::sqrt(s.cy / n);
    return true;
}

} // namespace

bool computePairMetrics(const TensorView &npu, const TensorView &bench, PairMetrics &out,
                        const PairMetricOptions &options, const JobControl *job)
{
    return pairMetrics(npu, bench, out, options, nullptr, job);
}

bool computePairMetrics(const TensorView &npu, const TensorView &bench, PairMetrics &out,
                        const PairMetricOptions &options, std::uint64_t &npuSaturated, const JobControl *job)
{
    return pairMetrics(npu, bench, out, options, &npuSaturated, job);
}

} // namespace ds
