#include "pairmetrics.h"

#include "pairkernels.h"
#include "io/pagerelease.h"
#include "util/parallel.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

namespace ds {

namespace {

using pairkernels::kBlock;
using pairkernels::orderKey;
using pairkernels::orderValue;

constexpr size_t kTaskElems = size_t(1) << 20; // element pairs per parallel task
constexpr size_t kLanes = 8;                   // independent accumulators per sum (vectorisable)
constexpr double kInf = std::numeric_limits<double>::infinity();

// The block kernels are built for baseline x86-64 and AVX2 (picked at load time) with GCC, as
// the statistics kernels are; each lane is a sequential float64 sum, so both give the same bits.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__GLIBC__)
#define DS_VECTOR_CLONES [[gnu::target_clones("arch=x86-64-v4", "avx2", "default")]]
#else
#define DS_VECTOR_CLONES
#endif

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
    std::uint64_t mismatch = 0, shared = 0, c1 = 0, c5 = 0;
    double sxy = 0, sxx = 0, syy = 0, sdd = 0, sad = 0, sar = 0;
    std::int64_t maxAd = INT64_MIN, maxRe = INT64_MIN, maxAr = INT64_MIN; // orderKey of |values|

    void merge(const Acc &o)
    {
        x.merge(o.x); y.merge(o.y);
        mismatch += o.mismatch; shared += o.shared; c1 += o.c1; c5 += o.c5;
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

DS_INLINE V loadV(const double *p)
{
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
DS_INLINE V splat(double d) { return V{} + d; }
DS_INLINE VI splatI(std::int64_t i) { return VI{} + i; }
DS_INLINE VI bitsOf(V v) { return bitCast<VI>(v); }
DS_INLINE V vabs(V v) { return bitCast<V>(bitsOf(v) & INT64_MAX); }
DS_INLINE VI keys(V v)
{
    const VI b = bitsOf(v);
    return b ^ ((b >> 63) & INT64_MAX);
}
DS_INLINE VI vmax(VI a, VI b) { return a > b ? a : b; }
DS_INLINE VI vmin(VI a, VI b) { return a < b ? a : b; }

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
DS_INLINE std::int64_t minOf(VI v)
{
    std::int64_t m = v[0];
    for (size_t j = 1; j < kLanes; ++j)
        m = std::min(m, std::int64_t(v[j]));
    return m;
}

/// Sums of xy, x², y², x, y and the least and greatest orderKey of x and of y, in one loop.
struct ProductSums
{
    double xy = 0, xx = 0, yy = 0, x = 0, y = 0;
    std::int64_t xlo = INT64_MAX, xhi = INT64_MIN, ylo = INT64_MAX, yhi = INT64_MIN;
};

DS_VECTOR_CLONES ProductSums productSums(const double *x, const double *y, size_t n)
{
    V a{}, b{}, c{}, d{}, e{};
    VI xl = splatI(INT64_MAX), xh = splatI(INT64_MIN), yl = xl, yh = xh;
    const size_t whole = n - n % kLanes;
    for (size_t i = 0; i < whole; i += kLanes) {
        const V xv = loadV(x + i), yv = loadV(y + i);
        a += xv * yv;
        b += xv * xv;
        c += yv * yv;
        d += xv;
        e += yv;
        const VI kx = keys(xv), ky = keys(yv);
        xl = vmin(xl, kx);
        xh = vmax(xh, kx);
        yl = vmin(yl, ky);
        yh = vmax(yh, ky);
    }
    ProductSums r{total(a), total(b), total(c), total(d), total(e), minOf(xl), maxOf(xh), minOf(yl), maxOf(yh)};
    for (size_t i = whole; i < n; ++i) {
        r.xy += x[i] * y[i]; r.xx += x[i] * x[i]; r.yy += y[i] * y[i]; r.x += x[i]; r.y += y[i];
        r.xlo = std::min(r.xlo, orderKey(x[i])); r.xhi = std::max(r.xhi, orderKey(x[i]));
        r.ylo = std::min(r.ylo, orderKey(y[i])); r.yhi = std::max(r.yhi, orderKey(y[i]));
    }
    return r;
}

/// Σ(x − y)², Σ|x − y| and the orderKey of max |x − y|.
DS_VECTOR_CLONES void diffSums(const double *x, const double *y, size_t n, double &sdd, double &sad, std::int64_t &maxKey)
{
    V a{}, b{};
    VI m = splatI(INT64_MIN);
    const size_t whole = n - n % kLanes;
    for (size_t i = 0; i < whole; i += kLanes) {
        const V d = loadV(x + i) - loadV(y + i), ad = vabs(d);
        a += d * d;
        b += ad;
        m = vmax(m, bitsOf(ad)); // |d| >= 0: its bits are its order key
    }
    sdd = total(a);
    sad = total(b);
    maxKey = maxOf(m);
    for (size_t i = whole; i < n; ++i) {
        const double d = x[i] - y[i], ad = std::fabs(d);
        sdd += d * d;
        sad += ad;
        maxKey = std::max(maxKey, orderKey(ad));
    }
}

struct RelSums { double sar = 0; std::uint64_t c1 = 0, c5 = 0; std::int64_t maxRe = INT64_MIN, maxAr = INT64_MIN; };

/// msprobe RE (eps added where y = 0; Gen B float16 quirk on request) and msaccucmp's
/// |x/y − 1| for |y| > eps, computed as |x − y| / |y|. Written once for a lane type T (V or
/// double): every operation runs unconditionally and only values are selected.
template<bool GenB, typename T>
DS_INLINE T relError(T xv, T yv)
{
    const auto zero = yv == 0.0;
    if constexpr (GenB) {
        const T q = (xv - yv) / yv;
        const T atZero = xv != 0.0 ? T{} + kInf : T{} + std::numeric_limits<double>::quiet_NaN();
        return zero ? atZero : (q < 0.0 ? -q : q);
    } else {
        const T xe = xv + kEps64;
        const T yy = zero ? T{} + kEps64 : yv, xx = zero ? xe : xv;
        const T q = (xx - yy) / yy;
        return q < 0.0 ? -q : q;
    }
}

template<bool GenB>
DS_VECTOR_CLONES RelSums relSums(const double *x, const double *y, size_t n)
{
    V s{};
    VI k1{}, k5{}, mr = splatI(INT64_MIN), ma = splatI(INT64_MIN);
    const size_t whole = n - n % kLanes;
    for (size_t i = 0; i < whole; i += kLanes) {
        const V xv = loadV(x + i), yv = loadV(y + i);
        const V re = relError<GenB>(xv, yv);
        const V ar = vabs(yv) > kEps64 ? re : V{};
        s += ar;
        k1 -= re < 0.001; // a true lane is -1
        k5 -= re < 0.005;
        mr = vmax(mr, bitsOf(re)); // re >= 0 or a positive NaN: bits order as values
        ma = vmax(ma, bitsOf(ar));
    }
    RelSums r;
    r.sar = total(s);
    for (size_t j = 0; j < kLanes; ++j) {
        r.c1 += std::uint64_t(k1[j]);
        r.c5 += std::uint64_t(k5[j]);
    }
    r.maxRe = maxOf(mr);
    r.maxAr = maxOf(ma);
    for (size_t i = whole; i < n; ++i) {
        const double re = relError<GenB>(x[i], y[i]);
        const double ar = std::fabs(y[i]) > kEps64 ? re : 0.0;
        r.sar += ar;
        r.c1 += re < 0.001;
        r.c5 += re < 0.005;
        r.maxRe = std::max(r.maxRe, orderKey(re));
        r.maxAr = std::max(r.maxAr, orderKey(ar));
    }
    return r;
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

void addBlock(double *x, double *y, size_t n, bool finite, bool genB, Acc &a)
{
    if (!finite)
        fixupBlock(x, y, n, a);
    const ProductSums p = productSums(x, y, n);
    a.sxy += p.xy; a.sxx += p.xx; a.syy += p.yy;
    auto compared = [&](SideAcc &s, double sum, std::int64_t lo, std::int64_t hi, double sumsq) {
        s.zsum += sum;
        s.zmin = std::min(s.zmin, orderValue(lo));
        s.zmax = std::max(s.zmax, orderValue(hi));
        if (finite) { // the compared values are the values
            s.finite += n; s.sum += sum; s.sumsq += sumsq;
            s.min = std::min(s.min, orderValue(lo));
            s.max = std::max(s.max, orderValue(hi));
        }
    };
    compared(a.x, p.x, p.xlo, p.xhi, p.xx);
    compared(a.y, p.y, p.ylo, p.yhi, p.yy);
    double sdd, sad;
    std::int64_t maxAd;
    diffSums(x, y, n, sdd, sad, maxAd);
    a.sdd += sdd; a.sad += sad; a.maxAd = std::max(a.maxAd, maxAd);
    const RelSums r = genB ? relSums<true>(x, y, n) : relSums<false>(x, y, n);
    a.sar += r.sar; a.c1 += r.c1; a.c5 += r.c5;
    a.maxRe = std::max(a.maxRe, r.maxRe);
    a.maxAr = std::max(a.maxAr, r.maxAr);
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

/// ln(p/q) for positive p and q. When p/q lies within [0.88, 1.13] (|s| < 1/16 below) — nearly
/// every element of two tensors worth comparing — ln(p/q) = 2 atanh(s) with s = (p − q)/(p + q)
/// = 2 (s + s³/3 + … + s¹³/13), truncation below 1e-18 relative: one division instead of the
/// two of fastLog(p / q), a short series (Estrin's scheme: a short dependency chain), and p − q
/// is exact for close p and q. Other lanes take fastLog(p / q); a vector takes it when any of
/// its lanes needs it.
template<typename T>
DS_INLINE T lnRatio(T p, T q)
{
    const T s = (p - q) / (p + q);
    if (anyLane((s < 0.0 ? -s : s) >= 0.0625)) [[unlikely]]
        return fastLog(p / q);
    const T t = s * s, t2 = t * t, t4 = t2 * t2;
    const T a0 = 1.0 + t * (1.0 / 3), a1 = 1.0 / 5 + t * (1.0 / 7), a2 = 1.0 / 9 + t * (1.0 / 11);
    const T b0 = a0 + t2 * a1, b1 = a2 + t2 * (1.0 / 13);
    return 2.0 * s * (b0 + t4 * b1);
}

/// Normalisation (v − offset) · scale per side (scale = 1 / range: one multiplication instead of
/// a division per element; within an ulp of numpy's division) and the compared means.
struct KlParams { double ox, sx, oy, sy, mx, my; };
struct KlSums { double p = 0, q = 0, pl = 0, cx = 0, cy = 0; };

/// One element (T = double) or kLanes elements (T = V) of the KL / centred-squares pass.
template<typename T>
DS_INLINE void klStep(T xv, T yv, const KlParams &k, T &sp, T &sq, T &spl, T &cx, T &cy)
{
    const T pn = (xv - k.ox) * k.sx, qn = (yv - k.oy) * k.sy;
    const T p = pn > kEps32 ? pn : T{} + kEps32, q = qn > kEps32 ? qn : T{} + kEps32;
    sp += p;
    sq += q;
    spl += p * lnRatio(p, q);
    const T a = xv - k.mx, b = yv - k.my;
    cx += a * a;
    cy += b * b;
}

DS_VECTOR_CLONES KlSums klSums(const double *x, const double *y, size_t n, const KlParams &k)
{
    V sp{}, sq{}, spl{}, cx{}, cy{};
    const size_t whole = n - n % kLanes;
    for (size_t i = 0; i < whole; i += kLanes)
        klStep(loadV(x + i), loadV(y + i), k, sp, sq, spl, cx, cy);
    KlSums r{total(sp), total(sq), total(spl), total(cx), total(cy)};
    for (size_t i = whole; i < n; ++i)
        klStep(x[i], y[i], k, r.p, r.q, r.pl, r.cx, r.cy);
    return r;
}

/// A side larger than this gives its pages back during the first pass too (they are read again,
/// with minor faults, by the second); smaller ones only behind the second pass.
constexpr size_t kReleaseFirstPassBytes = size_t(1) << 30;

bool largeSide(const TensorView &v) { return v.count * elemBytes(v.elem) > kReleaseFirstPassBytes; }

/// Runs fn over blocks of both tensors in parallel tasks; `release` hands each task's mapped
/// pages back behind it (releaseMappedPages), for the last pass or for very large tensors.
template<typename Part, typename Fn>
bool runTasks(const TensorView &x, const TensorView &y, std::vector<Part> &parts, unsigned threads,
              const JobControl *job, bool release, Fn &&fn)
{
    parts.assign((x.count + kTaskElems - 1) / kTaskElems, Part{});
    return parallelChunks(x.count, kTaskElems, [&](size_t c, size_t b, size_t e) {
        double bx[kBlock], by[kBlock];
        for (size_t i = b; i < e; i += kBlock) {
            const size_t n = std::min(e, i + kBlock) - i;
            const bool finite = pairkernels::loadBlock(x.elem, x.data, i, n, bx)
                                & pairkernels::loadBlock(y.elem, y.data, i, n, by);
            fn(bx, by, n, finite, parts[c]);
        }
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

bool computePairMetrics(const TensorView &npu, const TensorView &bench, PairMetrics &out,
                        const PairMetricOptions &options, const JobControl *job)
{
    out = PairMetrics{};
    out.count = std::min(npu.count, bench.count);
    if (out.count == 0 || npu.count != bench.count)
        return !cancelled(job);
    const bool genB = options.genBCompat && npu.elem == Elem::F16 && bench.elem == Elem::F16;
    std::vector<Acc> parts;
    const bool releaseFirst = largeSide(npu) || largeSide(bench) || !options.secondPass;
    if (!runTasks(npu, bench, parts, options.threads, job, releaseFirst, [&](double *x, double *y, size_t n, bool finite, Acc &a) {
            addBlock(x, y, n, finite, genB, a);
        }))
        return false;
    Acc t;
    for (const Acc &p : parts)
        t.merge(p);
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
    if (!runTasks(npu, bench, sums, options.threads, job, true, [&](double *x, double *y, size_t cnt, bool finite, KlSums &s) {
            if (!finite)
                zeroNonFinite(x, y, cnt);
            const KlSums b = klSums(x, y, cnt, k);
            s.p += b.p; s.q += b.q; s.pl += b.pl; s.cx += b.cx; s.cy += b.cy;
        }))
        return false;
    KlSums s;
    for (const KlSums &b : sums) {
        s.p += b.p; s.q += b.q; s.pl += b.pl; s.cx += b.cx; s.cy += b.cy;
    }
    // KL = Σ p ln(p/q) with p = P/ΣP, q = Q/ΣQ  =  ΣP ln(P/Q) / ΣP + ln(ΣQ/ΣP)
    const double kl = s.pl / s.p + std::log(s.q / s.p);
    out.kl = std::fabs(kl) < kEps64 ? 0.0 : kl;
    out.npu.comparedStd = std::sqrt(s.cx / n);
    out.bench.comparedStd = std::sqrt(s.cy / n);
    return true;
}

} // namespace ds
