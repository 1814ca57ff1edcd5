// msprobe's table as text: DumpScope's `--style msprobe` CSV of each pair of
// samples/msprobe_fixtures equals the CSV the real msprobe 26.0.0 wrote for it, byte for byte
// (fixtures.json; the folder's README says where each dump came from). Also the pieces that
// make it so, each against an independent oracle: pandas' to_numeric (the values below are what
// pandas 1.5.3 returned for the same texts), the table msprobe picks from dump.json's task
// (msprobe's CSVs of the crafted pairs), and an md5 written as a JSON number, on both reader
// paths (msprobe's CSV of md5_as_numbers).
#include "compare/compare.h"
#include "compare/comparereport.h"
#include "compare/msprobecells.h"
#include "compare/msprobenames.h"
#include "index/buildindex.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <cstring>
#include <random>

using namespace ds;

namespace {

const QString kFixtures = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_fixtures");

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

std::shared_ptr<DumpIndex> open(const QString &path)
{
    auto r = buildIndex(path);
    return r ? *r : nullptr;
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// The first line at which two texts differ, for the failure message.
QString firstDifference(const QByteArray &a, const QByteArray &b)
{
    const QList<QByteArray> x = a.split('\n'), y = b.split('\n');
    for (qsizetype i = 0; i < std::max(x.size(), y.size()); ++i) {
        const QByteArray l = i < x.size() ? x[i] : QByteArray("<none>"), r = i < y.size() ? y[i] : QByteArray("<none>");
        if (l != r)
            return QStringLiteral("line %1:\n  ours    %2\n  msprobe %3")
                .arg(i + 1)
                .arg(QString::fromUtf8(l.left(400)), QString::fromUtf8(r.left(400)));
    }
    return {};
}

} // namespace

class TestCompareFidelity : public QObject
{
    Q_OBJECT
private slots:
    // pandas' to_numeric (precise_xstrtod, pandas 1.2 to 3.0) is not correctly rounded: the
    // expected values are what pandas 1.5.3 returned for these texts (nan: it gave NaN).
    void pandasToNumeric_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<double>("pandas");
        const double nan = std::nan("");
        QTest::addRow("17 digits, rounded off") << "-0.040657978504896164" << -0.0406579785048961;
        QTest::addRow("leading zeros count as digits") << "0.00012345678901234567" << 0.0001234567890123;
        QTest::addRow("16 digits") << "0.6214731261134149" << 0.6214731261134149;
        QTest::addRow("scientific") << "1e-05" << 1e-05;
        QTest::addRow("int") << "967" << 967.0;
        QTest::addRow("float int") << "967.0" << 967.0;
        QTest::addRow("largest") << "1.7976931348623157e+308" << 1.7976931348623157e+308;
        QTest::addRow("smallest subnormal") << "5e-324" << 5e-324;
        QTest::addRow("21 digits") << "123456789012345678901" << 1.2345678901234568e+20;
        QTest::addRow("smallest normal") << "2.2250738585072014e-308" << 2.2250738585072014e-308;
        QTest::addRow("inf") << "inf" << HUGE_VAL;
        QTest::addRow("-Infinity") << "-Infinity" << -HUGE_VAL;
        QTest::addRow("spaces") << " 2.5 " << 2.5;
        QTest::addRow("0.1") << "0.1" << 0.1;
        QTest::addRow("-0.0") << "-0.0" << -0.0;
        QTest::addRow("123e306") << "123e306" << 1.23e+308;
        QTest::addRow("1e-400 underflows") << "1e-400" << 0.0;
        QTest::addRow("nan") << "nan" << nan;
        QTest::addRow("text") << "abc" << nan;
        QTest::addRow("no exponent digits") << "1e" << nan;
        QTest::addRow("exponent above 308") << "1e400" << nan;
        QTest::addRow("zero, exponent above 308") << "0e500" << nan;
        QTest::addRow("overflow") << "1.8e308" << nan;
    }
    void pandasToNumeric()
    {
        QFETCH(QString, text);
        QFETCH(double, pandas);
        const std::optional<double> got = ds::pandasToNumeric(text.toStdString());
        if (std::isnan(pandas)) {
            QVERIFY2(!got, qPrintable(QString::number(got.value_or(0), 'g', 17)));
            return;
        }
        QVERIFY(got);
        QVERIFY2(sameBits(*got, pandas), qPrintable(QStringLiteral("%1 vs pandas %2").arg(*got, 0, 'g', 17).arg(pandas, 0, 'g', 17)));
    }

