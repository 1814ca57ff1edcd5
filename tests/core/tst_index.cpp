// Directory levels, opening at any level, tensor ids, mapping.csv and progress/cancel.
#include "dump/levels.h"
#include "index/buildindex.h"

#include <QTest>

using namespace ds;

namespace {
const QString kModel = QStringLiteral(DUMPSCOPE_SAMPLES "/cann/model_dump");
const QString kDataIndex0 = QStringLiteral("20240315101500/0/ge_default_20240315101512_1/1/0");
const QString kRelu = QStringLiteral("Relu.resnet_relu1_Relu.13.3.1710490512000002");
} // namespace

class TestIndex : public QObject
{
    Q_OBJECT
private slots:
    void classify_data()
    {
        QTest::addColumn<QStringList>("components");
        QTest::addColumn<QStringList>("expected"); // time, device, model_name, model_id, data_index
        QTest::addRow("model dump") << QStringList{"20200808163566", "0", "ge_default_1", "11", "0"}
                                    << QStringList{"20200808163566", "0", "ge_default_1", "11", "0"};
        QTest::addRow("single op, no model name") << QStringList{"20230131172437", "1", "0"}
                                                  << QStringList{"20230131172437", "1", "", "0", ""};
        QTest::addRow("overflow tree") << QStringList{"20200808163566", "0", "11", "0"}
                                       << QStringList{"20200808163566", "0", "", "11", "0"};
        QTest::addRow("offline, no time") << QStringList{"0", "conv1"} << QStringList{"", "0", "conv1", "", ""};
    }
    void classify()
    {
        QFETCH(QStringList, components);
        QFETCH(QStringList, expected);
        const DumpLevels l = classifyLevels(components);
        QCOMPARE((QStringList{l.time, l.device, l.modelName, l.modelId, l.dataIndex}), expected);
    }

    void openAtAnyLevel_data()
    {
        QTest::addColumn<QString>("opened");
        QTest::addColumn<QString>("relPath");
        QTest::addRow("dump_path") << kModel << kDataIndex0 + QLatin1Char('/') + kRelu;
        QTest::addRow("time dir") << kModel + QStringLiteral("/20240315101500")
                                  << kDataIndex0.mid(15) + QLatin1Char('/') + kRelu;
        QTest::addRow("data_index dir") << kModel + QLatin1Char('/') + kDataIndex0 << kRelu;
        QTest::addRow("single file") << kModel + QLatin1Char('/') + kDataIndex0 + QLatin1Char('/') + kRelu << kRelu;
    }
    void openAtAnyLevel()
    {
        QFETCH(QString, opened);
        QFETCH(QString, relPath);
        auto index = buildIndex(opened);
        QVERIFY(index.ok());
        const int o = (*index)->opIndex(relPath);
        QVERIFY2(o >= 0, qPrintable(relPath));
        const auto &op = (*index)->ops[size_t(o)];
        // Levels come from the path, whatever level was opened.
        QCOMPARE(op.levels->time, QStringLiteral("20240315101500"));
        QCOMPARE(op.levels->device, QStringLiteral("0"));
        QCOMPARE(op.levels->modelName, QStringLiteral("ge_default_20240315101512_1"));
        QCOMPARE(op.levels->modelId, QStringLiteral("1"));
        QCOMPARE(op.levels->dataIndex, QStringLiteral("0"));
        QCOMPARE(op.headerOpName(), QStringLiteral("resnet/relu1/Relu"));
        const auto id = TensorId::parse(QString(relPath + QStringLiteral(".output.0")));
        QVERIFY(id);
        auto ref = (*index)->find(*id);
        QVERIFY(ref);
        QCOMPARE((*index)->tensorId(*ref).toString(), relPath + QStringLiteral(".output.0"));
        QVERIFY(!(*index)->find(*TensorId::parse(QString(relPath + QStringLiteral(".output.7")))));
    }

    void mappingCsvResolvesNumericNames()
    {
        auto index = buildIndex(kModel + QLatin1Char('/') + kDataIndex0);
        QVERIFY(index.ok());
        const int o = (*index)->opIndex(QStringLiteral("1234567890"));
        QVERIFY(o >= 0);
        const auto &op = (*index)->ops[size_t(o)];
        QCOMPARE(op.opType, QStringLiteral("Mul"));
        QVERIFY(!op.mappedFrom().isEmpty());
        QVERIFY(op.taskId() >= 0);
    }

    void missingPathIsAnError()
    {
        auto index = buildIndex(QStringLiteral("/nonexistent/dump"));
        QVERIFY(!index.ok());
        QVERIFY(index.errorText().contains(QLatin1String("no such file")));
    }

    void executionOrderWithinDataIndex()
    {
        auto index = buildIndex(kModel);
        QVERIFY(index.ok());
        const auto &ops = (*index)->ops;
        for (size_t i = 1; i < ops.size(); ++i)
            if (ops[i].levels->dataIndex == ops[i - 1].levels->dataIndex)
                QVERIFY(ops[i - 1].timestamp <= ops[i].timestamp);
    }

    void progressAndCancel()
    {
        std::atomic<bool> cancel{false};
        int last = -1;
        JobControl job;
        job.progress = [&](int p) { last = std::max(last, p); };
        job.cancelFlag = &cancel;
        auto index = buildIndex(kModel, &job);
        QVERIFY(index.ok());
        QCOMPARE(last, 1000);
        QVERIFY(!(*index)->cancelled);
        cancel = true;
        auto stopped = buildIndex(kModel, &job);
        QVERIFY(stopped.ok());
        QVERIFY((*stopped)->cancelled);
        QVERIFY((*stopped)->ops.size() < (*index)->ops.size());
    }
};

QTEST_GUILESS_MAIN(TestIndex)
#include "tst_index.moc"
