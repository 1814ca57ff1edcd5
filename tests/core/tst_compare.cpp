// Compare metrics against numpy: tests/oracle/compare_numpy.py builds hand-made tensor pairs
// (zeros, NaN/Inf on either side, constants, length 1, fp16/bf16/int32/fp64, a multi-task
// float32 pair) and computes every metric with numpy; the C++ pass must agree to 1e-6.
// Then the row cells of the spec's edge cases, thread-count independence, cancellation and
// the element-wise detail.
#include "index/buildindex.h"
#include "compare/compare.h"
#include "compare/pairdetail.h"
#include "compare/pairsaturation.h"
#include "index/tensorloader.h"
#include "tensor/dtype.h"
#include "util/kernelisa.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

#include <cmath>
#include <cstring>
#include <random>
#include <tuple>

using namespace ds;

namespace {

struct Side
{
    QByteArray bytes;
    Elem elem = Elem::None;
    int dataType = 0;
    TensorView view() const { return {elem, reinterpret_cast<const std::byte *>(bytes.constData()), size_t(bytes.size()) / elemBytes(elem)}; }
};

Side side(const QJsonObject &o)
{
    static const QHash<QString, std::pair<Elem, DataType>> kinds{
        {"float32", {Elem::F32, DataType::Float32}}, {"float16", {Elem::F16, DataType::Float16}},
        {"bfloat16", {Elem::BF16, DataType::BFloat16}}, {"float64", {Elem::F64, DataType::Float64}},
        {"int32", {Elem::I32, DataType::Int32}}};
    const auto k = kinds.value(o["dtype"].toString());
    return {QByteArray::fromHex(o["hex"].toString().toLatin1()), k.first, int(k.second)};
}

double number(const QJsonValue &v)
{
    if (v.isString()) {
        const QString s = v.toString();
        return s == "nan" ? std::nan("") : s == "inf" ? INFINITY : -INFINITY;
    }
    return v.toDouble();
}

/// Within 1e-6 relative. `floor` is an absolute allowance for results that are pure rounding
/// noise: KL of two tensors whose min-max normalisations are equal is 0 up to ~1e-15.
bool close(double got, double want, double floor = 0)
{
    if (floor > 0 && std::fabs(got - want) <= floor)
        return true;
    if (std::isnan(want) || std::isnan(got))
        return std::isnan(want) && std::isnan(got);
    if (std::isinf(want) || want == 0)
        return got == want || (want == 0 && std::fabs(got) < 1e-12);
    return std::fabs(got - want) <= 1e-6 * std::fabs(want);
}

QJsonArray runCases()
{
    const QString python = QFile::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
    QProcess p;
    p.start(python, {QStringLiteral(DUMPSCOPE_SOURCE_DIR "/tests/oracle/compare_numpy.py"), "cases"});
    if (!p.waitForFinished(300000) || p.exitCode() != 0)
        qFatal("compare_numpy.py cases failed: %s", p.readAllStandardError().constData());
    return QJsonDocument::fromJson(p.readAllStandardOutput()).array();
}

LoadedTensor loaded(const std::vector<float> &v, Shape shape)
{
    LoadedTensor t;
    t.owned.resize(v.size() * 4);
    if (!v.empty())
        std::memcpy(t.owned.data(), v.data(), t.owned.size());
    t.view = {Elem::F32, t.owned.data(), v.size()};
    t.shape = std::move(shape);
    t.dataType = int(DataType::Float32);
    return t;
}

CompareRow rowFor(const std::vector<float> &n, Shape ns, const std::vector<float> &b, Shape bs)
{
    CompareRow row;
    compareLoadedTensors(row, loaded(n, ns), loaded(b, bs), {});
    return row;
}

using State = MetricValue::State;
State cosState(const CompareRow &r) { return r.metrics[size_t(Metric::Cosine)].state; }


/// float -> float16 bits, truncating (enough for test values: subnormals and Inf/NaN kept).
std::uint16_t toHalf(float f)
{
    std::uint32_t b;
    std::memcpy(&b, &f, 4);
    const auto sign = std::uint16_t((b >> 16) & 0x8000u);
    const int e = int((b >> 23) & 0xFFu) - 127 + 15;
    std::uint32_t m = b & 0x7FFFFFu;
    if (((b >> 23) & 0xFFu) == 0xFFu)
        return std::uint16_t(sign | 0x7C00u | (m ? 0x200u : 0u));
    if (e >= 31)
        return std::uint16_t(sign | 0x7C00u);
    if (e <= 0) {
        if (e < -10)
            return sign;
        m |= 0x800000u;
        return std::uint16_t(sign | (m >> (14 - e)));
    }
    return std::uint16_t(sign | std::uint32_t(e) << 10 | (m >> 13));
}

/// Bytes of `count` values of kind e (float32/float64/float16/bfloat16) at byte offset
/// `misalign`: ±normal values near 1 with the adversarial ones sprinkled in: NaN and ±Inf (at
/// positions shared with the other side or not, as `seed` decides), zeros on either side,
/// subnormals, ±1e30 (float32/float64) and exact equality.
QByteArray adversarial(Elem e, size_t count, int misalign, std::uint64_t seed, const QByteArray &other = {})
{
    std::mt19937_64 rng(seed);
    const size_t w = elemBytes(e);
    QByteArray raw(int(count * w + size_t(misalign)), '\0');
    std::normal_distribution<double> normal(0.0, 1.0);
    auto put = [&](size_t i, double v) {
        std::byte *p = reinterpret_cast<std::byte *>(raw.data()) + misalign + i * w;
        if (e == Elem::F64) {
            std::memcpy(p, &v, 8);
        } else {
            const float f = float(v);
            std::uint32_t bits;
            std::memcpy(&bits, &f, 4);
            if (e == Elem::F32)
                std::memcpy(p, &bits, 4);
            else if (e == Elem::BF16) {
                const auto h = std::uint16_t(bits >> 16);
                std::memcpy(p, &h, 2);
            } else {
                const std::uint16_t h = toHalf(f);
                std::memcpy(p, &h, 2);
            }
        }
    };
    for (size_t i = 0; i < count; ++i) {
        double v = 1.0 + 0.01 * normal(rng);
        switch (rng() % 64) {
        case 0: v = std::nan(""); break;
        case 1: v = INFINITY; break;
        case 2: v = -INFINITY; break;
        case 3: case 4: v = 0.0; break;
        case 5: v = -0.0; break;
        case 6: v = e == Elem::F64 ? 4.9e-324 * double(rng() % 100) : e == Elem::F16 ? 6e-8 : 1e-40; break;
        case 7: v = e == Elem::F32 || e == Elem::F64 ? (rng() % 2 ? 1e30 : -1e30) : 100.0; break;
        case 8: v = -3.0 * normal(rng); break;
        default: break;
        }
        put(i, v);
    }
    if (!other.isEmpty()) // exact copies of the other side here and there (equal elements, shared NaN/Inf)
        for (size_t i = 0; i < count; i += 5 + rng() % 11)
            if (other.size() == raw.size())
                std::memcpy(raw.data() + misalign + i * w, other.constData() + misalign + i * w, w);
    return raw;
}

/// Every double and count of the metrics, NaN == NaN, bit for bit.
QList<QPair<QString, QByteArray>> metricBits(const PairMetrics &m)
{
    QList<QPair<QString, QByteArray>> out;
    auto add = [&](const char *name, const auto &v) {
        out.append({QString::fromLatin1(name), QByteArray(reinterpret_cast<const char *>(&v), sizeof v)});
    };
    add("count", m.count); add("infNanMismatch", m.infNanMismatch); add("infNanShared", m.infNanShared);
    add("dot", m.dot); add("npuNorm", m.npuNorm); add("benchNorm", m.benchNorm); add("eucDist", m.eucDist);
    add("maxAbsErr", m.maxAbsErr); add("maxRelErr", m.maxRelErr); add("c1", m.oneThousandthRatio);
    add("c5", m.fiveThousandthsRatio); add("meanAbsErr", m.meanAbsErr); add("rmse", m.rmse);
    add("relEuclid", m.relEuclid); add("accRelErr", m.accRelErr); add("maxRelErrAcc", m.maxRelErrAcc);
    add("meanRelErr", m.meanRelErr); add("kl", m.kl);
    for (const PairSide *s : {&m.npu, &m.bench}) {
        add("finite", s->finite); add("nan", s->nan); add("posinf", s->posinf); add("neginf", s->neginf);
        add("min", s->min); add("max", s->max); add("mean", s->mean); add("l2norm", s->l2norm);
        add("comparedMean", s->comparedMean); add("comparedStd", s->comparedStd);
    }
    for (auto &f : out)
        if (f.second.size() == 8) { // a NaN of any payload is the same NaN here
            double d;
            std::memcpy(&d, f.second.constData(), 8);
            if (std::isnan(d))
                f.second = "NaN";
        }
    return out;
}

} // namespace

