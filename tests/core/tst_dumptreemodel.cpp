// models/dumptreemodel: the compact dump tree (level nodes; operator and tensor items made
// from the index on demand). The oracle is the index itself (buildIndex of the committed
// samples): every operator once, under the node of its own levels, with its tensors; counts
// and sizes summed from the records; execution order inside a level.
#include "dump/levels.h"
#include "index/buildindex.h"
#include "models/dumptreemodel.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QLocale>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <unordered_map>

using namespace ds;

namespace {

using Kind = DumpTreeModel::Kind;

Kind kindOf(const QModelIndex &i) { return Kind(i.data(DumpTreeModel::KindRole).toInt()); }

qulonglong bytesOf(const OpRecord &op)
{
    qulonglong b = 0;
    for (const auto &t : op.tensors)
        b += t.dataBytes();
    return b;
}

/// Every item below `parent`, depth first.
void collect(const QAbstractItemModel &m, const QModelIndex &parent, std::vector<QModelIndex> &out)
{
    for (int r = 0; r < m.rowCount(parent); ++r) {
        const QModelIndex c = m.index(r, 0, parent);
        out.push_back(c);
        collect(m, c, out);
    }
}

std::shared_ptr<const DumpIndex> indexOf(const QString &path)
{
    auto built = buildIndex(path);
    return built ? std::shared_ptr<const DumpIndex>(*built) : nullptr;
}

/// The levels of an op as the path of level labels (LevelRole) from the dump item down.
QStringList levelPath(const QModelIndex &item)
{
    QStringList path;
    for (QModelIndex p = item.parent(); p.isValid() && kindOf(p) != Kind::Dump; p = p.parent())
        path.prepend(p.data(DumpTreeModel::LevelRole).toString());
    return path;
}

QStringList levelsOf(const DumpLevels &l)
{
    QStringList out;
    for (const QString *v : {&l.part, &l.run, &l.time, &l.step, &l.rank, &l.device, &l.modelName, &l.modelId, &l.dataIndex})
        if (!v->isEmpty())
            out << *v;
    return out;
}

} // namespace

