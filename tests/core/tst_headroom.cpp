// Precision headroom (core/tensor/headroom.h, issue 34): the limits against every code of the
// decoders, the boundaries, the float32 block kernel against the per-element reference on every
// path (direct float32/float64, the general per-element path, the 8/16-bit code table), and
// what recorded statistics allow. The numpy oracle (tests/oracle/headroom_oracle.py) checks
// the CLI's counts on generated .npy files and the real msprobe tensors.
#include "tensor/dtype.h"
#include "tensor/stats.h"

#include <QTest>
#include <cmath>
#include <cstring>
#include <random>

using namespace ds;

namespace {

TensorView viewOf(const std::vector<float> &v) { return {Elem::F32, reinterpret_cast<const std::byte *>(v.data()), v.size()}; }
TensorView viewOf(const std::vector<double> &v) { return {Elem::F64, reinterpret_cast<const std::byte *>(v.data()), v.size()}; }

/// The per-element definition, in double.
Headroom reference(const std::vector<double> &values)
{
    Headroom h;
    h.valid = true;
    double maxAbs = 0, minNz = INFINITY;
    bool any = false;
    for (double x : values) {
        if (!std::isfinite(x))
            continue;
        any = true;
        const double a = std::abs(x);
        maxAbs = std::max(maxAbs, a);
        if (a > 0)
            minNz = std::min(minNz, a);
        for (const auto &l : headroomLimits()) {
            auto &c = h.targets[size_t(l.target)];
            c.overflow += a > l.maxFinite;
            c.underflow += a > 0 && a < l.minSubnormal / 2;
            c.subnormal += a >= l.minSubnormal / 2 && a < l.minNormal;
        }
    }
    if (any)
        h.maxAbs = maxAbs;
    if (std::isfinite(minNz))
        h.minNonzeroAbs = minNz;
    return h;
}

void compareHeadroom(const Headroom &got, const Headroom &want)
{
    QVERIFY(got.valid);
    for (const auto &l : headroomLimits()) {
        const auto &g = got.at(l.target), &w = want.at(l.target);
        if (!(g == w))
            QFAIL(qPrintable(QStringLiteral("%1: overflow %2/%3 underflow %4/%5 subnormal %6/%7")
                                 .arg(QLatin1String(l.name)).arg(g.overflow).arg(w.overflow).arg(g.underflow)
                                 .arg(w.underflow).arg(g.subnormal).arg(w.subnormal)));
    }
    QCOMPARE(got.maxAbs, want.maxAbs);
    QCOMPARE(got.minNonzeroAbs, want.minNonzeroAbs);
}

/// Every boundary of every target, exactly and one float ulp either side, with both signs.
std::vector<float> boundaryFloats()
{
    std::vector<float> v{0.0f, -0.0f, 1.0f, std::ldexp(1.0f, -134), std::ldexp(1.0f, -149), std::ldexp(3.0f, -140)};
    for (const auto &l : headroomLimits())
        for (double b : {l.maxFinite, l.minNormal, l.minSubnormal, l.minSubnormal / 2}) {
            const float f = float(b);
            v.insert(v.end(), {f, std::nextafter(f, INFINITY), std::nextafter(f, 0.0f)});
        }
    const size_t n = v.size();
    for (size_t i = 0; i < n; ++i)
        v.push_back(-v[i]);
    return v;
}

} // namespace