class TestCompare : public QObject
{
    Q_OBJECT
private slots:

    /// The metric kernels of every level this CPU runs (util/kernelisa.h) give the baseline's
    /// bits on adversarial inputs: NaN/±Inf shared or not, zeros, subnormals, ±1e30, lengths
    /// around the vector widths and the decoding block (2048), starts misaligned by 1-3 bytes,
    /// the float32 and float64 relative-error modes and the Gen B float16 one.
    void pairMetricKernelLevelsGiveTheBaselineBits_data()
    {
        QTest::addColumn<int>("npuElem");
        QTest::addColumn<int>("benchElem");
        QTest::addColumn<bool>("genB");
        QTest::addColumn<qulonglong>("count");
        QTest::addColumn<int>("misalign");
        const std::tuple<const char *, Elem, Elem, bool> kinds[] = {
            {"f32-f32", Elem::F32, Elem::F32, false}, {"f64-f64", Elem::F64, Elem::F64, false},
            {"f32-f64", Elem::F32, Elem::F64, false}, {"f64-f32", Elem::F64, Elem::F32, false},
            {"f16-f16", Elem::F16, Elem::F16, false}, {"f16-f16-genB", Elem::F16, Elem::F16, true},
            {"bf16-f32", Elem::BF16, Elem::F32, false}};
        for (const auto &[name, x, y, genB] : kinds)
            for (qulonglong n : {1ull, 7ull, 8ull, 9ull, 15ull, 16ull, 17ull, 2047ull, 2049ull, 70001ull})
                for (int misalign : {0, 3})
                    QTest::addRow("%s n=%llu +%d", name, n, misalign) << int(x) << int(y) << genB << n << misalign;
    }
    void pairMetricKernelLevelsGiveTheBaselineBits()
    {
        QFETCH(int, npuElem);
        QFETCH(int, benchElem);
        QFETCH(bool, genB);
        QFETCH(qulonglong, count);
        QFETCH(int, misalign);
        const QByteArray y = adversarial(Elem(benchElem), count, misalign, count * 31 + 1);
        const QByteArray x = adversarial(Elem(npuElem), count, misalign, count * 31 + 2, npuElem == benchElem ? y : QByteArray());
        auto view = [&](const QByteArray &b, int e) {
            return TensorView{Elem(e), reinterpret_cast<const std::byte *>(b.constData()) + misalign, size_t(count)};
        };
        PairMetricOptions options;
        options.genBCompat = genB;
        const KernelIsa selected = kernelIsa();
        setKernelIsa(KernelIsa::Baseline);
        PairMetrics want;
        QVERIFY(computePairMetrics(view(x, npuElem), view(y, benchElem), want, options));
        const auto wantBits = metricBits(want);
        int levels = 0;
        for (KernelIsa isa : kKernelIsas) {
            if (isa == KernelIsa::Baseline || !kernelIsaSupported(isa))
                continue;
            ++levels;
            setKernelIsa(isa);
            PairMetrics got;
            const bool ok = computePairMetrics(view(x, npuElem), view(y, benchElem), got, options);
            setKernelIsa(selected);
            QVERIFY(ok);
            const auto gotBits = metricBits(got);
            for (qsizetype i = 0; i < wantBits.size(); ++i)
                QVERIFY2(gotBits[i].second == wantBits[i].second,
                         qPrintable(QStringLiteral("%1 differs at %2").arg(wantBits[i].first, QLatin1String(kernelIsaName(isa)))));
        }
        setKernelIsa(selected);
        if (levels == 0)
            QSKIP("this CPU runs the baseline level only");
    }
    void metricsMatchNumpy_data()
    {
        QTest::addColumn<QJsonObject>("c");
        for (const auto &c : runCases())
            QTest::newRow(qPrintable(c.toObject()["name"].toString())) << c.toObject();
    }

