// bench_stats FILE [--repeat N] [--bins B]: throughput of ds::computeStatsAndHistogram on the
// single tensor of a big-tensor dump (gen_tree.py --big-tensor), read through the file mapping
// as the application does. Reference in the same run: a plain read loop (sum of the uint64
// words of the same mapped bytes) on the same number of threads as the kernels.
// Prints {"dtype", "bytes", "seconds", "gbps", "stats_seconds", "histogram_seconds",
// "read_loop_gbps", "read_loop_1t_gbps", "values"}: stats_seconds / histogram_seconds time
// computeStats and computeHistogram alone (where the time goes); values are for cross-checks.
// "no_headroom_seconds" times the combined call without the precision headroom counts
// (StatsOptions::headroom = false, the code before issue 34), "headroom_cost" = seconds /
// no_headroom_seconds - 1; the two are timed in alternating rounds so that the machine's noise
// hits both alike. "stats_of_read_loop" / "stats_histogram_of_read_loop": the read loop's time
// over the statistics' (and statistics + histogram's), timed alternately round by round, the
// median of the rounds' ratios (issue 35 item 4's warm target: >= 0.5).
#include "benchutil.h"
#include "formats/cann/dumpfile.h"
#include "io/mappedfile.h"
#include "tensor/dtype.h"
#include "tensor/stats.h"
#include "util/kernelisa.h"
#include "util/parallel.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

