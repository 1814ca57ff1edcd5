#include "pairmetrics.h"

#include "pairkernels.h"
#include "util/parallel.h"

#include <algorithm>
#include <cmath>
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

double laneTotal(const double *l)
{
    double t = 0;
    for (size_t j = 0; j < kLanes; ++j)
        t += l[j];
    return t;
}

/// True when every x and y is finite (x * 0 is NaN for NaN and ±Inf).
DS_VECTOR_CLONES bool allFinite(const double *x, const double *y, size_t n)
{
    double l[kLanes] = {};
    const size_t whole = n - n % kLanes;
    for (size_t i = 0; i < whole; i += kLanes)
        for (size_t j = 0; j < kLanes; ++j)
            l[j] += x[i + j] * 0.0 + y[i + j] * 0.0;
    double t = laneTotal(l);
    for (size_t i = whole; i < n; ++i)
        t += x[i] * 0.0 + y[i] * 0.0;
    return t == 0.0;
}

DS_VECTOR_CLONES void rangeKeys(const double *v, size_t n, std::int64_t &lo, std::int64_t &hi)
{
    std::int64_t l = INT64_MAX, h = INT64_MIN;
    for (size_t i = 0; i < n; ++i) {
        const std::int64_t k = orderKey(v[i]);
        l = std::min(l, k);
        h = std::max(h, k);
    }
    lo = l;
    hi = h;
}

struct ProductSums { double xy = 0, xx = 0, yy = 0, x = 0, y = 0; };

DS_VECTOR_CLONES ProductSums productSums(const double *x, const double *y, size_t n)
{
    double a[kLanes] = {}, b[kLanes] = {}, c[kLanes] = {}, d[kLanes] = {}, e[kLanes] = {};
    const size_t whole = n - n % kLanes;
    for (size_t i = 0; i < whole; i += kLanes)
        for (size_t j = 0; j < kLanes; ++j) {
            const double xv = x[i + j], yv = y[i + j];
            a[j] += xv * yv;
            b[j] += xv * xv;
            c[j] += yv * yv;
            d[j] += xv;
            e[j] += yv;
        }
    for (size_t i = whole; i < n; ++i) {
        a[0] += x[i] * y[i]; b[0] += x[i] * x[i]; c[0] += y[i] * y[i]; d[0] += x[i]; e[0] += y[i];
    }
    return {laneTotal(a), laneTotal(b), laneTotal(c), laneTotal(d), laneTotal(e)};
}

/// Σ(x − y)², Σ|x − y| and the orderKey of max |x − y|.
DS_VECTOR_CLONES void diffSums(const double *x, const double *y, size_t n, double &sdd, double &sad, std::int64_t &maxKey)
{
    double a[kLanes] = {}, b[kLanes] = {};
    std::int64_t m = INT64_MIN;
    const size_t whole = n - n % kLanes;
    for (size_t i = 0; i < whole; i += kLanes)
        for (size_t j = 0; j < kLanes; ++j) {
            const double d = x[i + j] - y[i + j], ad = std::fabs(d);
            a[j] += d * d;
            b[j] += ad;
            m = std::max(m, orderKey(ad));
        }
    for (size_t i = whole; i < n; ++i) {
        const double d = x[i] - y[i], ad = std::fabs(d);
        a[0] += d * d;
        b[0] += ad;
        m = std::max(m, orderKey(ad));
    }
    sdd = laneTotal(a);
    sad = laneTotal(b);
    maxKey = m;
}

struct RelSums { double sar = 0; std::uint64_t c1 = 0, c5 = 0; std::int64_t maxRe = INT64_MIN, maxAr = INT64_MIN; };