    void metricsMatchNumpy()
    {
        QFETCH(QJsonObject, c);
        const Side n = side(c["npu"].toObject()), b = side(c["bench"].toObject());
        QCOMPARE(n.view().count, size_t(c["npu"].toObject()["count"].toInt()));
        PairMetricOptions options;
        options.genBCompat = c["genb"].toBool();
        PairMetrics m;
        QVERIFY(computePairMetrics(n.view(), b.view(), m, options));
        const QJsonObject e = c["expected"].toObject();
        QCOMPARE(m.count, std::uint64_t(e["count"].toInt()));
        QCOMPARE(m.infNanMismatch, std::uint64_t(e["inf_nan_mismatch"].toInt()));
        const std::pair<const char *, double> checks[] = {
            {"dot", m.dot}, {"npu_norm", m.npuNorm}, {"bench_norm", m.benchNorm}, {"euc_dist", m.eucDist},
            {"max_abs_err", m.maxAbsErr}, {"max_relative_err", m.maxRelErr},
            {"one_thousandth_err_ratio", m.oneThousandthRatio}, {"five_thousandths_err_ratio", m.fiveThousandthsRatio},
            {"mean_abs_err", m.meanAbsErr}, {"rmse", m.rmse}, {"relative_euclidean_distance", m.relEuclid},
            {"accumulated_relative_err", m.accRelErr}, {"msaccucmp_max_relative_err", m.maxRelErrAcc},
            {"mean_relative_err", m.meanRelErr}, {"kl_divergence", m.kl},
            {"npu_compared_mean", m.npu.comparedMean}, {"npu_compared_std", m.npu.comparedStd},
            {"bench_compared_mean", m.bench.comparedMean}, {"bench_compared_std", m.bench.comparedStd},
        };
        for (const auto &[key, got] : checks)
            QVERIFY2(close(got, number(e[key]), std::strcmp(key, "kl_divergence") == 0 ? 1e-12 : 0), qPrintable(QStringLiteral("%1: got %2, numpy %3").arg(key)
                                                                .arg(got, 0, 'g', 17).arg(number(e[key]), 0, 'g', 17)));
        for (const auto &[name, s] : {std::pair{"npu", &m.npu}, std::pair{"bench", &m.bench}}) {
            const QJsonObject st = e[name].toObject();
            const std::pair<const char *, double> stats[] = {{"min", s->min}, {"max", s->max}, {"mean", s->mean}, {"l2norm", s->l2norm}};
            for (const auto &[key, got] : stats) {
                const double want = st[key].isNull() ? std::nan("") : number(st[key]);
                QVERIFY2(close(got, want), qPrintable(QStringLiteral("%1 %2: got %3, numpy %4").arg(name, key).arg(got).arg(want)));
            }
        }
    }

