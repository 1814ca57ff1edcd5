#include "layout.h"

#include "format.h"
#include "util/parallel.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace ds {

namespace {

using Kind = LayoutPlan::Kind;

size_t ceilDiv(size_t a, size_t b) { return b == 0 ? 0 : (a + b - 1) / b; }

/// Pads host shapes of fewer than 4 dims to 4-D, starting at the C axis (§8.0).
bool pad4(const Shape &s, size_t &n, size_t &c, size_t &h, size_t &w)
{
    switch (s.size()) {
    case 1: n = 1; c = s[0]; h = 1; w = 1; return true;
    case 2: n = 1; c = s[0]; h = s[1]; w = 1; return true;
    case 3: n = 1; c = s[0]; h = s[1]; w = s[2]; return true;
    case 4: n = s[0]; c = s[1]; h = s[2]; w = s[3]; return true;
    default: return false;
    }
}

QString mismatch(const char *format, const Shape &device, const Shape &original)
{
    return QStringLiteral("device shape %1 does not match %2 of original shape %3")
        .arg(shapeToString(device), QString::fromLatin1(format), shapeToString(original));
}

template<size_t S>
struct Elt
{
    std::byte b[S];
};

constexpr size_t kParallelBytes = size_t(4) << 20;

/// Runs body(b, e) over [0, units) on all cores when the output is big, else inline. A unit is
/// `unitBytes` of output; tasks get at least 256 KiB each.
template<typename Body>
void forEachUnit(size_t units, size_t unitBytes, size_t totalBytes, Body &&body)
{
    if (totalBytes < kParallelBytes) {
        body(size_t(0), units);
        return;
    }
    const size_t perTask = std::max<size_t>(1, (size_t(256) << 10) / std::max<size_t>(unitBytes, 1));
    parallelChunks(units, perTask, [&](size_t, size_t b, size_t e) {
        body(b, e);
        return true;
    });
}

/// Transposes one device plane [HW][C0] into `channels` (<= C0) host rows of HW elements, row k
/// at dst + k * dstStride. Eight positions at a time: their 8 * C0 elements (a few cache lines)
/// are gathered for every channel from L1, and each host row gets 8 consecutive elements.
template<size_t S>
void planeToRows(const Elt<S> *plane, size_t HW, size_t C0, size_t channels, Elt<S> *dst, size_t dstStride)
{
    constexpr size_t kGroup = 8;
    size_t i = 0;
    for (; i + kGroup <= HW; i += kGroup)
        for (size_t k = 0; k < channels; ++k) {
            const Elt<S> *s = plane + i * C0 + k;
            Elt<S> *d = dst + k * dstStride + i;
            for (size_t g = 0; g < kGroup; ++g)
                d[g] = s[g * C0];
        }
    for (; i < HW; ++i)
        for (size_t k = 0; k < channels; ++k)
            dst[k * dstStride + i] = plane[i * C0 + k];
}

template<size_t S>
void nc1hwc0(const LayoutPlan &p, const Elt<S> *src, Elt<S> *dst)
{
    // Device [N][C1][H][W][C0], host [N][C][H][W]: one unit per (n, c1) plane.
    const size_t HW = p.H * p.W;
    forEachUnit(p.N * p.C1, p.C0 * HW * S, p.hostCount * S, [&](size_t b, size_t e) {
        for (size_t u = b; u < e; ++u) {
            const size_t n = u / p.C1, c1 = u % p.C1, c = c1 * p.C0;
            if (c < p.C)
                planeToRows(src + u * HW * p.C0, HW, p.C0, std::min(p.C0, p.C - c), dst + (n * p.C + c) * HW, HW);
        }
    });
}

template<size_t S>
void ndc1hwc0(const LayoutPlan &p, const Elt<S> *src, Elt<S> *dst)
{
    // Device [N][D][C1][H][W][C0], host [N][C][D][H][W]: one unit per (n, d, c1) plane.
    const size_t HW = p.H * p.W;
    forEachUnit(p.N * p.D * p.C1, p.C0 * HW * S, p.hostCount * S, [&](size_t b, size_t e) {
        for (size_t u = b; u < e; ++u) {
            const size_t c1 = u % p.C1, d = (u / p.C1) % p.D, n = u / (p.C1 * p.D), c = c1 * p.C0;
            if (c < p.C)
                planeToRows(src + u * HW * p.C0, HW, p.C0, std::min(p.C0, p.C - c),
                            dst + ((n * p.C + c) * p.D + d) * HW, p.D * HW);
        }
    });
}

template<size_t S>
void fractalZ(const LayoutPlan &p, const Elt<S> *src, Elt<S> *dst)
{
    // FRACTAL_Z: D == 1; FRACTAL_Z_3D: device order [D][C1][H][W][N1*16][C0].
    const size_t HW = p.H * p.W, Nc = p.N1 * p.Ni;
    const size_t cStride = HW * Nc * p.C0, dStride = p.C1 * cStride;
    for (size_t n = 0; n < p.N; ++n)
        for (size_t c = 0; c < p.C; ++c)
            for (size_t d = 0; d < p.D; ++d) {
                const Elt<S> *s = src + d * dStride + (c / p.C0) * cStride + n * p.C0 + c % p.C0;
                Elt<S> *o = dst + ((n * p.C + c) * p.D + d) * HW;
                for (size_t i = 0; i < HW; ++i)
                    o[i] = s[i * Nc * p.C0];
            }
}

template<size_t S>
void fractalZGroups(const LayoutPlan &p, const Elt<S> *src, Elt<S> *dst)
{
    const size_t Cin = p.C, Cout = p.N / p.groups, HW = p.H * p.W, cube = p.cubeC;
    const size_t cinOpt = ceilDiv(p.eMult * Cin, cube) * cube, c1 = cinOpt / cube;
    const size_t hwStride = p.coutOpt * cube;
    for (size_t g = 0; g < p.groups; ++g) {
        const size_t e = g % p.eMult;
        for (size_t c = 0; c < Cin; ++c)
            for (size_t n = 0; n < Cout; ++n) {
                const size_t dstCi = e * Cin + c, dstCo = e * Cout + n, srcCo = g * Cout + n;
                const size_t devBase = (g / p.eMult) * c1 * HW * hwStride + (dstCi / cube) * HW * hwStride
                                       + dstCo * cube + dstCi % cube;
                const size_t hostBase = srcCo * Cin * HW + c * HW;
                for (size_t i = 0; i < HW; ++i)
                    dst[hostBase + i] = src[devBase + i * hwStride];
            }
    }
}

template<size_t S>
void fractalNZ(const LayoutPlan &p, const Elt<S> *src, Elt<S> *dst)
{
    // Device [B][W1][H1][H0][W0], host [B][H][W]: one unit per group of H0 host rows, copied
    // fractal by fractal (each H0 x W0 fractal is contiguous in the device buffer).
    const size_t fractal = p.H0 * p.W0, batch = p.W1 * p.H1 * fractal;
    forEachUnit(p.B * p.H1, p.H0 * p.W * S, p.hostCount * S, [&](size_t b, size_t e) {
        for (size_t u = b; u < e; ++u) {
            const size_t bi = u / p.H1, h1 = u % p.H1, h = h1 * p.H0;
            const size_t rows = std::min(p.H0, p.H - h);
            for (size_t w1 = 0, w = 0; w < p.W; ++w1, w += p.W0) {
                const Elt<S> *s = src + bi * batch + (w1 * p.H1 + h1) * fractal;
                Elt<S> *o = dst + (bi * p.H + h) * p.W + w;
                const size_t len = std::min(p.W0, p.W - w);
                for (size_t r = 0; r < rows; ++r) {
                    if (len == 16) // the usual fractal width: a fixed-size copy the compiler inlines
                        std::memcpy(o + r * p.W, s + r * p.W0, 16 * S);
                    else
                        std::memcpy(o + r * p.W, s + r * p.W0, len * S);
                }
            }
        }
    });
}

template<size_t S>
void c1hwncoc0(const LayoutPlan &p, const Elt<S> *src, Elt<S> *dst)
{
    const size_t HW = p.H * p.W, tail = p.N * p.Co * p.C0;
    for (size_t n = 0; n < p.N; ++n)
        for (size_t c = 0; c < p.C; ++c) {
            const size_t c0 = c % p.C0;
            const Elt<S> *s = src + (c / p.C0) * HW * tail + n * p.Co * p.C0 + c0 * p.C0 + c0;
            Elt<S> *o = dst + (n * p.C + c) * HW;
            for (size_t i = 0; i < HW; ++i)
                o[i] = s[i * tail];
        }
}

template<size_t S>
void convertTyped(const LayoutPlan &p, const std::byte *srcBytes, std::byte *dstBytes)
{
    auto *src = reinterpret_cast<const Elt<S> *>(srcBytes);
    auto *dst = reinterpret_cast<Elt<S> *>(dstBytes);
    switch (p.kind) {
    case Kind::Identity: std::memcpy(dst, src, p.hostCount * S); break;
    case Kind::NC1HWC0: nc1hwc0(p, src, dst); break;
    case Kind::NDC1HWC0: ndc1hwc0(p, src, dst); break;
    case Kind::FractalZ:
    case Kind::FractalZ3D: fractalZ(p, src, dst); break;
    case Kind::FractalZGroups: fractalZGroups(p, src, dst); break;
    case Kind::FractalNZ: fractalNZ(p, src, dst); break;
    case Kind::C1HWNCoC0: c1hwncoc0(p, src, dst); break;
    }
}

Result<LayoutPlan> planFractalZGroups(LayoutPlan p, DataType dtype, const Shape &dev, const Shape &orig)
{
    const size_t Cin = p.C, H = p.H, W = p.W;
    if (p.N % p.groups != 0)
        return Result<LayoutPlan>::failure(
            QStringLiteral("N = %1 is not divisible by groups = %2").arg(p.N).arg(p.groups));
    const size_t Cout = p.N / p.groups, cube = size_t(cubeSize(dtype));
    if (dev.size() != 4 || Cin == 0 || Cout == 0)
        return Result<LayoutPlan>::failure(mismatch("FRACTAL_Z (groups)", dev, orig));
    // The reference uses lcm(Cout, 16) in the data conversion and lcm(Cout, cube) in the
    // device shape (§8.6): keep whichever agrees with the stored shape.
    for (size_t coutCube : {size_t(16), cube}) {
        const size_t eMult = std::min(std::max<size_t>(std::lcm(std::lcm(Cin, cube) / Cin,
                                                                std::lcm(Cout, coutCube) / Cout), 1), p.groups);
        const size_t c1 = ceilDiv(eMult * Cin, cube);
        const size_t coutOpt = ceilDiv(eMult * Cout, 16) * 16;
        if (dev[0] == ceilDiv(p.groups, eMult) * c1 * H * W && dev[1] * dev[2] == coutOpt && dev[3] == cube) {
            p.kind = Kind::FractalZGroups;
            p.eMult = eMult;
            p.cubeC = cube;
            p.coutOpt = coutOpt;
            return p;
        }
    }
    return Result<LayoutPlan>::failure(mismatch("FRACTAL_Z (groups)", dev, orig));
}

} // namespace

