// models/optablemodel: a level's operators filtered and ordered in place (no proxy model). The
// oracle is the index of a real msprobe dump: the expected rows are computed here from its
// records with plain loops and std::stable_sort, not through the model's code.
#include "index/buildindex.h"
#include "models/optablemodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <numeric>

using namespace ds;

namespace {

QString nameOf(const OpRecord &op) { return op.headerOpName().isEmpty() ? op.opName.toString() : op.headerOpName(); }

std::vector<int> shownOps(const OpTableModel &m)
{
    std::vector<int> out;
    for (int r = 0; r < m.rowCount(); ++r)
        out.push_back(m.index(r, 0).data(OpTableModel::OpRole).toInt());
    return out;
}

} // namespace

class TestOpTableModel : public QObject
{
    Q_OBJECT
    std::shared_ptr<const DumpIndex> m_index;
    std::shared_ptr<const std::vector<int>> m_level;

private slots:
    void initTestCase()
    {
        auto built = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/npu_bf16_statistics_mix"));
        QVERIFY(built);
        m_index = *built;
        // the level: every other operator, in execution order (a level is a subset of the index)
        auto level = std::make_shared<std::vector<int>>();
        for (int op = 0; op < int(m_index->ops.size()); op += 2)
            level->push_back(op);
        QVERIFY(level->size() >= 50);
        m_level = level;
    }

    void filtersLikeTheirDefinition()
    {
        OpTableModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setOps(0, m_index, m_level);
        QCOMPARE(shownOps(m), *m_level); // whole level, execution order
        for (size_t p = 0; p < m_level->size(); ++p)
            QCOMPARE(m.rowOf((*m_level)[p]), int(p));
        QCOMPARE(m.rowOf(1), -1); // not in the level

        // text: name or type holds it, case-insensitively
        const QString text = QStringLiteral("LINEAR");
        std::vector<int> expected;
        for (int op : *m_level) {
            const OpRecord &r = m_index->ops[size_t(op)];
            if (nameOf(r).toLower().contains(text.toLower()) || r.opType.toString().toLower().contains(text.toLower()))
                expected.push_back(op);
        }
        QVERIFY(!expected.empty() && expected.size() < m_level->size());
        m.setFilter(OpFilter{{}, text, false});
        QCOMPARE(shownOps(m), expected);
        for (size_t r = 0; r < expected.size(); ++r)
            QCOMPARE(m.rowOf(expected[r]), int(r));

        // type: exactly that op type
        const QString type = m_index->ops[size_t(m_level->back())].opType.toString();
        expected.clear();
        for (int op : *m_level)
            if (m_index->ops[size_t(op)].opType.toString() == type)
                expected.push_back(op);
        m.setFilter(OpFilter{type, {}, false});
        QCOMPARE(shownOps(m), expected);

        // regex over name and type; a broken one shows nothing and says so
        m.setFilter(OpFilter{{}, QStringLiteral("^Functional\\.(linear|conv2d)\\."), true});
        expected.clear();
        for (int op : *m_level) {
            const QString name = nameOf(m_index->ops[size_t(op)]);
            if (name.startsWith(QLatin1String("Functional.linear.")) || name.startsWith(QLatin1String("Functional.conv2d.")))
                expected.push_back(op);
        }
        QVERIFY(!expected.empty());
        QCOMPARE(shownOps(m), expected);
        m.setFilter(OpFilter{{}, QStringLiteral("(unclosed"), true});
        QVERIFY(!m.isValidPattern());
        QCOMPARE(m.rowCount(), 0);
        m.setFilter({});
        QCOMPARE(shownOps(m), *m_level);
    }