    void resultDoesNotDependOnThreads()
    {
        std::vector<float> a(3'000'000), b(a.size());
        for (size_t i = 0; i < a.size(); ++i) {
            a[i] = float(std::sin(double(i) * 0.001));
            b[i] = a[i] + float(i % 7) * 1e-4f;
        }
        const TensorView va{Elem::F32, reinterpret_cast<const std::byte *>(a.data()), a.size()};
        const TensorView vb{Elem::F32, reinterpret_cast<const std::byte *>(b.data()), b.size()};
        PairMetrics one, all;
        PairMetricOptions o1;
        o1.threads = 1;
        QVERIFY(computePairMetrics(va, vb, one, o1));
        QVERIFY(computePairMetrics(va, vb, all));
        QCOMPARE(one.dot, all.dot);
        QCOMPARE(one.kl, all.kl);
        QCOMPARE(one.maxRelErr, all.maxRelErr);
        QCOMPARE(one.oneThousandthRatio, all.oneThousandthRatio);
    }

    void cancellationStops()
    {
        std::vector<float> a(4'000'000, 1.0f);
        const TensorView v{Elem::F32, reinterpret_cast<const std::byte *>(a.data()), a.size()};
        std::atomic<bool> cancel{true};
        JobControl job;
        job.cancelFlag = &cancel;
        PairMetrics m;
        QVERIFY(!computePairMetrics(v, v, m, {}, &job));
    }

