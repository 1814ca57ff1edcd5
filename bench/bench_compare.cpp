// bench_compare NPU_FILE BENCH_FILE [--repeat N]: throughput of ds::computePairMetrics (all
// compare metrics: msprobe's six, msaccucmp's KL, RelEuclid, RMSE, ..., both stds) on the single
// tensors of two big-tensor dumps (gen_tree.py --big-tensor), read through the file mappings as
// the application does, on all cores. The pages are faulted in first (page cache, warm).
// Prints {"bytes" (both tensors), "seconds", "gbps", "first_pass_seconds", "threads", "values"}.
#include "benchutil.h"
#include "compare/pairmetrics.h"
#include "formats/cann/dumpfile.h"
#include "io/mappedfile.h"
#include "tensor/dtype.h"
#include "util/parallel.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>

namespace {

struct Mapped
{
    std::shared_ptr<const ds::MappedFile> file;
    ds::TensorView view;
};

bool open(const char *path, Mapped &out)
{
    const QString p = QString::fromLocal8Bit(path);
    auto parsed = ds::cann::parseDumpFile(p);
    auto mapped = ds::MappedFile::open(p);
    if (!parsed || !mapped) {
        std::fprintf(stderr, "%s: %s\n", path, qPrintable(parsed ? mapped.errorText() : parsed.errorText()));
        return false;
    }
    const ds::TensorFields *rec = nullptr;
    for (const auto &t : parsed->tensors)
        if (!rec || t.size > rec->size)
            rec = &t;
    const auto &info = rec ? ds::dataTypeInfo(rec->dataType) : ds::dataTypeInfo(0);
    if (!rec || !(*mapped)->contains(rec->offset, rec->size) || info.elem == ds::Elem::None || info.packing != ds::Packing::None) {
        std::fprintf(stderr, "%s: no plain tensor payload\n", path);
        return false;
    }
    out.file = *mapped;
    out.view = {info.elem, out.file->data() + rec->offset, rec->size / ds::elemBytes(info.elem)};
    return true;
}

std::uint64_t touch(const ds::TensorView &v)
{
    std::uint64_t s = 0;
    const size_t bytes = v.count * ds::elemBytes(v.elem);
    for (size_t i = 0; i < bytes; i += 4096)
        s += std::uint64_t(v.data[i]);
    return s;
}

/// The memory reference: one read of every byte of both views (64-bit loads, XOR-folded so
/// the loop vectorises), in the same parallel chunks as the metrics. Two such passes bound
/// what a two-pass metrics computation can reach.
std::uint64_t readAll(const ds::TensorView &a, const ds::TensorView &b)
{
    std::atomic<std::uint64_t> out{0};
    const size_t words = a.count * ds::elemBytes(a.elem) / 8;
    ds::parallelChunks(words, size_t(1) << 19, [&](size_t, size_t lo, size_t hi) {
        std::uint64_t s = 0;
        for (const ds::TensorView *v : {&a, &b})
            for (size_t i = lo; i < hi; ++i) {
                std::uint64_t w;
                std::memcpy(&w, v->data + i * 8, 8);
                s ^= w;
            }
        out ^= s;
        return true;
    });
    return out;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s NPU_FILE BENCH_FILE [--repeat N]\n", argv[0]);
        return 2;
    }
    int repeat = 3;
    for (int i = 3; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--repeat") == 0)
            repeat = std::max(1, std::atoi(argv[i + 1]));
    Mapped a, b;
    if (!open(argv[1], a) || !open(argv[2], b))
        return 1;
    if (a.view.count != b.view.count) {
        std::fprintf(stderr, "the tensors differ in length\n");
        return 1;
    }
    volatile std::uint64_t sink = touch(a.view) + touch(b.view);
    (void)sink;
    ds::PairMetrics m;
    ds::computePairMetrics(a.view, b.view, m); // untimed warm-up
    const double seconds = bench::bestOf(repeat, [&] { ds::computePairMetrics(a.view, b.view, m); });
    ds::PairMetricOptions firstOnly;
    firstOnly.secondPass = false;
    ds::PairMetrics f;
    const double first = bench::bestOf(repeat, [&] { ds::computePairMetrics(a.view, b.view, f, firstOnly); });
    const double read = bench::bestOf(repeat, [&] { sink = readAll(a.view, b.view); });
    const auto bytes = (unsigned long long)(a.view.count * ds::elemBytes(a.view.elem) + b.view.count * ds::elemBytes(b.view.elem));
    bench::Json values;
    values.add("dot", m.dot).add("max_abs_err", m.maxAbsErr).add("kl_divergence", m.kl)
        .add("one_thousandth_err_ratio", m.oneThousandthRatio);
    bench::Json j;
    j.add("bytes", bytes).add("seconds", seconds).add("gbps", double(bytes) / seconds / 1e9)
        .add("first_pass_seconds", first).add("read_gbps", double(bytes) / read / 1e9)
        .add("two_pass_bound_fraction", read * 2 / seconds).add("threads", int(ds::workerCount())).add("values", values);
    j.print();
    return 0;
}
