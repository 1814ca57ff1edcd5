#include "stats.h"

#include "binning.h"
#include "io/pagerelease.h"
#include "io/readahead.h"
#include "histkernels.h"
#include "statskernels.h"
#include "util/kernelisa.h"
#include "util/parallel.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <mutex>
#include <optional>
#include <type_traits>

namespace ds {

namespace {

using binning::Binner;
using binning::binThresholds;
using binning::CertifiedBinner;
using binning::EstimateType;
using binning::kCertifyElemsPerBin;

constexpr size_t kChunk = 4096;              // elements per inner block (fits L1 as doubles)
constexpr size_t kTaskElems = size_t(1) << 20; // elements per parallel task

bool cancelled(const JobControl *job) { return job && job->cancelled(); }

constexpr size_t kReleaseBytes = size_t(8) << 20; // a pass hands back what it read every 8 MiB at most
constexpr size_t kReleaseMin = size_t(1) << 20;   // smaller tensors: their mapping goes soon enough

/// The elements [b, e) of t have been read by this pass: when they are pages of a mapped
/// file, they leave the resident set (releaseMappedPages), so a pass over a tensor of
/// many GiB keeps only the tasks in flight resident. Converted buffers are left alone.
void doneWith(const TensorView &t, size_t b, size_t e)
{
    const size_t bytes = elemBytes(t.elem);
    if (bytes == 0 || t.count < kReleaseMin / bytes || e <= b)
        return;
    releaseMappedPages(t.data + b * bytes, (e - b) * bytes);
}

/// After a streaming pass over all of t: hands back the pages that a task's reads mapped again
/// after its neighbour had released them (the kernel maps up to 64 KiB of cached pages around a
/// fault, across a task boundary), so that nothing of the mapping stays resident. One call.
void sweepMapping(const TensorView &t)
{
    doneWith(t, 0, t.count);
}

// ---- running moments (Chan et al. parallel merge) ---------------------------------------

/// min, max, zero and sumsq describe the values x; mean and m2 describe x - shift, with one
/// shift (close to the mean) for all the parts that are merged: the block means then stay
/// small and precise enough for the merge even when |mean| >> std.
struct Moments
{
    std::uint64_t finite = 0, nan = 0, posinf = 0, neginf = 0, zero = 0;
    double min = std::numeric_limits<double>::infinity();
    double max = -std::numeric_limits<double>::infinity();
    double mean = 0, m2 = 0, sumsq = 0;
    double shift = 0;
    bool withHeadroom = false; ///< real floating kinds: headroom counts in the same pass
    headroom::Accumulator headroom;

    void merge(const Moments &o)
    {
        if (o.withHeadroom)
            headroom.merge(o.headroom);
        nan += o.nan; posinf += o.posinf; neginf += o.neginf; zero += o.zero;
        min = std::min(min, o.min);
        max = std::max(max, o.max);
        sumsq += o.sumsq;
        if (o.finite == 0)
            return;
        if (finite == 0) {
            finite = o.finite; mean = o.mean; m2 = o.m2;
            return;
        }
        const double n = double(finite + o.finite), delta = o.mean - mean;
        mean += delta * double(o.finite) / n;
        m2 += o.m2 + delta * delta * double(finite) * double(o.finite) / n;
        finite += o.finite;
    }

    /// Adds a block of values (two passes over an L1-resident block).
    void addBlock(const double *v, size_t n)
    {
        Moments b;
        b.shift = shift;
        if (withHeadroom)
            headroom.addDoubles(v, n);
        double s = 0, sq = 0;
        for (size_t i = 0; i < n; ++i) {
            const double x = v[i];
            if (std::isfinite(x)) {
                ++b.finite;
                s += x - shift;
                sq += x * x;
                b.min = std::min(b.min, x);
                b.max = std::max(b.max, x);
                b.zero += x == 0;
            } else if (std::isnan(x)) {
                ++b.nan;
            } else if (x > 0) {
                ++b.posinf;
            } else {
                ++b.neginf;
            }
        }
        if (b.finite) {
            b.mean = s / double(b.finite);
            double m2 = 0;
            for (size_t i = 0; i < n; ++i) {
                const double d = (v[i] - shift) - b.mean;
                if (std::isfinite(v[i]))
                    m2 += d * d;
            }
            b.m2 = m2;
        }
        b.sumsq = sq;
        merge(b);
    }