    // pandasReparse(v) skips writing repr(v): it must read what pandasToNumeric reads from the
    // text, for values of every form repr writes (positional with leading or trailing zeros,
    // scientific, 1 to 17 digits, subnormal, near the largest double).
    void reparseIsToNumericOfRepr()
    {
        std::mt19937_64 rng(30);
        std::vector<double> values{1e-05, 1.5e-05, 0.0001, 0.00012345678901234567, 1e15, 1e16, 123.0, 1234567890123456.0,
                                   5e-324, 2.2250738585072014e-308, 1.7976931348623157e+308, -0.040657978504896164,
                                   0.4993983507156372, 967.0, -3.0};
        std::uniform_real_distribution<double> unit(-1, 1);
        std::uniform_int_distribution<int> power(-320, 308);
        for (int i = 0; i < 200000; ++i) {
            const std::uint64_t bits = rng();
            double any;
            std::memcpy(&any, &bits, sizeof any);
            values.push_back(any);
            values.push_back(unit(rng) * std::pow(10.0, power(rng)));
            values.push_back(double(float(unit(rng) * 1000)));
        }
        size_t checked = 0;
        for (double v : values) {
            if (!std::isfinite(v))
                continue;
            const std::optional<double> viaText = ds::pandasToNumeric(pythonFloatRepr(v).toStdString());
            const double direct = pandasReparse(v);
            const bool same = viaText ? sameBits(direct, *viaText) : std::isnan(direct);
            QVERIFY2(same, qPrintable(QStringLiteral("%1: %2 vs %3").arg(pythonFloatRepr(v), pythonFloatRepr(direct),
                                                                     viaText ? pythonFloatRepr(*viaText) : QStringLiteral("NaN"))));
            ++checked;
        }
        QVERIFY(checked > 500000);
    }

