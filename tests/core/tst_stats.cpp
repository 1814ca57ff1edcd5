// Statistics and histograms against hand-computed values and a naive long-double reference.
#include "tensor/stats.h"
#include "util/kernelisa.h"

#include <bit>
#include <cstring>

#include <QTest>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using namespace ds;

namespace {

template<typename T>
TensorView view(Elem e, const std::vector<T> &v)
{
    return {e, reinterpret_cast<const std::byte *>(v.data()), v.size()};
}

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

} // namespace

class TestStats : public QObject
{
    Q_OBJECT
private slots:
    void handComputed()
    {
        const std::vector<float> v{1, 2, 3, 4};
        TensorStats s;
        QVERIFY(computeStats(view(Elem::F32, v), s));
        QCOMPARE(s.count, 4u);
        QCOMPARE(s.min, 1.0);
        QCOMPARE(s.max, 4.0);
        QCOMPARE(s.mean, 2.5);
        QCOMPARE(s.std, std::sqrt(1.25));
        QCOMPARE(s.l2norm, std::sqrt(30.0));
        QCOMPARE(s.zero, 0u);
    }

    void nonFiniteCountedApart()
    {
        const std::vector<double> v{kNan, kInf, -kInf, -kInf, 0.0, -0.0, 3.0, kNan};
        TensorStats s;
        QVERIFY(computeStats(view(Elem::F64, v), s));
        QCOMPARE(s.count, 8u);
        QCOMPARE(s.nan, 2u);
        QCOMPARE(s.posinf, 1u);
        QCOMPARE(s.neginf, 2u);
        QCOMPARE(s.zero, 2u);
        QCOMPARE(s.finite, 3u);
        QCOMPARE(s.min, 0.0);
        QCOMPARE(s.max, 3.0);
        QCOMPARE(s.mean, 1.0);
        QCOMPARE(s.std, std::sqrt(2.0));
    }

    void noFiniteValues()
    {
        const std::vector<float> v{float(kNan), float(kInf)};
        TensorStats s;
        QVERIFY(computeStats(view(Elem::F32, v), s));
        QVERIFY(std::isnan(s.min) && std::isnan(s.mean) && std::isnan(s.std));
        QCOMPARE(s.nan, 1u);
        QCOMPARE(s.posinf, 1u);
    }

    void emptyTensor()
    {
        const std::vector<float> v;
        TensorStats s;
        QVERIFY(computeStats(view(Elem::F32, v), s));
        QCOMPARE(s.count, 0u);
        QVERIFY(std::isnan(s.min));
    }

    void halfTablePathMatchesDirectFloatPath()
    {
        // fp16 goes through the code-count table, float32 through the direct kernel.
        std::mt19937 rng(7);
        std::vector<std::uint16_t> halves;
        std::vector<float> floats;
        for (int i = 0; i < 50000; ++i) {
            const auto h = std::uint16_t(rng() % 0x7C00 | (rng() & 0x8000)); // finite halves of both signs
            halves.push_back(h);
            floats.push_back(float(halfToDouble(h)));
        }
        halves.push_back(0x7C00); floats.push_back(float(kInf));
        halves.push_back(0x7E00); floats.push_back(float(kNan));
        TensorStats a, b;
        QVERIFY(computeStats(view(Elem::F16, halves), a));
        QVERIFY(computeStats(view(Elem::F32, floats), b));
        QCOMPARE(a.min, b.min);
        QCOMPARE(a.max, b.max);
        QVERIFY(std::abs(a.mean - b.mean) <= 1e-12 * std::abs(b.mean));
        QVERIFY(std::abs(a.std - b.std) <= 1e-12 * b.std);
        QVERIFY(std::abs(a.l2norm - b.l2norm) <= 1e-12 * b.l2norm);
        QCOMPARE(a.nan, b.nan);
        QCOMPARE(a.posinf, b.posinf);
        Histogram ha, hb;
        QVERIFY(computeHistogram(view(Elem::F16, halves), 37, a.min, a.max, ha));
        QVERIFY(computeHistogram(view(Elem::F32, floats), 37, b.min, b.max, hb));
        QCOMPARE(ha.counts, hb.counts);
    }

