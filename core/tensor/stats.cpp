#include "stats.h"

#include "util/parallel.h"

#include <array>
#include <cmath>
#include <cstring>
#include <mutex>

namespace ds {

namespace {

constexpr size_t kChunk = 4096;              // elements per inner block (fits L1 as doubles)
constexpr size_t kTaskElems = size_t(1) << 20; // elements per parallel task

bool cancelled(const JobControl *job) { return job && job->cancelled(); }

// ---- running moments (Chan et al. parallel merge) ---------------------------------------

struct Moments
{
    std::uint64_t finite = 0, nan = 0, posinf = 0, neginf = 0, zero = 0;
    double min = std::numeric_limits<double>::infinity();
    double max = -std::numeric_limits<double>::infinity();
    double mean = 0, m2 = 0, sumsq = 0;

    void merge(const Moments &o)
    {
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
        double s = 0, sq = 0;
        for (size_t i = 0; i < n; ++i) {
            const double x = v[i];
            if (std::isfinite(x)) {
                ++b.finite;
                s += x;
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
                const double d = v[i] - b.mean;
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
            out.mean = mean;
            out.std = std::sqrt(std::max(0.0, m2 / double(finite)));
            out.l2norm = std::sqrt(sumsq);
        }
    }
};

// ---- numpy-compatible binning ----------------------------------------------------------

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

    /// Adds x (already known to be finite) to counts; out-of-range goes to below/above.
    void add(double x, std::uint64_t *counts, std::uint64_t &below, std::uint64_t &above, std::uint64_t w = 1) const
    {
        if (!(x >= lo)) { below += w; return; }
        if (!(x <= hi)) { above += w; return; }
        auto i = static_cast<std::int64_t>(((x - lo) / denom) * n);
        if (i >= n) i = n - 1;
        if (i < 0) i = 0;
        if (x < edges[size_t(i)])
            --i;
        else if (i != n - 1 && x >= edges[size_t(i) + 1])
            ++i;
        counts[i] += w;
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
    const int bits = codeBits(t.elem);
    const size_t codes = size_t(1) << bits;
    counts.assign(codes, 0);
    std::mutex mutex;
    const bool ok = parallelChunks(t.count, std::max(kTaskElems, t.count / (4 * workerCount()) + 1),
                                   [&](size_t, size_t b, size_t e) {
        std::vector<std::uint32_t> local(codes, 0); // a task has < 2^32 elements
        if (bits == 16) {
            const auto *p = reinterpret_cast<const std::uint16_t *>(t.data);
            for (size_t i = b; i < e; ++i)
                ++local[p[i]];
        } else {
            const auto *p = reinterpret_cast<const std::uint8_t *>(t.data);
            for (size_t i = b; i < e; ++i)
                ++local[p[i]];
        }
        std::lock_guard lock(mutex);
        for (size_t c = 0; c < codes; ++c)
            counts[c] += local[c];
        return !cancelled(job);
    });
    return ok && !cancelled(job);
}

void statsFromCodes(Elem e, const std::vector<std::uint64_t> &counts, std::uint64_t total, TensorStats &out)
{
    const auto &values = codeValues(e);
    Moments m;
    double sum = 0;
    for (size_t c = 0; c < counts.size(); ++c) {
        const std::uint64_t k = counts[c];
        if (!k)
            continue;
        const double v = values[c];
        if (std::isnan(v)) { m.nan += k; continue; }
        if (std::isinf(v)) { (v > 0 ? m.posinf : m.neginf) += k; continue; }
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

bool directStats(const TensorView &t, TensorStats &out, const JobControl *job)
{
    Moments total;
    std::mutex mutex;
    const bool ok = parallelChunks(t.count, kTaskElems, [&](size_t, size_t b, size_t e) {
        Moments local;
        double buf[kChunk];
        for (size_t i = b; i < e; i += kChunk) {
            const size_t end = std::min(e, i + kChunk);
            loadDoubles(t.elem, t.data, i, end, buf);
            local.addBlock(buf, end - i);
        }
        std::lock_guard lock(mutex);
        total.merge(local);
        return !cancelled(job);
    });
    if (!ok || cancelled(job))
        return false;
    total.store(t.count, out);
    return true;
}

bool directHistogram(const TensorView &t, int bins, double lo, double hi, Histogram &out, const JobControl *job)
{
    widenIfEqual(lo, hi);
    const Binner binner(bins, lo, hi);
    out = Histogram{};
    out.lo = lo; out.hi = hi;
    out.counts.assign(size_t(bins), 0);
    std::mutex mutex;
    const bool ok = parallelChunks(t.count, kTaskElems, [&](size_t, size_t b, size_t e) {
        Histogram local;
        local.counts.assign(size_t(bins), 0);
        double buf[kChunk];
        for (size_t i = b; i < e; i += kChunk) {
            const size_t end = std::min(e, i + kChunk);
            loadDoubles(t.elem, t.data, i, end, buf);
            for (size_t k = 0; k < end - i; ++k) {
                const double x = buf[k];
                if (std::isfinite(x)) binner.add(x, local.counts.data(), local.below, local.above);
                else if (std::isnan(x)) ++local.nan;
                else (x > 0 ? local.posinf : local.neginf)++;
            }
        }
        std::lock_guard lock(mutex);
        for (int i = 0; i < bins; ++i)
            out.counts[size_t(i)] += local.counts[size_t(i)];
        out.nan += local.nan; out.posinf += local.posinf; out.neginf += local.neginf;
        out.below += local.below; out.above += local.above;
        return !cancelled(job);
    });
    return ok && !cancelled(job);
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

bool computeStats(const TensorView &t, TensorStats &out, const JobControl *job)
{
    if (t.elem == Elem::None) {
        out = TensorStats{};
        out.count = t.count;
        return true;
    }
    if (codeBits(t.elem)) {
        std::vector<std::uint64_t> counts;
        if (!countCodes(t, counts, job))
            return false;
        statsFromCodes(t.elem, counts, t.count, out);
        return true;
    }
    return directStats(t, out, job);
}

bool computeHistogram(const TensorView &t, int bins, double lo, double hi, Histogram &out, const JobControl *job)
{
    bins = std::max(bins, 1);
    if (t.elem == Elem::None) {
        out = Histogram{};
        out.counts.assign(size_t(bins), 0);
        return true;
    }
    if (codeBits(t.elem)) {
        std::vector<std::uint64_t> counts;
        if (!countCodes(t, counts, job))
            return false;
        histogramFromCodes(t.elem, counts, bins, lo, hi, out);
        return true;
    }
    return directHistogram(t, bins, lo, hi, out, job);
}

bool computeStatsAndHistogram(const TensorView &t, int bins, TensorStats &stats, Histogram &hist, const JobControl *job)
{
    bins = std::max(bins, 1);
    if (codeBits(t.elem)) {
        std::vector<std::uint64_t> counts;
        if (!countCodes(t, counts, job))
            return false;
        statsFromCodes(t.elem, counts, t.count, stats);
        const bool any = stats.finite > 0;
        histogramFromCodes(t.elem, counts, bins, any ? stats.min : 0.0, any ? stats.max : 0.0, hist);
        return true;
    }
    if (!computeStats(t, stats, job))
        return false;
    const bool any = stats.finite > 0;
    return computeHistogram(t, bins, any ? stats.min : 0.0, any ? stats.max : 0.0, hist, job);
}

} // namespace ds