/// msprobe RE (eps added where y = 0; Gen B float16 quirk on request) and msaccucmp's
/// |x/y − 1| for |y| > eps, computed as |x − y| / |y|.
template<bool GenB>
DS_VECTOR_CLONES RelSums relSums(const double *x, const double *y, size_t n)
{
    double s[kLanes] = {};
    std::uint64_t k1[kLanes] = {}, k5[kLanes] = {};
    std::int64_t mr = INT64_MIN, ma = INT64_MIN;
    // Every operation runs unconditionally and only values are selected: GCC does not
    // speculate divisions (-ftrapping-math), and the loop must stay branch-free to vectorise.
    auto one = [&](double xv, double yv, size_t j) {
        const bool zero = yv == 0.0;
        double re;
        if constexpr (GenB) {
            const double q = std::fabs(xv - yv) / std::fabs(yv);
            const double atZero = xv != 0.0 ? kInf : std::numeric_limits<double>::quiet_NaN();
            re = zero ? atZero : q;
        } else {
            const double xe = xv + kEps64;
            const double yy = zero ? kEps64 : yv, xx = zero ? xe : xv;
            re = std::fabs(xx - yy) / std::fabs(yy);
        }
        const double ar = std::fabs(yv) > kEps64 ? re : 0.0;
        s[j] += ar;
        k1[j] += re < 0.001;
        k5[j] += re < 0.005;
        mr = std::max(mr, orderKey(re));
        ma = std::max(ma, orderKey(ar));
    };
    const size_t whole = n - n % kLanes;
    for (size_t i = 0; i < whole; i += kLanes)
        for (size_t j = 0; j < kLanes; ++j)
            one(x[i + j], y[i + j], j);
    for (size_t i = whole; i < n; ++i)
        one(x[i], y[i], 0);
    RelSums r;
    r.sar = laneTotal(s);
    for (size_t j = 0; j < kLanes; ++j) {
        r.c1 += k1[j];
        r.c5 += k5[j];
    }
    r.maxRe = mr;
    r.maxAr = ma;
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

void addBlock(double *x, double *y, size_t n, bool genB, Acc &a)
{
    const bool finite = allFinite(x, y, n);
    if (!finite)
        fixupBlock(x, y, n, a);
    std::int64_t xlo, xhi, ylo, yhi;
    rangeKeys(x, n, xlo, xhi);
    rangeKeys(y, n, ylo, yhi);
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
    compared(a.x, p.x, xlo, xhi, p.xx);
    compared(a.y, p.y, ylo, yhi, p.yy);
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

/// v = 2^e · m with m in [√½, √2), for positive normal doubles, branch-free.
inline void splitLog(double v, double &e, double &m)
{
    std::uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    // exponent field as a double without an int->double conversion: (2^52 + field) − 2^52
    const std::uint64_t eb = 0x4330000000000000ULL | (b >> 52);
    std::memcpy(&e, &eb, sizeof e);
    e -= 4503599627370496.0 + 1023.0;
    const std::uint64_t mb = (b & 0x000FFFFFFFFFFFFFULL) | 0x3FF0000000000000ULL;
    std::memcpy(&m, &mb, sizeof m);
    const bool big = m > 1.4142135623730951;
    const double half = m * 0.5, e1 = e + 1.0; // computed unconditionally: selects only
    m = big ? half : m;
    e = big ? e1 : e;
}

/// ln m = 2 atanh(s) for s = (m − 1)/(m + 1), |s| < 0.172: the series to s^23 (truncation
/// below 1e-17).
inline double atanhSeries(double s)
{
    const double s2 = s * s;
    double poly = 1.0 / 23;
    for (int k = 10; k >= 0; --k)
        poly = poly * s2 + 1.0 / double(2 * k + 1);
    return 2.0 * s * poly;
}

/// ln(v) for positive normal doubles, branch-free so that the loop vectorises.
inline double fastLog(double v)
{
    double e, m;
    splitLog(v, e, m);
    return e * 0.6931471805599453 + (e * 2.3190468138462996e-17 + atanhSeries((m - 1.0) / (m + 1.0)));
}

/// Normalisation (v − offset) · scale per side (scale = 1 / range: one multiplication instead of
/// a division per element; within an ulp of numpy's division) and the compared means.
struct KlParams { double ox, sx, oy, sy, mx, my; };
struct KlSums { double p = 0, q = 0, pl = 0, cx = 0, cy = 0; };

DS_VECTOR_CLONES KlSums klSums(const double *x, const double *y, size_t n, const KlParams &k)
{
    double sp[kLanes] = {}, sq[kLanes] = {}, spl[kLanes] = {}, cx[kLanes] = {}, cy[kLanes] = {};
    auto one = [&](double xv, double yv, size_t j) {
        const double pn = (xv - k.ox) * k.sx, qn = (yv - k.oy) * k.sy;
        const double p = std::max(pn, kEps32), q = std::max(qn, kEps32);
        sp[j] += p;
        sq[j] += q;
        spl[j] += p * fastLog(p / q);
        const double a = xv - k.mx, b = yv - k.my;
        cx[j] += a * a;
        cy[j] += b * b;
    };
    const size_t whole = n - n % kLanes;
    for (size_t i = 0; i < whole; i += kLanes)
        for (size_t j = 0; j < kLanes; ++j)
            one(x[i + j], y[i + j], j);
    for (size_t i = whole; i < n; ++i)
        one(x[i], y[i], 0);
    return {laneTotal(sp), laneTotal(sq), laneTotal(spl), laneTotal(cx), laneTotal(cy)};
}

template<typename Part, typename Fn>
bool runTasks(const TensorView &x, const TensorView &y, std::vector<Part> &parts, unsigned threads,
              const JobControl *job, Fn &&fn)
{
    parts.assign((x.count + kTaskElems - 1) / kTaskElems, Part{});
    return parallelChunks(x.count, kTaskElems, [&](size_t c, size_t b, size_t e) {
        double bx[kBlock], by[kBlock];
        for (size_t i = b; i < e; i += kBlock) {
            const size_t n = std::min(e, i + kBlock) - i;
            pairkernels::loadBlock(x.elem, x.data, i, n, bx);
            pairkernels::loadBlock(y.elem, y.data, i, n, by);
            fn(bx, by, n, parts[c]);
        }
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
    if (!runTasks(npu, bench, parts, options.threads, job, [&](double *x, double *y, size_t n, Acc &a) { addBlock(x, y, n, genB, a); }))
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
    if (!runTasks(npu, bench, sums, options.threads, job, [&](double *x, double *y, size_t cnt, KlSums &s) {
            if (!allFinite(x, y, cnt))
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