class TestHeadroom : public QObject
{
    Q_OBJECT

private slots:
    /// Each target's limits equal the extremes over every code of our decoders (fp8 and hifloat8
    /// by enumeration of all 256 codes, float16 of all 65536, bfloat16 from its binary32 half).
    void limitsMatchTheDecoders_data()
    {
        QTest::addColumn<int>("target");
        QTest::addColumn<int>("elem");
        QTest::addRow("float16") << int(HeadroomTarget::Float16) << int(Elem::F16);
        QTest::addRow("bfloat16") << int(HeadroomTarget::BFloat16) << int(Elem::BF16);
        QTest::addRow("float8_e4m3fn") << int(HeadroomTarget::Float8E4M3FN) << int(Elem::F8E4M3FN);
        QTest::addRow("float8_e5m2") << int(HeadroomTarget::Float8E5M2) << int(Elem::F8E5M2);
        QTest::addRow("hifloat8") << int(HeadroomTarget::HiFloat8) << int(Elem::HiF8);
    }
    void limitsMatchTheDecoders()
    {
        QFETCH(int, target);
        QFETCH(int, elem);
        const auto e = Elem(elem);
        const unsigned codes = elemBytes(e) == 2 ? 65536 : 256;
        double maxFinite = 0, minPositive = INFINITY;
        for (unsigned c = 0; c < codes; ++c) {
            std::byte raw[2];
            const auto code = std::uint16_t(c);
            std::memcpy(raw, &code, 2);
            const double v = elemToDouble(e, raw, 0);
            if (!std::isfinite(v))
                continue;
            maxFinite = std::max(maxFinite, v);
            if (v > 0)
                minPositive = std::min(minPositive, v);
        }
        const HeadroomLimits &l = headroomLimits(HeadroomTarget(target));
        QCOMPARE(l.maxFinite, maxFinite);
        QCOMPARE(l.minSubnormal, minPositive);
        QCOMPARE(l.maxFinite, saturationLimit(e)); // the one table the overflow scan uses agrees
        // The smallest normal: 1.0 scaled by it is a code, half of it (with the leading bit) is not
        // normal: check it is a decodable value and that the next lower power of two is below it.
        bool found = false;
        for (unsigned c = 0; c < codes && !found; ++c) {
            std::byte raw[2];
            const auto code = std::uint16_t(c);
            std::memcpy(raw, &code, 2);
            found = elemToDouble(e, raw, 0) == l.minNormal;
        }
        QVERIFY(found);
        QVERIFY(l.minNormal > l.minSubnormal);
        QCOMPARE(QByteArray(l.unconfirmed).isEmpty(), HeadroomTarget(target) != HeadroomTarget::HiFloat8);
    }

    /// Exactly at each boundary: max finite is not overflow, half the smallest subnormal is
    /// subnormal (not underflow), the smallest normal is normal.
    void boundariesFollowTheDefinition()
    {
        for (const auto &l : headroomLimits()) {
            const std::vector<double> v{l.maxFinite, std::nextafter(l.maxFinite, INFINITY), l.minSubnormal / 2,
                                        std::nextafter(l.minSubnormal / 2, 0.0), l.minNormal,
                                        std::nextafter(l.minNormal, 0.0)};
            TensorStats s;
            QVERIFY(computeStats(viewOf(v), s));
            const auto &c = s.headroom.at(l.target);
            QCOMPARE(c.overflow, 1u);  // only nextafter(max, inf)
            QCOMPARE(c.underflow, 1u); // only just below half the smallest subnormal
            // half the smallest subnormal itself, and just below the smallest normal
            QCOMPARE(c.subnormal, 2u);
        }
    }

    /// The float32 block kernel (exponent bytes, subnormals and large values apart) equals the
    /// per-element definition; so do float64 and the code-table and general paths.
    void kernelsMatchTheDefinition_data()
    {
        QTest::addColumn<int>("elem");
        QTest::addColumn<int>("count");
        QTest::addRow("float32 boundaries") << int(Elem::F32) << 0;
        QTest::addRow("float32 random 1M") << int(Elem::F32) << (1 << 20) + 123;
        QTest::addRow("float64 random") << int(Elem::F64) << 100000;
        QTest::addRow("float16 table path") << int(Elem::F16) << 300000;
        QTest::addRow("float16 general path") << int(Elem::F16) << 5000;
        QTest::addRow("bfloat16 table path") << int(Elem::BF16) << 300000;
        QTest::addRow("hifloat8 table path") << int(Elem::HiF8) << 2000;
    }
    void kernelsMatchTheDefinition()
    {
        QFETCH(int, elem);
        QFETCH(int, count);
        const auto e = Elem(elem);
        std::mt19937_64 rng(34);
        std::normal_distribution<double> normal;
        std::uniform_real_distribution<double> scale(-150, 40);
        std::vector<double> values;
        std::vector<std::byte> raw;
        if (count == 0) {
            for (float f : boundaryFloats())
                values.push_back(f);
        } else {
            for (int i = 0; i < count; ++i)
                values.push_back(i % 97 == 0 ? 0.0 : normal(rng) * std::exp2(scale(rng)));
        }
        TensorView view{e, nullptr, values.size()};
        std::vector<float> f32;
        if (e == Elem::F32) {
            f32.assign(values.begin(), values.end());
            for (size_t i = 0; i < f32.size(); ++i)
                values[i] = f32[i]; // the reference sees what the tensor holds
            view = viewOf(f32);
        } else if (e == Elem::F64) {
            view = viewOf(values);
        } else { // random codes decoded by the decoder: the reference sees the decoded values
            const size_t w = elemBytes(e);
            raw.resize(values.size() * w);
            for (size_t i = 0; i < values.size(); ++i) {
                const auto code = std::uint16_t(rng());
                std::memcpy(raw.data() + i * w, &code, w);
                values[i] = elemToDouble(e, raw.data(), i);
            }
            view.data = raw.data();
        }
        TensorStats s;
        QVERIFY(computeStats(view, s));
        compareHeadroom(s.headroom, reference(values));
        // The combined call and the switch that turns it off.
        Histogram h;
        TensorStats s2;
        QVERIFY(computeStatsAndHistogram(view, 16, s2, h));
        compareHeadroom(s2.headroom, reference(values));
        QVERIFY(computeStats(view, s2, nullptr, StatsOptions{false}));
        QVERIFY(!s2.headroom.valid);
    }

