// models/optablemodel: a level's operators filtered and ordered in place (no proxy model). The
// oracle is the index of a real msprobe dump: the expected rows are computed here from its
// records with plain loops and std::stable_sort, not through the model's code.
#include "runcorpus.h"

#include "index/buildindex.h"
#include "models/optablemodel.h"

#include <QAbstractItemModelTester>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <functional>
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

/// The output statistics of every entry of an msprobe dump.json, read with QJsonDocument (not
/// DumpScope's reader; runcorpus.h): the smallest finite Min and largest finite Max of the
/// output tensors, and the mean of all their elements (each recorded Mean weighted by its
/// tensor's element count).
struct RecordedOutputs
{
    double min = NAN, max = NAN, mean = NAN;
};
QHash<QString, RecordedOutputs> recordedOutputs(const QString &dumpJson)
{
    auto number = [](const QJsonObject &leaf, const char *key) { return runcorpus::statistic(leaf, QLatin1String(key)); };
    QHash<QString, RecordedOutputs> out;
    const QJsonObject data = runcorpus::readDumpJson(dumpJson).value(QStringLiteral("data")).toObject();
    for (auto e = data.begin(); e != data.end(); ++e) {
        RecordedOutputs r;
        double sum = 0, count = 0;
        std::function<void(const QJsonValue &)> walk = [&](const QJsonValue &v) {
            if (v.isArray()) {
                for (const QJsonValue &x : v.toArray())
                    walk(x);
                return;
            }
            const QJsonObject leaf = v.toObject();
            if (leaf.value(QStringLiteral("type")).toString() != QLatin1String("torch.Tensor"))
                return;
            const double mx = number(leaf, "Max"), mn = number(leaf, "Min"), mean = number(leaf, "Mean");
            double n = 1;
            for (const QJsonValue &d : leaf.value(QStringLiteral("shape")).toArray())
                n *= d.toDouble();
            if (std::isfinite(mn))
                r.min = std::isnan(r.min) ? mn : std::min(r.min, mn);
            if (std::isfinite(mx))
                r.max = std::isnan(r.max) ? mx : std::max(r.max, mx);
            if (std::isfinite(mean) && n > 0) {
                sum += mean * n;
                count += n;
            }
        };
        walk(e.value().toObject().value(QStringLiteral("output")));
        if (count > 0)
            r.mean = sum / count;
        out.insert(e.key(), r);
    }
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

    /// Statistics-only msprobe dumps: the Out min / max / mean columns show what dump.json
    /// records for the outputs ("Out mean" was always empty: the recorded Mean was not read).
    void recordedStatisticsOfMsprobeDumps_data()
    {
        QTest::addColumn<QString>("scope");
        QDirIterator it(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps"), {QStringLiteral("dump.json")}, QDir::Files,
                        QDirIterator::Subdirectories);
        QStringList scopes;
        while (it.hasNext()) {
            const QString dir = QFileInfo(it.next()).path();
            if (dir.contains(QLatin1String("statistics")) || dir.contains(QLatin1String("md5")))
                scopes << dir;
        }
        scopes.sort();
        QVERIFY(scopes.size() >= 60);
        for (const QString &dir : std::as_const(scopes))
            QTest::newRow(qPrintable(dir.section(QLatin1Char('/'), -3))) << dir;
    }
    void recordedStatisticsOfMsprobeDumps()
    {
        QFETCH(QString, scope);
        const QHash<QString, RecordedOutputs> want = recordedOutputs(scope + QStringLiteral("/dump.json"));
        auto built = buildIndex(scope);
        QVERIFY(built);
        const DumpIndex &index = **built;
        auto level = std::make_shared<std::vector<int>>(index.ops.size());
        std::iota(level->begin(), level->end(), 0);
        OpTableModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setOps(0, *built, level);
        std::vector<OpStats> stats;
        for (int op : *level)
            stats.push_back(computeOpStats(index, op));
        m.setStats(0, std::move(stats));
        int means = 0, recordedMeans = 0;
        for (const RecordedOutputs &w : want)
            recordedMeans += !std::isnan(w.mean);
        QVERIFY(recordedMeans > 0);
        for (int r = 0; r < m.rowCount(); ++r) {
            const QString name = m.index(r, OpTableModel::Name).data().toString();
            QVERIFY2(want.contains(name), qPrintable(name));
            const RecordedOutputs &w = want[name];
            const struct
            {
                int column;
                double value;
            } cells[] = {{OpTableModel::Min, w.min}, {OpTableModel::Max, w.max}, {OpTableModel::Mean, w.mean}};
            for (const auto &[column, value] : cells) {
                const QModelIndex cell = m.index(r, column);
                const QString what = name + QLatin1Char(' ') + m.headerData(column, Qt::Horizontal).toString();
                if (std::isnan(value)) {
                    QVERIFY2(cell.data().toString().isEmpty(), qPrintable(what));
                    continue;
                }
                const double got = cell.data(OpTableModel::SortRole).toDouble();
                QVERIFY2(std::fabs(got - value) <= 1e-12 * std::max(1.0, std::fabs(value)),
                         qPrintable(QStringLiteral("%1: %2, dump.json %3").arg(what).arg(got, 0, 'g', 17).arg(value, 0, 'g', 17)));
                QCOMPARE(cell.data().toString(), QString::number(value, 'g', 6));
                means += column == OpTableModel::Mean;
            }
        }
        QCOMPARE(means, recordedMeans); // every entry of dump.json has its row
    }

    // A level of millions (a 20 GiB dump.json's 25.8 M operators under one item) is listed
    // kFetchRows at a time: a view's header lays out every row it is told of at once.
    void hugeLevelsAreFetchedInPages()
    {
        const int n = 2 * OpTableModel::kFetchRows + 123;
        auto big = std::make_shared<DumpIndex>();
        big->ops.reserve(size_t(n));
        for (int i = 0; i < n; ++i)
            big->ops.push_back(m_index->ops[size_t(i) % m_index->ops.size()]);
        auto level = std::make_shared<std::vector<int>>(size_t(n));
        std::iota(level->begin(), level->end(), 0);
        OpTableModel m;
        QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
        m.setOps(0, big, level);
        QCOMPARE(m.rowsTotal(), n);
        QCOMPARE(m.rowCount(), OpTableModel::kFetchRows);
        QVERIFY(m.canFetchMore({}));
        QCOMPARE(m.index(OpTableModel::kFetchRows - 1, 0).data(OpTableModel::OpRole).toInt(), OpTableModel::kFetchRows - 1);
        QVERIFY(!m.index(OpTableModel::kFetchRows, 0).isValid());
        m.fetchMore({});
        QCOMPARE(m.rowCount(), 2 * OpTableModel::kFetchRows);
        m.fetchMore({});
        QCOMPARE(m.rowCount(), n);
        QVERIFY(!m.canFetchMore({}));
        QCOMPARE(inserted.count(), 2);
        QCOMPARE(inserted.last().at(1).toInt(), 2 * OpTableModel::kFetchRows);
        QCOMPARE(inserted.last().at(2).toInt(), n - 1);
        QCOMPARE(m.index(n - 1, 0).data(OpTableModel::OpRole).toInt(), n - 1);
        // A new level starts with one page; an operator far down is fetched when it is selected.
        m.setOps(0, big, level);
        QCOMPARE(m.rowCount(), OpTableModel::kFetchRows);
        QCOMPARE(m.rowOf(n - 2), n - 2);
        m.fetchTo(n - 2);
        QCOMPARE(m.rowCount(), n - 1);
        QCOMPARE(m.index(n - 2, 0).data(OpTableModel::OpRole).toInt(), n - 2);
        // Filtered, the total is the operators the filter lets through (counted here).
        const QString type = big->ops.front().opType.toString();
        m.setFilter(OpFilter{type, {}, false});
        const int expected = int(std::count_if(big->ops.begin(), big->ops.end(), [&](const OpRecord &op) { return op.opType == type; }));
        QCOMPARE(m.rowsTotal(), expected);
        QCOMPARE(m.rowCount(), std::min(expected, n - 1)); // the rows fetched stay fetched
        // Every row, fetched or not, reaches the CSV text.
        const QStringList lines = m.rowsText({expected - 1}).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2); // the header and that row
        QCOMPARE(lines.last().section(QLatin1Char('\t'), 0, 0), type);
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
