// Directory levels, opening at any level, tensor ids, mapping.csv and progress/cancel.
#include "dump/levels.h"
#include "index/buildindex.h"

#include <QTest>

#include <algorithm>
#include <atomic>
#include <map>
#include <random>
#include <thread>

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
    void finalizeOrder_data()
    {
        QTest::addColumn<int>("ops");
        QTest::addColumn<int>("runs"); // parts appended in this many shuffled runs
        QTest::addColumn<bool>("unique"); // every timestamp once: no ties
        QTest::addColumn<int>("swapAt");  // >= 0: the op there and the next swapped after the runs are sorted
        QTest::addRow("one run") << 5000 << 1 << false << -1;
        QTest::addRow("parts merged") << 20000 << 9 << false << -1;
        QTest::addRow("many runs") << 3000 << 400 << false << -1;
        QTest::addRow("path index buckets") << 140000 << 8 << false << -1;
        // Already in order (finalize only checks it, on all cores), and the same with one pair
        // out of order inside a check chunk and across the boundary of two (65536 ops each).
        QTest::addRow("in order") << 140000 << 1 << true << -1;
        QTest::addRow("one pair swapped") << 140000 << 1 << true << 1000;
        QTest::addRow("pair swapped across chunks") << 140000 << 1 << true << 65535;
    }
    void finalizeOrder()
    {
        // The execution order (levels, timestamp, path) and the path lookup after finalize(),
        // against a plain sort with that comparison (paths unique, timestamps repeat).
        QFETCH(int, ops);
        QFETCH(int, runs);
        QFETCH(bool, unique);
        QFETCH(int, swapAt);
        std::mt19937 rng(11);
        std::vector<SharedLevels> levels;
        for (const char *rank : {"rank10", "rank2", "rank0", "rank1"})
            for (const char *step : {"step1", "step0"}) {
                DumpLevels l;
                l.step = QLatin1String(step);
                l.rank = QLatin1String(rank);
                levels.emplace_back(l);
            }
        DumpIndex index;
        for (int i = 0; i < ops; ++i) {
            OpRecord op;
            op.levels = levels[rng() % levels.size()];
            op.timestamp = unique ? std::uint64_t(i) : rng() % std::max(2, ops / 50);
            op.relPath = QStringLiteral("%1/%2/op%3").arg(op.levels->step, op.levels->rank).arg(rng() % 1000000 * 1000 + i);
            index.ops.push_back(std::move(op));
        }
        // Parts in order inside, appended in an arbitrary order (as parts finish).
        auto before = [](const OpRecord &a, const OpRecord &b) {
            if (levelsBefore(*a.levels, *b.levels) != levelsBefore(*b.levels, *a.levels))
                return levelsBefore(*a.levels, *b.levels);
            if (a.timestamp != b.timestamp)
                return a.timestamp < b.timestamp;
            return a.relPath < b.relPath;
        };
        std::vector<int> cut(size_t(runs) + 1, 0);
        for (int r = 1; r < runs; ++r)
            cut[size_t(r)] = int(rng() % size_t(ops));
        cut[size_t(runs)] = ops;
        std::sort(cut.begin(), cut.end());
        for (int r = 0; r < runs; ++r)
            std::sort(index.ops.begin() + cut[size_t(r)], index.ops.begin() + cut[size_t(r) + 1], before);
        if (swapAt >= 0)
            std::swap(index.ops[size_t(swapAt)], index.ops[size_t(swapAt) + 1]);
        QStringList expected;
        {
            std::vector<const OpRecord *> sorted;
            for (const OpRecord &op : index.ops)
                sorted.push_back(&op);
            std::sort(sorted.begin(), sorted.end(), [&](const OpRecord *a, const OpRecord *b) { return before(*a, *b); });
            for (const OpRecord *op : sorted)
                expected << op->relPath.toString();
        }
        index.finalize();
        QStringList got;
        for (const OpRecord &op : index.ops)
            got << op.relPath.toString();
        QCOMPARE(got, expected);
        for (size_t i = 0; i < index.ops.size(); i += 7)
            QCOMPARE(index.opIndex(index.ops[i].relPath.toString()), int(i));
        QCOMPARE(index.opIndex(QStringLiteral("step0/rank0/none")), -1);
    }

    /// finalize() orders the errors by file and keeps each file's errors in the order its
    /// reader gave them (line by line), however the parts' errors interleave: an unstable sort
    /// swapped a statistic.csv's "line 4" and "line 3" errors in about 1 run of 10.
    void finalizeKeepsAFilesErrorsInOrder()
    {
        std::mt19937 rng(5);
        for (int round = 0; round < 20; ++round) {
            DumpIndex index;
            std::map<QString, int> next; // each file's next line
            for (int i = 0; i < 2000; ++i) {
                const QString file = QStringLiteral("rank%1/statistic.csv").arg(rng() % 40);
                index.errors.push_back({file, QStringLiteral("line %1: bad").arg(++next[file])});
            }
            index.finalize();
            QVERIFY(std::is_sorted(index.errors.begin(), index.errors.end(), [](const FileError &a, const FileError &b) { return a.file < b.file; }));
            std::map<QString, int> seen;
            for (const FileError &e : index.errors)
                QCOMPARE(e.message, QStringLiteral("line %1: bad").arg(++seen[e.file]));
        }
    }

    void pathLookupOnFirstUse()
    {
        // opIndex builds its table on first use: asked from two threads at once, after a copy
        // whose paths then change, after a move and after finalize() on changed paths. The
        // oracle is a plain scan of the ops' paths.
        DumpIndex index;
        for (int i = 0; i < 50000; ++i) {
            OpRecord op;
            op.timestamp = std::uint64_t(i);
            op.relPath = QStringLiteral("step0/rank0/dump.json/op%1").arg(i * 7919 % 50000);
            index.ops.push_back(std::move(op));
        }
        index.finalize();
        auto scan = [](const DumpIndex &x, const QString &path) {
            for (size_t i = 0; i < x.ops.size(); ++i)
                if (x.ops[i].relPath.toString() == path)
                    return int(i);
            return -1;
        };
        std::atomic<int> wrong{0};
        auto ask = [&](size_t from) {
            for (size_t i = from; i < index.ops.size(); i += 2)
                wrong += index.opIndex(index.ops[i].relPath.toString()) != int(i);
        };
        std::thread other(ask, 1);
        ask(0);
        other.join();
        QCOMPARE(wrong.load(), 0);

        DumpIndex copy = index;
        QCOMPARE(copy.opIndex(copy.ops[10].relPath.toString()), 10); // its table built before the change
        std::swap(copy.ops[10].relPath, copy.ops[20].relPath);
        copy.ops[30].relPath = QStringLiteral("step0/rank0/dump.json/renamed");
        copy.finalize(); // same timestamps: the order stays, the paths changed
        for (const QString &p : {copy.ops[10].relPath.toString(), copy.ops[20].relPath.toString(),
                                 QStringLiteral("step0/rank0/dump.json/renamed"), copy.ops[40].relPath.toString()})
            QCOMPARE(copy.opIndex(p), scan(copy, p));
        QCOMPARE(index.opIndex(QStringLiteral("step0/rank0/dump.json/renamed")), -1);
        QCOMPARE(index.opIndex(index.ops[10].relPath.toString()), 10);

        DumpIndex moved = std::move(copy);
        QCOMPARE(moved.opIndex(QStringLiteral("step0/rank0/dump.json/renamed")), 30);
        QCOMPARE(copy.opIndex(QStringLiteral("step0/rank0/dump.json/renamed")), scan(copy, QStringLiteral("step0/rank0/dump.json/renamed")));
    }

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
