#pragma once

// Which instruction-set build of the vectorised kernels runs (tensor/stats.cpp,
// tensor/statskernels.cpp, compare/pairmetrics.cpp, compare/pairkernels.cpp).
//
// With GCC on x86-64 glibc every kernel is compiled once per level it supports (baseline SSE2,
// AVX2, and for the compare kernels x86-64-v4) from one source: the body is an always-inlined
// function, DS_KERNEL_DISPATCH calls it inside a lambda built for the selected level. Each
// lane of every sum is a separate sequential float64 sum, so all levels give the same bits;
// tests run every level this CPU can execute (bench/check_kernels.cpp, the *_baseline ctest
// entries) instead of only the one the CPU picks.
//
// The level starts as the best this CPU supports. DUMPSCOPE_KERNEL_ISA=baseline|avx2|x86-64-v4
// in the environment caps it (read once, at the first kernel call); setKernelIsa() changes it
// at run time (tests, benchmarks). Other compilers and targets have the baseline build only.

#include <atomic>
#include <cstdlib>
#include <cstring>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__GLIBC__)
#define DS_KERNEL_LEVELS 1
#else
#define DS_KERNEL_LEVELS 0
#endif

namespace ds {

enum class KernelIsa : int { Baseline = 0, Avx2 = 1, X86_64_V4 = 2 };
inline constexpr KernelIsa kKernelIsas[] = {KernelIsa::Baseline, KernelIsa::Avx2, KernelIsa::X86_64_V4};

inline const char *kernelIsaName(KernelIsa isa)
{
    switch (isa) {
    case KernelIsa::Avx2: return "avx2";
    case KernelIsa::X86_64_V4: return "x86-64-v4";
    case KernelIsa::Baseline: break;
    }
    return "baseline";
}

/// True when this build has kernels for `isa` and this CPU can run them.
inline bool kernelIsaSupported(KernelIsa isa)
{
    switch (isa) {
    case KernelIsa::Baseline: return true;
#if DS_KERNEL_LEVELS
    case KernelIsa::Avx2: return __builtin_cpu_supports("avx2");
    case KernelIsa::X86_64_V4: return __builtin_cpu_supports("x86-64-v4");
#else
    case KernelIsa::Avx2:
    case KernelIsa::X86_64_V4: return false;
#endif
    }
    return false;
}

namespace detail {
inline std::atomic<int> &kernelIsaState()
{
    static std::atomic<int> state = [] {
        int best = 0;
        for (KernelIsa isa : kKernelIsas)
            if (kernelIsaSupported(isa))
                best = int(isa);
        if (const char *cap = std::getenv("DUMPSCOPE_KERNEL_ISA"))
            for (KernelIsa isa : kKernelIsas)
                if (std::strcmp(cap, kernelIsaName(isa)) == 0 && int(isa) < best)
                    best = int(isa);
        return best;
    }();
    return state;
}
} // namespace detail

/// The level the kernels use now. Kernels without a build for it (the statistics kernels other
/// than the fused float32 ones have no x86-64-v4 build) use the best lower one.
inline KernelIsa kernelIsa() { return KernelIsa(detail::kernelIsaState().load(std::memory_order_relaxed)); }

/// Selects the level for all later kernel calls; false (and no change) when unsupported.
inline bool setKernelIsa(KernelIsa isa)
{
    if (!kernelIsaSupported(isa))
        return false;
    detail::kernelIsaState().store(int(isa), std::memory_order_relaxed);
    return true;
}

} // namespace ds

// DS_KERNEL_DISPATCH(expr) / DS_KERNEL_DISPATCH_V4(expr): `return expr;` with expr compiled for
// the selected level (expr calls an always-inlined body, which takes the lambda's target).
// _V4 also has an x86-64-v4 build.
#if DS_KERNEL_LEVELS
#define DS_KERNEL_DISPATCH(expr)                                                                   \
    do {                                                                                           \
        if (::ds::kernelIsa() != ::ds::KernelIsa::Baseline)                                         \
            return [&]() __attribute__((target("avx2"))) { return expr; }();                       \
        return [&]() { return expr; }();                                                           \
    } while (false)
#define DS_KERNEL_DISPATCH_V4(expr)                                                                \
    do {                                                                                           \
        switch (::ds::kernelIsa()) {                                                               \
        case ::ds::KernelIsa::X86_64_V4:                                                           \
            return [&]() __attribute__((target("arch=x86-64-v4"))) { return expr; }();             \
        case ::ds::KernelIsa::Avx2:                                                                \
            return [&]() __attribute__((target("avx2"))) { return expr; }();                       \
        case ::ds::KernelIsa::Baseline:                                                            \
            break;                                                                                 \
        }                                                                                          \
        return [&]() { return expr; }();                                                           \
    } while (false)
#else
#define DS_KERNEL_DISPATCH(expr) return expr
#define DS_KERNEL_DISPATCH_V4(expr) return expr
#endif