    // Every pair of samples/msprobe_fixtures: compareIndexes + compareCsv(Msprobe) is msprobe's file.
    void fixtureCsvIsMsprobes_data()
    {
        QTest::addColumn<QString>("npu");
        QTest::addColumn<QString>("bench");
        QTest::addColumn<QString>("csv");
        QFile f(kFixtures + QStringLiteral("/fixtures.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray pairs = QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("pairs")).toArray();
        QVERIFY(pairs.size() >= 10);
        for (const QJsonValue &v : pairs) {
            const QJsonObject p = v.toObject();
            QTest::addRow("%s", qPrintable(p.value(QStringLiteral("id")).toString()))
                << kFixtures + QLatin1Char('/') + p.value(QStringLiteral("npu")).toString()
                << kFixtures + QLatin1Char('/') + p.value(QStringLiteral("bench")).toString()
                << kFixtures + QLatin1Char('/') + p.value(QStringLiteral("csv")).toString();
        }
    }
    void fixtureCsvIsMsprobes()
    {
        QFETCH(QString, npu);
        QFETCH(QString, bench);
        QFETCH(QString, csv);
        const auto n = open(npu), b = open(bench);
        QVERIFY(n && b);
        const CompareResult r = compareIndexes(*n, *b);
        const QByteArray ours = compareCsv(*n, *b, r, ReportStyle::Msprobe), theirs = readAll(csv);
        QVERIFY(!theirs.isEmpty());
        QVERIFY2(ours == theirs, qPrintable(firstDifference(ours, theirs)));
    }

    // msprobe picks its table from dump.json's task (get_dump_mode), not from what matched or
    // which files exist: a statistics dump gives the statistics table when nothing matched and
    // when its leaves name .pt files that are not there (msprobe's CSVs of both crafted pairs
    // have the statistics header). Under a statistics task the rows compare the statistics.
    void taskDecidesTheTable()
    {
        const QString crafted = kFixtures + QStringLiteral("/crafted/");
        for (const char *c : {"nothing_matched", "statistics_names_missing_pt"}) {
            const auto n = open(crafted + QLatin1String(c) + QStringLiteral("/npu"));
            const auto b = open(crafted + QLatin1String(c) + QStringLiteral("/bench"));
            QVERIFY(n && b);
            QCOMPARE(n->producerTasks, QStringList{QStringLiteral("statistics")});
            QCOMPARE(msprobeTaskMode(*n, *b), CompareMode::Summary);
            const CompareResult r = compareIndexes(*n, *b);
            QCOMPARE(r.mode, CompareMode::Summary);
            QCOMPARE(r.taskMode, CompareMode::Summary);
            const QByteArray header = readAll(kFixtures + QStringLiteral("/compare/") + QLatin1String(c) + QStringLiteral(".csv")).split('\n').front();
            QCOMPARE(compareCsvHeader(r.mode, ReportStyle::Msprobe, reportHasStack(*n)).join(QLatin1Char(',')).toUtf8(), header);
            for (const CompareRow &row : r.rows)
                QCOMPARE(row.mode, QByteArray(c) == "nothing_matched" ? CompareMode::None : CompareMode::Summary);
        }
        // an md5 dump gives the md5 table, a tensor dump the tensor table
        const auto md5 = open(crafted + QStringLiteral("md5_as_numbers/npu"));
        QVERIFY(md5);
        QCOMPARE(msprobeTaskMode(*md5, *md5), CompareMode::Md5);
        const auto tensor = open(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_tensor_mix/step0/rank0"));
        QVERIFY(tensor);
        QCOMPARE(msprobeTaskMode(*tensor, *tensor), CompareMode::Tensor);
        // different tasks, or another format: the rows decide (none here)
        QCOMPARE(msprobeTaskMode(*md5, *tensor), CompareMode::None);
        const auto cann = open(QStringLiteral(DUMPSCOPE_SAMPLES "/compare/npu"));
        QVERIFY(cann);
        QCOMPARE(msprobeTaskMode(*cann, *cann), CompareMode::None);
        // a mode given on the command line wins
        CompareOptions forced;
        forced.mode = CompareMode::Tensor;
        const auto n = open(crafted + QStringLiteral("nothing_matched/npu")), b = open(crafted + QStringLiteral("nothing_matched/bench"));
        QCOMPARE(compareIndexes(*n, *b, forced).mode, CompareMode::Tensor);
    }

    // An md5 written as a JSON number is read as its digits, on the streaming reader and on the
    // tree reader (a leaf with a "inf" text statistic takes that path): msprobe prints the int
    // and counts it different from the same digits as a string; 0 is falsy, so msprobe writes
    // the CRC-32 of "" (its CSV of md5_as_numbers shows all three).
    void md5WrittenAsNumber()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QFile f(dir.filePath(QStringLiteral("dump.json")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"task": "statistics", "level": "L1", "framework": "pytorch", "dump_data_dir": null, "data": {
 "Functional.relu.0.forward": {"input_args": [
   {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false, "md5": 12345678},
   {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": "inf", "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false, "md5": 87654321},
   {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false, "md5": 0},
   {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false, "md5": "12345678"}],
  "input_kwargs": {}, "output": []}}}
)");
        f.close();
        const auto idx = open(dir.path());
        QVERIFY(idx);
        QCOMPARE(idx->ops.size(), size_t(1));
        const auto &t = idx->ops[0].tensors;
        QCOMPARE(t.size(), size_t(4));
        QCOMPARE(t[0].checksum(), QString("12345678"));
        QVERIFY(t[0].recorded().numericChecksum);
        QCOMPARE(t[1].checksum(), QString("87654321")); // tree reader
        QVERIFY(t[1].recorded().numericChecksum);
        QVERIFY(std::isinf(t[1].recorded().max));
        QCOMPARE(t[2].checksum(), QString());
        QVERIFY(!t[2].recorded().numericChecksum);
        QCOMPARE(t[3].checksum(), QString("12345678"));
        QVERIFY(!t[3].recorded().numericChecksum);
        const CompareResult r = compareIndexes(*idx, *idx);
        QCOMPARE(r.mode, CompareMode::Md5);
        QCOMPARE(msprobeRow(*idx, *idx, r.rows[0], CompareMode::Md5).compare[0].csv(), QString("12345678"));
        QCOMPARE(msprobeRow(*idx, *idx, r.rows[0], CompareMode::Md5).compare[0].kind, MsCell::Kind::Int);
        QCOMPARE(msprobeRow(*idx, *idx, r.rows[2], CompareMode::Md5).compare[0].csv(), QString("00000000"));
        QCOMPARE(msprobeRow(*idx, *idx, r.rows[3], CompareMode::Md5).compare[0].kind, MsCell::Kind::Text);
        // Python: 12345678 != "12345678"
        QVERIFY(!(MsCell::digits(QStringLiteral("12345678")) == MsCell::str(QStringLiteral("12345678"))));
        QVERIFY(MsCell::digits(QStringLiteral("12345678")) == MsCell::digits(QStringLiteral("12345678")));
    }
};

QTEST_GUILESS_MAIN(TestCompareFidelity)
#include "tst_compare_fidelity.moc"
