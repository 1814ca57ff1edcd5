// index/tensorexport: which leaves of a selection can be exported (exportBlock, ExportCounts) and
// that an export of leaves without values makes no folder. The oracle is each real msprobe
// dump.json read with QJsonDocument (runcorpus.h): a torch.Tensor leaf with a data_name whose
// file is there has values, one without has statistics only, every other leaf (int, float,
// None, a list element, ReduceOp, ProcessGroup) is not a tensor.
#include "runcorpus.h"

#include "index/buildindex.h"
#include "index/tensorexport.h"

#include <QTemporaryDir>
#include <QTest>

#include <functional>

using namespace ds;

namespace {

/// The input and output leaves of every entry of a dump.json, counted by kind.
QHash<QString, ExportCounts> leavesOf(const QString &scope)
{
    QHash<QString, ExportCounts> out;
    const QJsonObject data = runcorpus::readDumpJson(scope + QStringLiteral("/dump.json")).value(QStringLiteral("data")).toObject();
    for (auto e = data.begin(); e != data.end(); ++e) {
        ExportCounts c;
        std::function<void(const QJsonValue &)> walk = [&](const QJsonValue &v) {
            if (v.isArray()) {
                for (const QJsonValue &x : v.toArray())
                    walk(x);
                return;
            }
            const QJsonObject leaf = v.toObject();
            if (v.isObject() && !leaf.contains(QStringLiteral("type"))) { // keyword arguments
                for (const QJsonValue &x : leaf)
                    walk(x);
                return;
            }
            if (leaf.value(QStringLiteral("type")).toString() != QLatin1String("torch.Tensor")) {
                c.add(ExportBlock::NotATensor);
                return;
            }
            const QString file = leaf.value(QStringLiteral("data_name")).toString();
            c.add(!file.isEmpty() && QFileInfo::exists(scope + QStringLiteral("/dump_tensor_data/") + file) ? ExportBlock::None
                                                                                                            : ExportBlock::StatisticsOnly);
        };
        const QJsonObject entry = e.value().toObject();
        for (const char *key : {"input_args", "input_kwargs", "input", "output"})
            if (entry.contains(QLatin1String(key)))
                walk(entry.value(QLatin1String(key)));
        out.insert(e.key(), c);
    }
    return out;
}

} // namespace

class TestTensorExport : public QObject
{
    Q_OBJECT
private slots:
    /// The exportable count of every operator's inputs and outputs (what "Export" of a selected
    /// operator offers) against dump.json: a statistics dump has none, a tensor dump every
    /// tensor with a file; int/None arguments are never counted as tensors.
    void exportableCounts_data()
    {
        QTest::addColumn<QString>("scope");
        for (const char *run : {"base_statistics_mix", "npu_bf16_md5_mix", "overflow_statistics_mix", "base_tensor_mix", "overflow_tensor_mix"})
            for (const char *s : {"step0/rank0", "step1/rank1"})
                if (QFileInfo::exists(runcorpus::runDir(QLatin1String(run)) + QLatin1Char('/') + QLatin1String(s) + QStringLiteral("/dump.json")))
                    QTest::addRow("%s %s", run, s) << runcorpus::runDir(QLatin1String(run)) + QLatin1Char('/') + QLatin1String(s);
    }
    void exportableCounts()
    {
        QFETCH(QString, scope);
        const QHash<QString, ExportCounts> want = leavesOf(scope);
        auto built = buildIndex(scope);
        QVERIFY(built);
        const DumpIndex &index = **built;
        ExportCounts all, wantAll;
        for (const OpRecord &op : index.ops) {
            ExportCounts c;
            for (const TensorRecord &t : op.tensors)
                if (t.io() == IoKind::Input || t.io() == IoKind::Output)
                    c.add(exportBlock(t));
            QVERIFY2(want.contains(op.opName.toString()), qPrintable(op.opName.toString()));
            const ExportCounts &w = want[op.opName.toString()];
            const QString what = QStringLiteral("%1: %2/%3/%4, dump.json %5/%6/%7")
                                     .arg(op.opName.toString())
                                     .arg(c.exportable).arg(c.statisticsOnly).arg(c.notTensors)
                                     .arg(w.exportable).arg(w.statisticsOnly).arg(w.notTensors);
            QVERIFY2(c.exportable == w.exportable && c.statisticsOnly == w.statisticsOnly && c.notTensors == w.notTensors, qPrintable(what));
            all.exportable += c.exportable, all.statisticsOnly += c.statisticsOnly, all.notTensors += c.notTensors;
            wantAll.exportable += w.exportable, wantAll.statisticsOnly += w.statisticsOnly, wantAll.notTensors += w.notTensors;
        }
        QCOMPARE(all.total(), wantAll.total());
        QVERIFY(all.notTensors > 0);
        const bool tensors = scope.contains(QLatin1String("tensor"));
        QCOMPARE(all.exportable > 0, tensors);
        QCOMPARE(all.statisticsOnly > 0, !tensors);
        QVERIFY(all.text().startsWith(QStringLiteral("%1 of %2 selected can be exported").arg(all.exportable).arg(all.total())));
    }

    /// Exporting leaves without values fails for each with its reason and leaves no folder
    /// behind ("0 of 11" used to leave an empty one); a tensor with values makes it and is written.
    void noFolderWithoutValues()
    {
        auto stats = buildIndex(runcorpus::runDir(QStringLiteral("base_statistics_mix")) + QStringLiteral("/step0/rank0"));
        auto tensors = buildIndex(runcorpus::runDir(QStringLiteral("base_tensor_mix")) + QStringLiteral("/step0/rank0"));
        QVERIFY(stats && tensors);
        QTemporaryDir tmp;
        ExportRequest req;
        req.outDir = tmp.path() + QStringLiteral("/out");
        int refused = 0;
        for (const DumpIndex *index : {stats->get(), tensors->get()})
            for (size_t o = 0; o < index->ops.size(); ++o)
                for (size_t t = 0; t < index->ops[o].tensors.size(); ++t) {
                    const ExportBlock b = exportBlock(index->ops[o].tensors[t]);
                    if (b == ExportBlock::None)
                        continue;
                    const ExportResult r = exportTensor(*index, {int(o), int(t)}, req);
                    QVERIFY(r.error);
                    QCOMPARE(r.error->kind, ErrorKind::NoData);
                    QVERIFY2(r.error->text().contains(b == ExportBlock::StatisticsOnly ? QStringLiteral("statistics only")
                                                                                         : QStringLiteral("not a tensor")),
                             qPrintable(r.error->text()));
                    ++refused;
                }
        QVERIFY(refused > 40);
        QVERIFY(!QFileInfo::exists(req.outDir));
        // the first tensor with values: written, the folder made
        const DumpIndex &index = **tensors;
        for (size_t o = 0; o < index.ops.size(); ++o)
            for (size_t t = 0; t < index.ops[o].tensors.size(); ++t)
                if (exportBlock(index.ops[o].tensors[t]) == ExportBlock::None) {
                    const ExportResult r = exportTensor(index, {int(o), int(t)}, req);
                    QVERIFY2(!r.error, r.error ? qPrintable(r.error->text()) : "");
                    QVERIFY(QFileInfo(r.file).size() > 0);
                    return;
                }
        QFAIL("no tensor with values in base_tensor_mix");
    }
};

QTEST_GUILESS_MAIN(TestTensorExport)
#include "tst_tensorexport.moc"
