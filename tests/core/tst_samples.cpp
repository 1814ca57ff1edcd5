// Walks samples/manifest.json: every sample must index to the counts, errors and tensor
// statistics that numpy computed when the samples were generated (independent oracle).
#include "index/buildindex.h"
#include "index/jsonreport.h"
#include "index/tensorexport.h"
#include "tensor/dtype.h"
#include "tensor/format.h"

#include <QCryptographicHash>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

using namespace ds;
using json = nlohmann::json;

namespace {

json manifest()
{
    QFile f(QStringLiteral(DUMPSCOPE_SAMPLES "/manifest.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return json::parse(f.readAll().toStdString());
}

QString q(const json &j) { return QString::fromStdString(j.get<std::string>()); }

Shape shapeOf(const json &j) { return j.get<Shape>(); }

bool closeRel(double a, const json &expected)
{
    if (expected.is_null())
        return std::isnan(a);
    const double e = expected.get<double>();
    return std::abs(a - e) <= 1e-9 * std::abs(e) + 1e-12;
}

bool exact(double a, const json &expected) { return expected.is_null() ? std::isnan(a) : a == expected.get<double>(); }

} // namespace

class TestSamples : public QObject
{
    Q_OBJECT
private slots:
    void sample_data()
    {
        QTest::addColumn<int>("i");
        const json m = manifest();
        QVERIFY2(m.contains("samples"), "samples/manifest.json missing");
        for (size_t i = 0; i < m["samples"].size(); ++i)
            if (m["samples"][i]["format"] == "cann")
                QTest::newRow(m["samples"][i]["name"].get<std::string>().c_str()) << int(i);
    }
    void sample()
    {
        QFETCH(int, i);
        const json s = manifest()["samples"][size_t(i)];
        auto built = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/") + q(s["path"]));
        QVERIFY2(built.ok(), qPrintable(built.errorText()));
        const DumpIndex &index = **built;
        QCOMPARE(qsizetype(index.ops.size()), s["ops"].get<qsizetype>());
        QCOMPARE(index.tensorCount(), s["tensors"].get<std::uint64_t>());
        QCOMPARE(index.errors.size(), s["errors"].size());
        for (const auto &e : s["errors"]) {
            auto it = std::find_if(index.errors.begin(), index.errors.end(), [&](const FileError &f) { return f.file == q(e["file"]); });
            QVERIFY2(it != index.errors.end(), qPrintable(q(e["file"])));
            const QStringList words = q(e["contains"]).split(QLatin1Char('/'));
            QVERIFY2(std::any_of(words.begin(), words.end(), [&](const QString &w) { return it->message.contains(w, Qt::CaseInsensitive); }),
                     qPrintable(it->message));
        }
        QTemporaryDir out;
        for (const auto &t : s["tensors_expected"]) {
            const QString id = q(t["id"]);
            auto ref = index.find(TensorId::parse(id).value_or(TensorId{}));
            QVERIFY2(ref, qPrintable(id));
            const auto &rec = index.tensor(*ref);
            QCOMPARE(dataTypeName(rec.dataType()), q(t["dtype"]));
            QCOMPARE(formatName(rec.format()), q(t["format"]));
            QCOMPARE(rec.shape(), shapeOf(t["shape"]));
            QCOMPARE(rec.originalShape(), shapeOf(t["original_shape"]));

            MeasureOptions options;
            options.bins = 16;
            const auto entry = measureTensor(index, *ref, options);
            QVERIFY2(!entry.error, qPrintable(entry.error ? entry.error->text() : QString()));
            QCOMPARE(entry.shape, shapeOf(t["nd_shape"]));
            const json &st = t["stats"];
            const auto &got = entry.stats;
            QCOMPARE(got.count, st["count"].get<std::uint64_t>());
            QCOMPARE(got.nan, st["nan"].get<std::uint64_t>());
            QCOMPARE(got.posinf, st["posinf"].get<std::uint64_t>());
            QCOMPARE(got.neginf, st["neginf"].get<std::uint64_t>());
            QCOMPARE(got.zero, st["zero"].get<std::uint64_t>());
            QVERIFY2(exact(got.min, st["min"]) && exact(got.max, st["max"]), qPrintable(id));
            QVERIFY2(closeRel(got.mean, st["mean"]), qPrintable(id));
            QVERIFY2(closeRel(got.std, st["std"]), qPrintable(id));
            QVERIFY2(closeRel(got.l2norm, st["l2norm"]), qPrintable(id));
            QVERIFY(entry.histogram.has_value());
            QCOMPARE(entry.histogram->counts, t["histogram"]["counts"].get<std::vector<std::uint64_t>>());

            // The ND export must hold exactly the bytes numpy produced for the logical tensor.
            ExportRequest req;
            req.outDir = out.path();
            const auto written = exportTensor(index, *ref, req);
            QVERIFY2(!written.error, qPrintable(written.error ? written.error->text() : QString()));
            QCOMPARE(written.exportedDtype, q(t["export_descr"]));
            QFile f(written.file);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray all = f.readAll();
            const int headerLen = 10 + (quint8(all[8]) | (quint8(all[9]) << 8));
            QCOMPARE(QCryptographicHash::hash(all.mid(headerLen), QCryptographicHash::Sha256).toHex(),
                     QByteArray::fromStdString(t["nd_sha256"].get<std::string>()));
        }
    }
};

QTEST_GUILESS_MAIN(TestSamples)
#include "tst_samples.moc"