    // ---- re-matching after a mapping edit (samples/compare_mapping, numpy expectations)

    void recompareAfterMappingEdit()
    {
        QFile f(QStringLiteral(DUMPSCOPE_SAMPLES "/compare_mapping/expected.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject expected = QJsonDocument::fromJson(f.readAll()).object();
        auto npu = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/") + expected["npu_path"].toString());
        auto bench = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/") + expected["bench_path"].toString());
        QVERIFY(npu && bench);
        auto check = [&](const CompareResult &r, const QJsonObject &want) {
            const QJsonArray rows = want["rows"].toArray();
            QCOMPARE(r.rows.size(), size_t(rows.size()));
            for (qsizetype i = 0; i < rows.size(); ++i) {
                const QJsonObject w = rows[i].toObject();
                const CompareRow &row = r.rows[size_t(i)];
                QCOMPARE(row.npuName, w["npu_name"].toString());
                QCOMPARE(row.benchName, w["bench_name"].toString()); // null -> empty
                QCOMPARE(verdictName(row.verdict), w["verdict"].toString());
                const QJsonObject m = w["metrics"].toObject();
                for (auto it = m.begin(); it != m.end(); ++it) {
                    size_t k = 0;
                    while (k < kMetricCount && metricKey(Metric(k)) != it.key())
                        ++k;
                    QVERIFY2(k < kMetricCount, qPrintable(it.key()));
                    const double got = row.metrics[k].value, want = it.value().toDouble();
                    QVERIFY2(row.metrics[k].isNumber() && std::fabs(got - want) <= 1e-6 * std::max(1.0, std::fabs(want)),
                             qPrintable(QStringLiteral("%1 %2: %3 vs numpy %4").arg(row.npuName, it.key()).arg(got).arg(want)));
                }
            }
            const QJsonObject fd = want["first_divergence"].toObject();
            QVERIFY(!r.divergences.empty());
            const Divergence &d = r.divergences.front();
            QCOMPARE(opMatchKey(npu.value()->ops[size_t(d.originOp)]), fd["origin"].toString());
            QCOMPARE(d.inputsAgree, fd["inputs_agree"].toBool());
            QStringList chain;
            for (int op : d.chain)
                chain << opMatchKey(npu.value()->ops[size_t(op)]);
            QCOMPARE(chain, fd["chain"].toVariant().toStringList());
        };

        const CompareResult plain = compareIndexes(**npu, **bench);
        check(plain, expected["unmapped"].toObject());
        if (QTest::currentTestFailed())
            return;
        auto mapping = UserMapping::parse(QJsonDocument(expected["mapping"].toObject()).toJson(), "m.json");
        QVERIFY2(mapping, qPrintable(mapping.errorText()));
        CompareOptions options;
        options.mapping = *mapping;
        std::vector<size_t> recompared;
        const CompareResult remapped = recompareIndexes(**npu, **bench, plain, options, nullptr, &recompared);
        // only the rows of the two mapped NPU operators are compared again
        QStringList names;
        for (size_t i : recompared)
            names << plain.rows[i].npuName;
        QCOMPARE(names, (QStringList{"npu_gelu_fast.input.0", "npu_gelu_fast.output.0", "fused/MatMulAdd.input.0",
                                     "fused/MatMulAdd.input.1", "fused/MatMulAdd.input.2", "fused/MatMulAdd.output.0"}));
        check(remapped, expected["mapped"].toObject());
        QCOMPARE(remapped.rows[7].reasons, std::vector<ReasonCode>{ReasonCode::FusedAway}); // the fused bias: no counterpart
        // the same as comparing from scratch with the mapping
        const CompareResult fresh = compareIndexes(**npu, **bench, options);
        QCOMPARE(remapped.rows.size(), fresh.rows.size());
        for (size_t i = 0; i < fresh.rows.size(); ++i) {
            QVERIFY(remapped.rows[i].bench == fresh.rows[i].bench);
            QCOMPARE(remapped.rows[i].source, fresh.rows[i].source);
            QCOMPARE(remapped.rows[i].verdict, fresh.rows[i].verdict);
            QCOMPARE(remapped.rows[i].reasons, fresh.rows[i].reasons);
            QCOMPARE(remapped.rows[i].messages, fresh.rows[i].messages);
            for (size_t k = 0; k < kMetricCount; ++k)
                QVERIFY(remapped.rows[i].metrics[k] == fresh.rows[i].metrics[k]);
        }
        QCOMPARE(remapped.benchOnly.size(), fresh.benchOnly.size());
        // and back: removing the mapping restores the first result's pairing
        std::vector<size_t> back;
        const CompareResult undone = recompareIndexes(**npu, **bench, remapped, {}, nullptr, &back);
        QCOMPARE(back.size(), size_t(6));
        check(undone, expected["unmapped"].toObject());
    }

    // ---- row cells of compare.md §3.1 / §3.3 / §11

    void emptyTensors()
    {
        const CompareRow r = rowFor({}, {0}, {}, {0});
        QVERIFY(r.hasReason(ReasonCode::Empty));
        QCOMPARE(cosState(r), State::Unsupported);
        QCOMPARE(r.mode, CompareMode::None);
        QVERIFY(r.messages.contains("This is empty data, can not compare."));
    }

    void shapeMismatch()
    {
        const CompareRow r = rowFor({1, 2, 3, 4}, {2, 2}, {1, 2, 3, 4}, {4});
        QVERIFY(r.hasReason(ReasonCode::ShapeMismatch));
        QCOMPARE(cosState(r), State::ShapeUnmatched);
        QCOMPARE(accuracyReached(r.metrics[0], r.metrics[2], {}), QString("Unmatched"));
        QCOMPARE(r.npuStats[0].value, 4.0); // statistics still shown
    }

    void zeroDimensional()
    {
        const CompareRow r = rowFor({2}, {}, {2.5f}, {});
        QVERIFY(r.hasReason(ReasonCode::Scalar0d));
        QCOMPARE(cosState(r), State::Unsupported);
        QCOMPARE(r.metrics[size_t(Metric::EucDist)].state, State::Unsupported);
        QCOMPARE(r.metrics[size_t(Metric::OneThousandthErrRatio)].state, State::Unsupported);
        QCOMPARE(r.metrics[size_t(Metric::MaxAbsErr)].value, 0.5);
        // msprobe's RE of float32 data is float32 arithmetic: numpy gives
        // float(np.abs((np.float32(2) - np.float32(2.5)) / np.float32(2.5))) = 0.20000000298023224
        QCOMPARE(r.metrics[size_t(Metric::MaxRelativeErr)].value, 0.20000000298023224);
    }

    void lengthOne()
    {
        const CompareRow r = rowFor({2}, {1}, {2.5f}, {1});
        QVERIFY(r.hasReason(ReasonCode::Len1));
        QCOMPARE(cosState(r), State::Unsupported);
        QVERIFY(r.metrics[size_t(Metric::EucDist)].isNumber());
        QCOMPARE(accuracyReached(r.metrics[0], r.metrics[2], {}), QString("None"));
    }

    void allZeroSides()
    {
        const CompareRow both = rowFor({0, 0, 0}, {3}, {0, 0, 0}, {3});
        QCOMPARE(both.metrics[0].value, 1.0);
        QVERIFY(!both.hasReason(ReasonCode::AllZero));
        const CompareRow npu = rowFor({0, 0, 0}, {3}, {0.1f, 0.2f, 0.3f}, {3});
        QVERIFY(npu.hasReason(ReasonCode::AllZero));
        QCOMPARE(cosState(npu), State::Nan);
        // msprobe quirk: NaN cosine, MaxAbsErr <= 1 -> "Yes"; DumpScope's own verdict says No
        QCOMPARE(accuracyReached(npu.metrics[0], npu.metrics[2], {}), QString("Yes"));
        QCOMPARE(accuracyReached(npu.metrics[0], npu.metrics[2], {}, true), QString("No"));
        const CompareRow bench = rowFor({1, 2, 3}, {3}, {0, 0, 0}, {3});
        QVERIFY(bench.hasReason(ReasonCode::AllZero));
        QVERIFY(bench.messages.join(' ').contains("in Bench dump data"));
        QCOMPARE(bench.metrics[size_t(Metric::RelativeEuclideanDistance)].value, 0.0); // ‖y‖ <= eps -> 0
    }

    void infNanPositions()
    {
        const float nan = std::nanf(""), inf = INFINITY;
        const CompareRow same = rowFor({1, nan, inf, 4}, {4}, {1, nan, -inf, 4}, {4});
        QVERIFY(!same.hasReason(ReasonCode::InfNanPos));
        QCOMPARE(same.metrics[0].value, 1.0);
        QCOMPARE(same.metrics.raw().infNanShared, 2u);
        const CompareRow differ = rowFor({1, nan, 3, 4}, {4}, {1, 2, inf, 4}, {4});
        QVERIFY(differ.hasReason(ReasonCode::InfNanPos));
        QCOMPARE(cosState(differ), State::NotAvailable);
        QCOMPARE(accuracyReached(differ.metrics[0], differ.metrics[2], {}), QString("No"));
        QCOMPARE(differ.metrics.raw().infNanMismatch, 2u);
        QCOMPARE(differ.metrics.raw().npu.nan, 1u);
        QCOMPARE(differ.metrics.raw().bench.posinf, 1u);
    }

    void constantTensors()
    {
        const CompareRow r = rowFor(std::vector<float>(50, 3), {50}, std::vector<float>(50, 3), {50});
        QCOMPARE(r.metrics[0].value, 1.0);
        QCOMPARE(r.metrics[size_t(Metric::KullbackLeiblerDivergence)].value, 0.0);
        QCOMPARE(r.metrics.raw().npu.comparedStd, 0.0);
    }

    void dtypeOutsideFloatFamily()
    {
        LoadedTensor a = loaded({1, 2}, {2}), b = loaded({1, 2}, {2});
        b.dataType = int(DataType::Int32); // only the recorded dtype matters for the check
        CompareRow row;
        compareLoadedTensors(row, a, b, {});
        QVERIFY(row.hasReason(ReasonCode::DtypeMismatch));
        QVERIFY(row.messages.contains("Dtype of NPU and bench tensor do not match."));
        QVERIFY(row.metrics[0].isNumber()); // computed with a warning
    }

    /// compare's NPU saturation count comes from the metrics' first pass (PairMetricOptions::
    /// npuSaturated): the same as countSaturated and as a naive count of the two bit patterns,
    /// over several tasks and a tail, and the metrics themselves unchanged by the counting.
    void firstPassCountsTheNpuSaturation()
    {
        std::mt19937 rng(7);
        auto check = [&](auto word, Elem elem, auto normalBits, auto pos, auto neg, size_t n) {
            using W = decltype(word);
            std::vector<W> x(n), y(n);
            size_t want = 0;
            for (size_t i = 0; i < n; ++i) {
                x[i] = y[i] = normalBits(rng());
                const unsigned r = rng() % 997;
                if (r < 2 || i == 0 || i + 1 == n) { // the first and the last element too
                    x[i] = (r == 1) ? neg : pos;
                    ++want;
                } else if (r == 2) {
                    x[i] = W(pos - 1); // next to the limit: not counted
                }
            }
            const TensorView vx{elem, reinterpret_cast<const std::byte *>(x.data()), n};
            const TensorView vy{elem, reinterpret_cast<const std::byte *>(y.data()), n};
            PairMetrics plain, counted;
            QVERIFY(computePairMetrics(vx, vy, plain));
            std::uint64_t saturated = 12345;
            QVERIFY(computePairMetrics(vx, vy, counted, {}, saturated));
            QCOMPARE(saturated, std::uint64_t(want));
            QCOMPARE(saturated, countSaturated(vx));
            QVERIFY(std::memcmp(&plain, &counted, sizeof plain) == 0);
            // lengths that differ: no metrics, the count all the same
            saturated = 12345;
            const TensorView shorter{elem, vy.data, n - 1};
            QVERIFY(computePairMetrics(vx, shorter, counted, {}, saturated));
            QCOMPARE(saturated, std::uint64_t(want));
        };
        const size_t n = (size_t(3) << 20) + 37; // three 2^20-element tasks and a tail
        check(std::uint16_t{}, Elem::F16, [](unsigned r) { return std::uint16_t(0x3800 + r % 0x800); },
              std::uint16_t(0x7BFF), std::uint16_t(0xFBFF), n);
        check(std::uint32_t{}, Elem::F32, [](unsigned r) { return std::uint32_t(0x3F000000 + r % 0x800000); },
              std::uint32_t(0x7F7FFFFF), std::uint32_t(0xFF7FFFFF), n);
    }

    void pairDetailFindsWorstElements()
    {
        std::vector<float> a(5000), b(5000);
        for (size_t i = 0; i < a.size(); ++i)
            a[i] = b[i] = float(i);
        a[4321] += 7; a[17] -= 9; a[2000] = std::nanf("");
        const TensorView va{Elem::F32, reinterpret_cast<const std::byte *>(a.data()), a.size()};
        const TensorView vb{Elem::F32, reinterpret_cast<const std::byte *>(b.data()), b.size()};
        PairDetail d;
        PairDetailOptions o;
        o.topK = 3;
        o.bins = 10;
        QVERIFY(computePairDetail(va, vb, o, d));
        QCOMPARE(d.worst.size(), size_t(3));
        QCOMPARE(d.worst[0].index, 2000u); // NaN on one side ranks first
        QCOMPARE(d.worst[1].index, 17u);
        QCOMPARE(d.worst[1].absErr, 9.0);
        QCOMPARE(d.worst[2].index, 4321u);
        QCOMPARE(d.nonFiniteMismatch, 1u);
        QCOMPARE(d.exactlyEqual, 4997u);
        QCOMPARE(d.absErrHistogram.hi, 9.0);
        QCOMPARE(d.absErrHistogram.counts.back(), 1u);
        QCOMPARE(d.absErrHistogram.counts.front(), 4997u);
        QCOMPARE(unravelIndex(4321, {50, 100}), (Shape{43, 21}));
    }
};

QTEST_GUILESS_MAIN(TestCompare)
#include "tst_compare.moc"