Result<LayoutPlan> planLayout(int format, int subFormat, DataType dtype, const Shape &dev, const Shape &orig)
{
    using R = Result<LayoutPlan>;
    const int primary = primaryFormat(format);
    if (!isConvertibleFormat(format))
        return R::failure(QStringLiteral("format %1 has no conversion; showing the device layout").arg(formatName(format)));
    if (orig.empty())
        return R::failure(QStringLiteral("the header has no original_shape"));
    if (hasDynamicDim(orig) || hasDynamicDim(dev))
        return R::failure(QStringLiteral("the shape has a dynamic (unfixed) dimension"));
    const auto hostCount = elementCount(orig), devCount = elementCount(dev);
    if (!hostCount || !devCount)
        return R::failure(QStringLiteral("the shape is too large"));

    LayoutPlan p;
    p.hostShape = orig;
    p.hostCount = *hostCount;
    p.deviceCount = *devCount;
    const char *name = nullptr;
    bool ok = false;
    switch (static_cast<Format>(primary)) {
    case Format::NC1HWC0:
    case Format::NC1HWC0_C04:
        name = primary == int(Format::NC1HWC0) ? "NC1HWC0" : "NC1HWC0_C04";
        if (dev.size() == 5 && pad4(orig, p.N, p.C, p.H, p.W) && dev[4] > 0) {
            p.kind = Kind::NC1HWC0;
            p.C1 = dev[1];
            p.C0 = dev[4];
            ok = dev[0] == p.N && dev[2] == p.H && dev[3] == p.W && p.C1 == ceilDiv(p.C, p.C0);
        }
        break;
    case Format::NDC1HWC0:
        name = "NDC1HWC0";
        if (dev.size() == 6 && orig.size() == 5 && dev[5] > 0) {
            p.kind = Kind::NDC1HWC0;
            p.N = orig[0]; p.C = orig[1]; p.D = orig[2]; p.H = orig[3]; p.W = orig[4];
            p.C1 = dev[2];
            p.C0 = dev[5];
            ok = dev[0] == p.N && dev[1] == p.D && dev[3] == p.H && dev[4] == p.W && p.C1 == ceilDiv(p.C, p.C0);
        }
        break;
    case Format::FRACTAL_Z: {
        name = "FRACTAL_Z";
        const int groups = subFormat > 1 ? subFormat : (packedSubFormat(format) > 1 ? packedSubFormat(format) : 1);
        if (!pad4(orig, p.N, p.C, p.H, p.W))
            break;
        if (groups > 1) {
            p.groups = size_t(groups);
            return planFractalZGroups(p, dtype, dev, orig);
        }
        if (dev.size() == 4 && dev[3] > 0 && dev[2] > 0) {
            p.kind = Kind::FractalZ;
            p.N1 = dev[1]; p.Ni = dev[2]; p.C0 = dev[3];
            p.C1 = ceilDiv(p.C, p.C0);
            ok = dev[0] == p.C1 * p.H * p.W && p.N1 == ceilDiv(p.N, p.Ni);
        }
        break;
    }
    case Format::FRACTAL_Z_3D:
        name = "FRACTAL_Z_3D";
        if (dev.size() == 4 && orig.size() == 5 && dev[3] > 0 && dev[2] > 0) {
            p.kind = Kind::FractalZ3D;
            p.N = orig[0]; p.C = orig[1]; p.D = orig[2]; p.H = orig[3]; p.W = orig[4];
            p.N1 = dev[1]; p.Ni = dev[2]; p.C0 = dev[3];
            p.C1 = ceilDiv(p.C, p.C0);
            ok = dev[0] == p.D * p.C1 * p.H * p.W && p.N1 == ceilDiv(p.N, p.Ni);
        }
        break;
    case Format::FRACTAL_NZ:
        name = "FRACTAL_NZ";
        if (dev == orig && orig.size() == 1) { // 1-D [1] or [k*C0] is stored unchanged
            p.kind = Kind::Identity;
            return p;
        }
        if (dev.size() >= 4 && dev[dev.size() - 1] > 0 && dev[dev.size() - 2] > 0) {
            p.kind = Kind::FractalNZ;
            if (orig.size() == 1) {
                p.B = 1; p.H = 1; p.W = orig[0];
            } else {
                p.H = orig[orig.size() - 2];
                p.W = orig[orig.size() - 1];
                p.B = 1;
                for (size_t i = 0; i + 2 < orig.size(); ++i)
                    p.B *= orig[i];
            }
            size_t devB = 1;
            for (size_t i = 0; i + 4 < dev.size(); ++i)
                devB *= dev[i];
            const size_t k = dev.size();
            p.W1 = dev[k - 4]; p.H1 = dev[k - 3]; p.H0 = dev[k - 2]; p.W0 = dev[k - 1];
            ok = devB == p.B && p.W1 == ceilDiv(p.W, p.W0) && p.H1 == ceilDiv(p.H, p.H0);
        }
        break;
    case Format::C1HWNCoC0:
        name = "C1HWNCoC0";
        if (dev.size() == 6 && pad4(orig, p.N, p.C, p.H, p.W) && dev[5] > 0) {
            p.kind = Kind::C1HWNCoC0;
            p.C1 = dev[0]; p.Co = dev[4]; p.C0 = dev[5];
            ok = dev[1] == p.H && dev[2] == p.W && dev[3] == p.N && p.Co == p.C0 && p.C1 == ceilDiv(p.C, p.C0);
        }
        break;
    default: break;
    }
    if (!ok)
        return R::failure(mismatch(name ? name : "the format", dev, orig));
    return p;
}

void convertLayout(const LayoutPlan &plan, const std::byte *src, std::byte *dst, size_t elemSize)
{
    switch (elemSize) {
    case 1: convertTyped<1>(plan, src, dst); break;
    case 2: convertTyped<2>(plan, src, dst); break;
    case 4: convertTyped<4>(plan, src, dst); break;
    case 8: convertTyped<8>(plan, src, dst); break;
    case 16: convertTyped<16>(plan, src, dst); break;
    default: break;
    }
}

} // namespace ds