/// Sum of the uint64 words in [p, p + bytes) on `threads` threads (the trailing < 8 bytes are ignored).
std::uint64_t readLoop(const std::byte *p, size_t bytes, unsigned threads)
{
    const size_t words = bytes / 8;
    std::atomic<std::uint64_t> total{0};
    ds::parallelChunks(words, size_t(1) << 17, [&](size_t, size_t b, size_t e) {
        std::uint64_t s = 0;
        for (size_t i = b; i < e; ++i) {
            std::uint64_t w;
            std::memcpy(&w, p + i * 8, 8);
            s += w;
        }
        total += s;
        return true;
    }, threads);
    return total.load();
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE [--repeat N] [--bins B]\n", argv[0]);
        return 2;
    }
    int repeat = 3, bins = 256;
    for (int i = 2; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--repeat") == 0)
            repeat = std::max(1, std::atoi(argv[i + 1]));
        else if (std::strcmp(argv[i], "--bins") == 0)
            bins = std::max(1, std::atoi(argv[i + 1]));
    }
    const QString path = QString::fromLocal8Bit(argv[1]);
    auto parsed = ds::cann::parseDumpFile(path);
    auto mapped = ds::MappedFile::open(path);
    if (!parsed || !mapped) {
        std::fprintf(stderr, "%s\n", qPrintable(parsed ? mapped.errorText() : parsed.errorText()));
        return 1;
    }
    const ds::TensorFields *rec = nullptr;
    for (const auto &t : parsed->tensors)
        if (!rec || t.size > rec->size)
            rec = &t;
    if (!rec || !(*mapped)->contains(rec->offset, rec->size)) {
        std::fprintf(stderr, "no tensor payload in %s\n", argv[1]);
        return 1;
    }
    const auto &info = ds::dataTypeInfo(rec->dataType);
    if (info.elem == ds::Elem::None || info.packing != ds::Packing::None) {
        std::fprintf(stderr, "data type %s is not a plain element type\n", info.name);
        return 1;
    }
    const std::byte *data = (*mapped)->data() + rec->offset;
    const size_t bytes = rec->size;
    const ds::TensorView view{info.elem, data, bytes / ds::elemBytes(info.elem)};

    // Warm-up: fault the whole mapping in (page cache -> page tables) before any timing.
    volatile std::uint64_t sink = readLoop(data, bytes, ds::workerCount());
    const double readSeconds = bench::bestOf(repeat, [&] { sink = readLoop(data, bytes, ds::workerCount()); });
    const double read1Seconds = bench::bestOf(repeat, [&] { sink = readLoop(data, bytes, 1); });
    (void)sink;

    ds::TensorStats stats, statsPlain;
    ds::Histogram hist, histPlain;
    double seconds = 1e300, plainSeconds = 1e300;
    for (int r = 0; r < repeat; ++r) { // alternate: with headroom, without
        seconds = std::min(seconds, bench::bestOf(1, [&] {
            if (!ds::computeStatsAndHistogram(view, bins, stats, hist)) {
                std::fprintf(stderr, "computeStatsAndHistogram failed\n");
                std::exit(1);
            }
        }));
        plainSeconds = std::min(plainSeconds, bench::bestOf(1, [&] {
            ds::computeStatsAndHistogram(view, bins, statsPlain, histPlain, nullptr, ds::StatsOptions{false});
        }));
    }
    // Where the time goes: the two passes alone (same inputs, same best-of-N protocol).
    ds::TensorStats statsOnly;
    ds::Histogram histOnly;
    const bool any = stats.finite > 0;
    const double statsSeconds = bench::bestOf(repeat, [&] { ds::computeStats(view, statsOnly, nullptr); });
    const double histSeconds = bench::bestOf(repeat, [&] {
        ds::computeHistogram(view, bins, any ? stats.min : 0.0, any ? stats.max : 0.0, histOnly, nullptr);
    });

    // Warm target (issue 35 item 4): the kernels as a fraction of the 2-thread read loop, timed
    // alternately in the same rounds (read loop, statistics, statistics + histogram) so that a
    // loaded machine's noise hits both; the median of the per-round ratios.
    std::vector<double> statsRatio, bothRatio;
    for (int r = 0; r < std::max(repeat, 5); ++r) {
        const double tr = bench::bestOf(1, [&] { sink = readLoop(data, bytes, ds::workerCount()); });
        const double ts = bench::bestOf(1, [&] { ds::computeStats(view, statsOnly, nullptr); });
        const double tb = bench::bestOf(1, [&] { ds::computeStatsAndHistogram(view, bins, statsOnly, histOnly); });
        statsRatio.push_back(tr / ts);
        bothRatio.push_back(tr / tb);
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    };

    std::uint64_t histTotal = hist.below + hist.above;
    for (auto c : hist.counts)
        histTotal += c;

    bench::Json values;
    values.add("min", stats.min).add("max", stats.max).add("mean", stats.mean).add("std", stats.std)
        .add("l2norm", stats.l2norm).add("finite", (unsigned long long)stats.finite)
        .add("histogram_total", (unsigned long long)histTotal)
        .add("histogram_first", (unsigned long long)hist.counts.front())
        .add("histogram_last", (unsigned long long)hist.counts.back())
        .add("float16_underflow", (unsigned long long)stats.headroom.at(ds::HeadroomTarget::Float16).underflow)
        .add("float8_e4m3fn_subnormal", (unsigned long long)stats.headroom.at(ds::HeadroomTarget::Float8E4M3FN).subnormal);
    bench::Json()
        .add("dtype", info.name)
        .add("bytes", (unsigned long long)bytes)
        .add("threads", int(ds::workerCount()))
        .add("seconds", seconds)
        .add("gbps", double(bytes) / seconds / 1e9)
        .add("no_headroom_seconds", plainSeconds)
        .add("headroom_cost", seconds / plainSeconds - 1)
        .add("stats_seconds", statsSeconds)
        .add("histogram_seconds", histSeconds)
        .add("read_loop_gbps", double(bytes) / readSeconds / 1e9)
        .add("read_loop_1t_gbps", double(bytes) / read1Seconds / 1e9)
        .add("stats_of_read_loop", median(statsRatio))
        .add("stats_histogram_of_read_loop", median(bothRatio))
        .add("kernel_isa", ds::kernelIsaName(ds::kernelIsa()))
        .add("values", values)
        .print();
    return 0;
}