    void store(std::uint64_t count, TensorStats &out) const
    {
        out = TensorStats{};
        out.count = count;
        out.finite = finite; out.nan = nan; out.posinf = posinf; out.neginf = neginf; out.zero = zero;
        if (finite) {
            out.min = min;
            out.max = max;
            out.mean = shift + mean;
            out.std = std::sqrt(std::max(0.0, m2 / double(finite)));
            out.l2norm = std::sqrt(sumsq);
        }
        if (withHeadroom)
            out.headroom = headroom.result();
    }
};

void widenIfEqual(double &lo, double &hi)
{
    if (lo == hi) {
        lo -= 0.5;
        hi += 0.5;
    }
}

// ---- element loading --------------------------------------------------------------------

/// Element i of type T at p (mapped tensors need not be aligned).
template<typename T>
T loadAt(const std::byte *p, size_t i)
{
    T v;
    std::memcpy(&v, p + i * sizeof(T), sizeof(T));
    return v;
}

/// Converts elements [b, e) to doubles in out.
void loadDoubles(Elem elem, const std::byte *data, size_t b, size_t e, double *out)
{
    auto copy = [&](auto tag) {
        using T = decltype(tag);
        const auto *p = reinterpret_cast<const std::byte *>(data) + b * sizeof(T);
        for (size_t i = 0; i < e - b; ++i) {
            T v;
            std::memcpy(&v, p + i * sizeof(T), sizeof(T));
            out[i] = double(v);
        }
    };
    switch (elem) {
    case Elem::F32: copy(float{}); break;
    case Elem::F64: copy(double{}); break;
    case Elem::I32: copy(std::int32_t{}); break;
    case Elem::U32: copy(std::uint32_t{}); break;
    case Elem::I64: copy(std::int64_t{}); break;
    case Elem::U64: copy(std::uint64_t{}); break;
    default:
        for (size_t i = b; i < e; ++i)
            out[i - b] = elemToDouble(elem, data, i);
        break;
    }
}

/// 8- and 16-bit element kinds are reduced through a table of code counts.
int codeBits(Elem e)
{
    switch (e) {
    case Elem::F16: case Elem::BF16: case Elem::I16: case Elem::U16: return 16;
    case Elem::I8: case Elem::U8: case Elem::Bool: case Elem::F8E5M2: case Elem::F8E4M3FN:
    case Elem::F8E8M0: case Elem::HiF8: case Elem::F4E2M1:
        return 8;
    default: return 0;
    }
}

const std::vector<double> &codeValues(Elem e)
{
    static std::array<std::vector<double>, 32> tables;
    static std::array<std::once_flag, 32> once;
    const auto idx = size_t(e);
    std::call_once(once[idx], [&] {
        const size_t n = size_t(1) << codeBits(e);
        auto &t = tables[idx];
        t.resize(n);
        for (size_t c = 0; c < n; ++c) {
            std::byte raw[2];
            const auto code = std::uint16_t(c);
            std::memcpy(raw, &code, 2);
            t[c] = elemToDouble(e, raw, 0);
        }
    });
    return tables[idx];
}

bool countCodes(const TensorView &t, std::vector<std::uint64_t> &counts, const JobControl *job)
{
    const ReadAhead ahead(t.data, t.count * elemBytes(t.elem)); // a cold file streams as for `cat`
    const int bits = codeBits(t.elem);
    const size_t codes = size_t(1) << bits;
    counts.assign(codes, 0);
    std::mutex mutex;
    const bool ok = parallelChunks(t.count, std::max(kTaskElems, t.count / (4 * workerCount()) + 1),
                                   [&](size_t, size_t b, size_t e) {
        std::vector<std::uint32_t> local(codes, 0); // a task has < 2^32 elements
        const size_t step = kReleaseBytes / size_t(bits / 8); // tasks are large here: release within
        for (size_t s = b; s < e; s += step) {
            const size_t end = std::min(e, s + step);
            if (bits == 16) {
                for (size_t i = s; i < end; ++i)
                    ++local[loadAt<std::uint16_t>(t.data, i)];
            } else {
                for (size_t i = s; i < end; ++i)
                    ++local[loadAt<std::uint8_t>(t.data, i)];
            }
            doneWith(t, s, end);
            if (cancelled(job))
                break;
        }
        std::lock_guard lock(mutex);
        for (size_t c = 0; c < codes; ++c)
            counts[c] += local[c];
        return !cancelled(job);
    });
    sweepMapping(t);
    return ok && !cancelled(job);
}

void statsFromCodes(Elem e, const std::vector<std::uint64_t> &counts, std::uint64_t total, TensorStats &out,
                    bool withHeadroom)
{
    const auto &values = codeValues(e);
    Moments m;
    m.withHeadroom = withHeadroom;
    double sum = 0;
    for (size_t c = 0; c < counts.size(); ++c) {
        const std::uint64_t k = counts[c];
        if (!k)
            continue;
        const double v = values[c];
        if (std::isnan(v)) { m.nan += k; continue; }
        if (std::isinf(v)) { (v > 0 ? m.posinf : m.neginf) += k; continue; }
        if (withHeadroom)
            m.headroom.add(v, k);
        m.finite += k;
        sum += v * double(k);
        m.sumsq += v * v * double(k);
        m.min = std::min(m.min, v);
        m.max = std::max(m.max, v);
        if (v == 0)
            m.zero += k;
    }
    if (m.finite) {
        m.mean = sum / double(m.finite);
        for (size_t c = 0; c < counts.size(); ++c) {
            const double v = values[c];
            if (counts[c] && std::isfinite(v))
                m.m2 += (v - m.mean) * (v - m.mean) * double(counts[c]);
        }
    }
    m.store(total, out);
}

void histogramFromCodes(Elem e, const std::vector<std::uint64_t> &counts, int bins, double lo, double hi, Histogram &out)
{
    widenIfEqual(lo, hi);
    const Binner binner(bins, lo, hi);
    const auto &values = codeValues(e);
    out = Histogram{};
    out.lo = lo; out.hi = hi;
    out.counts.assign(size_t(bins), 0);
    for (size_t c = 0; c < counts.size(); ++c) {
        const std::uint64_t k = counts[c];
        if (!k)
            continue;
        const double v = values[c];
        if (std::isnan(v)) out.nan += k;
        else if (std::isinf(v)) (v > 0 ? out.posinf : out.neginf) += k;
        else binner.add(v, out.counts.data(), out.below, out.above, k);
    }
}

// ---- direct kernels -----------------------------------------------------------------------
//
// Plain 32/64-bit element kinds are read in their own type, in L1-sized blocks of kChunk
// elements, by loops written so that GCC vectorises them at the baseline ISA without
// -ffast-math: sums use kLanes independent float64 accumulators (each lane is an ordinary
// sequential sum, so the result does not depend on the vector width), min/max run on integer
// keys, and no loop converts or selects on a value that may be NaN or out of range.
// Blocks that hold a NaN or an Inf (rare in practice) take the general per-element path, which
// is the reference behaviour. Other kinds (complex) always take the general path.

constexpr size_t kLanes = 16;

// With GCC the kernels below (an always-inlined body and a dispatcher) are built twice, for
// baseline x86-64 (SSE2) and for AVX2; util/kernelisa.h picks one per CPU, and tests run both.
// Same source, same results: no FMA, no reassociation, only the vector width differs and every
// lane stays a separate sequential sum. Other compilers and targets build the baseline only.
#define DS_KERNEL_BODY [[gnu::always_inline]] inline

/// An integer with the order of the non-NaN values of T, for min/max loops the compiler can
/// vectorise (a float comparison select is not a vectorisable min because of NaN). Floats use
/// their bits with the magnitude flipped for negative values (-0.0 sorts just below +0.0);
/// integers are their own key. of() and value() are inverses.
template<typename T>
struct OrderKey
{
    using Key = T;
    static Key of(T x) { return x; }
    static T value(Key k) { return k; }
};

template<typename F, typename I>
struct FloatOrderKey
{
    using Key = I;
    static constexpr I kMagnitude = std::numeric_limits<I>::max();
    static Key of(F x)
    {
        I b;
        std::memcpy(&b, &x, sizeof b);
        return b ^ ((b >> (8 * sizeof(I) - 1)) & kMagnitude);
    }
    static F value(Key k)
    {
        const I b = k ^ ((k >> (8 * sizeof(I) - 1)) & kMagnitude);
        F x;
        std::memcpy(&x, &b, sizeof x);
        return x;
    }
};
template<> struct OrderKey<float> : FloatOrderKey<float, std::int32_t> {};
template<> struct OrderKey<double> : FloatOrderKey<double, std::int64_t> {};

/// Least and greatest element of the block [p, p + n), 1 <= n <= kChunk, in the order of
/// OrderKey, and the number of zeros. A NaN, if any, comes out as lo or hi (NaN keys lie beyond
/// the infinities), so the block is all finite exactly when lo and hi are.
template<typename T>
DS_KERNEL_BODY void blockRangeBody(const std::byte *p, size_t n, T &lo, T &hi, std::uint32_t &zeros)
{
    using Key = typename OrderKey<T>::Key;
    Key kl = OrderKey<T>::of(loadAt<T>(p, 0)), kh = kl;
    std::uint32_t z = 0;
    for (size_t i = 0; i < n; ++i) {
        const T x = loadAt<T>(p, i);
        const Key k = OrderKey<T>::of(x);
        kl = std::min(kl, k);
        kh = std::max(kh, k);
        z += x == T(0);
    }
    lo = OrderKey<T>::value(kl);
    hi = OrderKey<T>::value(kh);
    zeros = z;
}
template<typename T>
void blockRange(const std::byte *p, size_t n, T &lo, T &hi, std::uint32_t &zeros)
{
    DS_KERNEL_DISPATCH(blockRangeBody<T>(p, n, lo, hi, zeros));
}

/// float64 with the headroom: blockRangeBody's range and zeros and, in the same pass, the
/// headroom's part of it (headroom::DoubleRangeCounts: the smallest nonzero |x| and the counts
/// below two thresholds), on the bits of |x| in signed 64-bit lanes (a zero becomes INT64_MAX;
/// AVX2 compares signed 64-bit integers, it has no unsigned 64-bit min). kLanes independent
/// lanes: one chain per lane and quantity.
DS_KERNEL_BODY void blockRangeHeadroomBody(const std::byte *p, size_t n, double &lo, double &hi, std::uint32_t &zeros,
                                           headroom::DoubleRangeCounts &h)
{
    using Key = OrderKey<double>::Key;
    constexpr std::int64_t kMagnitude = std::numeric_limits<std::int64_t>::max(), kNone = kMagnitude;
    const std::int64_t l0 = headroom::doubleHighThresholdBits(), l1 = headroom::doubleLowThresholdBits();
    Key kl[kLanes], kh[kLanes];
    std::int64_t least[kLanes], z[kLanes] = {}, c0[kLanes] = {}, c1[kLanes] = {};
    const Key first = OrderKey<double>::of(loadAt<double>(p, 0));
    for (size_t j = 0; j < kLanes; ++j) {
        kl[j] = kh[j] = first;
        least[j] = kNone;
    }
#define DS_RANGE_HEADROOM_STEP(i, j)                                                                   \
    do {                                                                                               \
        std::int64_t b;                                                                                \
        std::memcpy(&b, p + sizeof(double) * (i), sizeof b);                                           \
        const Key k = b ^ ((b >> 63) & kMagnitude); /* OrderKey<double>::of */                        \
        kl[j] = k < kl[j] ? k : kl[j];                                                                 \
        kh[j] = k > kh[j] ? k : kh[j];                                                                 \
        const std::int64_t a = b & kMagnitude;                                                         \
        z[j] += a == 0;                                                                                \
        c0[j] += a < l0;                                                                               \
        c1[j] += a < l1;                                                                               \
        const std::int64_t v = a == 0 ? kNone : a;                                                     \
        least[j] = v < least[j] ? v : least[j];                                                        \
    } while (false)
    // one step for both loops (a lambda would not take the kernel's target)
    const size_t whole = n - n % kLanes;
    for (size_t i = 0; i < whole; i += kLanes)
        for (size_t j = 0; j < kLanes; ++j)
            DS_RANGE_HEADROOM_STEP(i + j, j);
    for (size_t i = whole; i < n; ++i)
        DS_RANGE_HEADROOM_STEP(i, 0);
#undef DS_RANGE_HEADROOM_STEP
    Key l = kl[0], g = kh[0];
    std::int64_t m = kNone;
    std::uint64_t zs = 0;
    h.belowHigh = h.belowLow = 0;
    for (size_t j = 0; j < kLanes; ++j) {
        l = std::min(l, kl[j]);
        g = std::max(g, kh[j]);
        m = std::min(m, least[j]);
        zs += std::uint64_t(z[j]);
        h.belowHigh += std::uint64_t(c0[j]);
        h.belowLow += std::uint64_t(c1[j]);
    }
    lo = OrderKey<double>::value(l);
    hi = OrderKey<double>::value(g);
    zeros = std::uint32_t(zs);
    h.minNonzeroBits = m == kNone ? ~std::uint64_t(0) : std::uint64_t(m);
}
void blockRangeHeadroom(const std::byte *p, size_t n, double &lo, double &hi, std::uint32_t &zeros, headroom::DoubleRangeCounts &h)
{
    DS_KERNEL_DISPATCH(blockRangeHeadroomBody(p, n, lo, hi, zeros, h));
}

/// The unsigned integer as wide as T (the bits of |x| for the headroom kernels).
template<typename T>
using AbsBits = std::make_unsigned_t<typename OrderKey<T>::Key>;

// ---- statistics

/// The general path for one block: convert to float64, then Moments::addBlock.
void addBlockGeneral(Elem elem, const std::byte *data, size_t b, size_t e, Moments &m)
{
    double buf[kChunk];
    loadDoubles(elem, data, b, e, buf);
    m.addBlock(buf, e - b);
}

/// Sum of x - shift and sum of x^2 over the block [p, p + n) of type T, each with kLanes
/// independent float64 accumulators (two loops: GCC vectorises each one cleanly, the fused loop
/// poorly).
template<typename T>
DS_KERNEL_BODY void laneSumsBody(const std::byte *p, size_t n, double shift, double &sum, double &sumsq)
{
    double s[kLanes] = {}, q[kLanes] = {};
    const size_t whole = n - n % kLanes;
    for (size_t i = 0; i < whole; i += kLanes)
        for (size_t j = 0; j < kLanes; ++j)
            s[j] += double(loadAt<T>(p, i + j)) - shift;
    for (size_t i = 0; i < whole; i += kLanes)
        for (size_t j = 0; j < kLanes; ++j) {
            const double x = double(loadAt<T>(p, i + j));
            q[j] += x * x;
        }
    for (size_t i = whole; i < n; ++i) {
        const double x = double(loadAt<T>(p, i));
        s[0] += x - shift;
        q[0] += x * x;
    }
    sum = sumsq = 0;
    for (size_t j = 0; j < kLanes; ++j) {
        sum += s[j];
        sumsq += q[j];
    }
}
template<typename T>
void laneSums(const std::byte *p, size_t n, double shift, double &sum, double &sumsq)
{
    DS_KERNEL_DISPATCH(laneSumsBody<T>(p, n, shift, sum, sumsq));
}

/// Sum of ((x - shift) - mean)^2 over the block [p, p + n) with kLanes independent accumulators.
template<typename T>
DS_KERNEL_BODY double laneSquaredDeviationsBody(const std::byte *p, size_t n, double shift, double mean)
{
    double d2[kLanes] = {};
    const size_t whole = n - n % kLanes;
    for (size_t i = 0; i < whole; i += kLanes)
        for (size_t j = 0; j < kLanes; ++j) {
            const double d = (double(loadAt<T>(p, i + j)) - shift) - mean;
            d2[j] += d * d;
        }
    for (size_t i = whole; i < n; ++i) {
        const double d = (double(loadAt<T>(p, i)) - shift) - mean;
        d2[0] += d * d;
    }
    double total = 0;
    for (size_t j = 0; j < kLanes; ++j)
        total += d2[j];
    return total;
}
template<typename T>
double laneSquaredDeviations(const std::byte *p, size_t n, double shift, double mean)
{
    DS_KERNEL_DISPATCH(laneSquaredDeviationsBody<T>(p, n, shift, mean));
}

/// addBlockFinite for float32 with the fused SIMD kernels (tensor/statskernels.h): the same
/// bits, one pass over the block plus the deviations' pass from L1.
bool addFloatBlockFused(const std::byte *p, size_t n, Moments &m)
{
    static const std::uint32_t high = headroom::floatHighThresholdBits(), low = headroom::floatLowThresholdBits();
    statskernels::Float32Block r;
    if (!statskernels::float32Block(p, n, m.shift, m.withHeadroom, high, low, r))
        return false;
    Moments b;
    b.shift = m.shift;
    b.finite = n;
    b.zero = r.zeros;
    b.min = double(r.lo), b.max = double(r.hi);
    b.sumsq = r.sumsq, b.mean = r.sum / double(n), b.m2 = r.m2;
    if (m.withHeadroom) {
        const float maxAbs = std::max(std::abs(r.lo), std::abs(r.hi));
        std::uint32_t maxAbsBits;
        std::memcpy(&maxAbsBits, &maxAbs, sizeof maxAbsBits);
        const headroom::DoubleRangeCounts range{r.minNonzeroBits, r.belowHigh, r.belowLow};
        headroom::addFloatBlock(p, n, r.zeros, maxAbsBits, range, m.headroom);
    }
    m.merge(b);
    return true;
}

/// Fast path for the block [p, p + n) of 1 <= n <= kChunk elements of type T: three passes
/// over the L1-resident block (range and zeros; sums; squared deviations from the block mean).
/// Returns false, leaving m untouched, when the block holds a NaN or an Inf.
template<typename T>
bool addBlockFinite(const std::byte *p, size_t n, Moments &m)
{
    if constexpr (std::is_same_v<T, float>) {
        if (statskernels::available())
            return addFloatBlockFused(p, n, m);
    }
    T lo, hi;
    std::uint32_t zeros = 0;
    constexpr bool kFloat = std::is_same_v<T, float> || std::is_same_v<T, double>;
    [[maybe_unused]] headroom::DoubleRangeCounts range;
    if constexpr (std::is_same_v<T, double>) {
        if (m.withHeadroom)
            blockRangeHeadroom(p, n, lo, hi, zeros, range);
        else
            blockRange(p, n, lo, hi, zeros);
    } else {
        blockRange(p, n, lo, hi, zeros);
    }
    if (!std::isfinite(double(lo)) || !std::isfinite(double(hi)))
        return false;
    Moments b;
    b.shift = m.shift;
    b.finite = n;
    b.zero = zeros;
    b.min = double(lo);
    b.max = double(hi);
    double sum = 0;
    laneSums<T>(p, n, b.shift, sum, b.sumsq);
    b.mean = sum / double(n);
    b.m2 = laneSquaredDeviations<T>(p, n, b.shift, b.mean);
    if constexpr (kFloat) {
        if (m.withHeadroom) {
            using U = AbsBits<T>;
            constexpr U kMagnitude = std::numeric_limits<U>::max() >> 1;
            U loBits, hiBits;
            std::memcpy(&loBits, &lo, sizeof lo);
            std::memcpy(&hiBits, &hi, sizeof hi);
            const U maxAbsBits = std::max(loBits & kMagnitude, hiBits & kMagnitude);
            if constexpr (std::is_same_v<T, float>)
                headroom::addFloatBlock(p, n, zeros, maxAbsBits, m.headroom);
            else
                headroom::addDoubleBlock(p, n, zeros, maxAbsBits, range, m.headroom);
        }
    }
    m.merge(b);
    return true;
}

/// Reduces elements [b, e) block by block into m.
template<typename T>
void reduceTyped(Elem elem, const std::byte *data, size_t b, size_t e, Moments &m)
{
    for (size_t i = b; i < e; i += kChunk) {
        const size_t end = std::min(e, i + kChunk);
        if (!addBlockFinite<T>(data + i * sizeof(T), end - i, m))
            addBlockGeneral(elem, data, i, end, m);
    }
}

void reduceRange(Elem elem, const std::byte *data, size_t b, size_t e, Moments &m)
{
    switch (elem) {
    case Elem::F32: reduceTyped<float>(elem, data, b, e, m); break;
    case Elem::F64: reduceTyped<double>(elem, data, b, e, m); break;
    case Elem::I32: reduceTyped<std::int32_t>(elem, data, b, e, m); break;
    case Elem::U32: reduceTyped<std::uint32_t>(elem, data, b, e, m); break;
    case Elem::I64: reduceTyped<std::int64_t>(elem, data, b, e, m); break;
    case Elem::U64: reduceTyped<std::uint64_t>(elem, data, b, e, m); break;
    default:
        for (size_t i = b; i < e; i += kChunk)
            addBlockGeneral(elem, data, i, std::min(e, i + kChunk), m);
        break;
    }
}

/// The shift of Moments: the mean of the finite values among the first kChunk elements, so
/// that |mean - shift| is about std / 64 and adding the shift back costs nothing noticeable.
double momentsShift(const TensorView &t)
{
    double sum = 0;
    size_t finite = 0;
    for (size_t i = 0; i < std::min(t.count, kChunk); ++i) {
        const double x = elemToDouble(t.elem, t.data, i);
        if (std::isfinite(x)) {
            sum += x;
            ++finite;
        }
    }
    const double shift = finite ? sum / double(finite) : 0.0;
    return std::abs(shift) < 1e150 ? shift : 0.0; // x - shift must not overflow where x does not
}

/// stream: the pass hands its pages back behind it and reads ahead of itself (false: the caller
/// keeps one warm mapping for two passes, computeStatsAndHistogram).
bool directStats(const TensorView &t, TensorStats &out, const JobControl *job, bool withHeadroom, bool stream = true)
{
    std::optional<ReadAhead> ahead; // a cold file streams as for `cat`
    if (stream)
        ahead.emplace(t.data, t.count * elemBytes(t.elem));
    // One Moments per task, merged in task order afterwards: the result does not depend on
    // which thread finished first.
    std::vector<Moments> parts((t.count + kTaskElems - 1) / kTaskElems);
    const double shift = momentsShift(t);
    for (Moments &m : parts) {
        m.shift = shift;
        m.withHeadroom = withHeadroom;
    }
    const bool ok = parallelChunks(t.count, kTaskElems, [&](size_t c, size_t b, size_t e) {
        reduceRange(t.elem, t.data, b, e, parts[c]);
        if (stream)
            doneWith(t, b, e);
        return !cancelled(job);
    });
    if (stream)
        sweepMapping(t);
    if (!ok || cancelled(job))
        return false;
    Moments total;
    total.shift = shift;
    total.withHeadroom = withHeadroom;
    for (const Moments &m : parts)
        total.merge(m);
    total.store(t.count, out);
    return true;
}

// ---- histogram (the binning is in binning.h)


/// Per-element histogram of values already converted to float64 (the reference behaviour).
void histogramValues(const double *v, size_t n, const Binner &binner, Histogram &local)
{
    for (size_t k = 0; k < n; ++k) {
        const double x = v[k];
        if (std::isfinite(x)) binner.add(x, local.counts.data(), local.below, local.above);
        else if (std::isnan(x)) ++local.nan;
        else (x > 0 ? local.posinf : local.neginf)++;
    }
}

/// Certified bins of the block [p, p + n) into bins[], -1 where bin() must decide. Returns false
/// when the block holds a value outside [lo, hi] (NaN, Inf), unless the caller knows there is none.
template<typename T>
DS_KERNEL_BODY bool certifiedBinsBody(const std::byte *p, size_t n, const CertifiedBinner<EstimateType<T>> &cert,
                                      double lo, double hi, bool allInRange, std::int32_t *bins)
{
    using E = EstimateType<T>;
    if (!allInRange) {
        T least, greatest;
        std::uint32_t zeros = 0;
        blockRangeBody(p, n, least, greatest, zeros);
        if (!(double(least) >= lo) || !(double(greatest) <= hi))
            return false;
    }
    // Every estimate lies in [0, n * (1 + eps)]: the conversion to int32 is defined.
    for (size_t k = 0; k < n; ++k) {
        const E t = cert.estimate(E(loadAt<T>(p, k)));
        const auto j = std::int32_t(t);
        const E frac = t - E(j);
        bins[k] = (frac > cert.fracLo) & (frac < cert.fracHi) & (j < cert.n) ? j : -1;
    }
    return true;
}
template<typename T>
bool certifiedBins(const std::byte *p, size_t n, const CertifiedBinner<EstimateType<T>> &cert, double lo, double hi,
                   bool allInRange, std::int32_t *bins)
{
    DS_KERNEL_DISPATCH(certifiedBinsBody<T>(p, n, cert, lo, hi, allInRange, bins));
}

/// certifiedBins, through the explicit SIMD float32 kernels (histkernels.h) where the level has them.
template<typename T>
bool typedBins(const std::byte *p, size_t n, const CertifiedBinner<EstimateType<T>> &cert, const Binner &binner,
               bool allInRange, std::int32_t *bins)
{
    if constexpr (std::is_same_v<T, float>)
        if (histkernels::available())
            return histkernels::float32Bins(p, n, {cert.lo, cert.scale, cert.fracLo, cert.fracHi, cert.n}, binner.lo,
                                            binner.hi, allInRange, bins);
    return certifiedBins<T>(p, n, cert, binner.lo, binner.hi, allInRange, bins);
}

/// Histogram of elements [b, e) (fewer than 2^32) of type T into `local` (counts sized). Blocks
/// with certified bins are counted by a scalar loop that calls bin() only for the rare
/// uncertified element; other blocks take the per-element reference path.
template<typename T>
void histogramTyped(Elem elem, const std::byte *data, size_t b, size_t e, const Binner &binner,
                    const CertifiedBinner<EstimateType<T>> &cert, bool allInRange, Histogram &local)
{
    std::int32_t bins[kChunk];
    // Four count tables, one per element position modulo 4, so that neighbouring elements in
    // the same bin do not wait on each other's increment.
    const auto nb = size_t(binner.n);
    std::vector<std::uint32_t> tables(4 * nb, 0);
    std::uint32_t *t0 = tables.data(), *t1 = t0 + nb, *t2 = t1 + nb, *t3 = t2 + nb;
    for (size_t i = b; i < e; i += kChunk) {
        const size_t n = std::min(e, i + kChunk) - i;
        const std::byte *p = data + i * sizeof(T);
        if (!cert.usable || !typedBins<T>(p, n, cert, binner, allInRange, bins)) {
            double v[kChunk];
            loadDoubles(elem, data, i, i + n, v);
            histogramValues(v, n, binner, local);
            continue;
        }
        auto binAt = [&](size_t k) { return bins[k] >= 0 ? bins[k] : std::int32_t(binner.bin(double(loadAt<T>(p, k)))); };
        size_t k = 0;
        for (; k + 4 <= n; k += 4) { // one test per four elements
            const std::int32_t j0 = bins[k], j1 = bins[k + 1], j2 = bins[k + 2], j3 = bins[k + 3];
            if ((j0 | j1 | j2 | j3) < 0) { // an element near an edge: bin() decides it, the run goes on
                ++t0[binAt(k)]; ++t1[binAt(k + 1)]; ++t2[binAt(k + 2)]; ++t3[binAt(k + 3)];
                continue;
            }
            ++t0[j0]; ++t1[j1]; ++t2[j2]; ++t3[j3];
        }
        for (; k < n; ++k)
            ++t0[binAt(k)];
    }
    for (size_t j = 0; j < nb; ++j)
        local.counts[j] += std::uint64_t(t0[j]) + t1[j] + t2[j] + t3[j];
}

void histogramGeneral(Elem elem, const std::byte *data, size_t b, size_t e, const Binner &binner, Histogram &local)
{
    double buf[kChunk];
    for (size_t i = b; i < e; i += kChunk) {
        const size_t end = std::min(e, i + kChunk);
        loadDoubles(elem, data, i, end, buf);
        histogramValues(buf, end - i, binner, local);
    }
}

/// allInRange: the caller knows that every element is finite and inside [lo, hi].
bool directHistogram(const TensorView &t, int bins, double lo, double hi, Histogram &out, const JobControl *job,
                     bool allInRange = false, bool stream = true)
{
    std::optional<ReadAhead> ahead; // a cold file streams as for `cat`
    if (stream)
        ahead.emplace(t.data, t.count * elemBytes(t.elem));
    widenIfEqual(lo, hi);
    const Binner binner(bins, lo, hi);
    out = Histogram{};
    out.lo = lo; out.hi = hi;
    out.counts.assign(size_t(bins), 0);
    std::mutex mutex;
    auto run = [&](auto &&fill) {
        const bool ok = parallelChunks(t.count, kTaskElems, [&](size_t, size_t b, size_t e) {
            Histogram local;
            local.counts.assign(size_t(bins), 0);
            fill(b, e, local);
            if (stream)
                doneWith(t, b, e);
            std::lock_guard lock(mutex); // integer sums: the merge order does not matter
            for (int i = 0; i < bins; ++i)
                out.counts[size_t(i)] += local.counts[size_t(i)];
            out.nan += local.nan; out.posinf += local.posinf; out.neginf += local.neginf;
            out.below += local.below; out.above += local.above;
            return !cancelled(job);
        });
        if (stream)
            sweepMapping(t);
        return ok && !cancelled(job);
    };
    auto typed = [&](auto tag) {
        using T = decltype(tag);
        CertifiedBinner<EstimateType<T>> cert;
        if (t.count / size_t(bins) >= kCertifyElemsPerBin)
            cert = CertifiedBinner<EstimateType<T>>(binner, binThresholds(binner));
        return run([&](size_t b, size_t e, Histogram &local) {
            histogramTyped<T>(t.elem, t.data, b, e, binner, cert, allInRange, local);
        });
    };
    switch (t.elem) {
    case Elem::F32: return typed(float{});
    case Elem::F64: return typed(double{});
    case Elem::I32: return typed(std::int32_t{});
    case Elem::U32: return typed(std::uint32_t{});
    case Elem::I64: return typed(std::int64_t{});
    case Elem::U64: return typed(std::uint64_t{});
    default:
        return run([&](size_t b, size_t e, Histogram &local) { histogramGeneral(t.elem, t.data, b, e, binner, local); });
    }
}

} // namespace

std::vector<double> Histogram::edges() const
{
    const size_t n = counts.size();
    std::vector<double> e(n + 1);
    if (n == 0)
        return e;
    const double delta = hi - lo, step = delta / double(n);
    for (size_t i = 0; i <= n; ++i)
        e[i] = (step == 0 ? double(i) / double(n) * delta : double(i) * step) + lo;
    e[n] = hi;
    return e;
}

/// The code-count table costs a pass over 2^bits entries: only worth it for large tensors.
bool useCodeTable(const TensorView &t)
{
    const int bits = codeBits(t.elem);
    return bits && t.count >= (size_t(4) << bits);
}

bool hasHeadroom(Elem e) { return isFloating(e) && !isComplex(e); }

bool computeStats(const TensorView &t, TensorStats &out, const JobControl *job, StatsOptions options)
{
    const bool withHeadroom = options.headroom && hasHeadroom(t.elem);
    if (t.elem == Elem::None) {
        out = TensorStats{};
        out.count = t.count;
        return true;
    }
    if (useCodeTable(t)) {
        std::vector<std::uint64_t> counts;
        if (!countCodes(t, counts, job))
            return false;
        statsFromCodes(t.elem, counts, t.count, out, withHeadroom);
        return true;
    }
    return directStats(t, out, job, withHeadroom);
}

bool computeHistogram(const TensorView &t, int bins, double lo, double hi, Histogram &out, const JobControl *job)
{
    bins = std::max(bins, 1);
    if (t.elem == Elem::None) {
        out = Histogram{};
        out.counts.assign(size_t(bins), 0);
        return true;
    }
    if (useCodeTable(t)) {
        std::vector<std::uint64_t> counts;
        if (!countCodes(t, counts, job))
            return false;
        histogramFromCodes(t.elem, counts, bins, lo, hi, out);
        return true;
    }
    return directHistogram(t, bins, lo, hi, out, job);
}

bool computeStatsAndHistogram(const TensorView &t, int bins, TensorStats &stats, Histogram &hist, const JobControl *job,
                              StatsOptions options)
{
    bins = std::max(bins, 1);
    if (useCodeTable(t)) {
        std::vector<std::uint64_t> counts;
        if (!countCodes(t, counts, job))
            return false;
        statsFromCodes(t.elem, counts, t.count, stats, options.headroom && hasHeadroom(t.elem));
        const bool any = stats.finite > 0;
        histogramFromCodes(t.elem, counts, bins, any ? stats.min : 0.0, any ? stats.max : 0.0, hist);
        return true;
    }
    if (t.elem == Elem::None)
        return computeStats(t, stats, job, options) && computeHistogram(t, bins, 0.0, 0.0, hist, job);
    // A warm tensor that fits the budget: one mapping for both passes (StatsOptions::keepMappedBytes),
    // instead of the statistics handing every page back and the histogram faulting it in again.
    // (Populating it first in one call, MADV_POPULATE_READ, was measured no faster than the two
    // threads' own faults: docs/scale/files.md, section 4, fifth session.)
    const size_t bytes = t.count * elemBytes(t.elem);
    const bool keep = bytes <= options.keepMappedBytes && isMappedRange(t.data, bytes) && isCachedRange(t.data, bytes);
    struct ReleaseAtEnd
    {
        const std::byte *data;
        size_t bytes;
        ~ReleaseAtEnd() { if (data) releaseMappedPages(data, bytes); }
    } const releaseAtEnd{keep ? t.data : nullptr, bytes};
    if (!directStats(t, stats, job, options.headroom && hasHeadroom(t.elem), !keep))
        return false;
    const bool any = stats.finite > 0;
    if (!any)
        return directHistogram(t, bins, 0.0, 0.0, hist, job, false, !keep);
    // With no NaN or Inf counted, every element lies in [min, max]: no range checks needed.
    return directHistogram(t, bins, stats.min, stats.max, hist, job, stats.finite == stats.count, !keep);
}

} // namespace ds
