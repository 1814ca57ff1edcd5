#include "pairdetail.h"

#include "index/tensorloader.h"
#include "pairkernels.h"
#include "pairmetrics.h"
#include "util/parallel.h"

#include <algorithm>
#include <cmath>
#include <mutex>

namespace ds {

namespace {

constexpr size_t kTaskElems = size_t(1) << 20;

bool cancelled(const JobControl *job) { return job && job->cancelled(); }

/// Worse first: larger absErr, then the lower index.
bool worse(const ElementDiff &a, const ElementDiff &b)
{
    return a.absErr != b.absErr ? a.absErr > b.absErr : a.index < b.index;
}

ElementDiff diffOf(std::uint64_t index, double x, double y, double eps)
{
    ElementDiff d;
    d.index = index;
    d.npu = x;
    d.bench = y;
    const bool fx = std::isfinite(x), fy = std::isfinite(y);
    if (fx && fy) {
        d.absErr = std::fabs(x - y);
        d.relErr = y == 0.0 ? std::fabs((x + eps) - eps) / eps : d.absErr / std::fabs(y);
    } else {
        const bool same = (std::isnan(x) && std::isnan(y)) || (!fx && !fy && !std::isnan(x) && !std::isnan(y) && x == y);
        d.absErr = d.relErr = same ? 0.0 : std::numeric_limits<double>::infinity();
    }
    return d;
}

template<typename Fn>
bool forEachBlock(const TensorView &x, const TensorView &y, const JobControl *job, Fn &&fn)
{
    return parallelChunks(x.count, kTaskElems, [&](size_t c, size_t b, size_t e) {
        double bx[pairkernels::kBlock], by[pairkernels::kBlock];
        for (size_t i = b; i < e; i += pairkernels::kBlock) {
            const size_t n = std::min(e, i + pairkernels::kBlock) - i;
            pairkernels::loadBlock(x.elem, x.data, i, n, bx);
            pairkernels::loadBlock(y.elem, y.data, i, n, by);
            fn(c, i, bx, by, n);
        }
        return !cancelled(job);
    }) && !cancelled(job);
}

} // namespace

Shape unravelIndex(std::uint64_t flat, const Shape &shape)
{
    Shape pos(shape.size(), 0);
    for (size_t d = shape.size(); d-- > 0;) {
        if (shape[d] == 0)
            return {};
        pos[d] = flat % shape[d];
        flat /= shape[d];
    }
    return pos;
}

bool computePairDetail(const TensorView &npu, const TensorView &bench, const PairDetailOptions &options,
                       PairDetail &out, const JobControl *job)
{
    out = PairDetail{};
    const size_t k = size_t(std::max(options.topK, 0));
    const int bins = std::max(options.bins, 1);
    if (npu.count != bench.count || npu.count == 0) {
        out.absErrHistogram.counts.assign(size_t(bins), 0);
        return !cancelled(job);
    }
    const size_t tasks = (npu.count + kTaskElems - 1) / kTaskElems;
    std::vector<std::vector<ElementDiff>> heaps(tasks);
    std::vector<double> maxAbs(tasks, 0.0);
    std::vector<std::uint64_t> mismatch(tasks, 0), equal(tasks, 0);
    const double eps = relativeErrorEpsilon(npu.elem, bench.elem);
    const bool ok = forEachBlock(npu, bench, job, [&](size_t c, size_t first, const double *x, const double *y, size_t n) {
        auto &heap = heaps[c];
        for (size_t i = 0; i < n; ++i) {
            const double ad = std::fabs(x[i] - y[i]);
            equal[c] += x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i]));
            if (std::isfinite(ad))
                maxAbs[c] = std::max(maxAbs[c], ad);
            const ElementDiff d = diffOf(first + i, x[i], y[i], eps);
            mismatch[c] += std::isinf(d.absErr) && !std::isinf(ad);
            if (k == 0 || (heap.size() == k && !worse(d, heap.front())))
                continue;
            heap.push_back(d);
            std::push_heap(heap.begin(), heap.end(), worse);
            if (heap.size() > k) {
                std::pop_heap(heap.begin(), heap.end(), worse);
                heap.pop_back();
            }
        }
    });
    if (!ok)
        return false;
    double hi = 0;
    for (size_t c = 0; c < tasks; ++c) {
        out.worst.insert(out.worst.end(), heaps[c].begin(), heaps[c].end());
        hi = std::max(hi, maxAbs[c]);
        out.nonFiniteMismatch += mismatch[c];
        out.exactlyEqual += equal[c];
    }
    std::sort(out.worst.begin(), out.worst.end(), worse);
    if (out.worst.size() > k)
        out.worst.resize(k);

    Histogram &h = out.absErrHistogram;
    h.lo = 0;
    h.hi = hi > 0 ? hi : 1.0;
    h.counts.assign(size_t(bins), 0);
    std::mutex mutex;
    return forEachBlock(npu, bench, job, [&](size_t, size_t, const double *x, const double *y, size_t n) {
        std::vector<std::uint64_t> local(size_t(bins), 0);
        std::uint64_t nonFinite = 0;
        for (size_t i = 0; i < n; ++i) {
            const double ad = std::fabs(x[i] - y[i]);
            if (!std::isfinite(ad)) {
                ++nonFinite;
                continue;
            }
            const auto b = std::min<std::uint64_t>(std::uint64_t(ad / h.hi * bins), std::uint64_t(bins - 1));
            ++local[b];
        }
        std::lock_guard lock(mutex);
        for (size_t b = 0; b < local.size(); ++b)
            h.counts[b] += local[b];
        h.nan += nonFinite;
    });
}

Result<PairDetail> comparePairDetail(const DumpIndex &npuIndex, const DumpIndex::TensorRef &npu,
                                     const DumpIndex &benchIndex, const DumpIndex::TensorRef &bench,
                                     const PairDetailOptions &options, const JobControl *job)
{
    using R = Result<PairDetail>;
    auto a = loadTensor(npuIndex, npu, LayoutChoice::Logical, job);
    if (!a)
        return R::failure(a.error());
    auto b = loadTensor(benchIndex, bench, LayoutChoice::Logical, job);
    if (!b)
        return R::failure(b.error());
    if ((*a)->view.count != (*b)->view.count)
        return R::failure(QStringLiteral("element counts differ: %1 (NPU %2) vs %3 (bench %4)")
                              .arg((*a)->view.count).arg(shapeToString((*a)->shape))
                              .arg((*b)->view.count).arg(shapeToString((*b)->shape)));
    PairDetail d;
    if (!computePairDetail((*a)->view, (*b)->view, options, d, job))
        return Cancelled{};
    for (auto &e : d.worst)
        e.position = unravelIndex(e.index, (*a)->shape);
    return d;
}

} // namespace ds