    void sortsStablyWithMissingValuesLast()
    {
        OpTableModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setOps(0, m_index, m_level);
        auto byKey = [&](auto key, bool descending) {
            std::vector<int> ops = *m_level;
            std::stable_sort(ops.begin(), ops.end(), [&](int a, int b) { return descending ? key(b) < key(a) : key(a) < key(b); });
            return ops;
        };
        auto name = [&](int op) { return nameOf(m_index->ops[size_t(op)]); };
        m.sort(OpTableModel::Name, Qt::AscendingOrder);
        QCOMPARE(shownOps(m), byKey(name, false));
        m.sort(OpTableModel::Name, Qt::DescendingOrder);
        QCOMPARE(shownOps(m), byKey(name, true));
        auto outputs = [&](int op) { return m_index->ops[size_t(op)].count(IoKind::Output); };
        m.sort(OpTableModel::Outputs, Qt::DescendingOrder);
        QCOMPARE(shownOps(m), byKey(outputs, true));

        // Statistics for the first half of the level only: sorted by Max, the operators with a
        // value come in order of it, the others after them in execution order.
        const size_t half = m_level->size() / 2;
        std::vector<OpStats> stats(half);
        for (size_t p = 0; p < half; ++p)
            stats[p].max = double((p * 7919) % 101); // ties on purpose
        m.setStats(0, stats);
        m.sort(OpTableModel::Max, Qt::AscendingOrder);
        std::vector<int> withValue(m_level->begin(), m_level->begin() + std::ptrdiff_t(half));
        std::stable_sort(withValue.begin(), withValue.end(), [&](int a, int b) {
            const auto pa = size_t(std::find(m_level->begin(), m_level->end(), a) - m_level->begin());
            const auto pb = size_t(std::find(m_level->begin(), m_level->end(), b) - m_level->begin());
            return stats[pa].max < stats[pb].max;
        });
        std::vector<int> expected = withValue;
        expected.insert(expected.end(), m_level->begin() + std::ptrdiff_t(half), m_level->end());
        QCOMPARE(shownOps(m), expected);
        // each row shows its own operator's statistics
        for (int r = 0; r < m.rowCount(); ++r) {
            const int op = m.opAt(r);
            const size_t p = size_t(std::find(m_level->begin(), m_level->end(), op) - m_level->begin());
            const QVariant v = m.index(r, OpTableModel::Max).data(OpTableModel::SortRole);
            if (p < half)
                QCOMPARE(v.toDouble(), stats[p].max);
            else
                QVERIFY(!v.isValid());
        }
        m.sort(-1);
        QCOMPARE(shownOps(m), *m_level);
    }

    void statisticsByPositionReachTheirRows()
    {
        OpTableModel m;
        m.setOps(0, m_index, m_level);
        m.sort(OpTableModel::Name, Qt::DescendingOrder); // rows are not positions now
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        const int first = 10, count = 5;
        std::vector<OpStats> batch(count);
        for (int k = 0; k < count; ++k)
            batch[size_t(k)].min = -k - 1.5;
        m.setStats(first, batch);
        QCOMPARE(changed.count(), 1); // one notification for the batch
        const QModelIndex top = changed.front().at(0).toModelIndex(), bottom = changed.front().at(1).toModelIndex();
        for (int k = 0; k < count; ++k) {
            const int op = (*m_level)[size_t(first + k)];
            const int row = m.rowOf(op);
            QVERIFY(row >= top.row() && row <= bottom.row());
            QCOMPARE(m.index(row, OpTableModel::Min).data(OpTableModel::SortRole).toDouble(), -k - 1.5);
            QVERIFY(m.hasStats(op));
        }
        QVERIFY(!m.hasStats((*m_level)[size_t(first + count)]));
    }

    void selectionFollowsItsOperator()
    {
        OpTableModel m;
        m.setOps(0, m_index, m_level);
        const int op = (*m_level)[m_level->size() / 3];
        const QPersistentModelIndex item = m.index(m.rowOf(op), OpTableModel::Type);
        m.sort(OpTableModel::Name, Qt::DescendingOrder);
        QVERIFY(item.isValid());
        QCOMPARE(item.data(OpTableModel::OpRole).toInt(), op);
        QCOMPARE(item.column(), int(OpTableModel::Type));
        m.setFilter(OpFilter{QStringLiteral("no such type"), {}, false});
        QVERIFY(!item.isValid()); // filtered out
    }

    void marksNotifyOnlyChangedRows()
    {
        OpTableModel m;
        m.setOps(0, m_index, m_level);
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.setOverflowMarks({});
        QCOMPARE(changed.count(), 0); // none before, none now
        const int a = (*m_level)[3], b = (*m_level)[7];
        m.setOverflowMarks({{a, 2}, {b, 3}, {1, 4}}); // op 1 is not in the level
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.front().at(0).toModelIndex().row(), 3);
        QCOMPARE(changed.front().at(1).toModelIndex().row(), 7);
        QCOMPARE(m.index(7, 0).data(OpTableModel::OverflowRole).toInt(), 3);
    }
};

QTEST_MAIN(TestOpTableModel)
#include "tst_optablemodel.moc"