    void multiThreadedMatchesLongDoubleReference()
    {
        // 3M elements span several parallel tasks; mean far from zero stresses the variance merge.
        std::mt19937 rng(11);
        std::normal_distribution<float> dist(1000.0f, 0.5f);
        std::vector<float> v(3'000'000);
        for (auto &x : v)
            x = dist(rng);
        long double sum = 0, sq = 0;
        for (float x : v) { sum += x; sq += (long double)x * x; }
        const long double mean = sum / v.size();
        long double m2 = 0;
        for (float x : v) m2 += (x - mean) * (x - mean);
        TensorStats s;
        QVERIFY(computeStats(view(Elem::F32, v), s));
        QVERIFY(std::abs(s.mean - double(mean)) <= 1e-12 * double(mean));
        QVERIFY(std::abs(s.std - double(std::sqrt(m2 / v.size()))) <= 1e-9 * s.std);
        QVERIFY(std::abs(s.l2norm - double(std::sqrt(sq))) <= 1e-12 * s.l2norm);
        QCOMPARE(s.min, double(*std::min_element(v.begin(), v.end())));
        QCOMPARE(s.max, double(*std::max_element(v.begin(), v.end())));
    }

    void histogramEdgesLikeNumpy()
    {
        // np.histogram([0,1,2,3,4], bins=4, range=(0,4)) -> [1, 1, 1, 2] (last bin closed)
        const std::vector<double> v{0, 1, 2, 3, 4, 5, -1, kNan};
        Histogram h;
        QVERIFY(computeHistogram(view(Elem::F64, v), 4, 0, 4, h));
        QCOMPARE(h.counts, (std::vector<std::uint64_t>{1, 1, 1, 2}));
        QCOMPARE(h.above, 1u);
        QCOMPARE(h.below, 1u);
        QCOMPARE(h.nan, 1u);
        QCOMPARE(h.edges(), (std::vector<double>{0, 1, 2, 3, 4}));
    }

    void histogramOfConstantWidensRange()
    {
        // np.histogram([5,5,5], bins=2) -> counts [0, 3], edges [4.5, 5, 5.5]
        const std::vector<float> v{5, 5, 5};
        TensorStats s;
        Histogram h;
        QVERIFY(computeStatsAndHistogram(view(Elem::F32, v), 2, s, h));
        QCOMPARE(h.counts, (std::vector<std::uint64_t>{0, 3}));
        QCOMPARE(h.lo, 4.5);
        QCOMPARE(h.hi, 5.5);
    }

    void histogramTenthsLikeNumpy()
    {
        // numpy 1.24: np.histogram(np.arange(11)/10, bins=10) -> [1,1,2,0,1,2,1,0,1,2]:
        // 3/10 < 0.1*3 and 7/10 < 0.1*7 in binary, so they fall one bin lower than by hand.
        std::vector<double> v;
        for (int i = 0; i <= 10; ++i)
            v.push_back(i / 10.0);
        Histogram h;
        QVERIFY(computeHistogram(view(Elem::F64, v), 10, 0.0, 1.0, h));
        QCOMPARE(h.counts, (std::vector<std::uint64_t>{1, 1, 2, 0, 1, 2, 1, 0, 1, 2}));
    }

    void cancellationStops()
    {
        std::vector<float> v(4'000'000, 1.0f);
        std::atomic<bool> cancel{true};
        JobControl job;
        job.cancelFlag = &cancel;
        TensorStats s;
        QVERIFY(!computeStats(view(Elem::F32, v), s, &job));
    }