    void dynamicRange()
    {
        const std::vector<double> v{0.0, -0.25, 8.0, NAN, INFINITY};
        TensorStats s;
        QVERIFY(computeStats(viewOf(v), s));
        QCOMPARE(s.headroom.dynamicRangeLog2(), 5.0);
        const std::vector<double> zeros{0.0, 0.0};
        QVERIFY(computeStats(viewOf(zeros), s));
        QVERIFY(std::isnan(s.headroom.dynamicRangeLog2()));
        // The ratio itself would overflow a double: the difference of the logs does not.
        const std::vector<double> wide{1e308, 5e-324};
        QVERIFY(computeStats(viewOf(wide), s));
        QCOMPARE(s.headroom.dynamicRangeLog2(), std::log2(1e308) + 1074);
    }

    void notForIntegersOrComplex()
    {
        const std::vector<std::int32_t> ints{1, 2, 70000};
        TensorStats s;
        QVERIFY(computeStats({Elem::I32, reinterpret_cast<const std::byte *>(ints.data()), ints.size()}, s));
        QVERIFY(!s.headroom.valid);
        const std::vector<float> complex{1, 2, 3, 4};
        QVERIFY(computeStats({Elem::C64, reinterpret_cast<const std::byte *>(complex.data()), 2}, s));
        QVERIFY(!s.headroom.valid);
    }

    /// Recorded max/min/norm: overflow when an extreme is beyond the range, none when max|x| or
    /// the norm is within it; underflow only when all values share a sign.
    void fromRecordedStatistics()
    {
        const auto f16 = size_t(HeadroomTarget::Float16), e4m3 = size_t(HeadroomTarget::Float8E4M3FN);
        RecordedHeadroom r = headroomFromRecorded(1000.0, -2.0, 1500.0);
        QCOMPARE(r.targets[f16].overflow, std::optional<bool>(false));
        QCOMPARE(r.targets[e4m3].overflow, std::optional<bool>(true));
        QVERIFY(!r.targets[f16].underflow && !r.targets[f16].subnormal); // mixed signs: cannot tell
        QCOMPARE(r.maxAbs, 1000.0);
        r = headroomFromRecorded(NAN, NAN, 100.0); // norm only: bounds max|x|
        QCOMPARE(r.targets[f16].overflow, std::optional<bool>(false));
        r = headroomFromRecorded(NAN, NAN, 1e6);
        QVERIFY(!r.targets[f16].overflow);
        r = headroomFromRecorded(INFINITY, -1.0, INFINITY); // an Inf: the finite values are unknown
        QVERIFY(!r.targets[f16].overflow);
        r = headroomFromRecorded(INFINITY, -70000.0, INFINITY);
        QCOMPARE(r.targets[f16].overflow, std::optional<bool>(true));
        r = headroomFromRecorded(2.0, std::ldexp(1.0, -20), 3.0); // all positive: min is min|x|
        QCOMPARE(r.targets[f16].underflow, std::optional<bool>(false));
        QCOMPARE(r.targets[f16].subnormal, std::optional<bool>(true));
        QCOMPARE(r.targets[e4m3].underflow, std::optional<bool>(true));
        QVERIFY(!r.targets[e4m3].subnormal);
        r = headroomFromRecorded(-1.0, -4.0, 3.0); // all negative: |max| is min|x|
        QCOMPARE(r.targets[e4m3].underflow, std::optional<bool>(false));
        QCOMPARE(r.targets[e4m3].subnormal, std::optional<bool>(false));
    }
};

QTEST_GUILESS_MAIN(TestHeadroom)
#include "tst_headroom.moc"
