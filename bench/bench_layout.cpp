// bench_layout [--repeat N]: throughput of ds::convertLayout on two generated fp16 tensors,
//   NC1HWC0    host [32, 67, 56, 56]  (device [32, 5, 56, 56, 16], C0 = 16, 67 -> 80 channels padded)
//   FRACTAL_NZ host [8, 1000, 1000]   (device [8, 63, 63, 16, 16])
// GB/s = bytes of host output per second (best of N, default 10, after one untimed call).
// References in the same run: memcpy of the same number of bytes, on one thread and split over
// all cores like the converter. Every conversion is checked against a naive per-element loop.
// Prints one JSON object per layout.
#include "benchutil.h"
#include "tensor/format.h"
#include "tensor/layout.h"
#include "util/parallel.h"

#include <cstdio>
#include <cstring>
#include <random>

namespace {

using Elem2 = std::uint16_t; // fp16 bits; the converter only moves bytes

std::vector<Elem2> randomDevice(size_t n)
{
    std::vector<Elem2> v(n);
    std::mt19937 rng(20240315);
    for (auto &x : v)
        x = Elem2(rng());
    return v;
}

/// Naive reference: host[n][c][h][w] = dev[n][c / C0][h][w][c % C0].
std::vector<Elem2> naiveNc1hwc0(const std::vector<Elem2> &dev, size_t N, size_t C, size_t H, size_t W, size_t C0)
{
    const size_t C1 = (C + C0 - 1) / C0;
    std::vector<Elem2> host(N * C * H * W);
    for (size_t n = 0; n < N; ++n)
        for (size_t c = 0; c < C; ++c)
            for (size_t h = 0; h < H; ++h)
                for (size_t w = 0; w < W; ++w)
                    host[((n * C + c) * H + h) * W + w] = dev[(((n * C1 + c / C0) * H + h) * W + w) * C0 + c % C0];
    return host;
}

/// Naive reference: host[b][h][w] = dev[b][w / W0][h / H0][h % H0][w % W0].
std::vector<Elem2> naiveNz(const std::vector<Elem2> &dev, size_t B, size_t H, size_t W, size_t H0, size_t W0)
{
    const size_t H1 = (H + H0 - 1) / H0, W1 = (W + W0 - 1) / W0;
    std::vector<Elem2> host(B * H * W);
    for (size_t b = 0; b < B; ++b)
        for (size_t h = 0; h < H; ++h)
            for (size_t w = 0; w < W; ++w)
                host[(b * H + h) * W + w] = dev[(((b * W1 + w / W0) * H1 + h / H0) * H0 + h % H0) * W0 + w % W0];
    return host;
}

void memcpyParallel(std::byte *dst, const std::byte *src, size_t bytes)
{
    ds::parallelChunks(bytes, size_t(1) << 20, [&](size_t, size_t b, size_t e) {
        std::memcpy(dst + b, src + b, e - b);
        return true;
    });
}

bool runCase(const char *name, int format, const ds::Shape &device, const ds::Shape &host,
             const std::vector<Elem2> &expected, const std::vector<Elem2> &dev, int repeat)
{
    auto plan = ds::planLayout(format, 0, ds::DataType::Float16, device, host);
    if (!plan) {
        std::fprintf(stderr, "%s: %s\n", name, qPrintable(plan.errorText()));
        return false;
    }
    std::vector<Elem2> out(plan->hostCount), copy(plan->hostCount);
    const auto *src = reinterpret_cast<const std::byte *>(dev.data());
    auto *dst = reinterpret_cast<std::byte *>(out.data());
    const size_t bytes = plan->hostCount * sizeof(Elem2);

    ds::convertLayout(*plan, src, dst, sizeof(Elem2)); // warm-up, untimed
    const bool correct = out == expected;
    const double seconds = bench::bestOf(repeat, [&] { ds::convertLayout(*plan, src, dst, sizeof(Elem2)); });
    auto *copyDst = reinterpret_cast<std::byte *>(copy.data());
    std::memcpy(copyDst, src, bytes);
    const double memcpySeconds = bench::bestOf(repeat, [&] { std::memcpy(copyDst, src, bytes); });
    memcpyParallel(copyDst, src, bytes);
    const double memcpyMtSeconds = bench::bestOf(repeat, [&] { memcpyParallel(copyDst, src, bytes); });

    bench::Json()
        .add("layout", name)
        .add("host_shape", qPrintable(ds::shapeToString(host)))
        .add("device_shape", qPrintable(ds::shapeToString(device)))
        .add("bytes", (unsigned long long)bytes)
        .add("threads", int(ds::workerCount()))
        .add("correct", correct ? 1 : 0)
        .add("seconds", seconds)
        .add("gbps", double(bytes) / seconds / 1e9)
        .add("memcpy_gbps", double(bytes) / memcpySeconds / 1e9)
        .add("memcpy_mt_gbps", double(bytes) / memcpyMtSeconds / 1e9)
        .print();
    if (!correct)
        std::fprintf(stderr, "%s: conversion differs from the naive reference\n", name);
    return correct;
}

} // namespace

int main(int argc, char **argv)
{
    int repeat = 10;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--repeat") == 0)
            repeat = std::max(1, std::atoi(argv[i + 1]));
    bool ok = true;
    {
        const size_t N = 32, C = 67, H = 56, W = 56, C0 = 16, C1 = (C + C0 - 1) / C0;
        const auto dev = randomDevice(N * C1 * H * W * C0);
        ok &= runCase("NC1HWC0", int(ds::Format::NC1HWC0), {N, C1, H, W, C0}, {N, C, H, W},
                      naiveNc1hwc0(dev, N, C, H, W, C0), dev, repeat);
    }
    {
        const size_t B = 8, H = 1000, W = 1000, H0 = 16, W0 = 16;
        const size_t H1 = (H + H0 - 1) / H0, W1 = (W + W0 - 1) / W0;
        const auto dev = randomDevice(B * W1 * H1 * H0 * W0);
        ok &= runCase("FRACTAL_NZ", int(ds::Format::FRACTAL_NZ), {B, W1, H1, H0, W0}, {B, H, W},
                      naiveNz(dev, B, H, W, H0, W0), dev, repeat);
    }
    return ok ? 0 : 1;
}