    void integersAndBool()
    {
        const std::vector<std::int32_t> ints{-3, 0, 7};
        TensorStats s;
        QVERIFY(computeStats(view(Elem::I32, ints), s));
        QCOMPARE(s.min, -3.0);
        QCOMPARE(s.max, 7.0);
        QCOMPARE(s.zero, 1u);
        const std::vector<std::uint8_t> flags{0, 1, 1, 0};
        QVERIFY(computeStats(view(Elem::Bool, flags), s));
        QCOMPARE(s.mean, 0.5);
    }

    /// The float32 kernels of every build this CPU runs (util/kernelisa.h: the fused AVX2 and
    /// AVX-512 ones of tensor/statskernels.h, the portable baseline) give the same bits, headroom
    /// included, on inputs made to break a SIMD kernel: large offsets, cancellation, subnormals,
    /// NaN/Inf at the first element, in a lane, in the tail, lengths around the 16 lanes and the
    /// 4,096-element blocks, unaligned starts.
    void float32KernelBuildsGiveTheBaselineBits_data()
    {
        QTest::addColumn<std::vector<float>>("values");
        QTest::addColumn<int>("misalign");
        std::mt19937_64 rng(35);
        std::normal_distribution<double> normal;
        auto drawn = [&](size_t n, double mean, double sd) {
            std::vector<float> v(n);
            for (float &x : v)
                x = float(mean + sd * normal(rng));
            return v;
        };
        for (size_t n : {size_t(1), size_t(15), size_t(16), size_t(17), size_t(4095), size_t(4096), size_t(4113), size_t(70001)})
            for (int misalign : {0, 1, 3})
                QTest::addRow("normal n=%zu +%d", n, misalign) << drawn(n, 0, 1) << misalign;
        QTest::addRow("offset 1e6") << drawn(9000, 1e6, 1e-2) << 2;
        QTest::addRow("offset -3e7") << drawn(9000, -3e7, 1) << 1;
        std::vector<float> cancel = drawn(8200, 0, 1);
        for (size_t i = 0; i < cancel.size(); i += 2) {
            cancel[i] += 1e30f;
            cancel[i + 1] -= 1e30f;
        }
        QTest::addRow("cancellation") << cancel << 0;
        QTest::addRow("subnormal") << drawn(5000, 0, 1e-42) << 1;
        QTest::addRow("tiny and huge") << drawn(4500, 0, 1e-20) << 0;
        const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
        for (size_t at : {size_t(0), size_t(5), size_t(4095), size_t(4100), size_t(8207)}) {
            for (float special : {nan, inf, -inf, 0.0f, -0.0f}) {
                auto v = drawn(8208 + 3, 0.5, 2);
                v[at] = special;
                QTest::addRow("%g at %zu", double(special), at) << v << 3;
            }
        }
        std::vector<float> zeros(4099, 0.0f);
        zeros[17] = -0.0f;
        QTest::addRow("zeros") << zeros << 0;
        auto mixed = drawn(6000, 0, 1);
        for (size_t i = 0; i < mixed.size(); i += 7)
            mixed[i] = float(std::ldexp(1.0, -int(i % 140))); // every headroom threshold crossed
        QTest::addRow("headroom thresholds") << mixed << 2;
    }
    void float32KernelBuildsGiveTheBaselineBits()
    {
        QFETCH(std::vector<float>, values);
        QFETCH(int, misalign);
        std::vector<std::byte> raw(values.size() * sizeof(float) + 4);
        std::memcpy(raw.data() + misalign, values.data(), values.size() * sizeof(float));
        const TensorView t{Elem::F32, raw.data() + misalign, values.size()};
        const KernelIsa selected = kernelIsa();
        auto statsAt = [&](KernelIsa isa) {
            TensorStats s;
            setKernelIsa(isa);
            computeStats(t, s);
            return s;
        };
        const TensorStats base = statsAt(KernelIsa::Baseline);
        auto bits = [](double d) { return std::bit_cast<std::uint64_t>(d); };
        int tested = 0;
        for (KernelIsa isa : kKernelIsas) {
            if (isa == KernelIsa::Baseline || !kernelIsaSupported(isa))
                continue;
            ++tested;
            const TensorStats s = statsAt(isa);
            const char *name = kernelIsaName(isa);
            QVERIFY2(s.count == base.count && s.finite == base.finite && s.nan == base.nan && s.posinf == base.posinf
                         && s.neginf == base.neginf && s.zero == base.zero, name);
            for (auto [a, b] : {std::pair{s.min, base.min}, {s.max, base.max}, {s.mean, base.mean}, {s.std, base.std},
                                {s.l2norm, base.l2norm}, {s.headroom.maxAbs, base.headroom.maxAbs},
                                {s.headroom.minNonzeroAbs, base.headroom.minNonzeroAbs}})
                QVERIFY2(bits(a) == bits(b), qPrintable(QStringLiteral("%1: %2 vs %3").arg(QLatin1String(name)).arg(a, 0, 'g', 17).arg(b, 0, 'g', 17)));
            QVERIFY2(s.headroom.targets == base.headroom.targets, name);
        }
        setKernelIsa(selected);
        if (!tested)
            QSKIP("this CPU or build has only the baseline kernels");
    }

