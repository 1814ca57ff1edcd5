// MindSpore dumps in the GUI (issue 32, item 4): the dump tree says which framework wrote a part
// (checked against dump.json's own "framework" field), the inspector shows a bfloat16 tensor
// saved as float32 with both types (the file's read from its .npy header here), and a MindSpore
// kernel dump's module graph groups the kernels by their name scopes (checked against the
// execution order CSV's full names, which MindSpore writes).
#include "documentcontext.h"
#include "tensorinspector.h"
#include "valuegridwidget.h"
#include "dump/dumpindex.h"
#include "dumpgraph/modulegraph.h"
#include "models/dumptreemodel.h"
#include "tensor/shape.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QTreeWidget>

using namespace ds;

namespace {

const QString kSamples = QStringLiteral(DUMPSCOPE_SAMPLES);

std::shared_ptr<const DumpIndex> open(DocumentContext &context, const QString &path)
{
    QSignalSpy finished(&context, &DocumentContext::indexingFinished);
    context.openDump(path);
    if (!QTest::qWaitFor([&] { return finished.count() > 0; }, 60000))
        return nullptr;
    return context.index(context.treeModel()->dumpIds().constLast());
}

/// The value of the inspector's summary row `name`, or a null string.
QString summaryRow(const TensorInspector &inspector, const QString &name)
{
    for (const QTreeWidget *w : inspector.findChildren<QTreeWidget *>())
        for (int i = 0; i < w->topLevelItemCount(); ++i)
            if (w->topLevelItem(i)->text(0) == name)
                return w->topLevelItem(i)->text(1);
    return {};
}

/// The row of the summary row `name` (-1 when absent).
int summaryRowIndex(const TensorInspector &inspector, const QString &name)
{
    for (const QTreeWidget *w : inspector.findChildren<QTreeWidget *>())
        for (int i = 0; i < w->topLevelItemCount(); ++i)
            if (w->topLevelItem(i)->text(0) == name)
                return i;
    return -1;
}

/// numpy's dtype of an .npy file, from its header ("'descr': '<f4'").
QString npyDescr(const QString &file)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QString header = QString::fromLatin1(f.read(256));
    const auto m = QRegularExpression(QStringLiteral("'descr': *'([^']+)'")).match(header);
    return m.captured(1);
}

} // namespace