class TestDumpTreeModel : public QObject
{
    Q_OBJECT

private slots:
    void everyOperatorOnce_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("msprobe steps x ranks") << QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe");
        QTest::newRow("msprobe real") << QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real");
        QTest::newRow("CANN model dump") << QStringLiteral(DUMPSCOPE_SAMPLES "/cann/model_dump");
        QTest::newRow("CANN layouts") << QStringLiteral(DUMPSCOPE_SAMPLES "/cann/layouts");
    }
    void everyOperatorOnce()
    {
        QFETCH(QString, path);
        const auto index = indexOf(path);
        QVERIFY(index);
        QVERIFY(!index->ops.empty());
        DumpTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const int dump = model.beginDump(path);
        model.finishDump(dump, index);
        const QModelIndex root = model.index(dump, 0);
        std::vector<QModelIndex> items;
        collect(model, root, items);

        std::vector<int> seen(index->ops.size(), 0);
        std::map<const void *, int> lastOp; // parent -> the op of its last op row so far
        for (const QModelIndex &i : items) {
            QCOMPARE(i.data(DumpTreeModel::DumpRole).toInt(), dump);
            QCOMPARE(i.parent().isValid(), true);
            QCOMPARE(model.index(i.row(), 0, i.parent()), i); // index() and parent() agree
            if (kindOf(i) != Kind::Op)
                continue;
            const int op = index->opIndex(i.data(DumpTreeModel::OpPathRole).toString());
            QVERIFY2(op >= 0, qPrintable(i.data(DumpTreeModel::OpPathRole).toString()));
            ++seen[size_t(op)];
            const OpRecord &rec = index->ops[size_t(op)];
            QCOMPARE(model.findOp(dump, op), i);
            QCOMPARE(model.findOp(dump, rec.relPath.toString()), i);
            QCOMPARE(levelPath(i), levelsOf(*rec.levels));
            QCOMPARE(i.data(DumpTreeModel::BytesRole).toULongLong(), bytesOf(rec));
            QCOMPARE(i.siblingAtColumn(DumpTreeModel::InfoColumn).data().toString(), rec.relPath.toString().section(QLatin1Char('/'), -1));
            QCOMPARE(i.data(DumpTreeModel::ProblemRole).toBool(), !rec.warnings().isEmpty());
            QVERIFY(i.data().toString().contains(rec.headerOpName().isEmpty() ? rec.opName.toString() : rec.headerOpName()));
            // inside a level: execution order (timestamp, then file)
            if (const auto last = lastOp.find(i.parent().internalPointer()); last != lastOp.end()) {
                const OpRecord &before = index->ops[size_t(last->second)];
                QVERIFY(before.timestamp < rec.timestamp
                        || (before.timestamp == rec.timestamp && before.relPath.toString() < rec.relPath.toString()));
            }
            lastOp[i.parent().internalPointer()] = op;
            // its tensors, in record order
            QCOMPARE(model.rowCount(i), int(rec.tensors.size()));
            for (int t = 0; t < model.rowCount(i); ++t) {
                const QModelIndex tensor = model.index(t, 0, i);
                QCOMPARE(kindOf(tensor), Kind::Tensor);
                QCOMPARE(tensor.parent(), i);
                const TensorId id = tensor.data(DumpTreeModel::TensorIdRole).value<TensorId>();
                QCOMPARE(id, index->tensorId({op, t}));
                QCOMPARE(model.findTensor(dump, id), tensor);
                QCOMPARE(tensor.data(DumpTreeModel::BytesRole).toULongLong(), qulonglong(rec.tensors[size_t(t)].dataBytes()));
                QCOMPARE(tensor.data(DumpTreeModel::OpPathRole).toString(), rec.relPath.toString());
                const QString name = rec.tensors[size_t(t)].name();
                if (!name.isEmpty())
                    QCOMPARE(tensor.data().toString(), name);
            }
        }
        for (size_t o = 0; o < seen.size(); ++o)
            QVERIFY2(seen[o] == 1, qPrintable(QStringLiteral("%1 shown %2 times").arg(index->ops[o].relPath.toString()).arg(seen[o])));

        // Level items: operators and bytes below them, summed from the records.
        for (const QModelIndex &i : items) {
            const Kind k = kindOf(i);
            if (k == Kind::Op || k == Kind::Tensor || k == Kind::Error || k == Kind::ErrorGroup)
                continue;
            const auto under = model.opsUnder(i);
            const std::vector<int> &ops = *under;
            QVERIFY(!ops.empty()); // levels exist for their operators
            qulonglong bytes = 0;
            for (int op : ops)
                bytes += bytesOf(index->ops[size_t(op)]);
            QCOMPARE(i.data(DumpTreeModel::BytesRole).toULongLong(), bytes);
            QCOMPARE(i.siblingAtColumn(DumpTreeModel::CountColumn).data().toString(), DumpTreeModel::tr("%n op(s)", nullptr, int(ops.size())));
            QCOMPARE(model.findLevels(dump, *index->ops[size_t(ops.front())].levels).isValid(), true);
        }
        QCOMPARE(model.opsUnder(root)->size(), index->ops.size());
    }

    /// While indexing, batches add per-directory totals: the levels and counts the final tree
    /// will have, without operator rows.
    void batchesFillLevels()
    {
        const QString path = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe");
        const auto index = indexOf(path);
        QVERIFY(index);
        DumpTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const int dump = model.beginDump(path);
        const size_t half = index->ops.size() / 2;
        const std::vector<OpRecord> first(index->ops.begin(), index->ops.begin() + std::ptrdiff_t(half));
        const std::vector<OpRecord> second(index->ops.begin() + std::ptrdiff_t(half), index->ops.end());
        const std::vector<FileError> errors{FileError(QStringLiteral("step9/rank0/dump.json"), QStringLiteral("truncated"))};
        model.addBatch(dump, DumpTreeModel::summarizeBatch(first, {}));
        model.addBatch(dump, DumpTreeModel::summarizeBatch(second, errors));
        const QModelIndex root = model.index(dump, 0);
        QCOMPARE(root.siblingAtColumn(DumpTreeModel::CountColumn).data().toString(),
                 DumpTreeModel::tr("%n op(s)", nullptr, int(index->ops.size())));
        std::map<QString, int> perScope; // the oracle: ops per step/rank from the records
        for (const OpRecord &op : index->ops)
            ++perScope[op.levels->step + QLatin1Char('/') + op.levels->rank];
        int levelsWithOps = 0;
        std::vector<QModelIndex> items;
        collect(model, root, items);
        for (const QModelIndex &i : items) {
            QVERIFY(kindOf(i) != Kind::Op); // no operator rows before the index
            if (kindOf(i) == Kind::Rank) {
                const QString key = i.parent().data(DumpTreeModel::LevelRole).toString() + QLatin1Char('/') + i.data(DumpTreeModel::LevelRole).toString();
                QVERIFY2(perScope.count(key), qPrintable(key));
                QCOMPARE(i.siblingAtColumn(DumpTreeModel::CountColumn).data().toString(), DumpTreeModel::tr("%n op(s)", nullptr, perScope[key]));
                ++levelsWithOps;
            }
        }
        QCOMPARE(levelsWithOps, int(perScope.size()));
        const QModelIndex group = model.index(model.rowCount(root) - 1, 0, root);
        QCOMPARE(kindOf(group), Kind::ErrorGroup);
        QCOMPARE(model.index(0, 0, group).data().toString(), QStringLiteral("step9/rank0/dump.json"));

        model.finishDump(dump, index);
        QCOMPARE(model.opsUnder(model.index(dump, 0))->size(), index->ops.size());
        QVERIFY(model.findOp(dump, 0).isValid());
    }

    void overflowMarksReachTheLevels()
    {
        const QString path = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe");
        const auto index = indexOf(path);
        QVERIFY(index);
        QVERIFY(index->ops.size() > 3);
        DumpTreeModel model;
        const int dump = model.beginDump(path);
        model.finishDump(dump, index);
        const int marked = int(index->ops.size()) - 1;
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setOverflowMarks(dump, {{marked, 3}, {0, 1}});
        QVERIFY(changed.count() > 0);
        const QModelIndex op = model.findOp(dump, marked);
        QCOMPARE(op.data(DumpTreeModel::OverflowRole).toInt(), 3);
        QCOMPARE(model.index(0, 0, op).data(DumpTreeModel::OverflowRole).toInt(), 3); // its tensors
        for (QModelIndex p = op.parent(); p.isValid(); p = p.parent())
            QCOMPARE(p.data(DumpTreeModel::OverflowRole).toInt(), 3);
        QCOMPARE(model.findOp(dump, 0).data(DumpTreeModel::OverflowRole).toInt(), 1);
        QCOMPARE(model.findOp(dump, 1).data(DumpTreeModel::OverflowRole).toInt(), marked == 1 ? 3 : 0);
        // new marks replace the old ones, levels included
        model.setOverflowMarks(dump, {});
        QCOMPARE(op.data(DumpTreeModel::OverflowRole).toInt(), 0);
        QCOMPARE(model.index(dump, 0).data(DumpTreeModel::OverflowRole).toInt(), 0);
    }

    /// Operator items whose mark changed are announced after the call, in the event loop's
    /// time slices, each once; unchanged ones are not (a run scan marks thousands of operators:
    /// announcing them all at once stalled the GUI thread). Level items are announced at once.
    void markChangesAnnouncedInSlices()
    {
        const QString path = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/npu_bf16_statistics_mix");
        const auto index = indexOf(path);
        QVERIFY(index);
        const int n = int(index->ops.size());
        QVERIFY(n >= 100);
        DumpTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const int dump = model.beginDump(path);
        model.finishDump(dump, index);
        std::map<int, int> announced; // operator -> dataChanged count
        connect(&model, &QAbstractItemModel::dataChanged, &model, [&](const QModelIndex &top, const QModelIndex &bottom) {
            QCOMPARE(top.row(), bottom.row());
            if (kindOf(top) == Kind::Op)
                ++announced[index->opIndex(top.data(DumpTreeModel::OpPathRole).toString())];
        });
        std::unordered_map<int, int> first;
        for (int op = 0; op < n; op += 3)
            first[op] = 1 + op % 4;
        model.setOverflowMarks(dump, first);
        QCOMPARE(announced.size(), size_t(0)); // operators: not during the call
        QCOMPARE(model.pendingMarkNotices(), first.size());
        QCOMPARE(model.findOp(dump, 3).data(DumpTreeModel::OverflowRole).toInt(), 4); // the data is new at once
        QTRY_COMPARE(model.pendingMarkNotices(), size_t(0));
        QCOMPARE(announced.size(), first.size());
        for (const auto &[op, count] : announced) {
            QVERIFY2(first.count(op), qPrintable(QString::number(op)));
            QCOMPARE(count, 1);
        }
        // Second marks: every third operator keeps its mark, some change, some go, some come.
        std::unordered_map<int, int> second, changed;
        for (int op = 0; op < n; ++op) {
            const int was = first.count(op) ? first[op] : 0;
            const int now = op % 6 == 0 ? was : op % 6 == 3 ? 0 : op % 5 == 0 ? 2 : was;
            if (now)
                second[op] = now;
            if (now != was)
                changed[op] = now;
        }
        QVERIFY(!changed.empty() && changed.size() < second.size() + first.size());
        announced.clear();
        model.setOverflowMarks(dump, second);
        QTRY_COMPARE(model.pendingMarkNotices(), size_t(0));
        QCOMPARE(announced.size(), changed.size());
        for (const auto &[op, count] : announced) {
            QVERIFY2(changed.count(op), qPrintable(QString::number(op)));
            QCOMPARE(count, 1);
            QCOMPARE(model.findOp(dump, op).data(DumpTreeModel::OverflowRole).toInt(), changed[op]);
        }
        // A dump closed while its notices wait: they are dropped, nothing is touched.
        model.setOverflowMarks(dump, first);
        QVERIFY(model.pendingMarkNotices() > 0);
        model.removeDump(dump);
        QTRY_COMPARE(model.pendingMarkNotices(), size_t(0));
    }

    /// Items of a later dump stay valid when an earlier dump is removed, and so does its number:
    /// results the panels keep by dump number (overflow, runs, trends) still name the same dump.
    void removeDumpKeepsOthers()
    {
        const auto a = indexOf(QStringLiteral(DUMPSCOPE_SAMPLES "/cann/model_dump"));
        const auto b = indexOf(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe"));
        QVERIFY(a && b);
        DumpTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.finishDump(model.beginDump(a->openedPath), a);
        model.finishDump(model.beginDump(b->openedPath), b);
        const int op = int(b->ops.size()) / 2;
        const QPersistentModelIndex item = model.findOp(1, op);
        const QPersistentModelIndex tensor = model.index(0, 0, item);
        QVERIFY(item.isValid() && tensor.isValid());
        model.removeDump(0);
        QCOMPARE(model.dumpCount(), 1);
        QCOMPARE(model.dumpIds(), QList<int>{1});
        QVERIFY(item.isValid());
        QCOMPARE(item.data(DumpTreeModel::DumpRole).toInt(), 1);
        QCOMPARE(item.data(DumpTreeModel::OpPathRole).toString(), b->ops[size_t(op)].relPath.toString());
        QCOMPARE(QModelIndex(item), model.findOp(1, op));
        QVERIFY(!model.findOp(0, op).isValid()); // the closed dump's number names nothing
        QVERIFY(!model.index(0) && model.index(1) == b);
        QCOMPARE(QModelIndex(tensor).parent(), QModelIndex(item));
        // a dump opened now gets a fresh serial and a fresh number: its items do not alias the remaining dump's
        const int c = model.beginDump(a->openedPath);
        QCOMPARE(c, 2);
        model.finishDump(c, a);
        QCOMPARE(model.dumpIds(), (QList<int>{1, 2}));
        QCOMPARE(item.data(DumpTreeModel::OpPathRole).toString(), b->ops[size_t(op)].relPath.toString());
        QCOMPARE(model.findOp(2, 0).data(DumpTreeModel::OpPathRole).toString(), a->ops[0].relPath.toString());
        QCOMPARE(model.index(1, 0).data(DumpTreeModel::DumpRole).toInt(), 2); // row 1, dump 2
    }

    void unreadableFilesLast()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        QDir(tmp.path()).mkpath(QStringLiteral("step0/rank0"));
        QFile bad(tmp.path() + QStringLiteral("/step0/rank0/dump.json"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{\"task\": \"statistics\", \"level\": \"L1\", \"data\": {\"Torch.add.0.forward\": {\"input_args\": [");
        bad.close();
        const auto index = indexOf(tmp.path());
        QVERIFY(index);
        QVERIFY(!index->errors.empty());
        DumpTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const int dump = model.beginDump(tmp.path());
        model.finishDump(dump, index);
        const QModelIndex root = model.index(dump, 0);
        const QModelIndex group = model.index(model.rowCount(root) - 1, 0, root);
        QCOMPARE(kindOf(group), Kind::ErrorGroup);
        QCOMPARE(group.data(DumpTreeModel::ProblemRole).toBool(), true);
        QCOMPARE(model.rowCount(group), int(index->errors.size()));
        QCOMPARE(model.index(0, 0, group).data().toString(), index->errors.front().file);
        QCOMPARE(model.index(0, DumpTreeModel::InfoColumn, group).data().toString(), index->errors.front().message);
    }
};

QTEST_MAIN(TestDumpTreeModel)
#include "tst_dumptreemodel.moc"