    // The float32 histogram's bin kernels (tensor/histkernels.*) against the portable path and
    // against an independent per-element reference (the bin found by searching numpy's edges).
    // Bin counts of 1, 3, 7, 8 and 64 reach the certified path (1,024 elements per bin) on the
    // longer rows; the user range [-1, 1.5) leaves NaN/Inf-free blocks out of range too.
    void histogramKernelBuildsGiveTheBaselineCounts_data()
    {
        float32KernelBuildsGiveTheBaselineBits_data();
        std::mt19937_64 rng(42);
        std::uniform_int_distribution<int> pick(0, 8), side(-1, 1);
        std::vector<float> edges(40000); // the integers 0..8 and their float neighbours: bin edges for 8 bins on [0, 8]
        for (float &x : edges) {
            const auto k = float(pick(rng));
            const int s = side(rng);
            x = s == 0 ? k : std::nextafter(k, s < 0 ? -1e9f : 1e9f);
        }
        edges[0] = 0.0f;
        edges[1] = 8.0f; // the range is exactly [0, 8]
        QTest::addRow("bin edges") << edges << 1;
        QTest::addRow("min == max") << std::vector<float>(9000, 2.5f) << 2;
    }
    void histogramKernelBuildsGiveTheBaselineCounts()
    {
        QFETCH(std::vector<float>, values);
        QFETCH(int, misalign);
        std::vector<std::byte> raw(values.size() * sizeof(float) + 4);
        std::memcpy(raw.data() + misalign, values.data(), values.size() * sizeof(float));
        const TensorView t{Elem::F32, raw.data() + misalign, values.size()};
        const KernelIsa selected = kernelIsa();
        auto same = [](const Histogram &a, const Histogram &b) {
            return a.counts == b.counts && a.nan == b.nan && a.posinf == b.posinf && a.neginf == b.neginf
                   && a.below == b.below && a.above == b.above;
        };
        auto reference = [&](int bins, double lo, double hi) {
            if (lo == hi) { lo -= 0.5; hi += 0.5; }
            Histogram h;
            h.lo = lo; h.hi = hi;
            h.counts.assign(size_t(bins), 0);
            const std::vector<double> e = h.edges();
            for (float f : values) {
                const double x = f;
                if (std::isnan(x)) ++h.nan;
                else if (x == kInf) ++h.posinf;
                else if (x == -kInf) ++h.neginf;
                else if (x < lo) ++h.below;
                else if (x > hi) ++h.above;
                else ++h.counts[std::min(size_t(std::upper_bound(e.begin(), e.end(), x) - e.begin()) - 1, size_t(bins - 1))];
            }
            return h;
        };
        int tested = 0;
        for (int bins : {1, 3, 7, 8, 64}) {
            for (bool userRange : {false, true}) {
                auto histAt = [&](KernelIsa isa) {
                    setKernelIsa(isa);
                    TensorStats s;
                    Histogram h;
                    if (userRange)
                        computeHistogram(t, bins, -1.0, 1.5, h);
                    else
                        computeStatsAndHistogram(t, bins, s, h);
                    return h;
                };
                const Histogram base = histAt(KernelIsa::Baseline);
                const Histogram ref = reference(bins, base.lo, base.hi);
                const QByteArray where = QByteArray::number(bins) + (userRange ? " bins, [-1, 1.5]" : " bins, data range");
                QVERIFY2(same(base, ref), QByteArray("baseline vs reference: " + where).constData());
                for (KernelIsa isa : kKernelIsas) {
                    if (isa == KernelIsa::Baseline || !kernelIsaSupported(isa))
                        continue;
                    ++tested;
                    QVERIFY2(same(histAt(isa), base), QByteArray(kernelIsaName(isa) + QByteArray(": ") + where).constData());
                }
            }
        }
        setKernelIsa(selected);
        if (!tested)
            QSKIP("this CPU or build has only the baseline kernels");
    }