class TestMindSporeViews : public QObject
{
    Q_OBJECT
private slots:
    /// The dump item says who wrote it (dump.json "framework" for msprobe; the kernel dump's
    /// own layout otherwise), as its Info text and tooltip, and every operator's tooltip too.
    void treeSaysWhichFrameworkWroteAPart_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("dumpJson"); // empty: no dump.json (kernel dump)
        QTest::addColumn<QString>("expected");
        const QString ms = kSamples + QStringLiteral("/msprobe_mindspore");
        QTest::newRow("msprobe mindspore") << ms + QStringLiteral("/pynative_bf16_tensor_mix")
                                           << ms + QStringLiteral("/pynative_bf16_tensor_mix/step0/rank0/dump.json")
                                           << QStringLiteral("msprobe \u00b7 MindSpore");
        QTest::newRow("msprobe pytorch (bench of the cross-framework compare)")
            << kSamples + QStringLiteral("/msprobe_crossframework/pt_bench")
            << QString() << QStringLiteral("msprobe \u00b7 PyTorch");
        QTest::newRow("mindspore kernel dump") << kSamples + QStringLiteral("/mindspore_kernel/statistic/npu") << QString()
                                               << QStringLiteral("MindSpore kernel dump");
    }
    void treeSaysWhichFrameworkWroteAPart()
    {
        QFETCH(QString, path);
        QFETCH(QString, dumpJson);
        QFETCH(QString, expected);
        if (!dumpJson.isEmpty()) { // the oracle: what msprobe wrote
            QFile f(dumpJson);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QString framework = QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("framework")).toString();
            QCOMPARE(framework, QStringLiteral("mindspore"));
        }
        DocumentContext context;
        DumpTreeModel *model = context.treeModel();
        QAbstractItemModelTester tester(model);
        const auto index = open(context, path);
        QVERIFY(index);
        const QModelIndex root = model->dumpItem(model->dumpIds().constLast());
        QCOMPARE(root.siblingAtColumn(DumpTreeModel::InfoColumn).data().toString(), expected);
        QVERIFY2(root.data(Qt::ToolTipRole).toString().contains(expected), qPrintable(root.data(Qt::ToolTipRole).toString()));
        // Below the dump the same producer is not repeated; the first operator's tooltip says it.
        QModelIndex item = model->index(0, 0, root);
        QVERIFY(item.isValid());
        if (item.data(DumpTreeModel::KindRole).toInt() != int(DumpTreeModel::Kind::Op)) // a level (a flat dump.json has none)
            QVERIFY(item.siblingAtColumn(DumpTreeModel::InfoColumn).data().toString().isEmpty());
        while (model->rowCount(item) > 0 && item.data(DumpTreeModel::KindRole).toInt() != int(DumpTreeModel::Kind::Op))
            item = model->index(0, 0, item);
        QCOMPARE(item.data(DumpTreeModel::KindRole).toInt(), int(DumpTreeModel::Kind::Op));
        QCOMPARE(item.data(DumpTreeModel::ProducerRole).toString(), expected);
        QVERIFY(item.data(Qt::ToolTipRole).toString().contains(expected));
    }

    /// Two dumps of different frameworks side by side: each dump item says its own.
    void eachDumpSaysItsOwn()
    {
        DocumentContext context;
        QVERIFY(open(context, kSamples + QStringLiteral("/msprobe_mindspore/pynative_bf16_tensor_mix")));
        QVERIFY(open(context, kSamples + QStringLiteral("/mindspore_kernel/statistic/bench")));
        DumpTreeModel *model = context.treeModel();
        const QList<int> ids = model->dumpIds();
        QCOMPARE(ids.size(), 2);
        QCOMPARE(model->dumpItem(ids[0]).data(DumpTreeModel::ProducerRole).toString(), QStringLiteral("msprobe \u00b7 MindSpore"));
        QCOMPARE(model->dumpItem(ids[1]).data(DumpTreeModel::ProducerRole).toString(), QStringLiteral("MindSpore kernel dump"));
    }

    /// A bfloat16 tensor MindSpore saved as float32: the recorded type and the file's type,
    /// side by side, and the producer.
    void inspectorShowsRecordedAndFileType()
    {
        const QString dir = kSamples + QStringLiteral("/msprobe_mindspore/pynative_bf16_tensor_mix");
        DocumentContext context;
        const auto index = open(context, dir);
        QVERIFY(index);
        TensorInspector inspector(&context);
        inspector.resize(700, 800);
        inspector.show();
        QVERIFY(QTest::qWaitForWindowExposed(&inspector));
        QSignalSpy loaded(&inspector, &TensorInspector::tensorLoaded);
        int checked = 0;
        for (size_t o = 0; o < index->ops.size() && checked < 3; ++o)
            for (size_t t = 0; t < index->ops[o].tensors.size() && checked < 3; ++t) {
                const TensorRecord &r = index->ops[o].tensors[t];
                if (r.storage() != TensorStorage::NpyFile || r.typeName() != QLatin1String("BFloat16"))
                    continue;
                QCOMPARE(npyDescr(index->absolute(r.location())), QStringLiteral("<f4")); // what numpy wrote
                const int before = int(loaded.count());
                context.selectTensor(context.treeModel()->dumpIds().constLast(), index->tensorId({int(o), int(t)}));
                QTRY_VERIFY_WITH_TIMEOUT(loaded.count() > before, 30000);
                QCOMPARE(summaryRow(inspector, QStringLiteral("Recorded type")), QStringLiteral("BFloat16"));
                QCOMPARE(summaryRow(inspector, QStringLiteral("Data type")), QStringLiteral("bfloat16"));
                QVERIFY2(summaryRow(inspector, QStringLiteral("Data type in file")).startsWith(QStringLiteral("float32")),
                         qPrintable(summaryRow(inspector, QStringLiteral("Data type in file"))));
                QCOMPARE(summaryRowIndex(inspector, QStringLiteral("Data type in file")),
                         summaryRowIndex(inspector, QStringLiteral("Data type")) + 1);
                QCOMPARE(summaryRow(inspector, QStringLiteral("Written by")), QStringLiteral("msprobe \u00b7 MindSpore"));
                // the Values tab's line says that its numbers are the file's float32 values
                auto *grid = inspector.findChild<ValueGridWidget *>();
                QVERIFY(grid);
                if (auto *tabs = inspector.findChild<QTabWidget *>())
                    tabs->setCurrentWidget(grid);
                const QString stored = QStringLiteral("bfloat16 %1, values as stored: float32").arg(shapeToString(r.shape()));
                auto shown = [&] {
                    QStringList texts;
                    for (const QLabel *l : grid->findChildren<QLabel *>())
                        if (l->text().startsWith(QLatin1String("bfloat16")))
                            texts << l->text();
                    return texts.join(QLatin1Char('|'));
                };
                QTRY_VERIFY2_WITH_TIMEOUT(shown().startsWith(stored), qPrintable(shown() + QStringLiteral(" vs ") + stored), 10000);
                ++checked;
            }
        QCOMPARE(checked, 3);
    }

    /// A kernel dump's Graph: the kernels' name scopes are nested groups, each kernel sits in
    /// the scope its full name (execution order CSV, written by MindSpore) gives, named by its
    /// own name.
    void kernelGraphGroupsByScope()
    {
        const QString dir = kSamples + QStringLiteral("/mindspore_kernel/statistic/npu");
        QFile csv(dir + QStringLiteral("/rank_0/execution_order/ms_execution_order_graph_0.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        QStringList fullNames = QString::fromUtf8(csv.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        fullNames.removeFirst(); // the header
        QVERIFY(fullNames.size() >= 10);
        DocumentContext context;
        const auto index = open(context, dir);
        QVERIFY(index);
        const std::vector<GraphModel> models = buildModuleGraphs(*index);
        QCOMPARE(models.size(), size_t(4)); // 2 ranks x 2 iterations
        const GraphModel *model = nullptr;
        for (const GraphModel &m : models)
            if (m.modelName == QLatin1String("rank_0/Net/0/0"))
                model = &m;
        QVERIFY(model);
        QVERIFY(hasScopeGroups(*model));
        QVERIFY(model->file.endsWith(QLatin1String("rank_0/Net/0/0/statistic.csv")));
        const Graph &g = model->graphs.front();
        QSet<QString> nodes;
        for (const GraphNode &n : g.nodes)
            nodes.insert(n.name);
        for (const QString &full : std::as_const(fullNames))
            QVERIFY2(nodes.contains(full.trimmed()), qPrintable(full));
        QCOMPARE(nodes.size(), fullNames.size());
        // Every scope of a full name is a group.
        QSet<QString> groups;
        for (const auto &grp : g.groups)
            groups.insert(grp.path);
        for (const QString &full : std::as_const(fullNames))
            for (QString s = Graph::scopeOf(full.trimmed()); !s.isEmpty(); s = Graph::scopeOf(s))
                QVERIFY2(groups.contains(s), qPrintable(s));
        // The mapping links every kernel of the iteration to its node.
        const DumpMapping mapping = mapModuleGraph(*model, *index);
        QCOMPARE(mapping.consideredOps.size(), size_t(fullNames.size()));
        QVERIFY(mapping.unmappedOps.empty());
    }
};

QTEST_MAIN(TestMindSporeViews)
#include "tst_mindsporeviews.moc"
