// Structure-aware alignment (issue 31 item 2; comparematch.h rule 4) on real msprobe 26 dumps
// of samples/msprobe_real (align_* runs, tools/train.py BlockNet): the designed answers of
// expected.json are the oracle for the first divergence; msprobe's own CSVs show what msprobe
// pairs (by name), which is where its answer differs.

#include "compare/compare.h"
#include "index/buildindex.h"
#include "runcorpus.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace ds;

namespace {

const QString kRoot = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real");

/// msprobe's CSV of the case: NPU name -> bench name of every row it paired.
QHash<QString, QString> msprobePairs(const QString &id, const QString &rank)
{
    QHash<QString, QString> out;
    const QDir dir(kRoot + QStringLiteral("/compare/%1/step0/csv").arg(id));
    const QStringList files = dir.entryList({QStringLiteral("compare_result_%1_*.csv").arg(rank)}, QDir::Files);
    if (files.isEmpty())
        return out;
    QFile f(dir.filePath(files.front()));
    if (!f.open(QIODevice::ReadOnly))
        return out;
    f.readLine();
    while (!f.atEnd()) {
        const QList<QByteArray> cells = f.readLine().split(',');
        if (cells.size() > 1)
            out.insert(QString::fromUtf8(cells[0]), QString::fromUtf8(cells[1]));
    }
    return out;
}

} // namespace

class TestCompareAlign : public QObject
{
    Q_OBJECT
private slots:
    void designedAnswers_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("rank");
        for (const char *id : {"align_unfused", "align_unfused_weight", "align_missing"})
            for (const char *rank : {"rank0", "rank1"})
                QTest::addRow("%s %s", id, rank) << QString::fromLatin1(id) << QString::fromLatin1(rank);
    }
    void designedAnswers()
    {
        QFETCH(QString, id);
        QFETCH(QString, rank);
        const QJsonObject c = runcorpus::caseById(id);
        QVERIFY2(!c.isEmpty(), qPrintable(id));
        const QJsonObject designed = c.value(QStringLiteral("designed")).toObject();
        auto path = [&](const QString &run) -> QString { return kRoot + QStringLiteral("/dumps/%1/step0/%2").arg(run, rank); };
        auto npu = buildIndex(path(c.value(QStringLiteral("npu")).toString()));
        auto bench = buildIndex(path(c.value(QStringLiteral("bench")).toString()));
        QVERIFY(npu && bench);
        const CompareResult r = compareIndexes(**npu, **bench);
        QVERIFY(r.aligned); // the streams do not line up by name

        // the structure region the port made, and that it is numerically equal
        const QString region = designed.value(QStringLiteral("structural_region")).toString();
        const auto found = std::find_if(r.structure.begin(), r.structure.end(), [&](const StructureFinding &f) {
            return f.module == region && (f.npuOps + f.benchOps).join(QLatin1Char(' ')).contains(QLatin1String(".forward"));
        });
        QVERIFY2(found != r.structure.end(), qPrintable(region));
        QCOMPARE(found->outcome, StructureFinding::Outcome::Equal);
        if (id == QLatin1String("align_missing")) {
            QVERIFY(found->npuOps.isEmpty());
            QCOMPARE(found->benchOps, QStringList{QStringLiteral("Tensor.__mul__.0.forward")});
        } else {
            QCOMPARE(found->benchOps, QStringList{QStringLiteral("Functional.linear.1.forward")});
            QVERIFY(found->npuOps.contains(QStringLiteral("Torch.matmul.0.forward")));
            QVERIFY(found->npuOps.contains(QStringLiteral("Tensor.__add__.0.forward")));
            QVERIFY2(found->text().startsWith(QLatin1String("blocks.0.mlp.fc1: bench Functional.linear.1.forward vs NPU ")),
                     qPrintable(found->text()));
        }

        // the first divergence: the designed origin, or none
        const QJsonValue origin = designed.value(QStringLiteral("per_scope_origin")).toObject().value(QStringLiteral("step0/") + rank);
        if (origin.isNull()) {
            QVERIFY2(r.divergences.empty(), qPrintable(r.divergences.empty() ? QString() : opMatchKey((*npu)->ops[size_t(r.divergences[0].originOp)])));
        } else {
            QCOMPARE(r.divergences.size(), size_t(1));
            QCOMPARE(opMatchKey((*npu)->ops[size_t(r.divergences[0].originOp)]), origin.toObject().value(QStringLiteral("op")).toString());
        }

        // msprobe pairs by name: its CSV pairs the NPU's blocks.0.mlp.fc2 call (Functional.linear.1 on
        // the unfused NPU, Tensor.__mul__.0 of blocks.1 on align_missing) with the bench's call of the
        // same counter, a different layer; DumpScope pairs it with its aligned bench call instead.
        const QHash<QString, QString> ms = msprobePairs(id, rank);
        QVERIFY(!ms.isEmpty());
        const QString shifted = id == QLatin1String("align_missing") ? QStringLiteral("Tensor.__mul__.0.forward.output.0")
                                                                      : QStringLiteral("Functional.linear.1.forward.output.0");
        QCOMPARE(ms.value(shifted), shifted);
        const auto row = std::find_if(r.rows.begin(), r.rows.end(), [&](const CompareRow &x) { return x.npuName == shifted; });
        QVERIFY(row != r.rows.end());
        QCOMPARE(row->benchName, id == QLatin1String("align_missing") ? QStringLiteral("Tensor.__mul__.1.forward.output.0")
                                                                      : QStringLiteral("Functional.linear.2.forward.output.0"));
        QCOMPARE(row->source, MatchSource::Aligned);
    }

    // Streams that line up keep the exact-name fast path: no alignment, no structure.
    void fastPathWhenNamesLineUp()
    {
        auto npu = buildIndex(kRoot + QStringLiteral("/dumps/npu_weight_statistics_mix/step0/rank0"));
        auto bench = buildIndex(kRoot + QStringLiteral("/dumps/base_statistics_mix/step0/rank0"));
        QVERIFY(npu && bench);
        const CompareResult r = compareIndexes(**npu, **bench);
        QVERIFY(!r.aligned);
        QVERIFY(r.structure.empty());
    }
};

QTEST_GUILESS_MAIN(TestCompareAlign)
#include "tst_compare_align.moc"