    // countSaturated's vectorised, parallel scan (tensor/saturation.cpp) at every kernel level
    // against a naive count of the two bit patterns: float32 (±FLT_MAX) and float16 (±65504),
    // several 8 MiB tasks, a misaligned start, a length off the vector width, NaN/Inf/±0 around.
    void countSaturatedAtEveryKernelLevel_data()
    {
        QTest::addColumn<int>("elem");
        QTest::addColumn<int>("misalign");
        QTest::addColumn<qulonglong>("count");
        for (int misalign : {0, 1, 3}) {
            QTest::addRow("float32 +%d", misalign) << int(Elem::F32) << misalign << qulonglong(4'500'007);
            QTest::addRow("float16 +%d", misalign) << int(Elem::F16) << misalign << qulonglong(9'000'013);
        }
        QTest::addRow("float32 short") << int(Elem::F32) << 2 << qulonglong(37);
    }
    void countSaturatedAtEveryKernelLevel()
    {
        QFETCH(int, elem);
        QFETCH(int, misalign);
        QFETCH(qulonglong, count);
        const auto e = Elem(elem);
        const size_t width = elemBytes(e);
        const std::vector<std::uint32_t> patterns = e == Elem::F32
            ? std::vector<std::uint32_t>{0x7F7FFFFFu, 0xFF7FFFFFu, 0x7F7FFFFEu, 0x7F800000u, 0x7FC00000u, 0x80000000u, 0u, 0x3F800000u}
            : std::vector<std::uint32_t>{0x7BFFu, 0xFBFFu, 0x7BFEu, 0x7C00u, 0x7E00u, 0x8000u, 0u, 0x3C00u};
        std::mt19937_64 rng(7);
        std::vector<std::byte> raw(count * width + 4);
        std::uint64_t want = 0;
        for (size_t i = 0; i < count; ++i) {
            const std::uint32_t w = rng() % 5 == 0 ? patterns[rng() % patterns.size()] : std::uint32_t(rng()) & (e == Elem::F32 ? 0x3FFFFFFFu : 0x3FFFu);
            std::memcpy(raw.data() + misalign + i * width, &w, width); // little-endian: the low bytes
            want += (w & (e == Elem::F32 ? 0x7FFFFFFFu : 0x7FFFu)) == (e == Elem::F32 ? 0x7F7FFFFFu : 0x7BFFu);
        }
        QVERIFY(want > 0);
        const TensorView t{e, raw.data() + misalign, size_t(count)};
        const KernelIsa selected = kernelIsa();
        for (KernelIsa isa : kKernelIsas) {
            if (!kernelIsaSupported(isa))
                continue;
            setKernelIsa(isa);
            QCOMPARE(countSaturated(t), want);
        }
        setKernelIsa(selected);
    }
};

QTEST_GUILESS_MAIN(TestStats)
#include "tst_stats.moc"
