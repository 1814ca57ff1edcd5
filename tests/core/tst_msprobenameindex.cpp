// The msprobe reader's entry-name index (core/formats/msprobe/nameindex.*): the hashed directory
// answers every lookup as the sorted array of (hash, index) it replaced (kept here as the
// oracle), on generated names with repeats, near misses, prefixes, empty and non-ASCII names.
#include "formats/msprobe/nameindex.h"

#include <QTest>

#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace ds;

namespace {

/// The index before issue 35's fifth round: a sorted array of (hash, op), binary search.
class SortedNameIndex
{
public:
    explicit SortedNameIndex(const std::vector<OpRecord> &ops) : m_ops(ops)
    {
        for (size_t i = 0; i < ops.size(); ++i)
            m_keys.push_back({std::hash<std::string_view>{}(ops[i].opName.utf8()), int(i)});
        std::sort(m_keys.begin(), m_keys.end());
    }
    int find(std::string_view utf8) const
    {
        const size_t h = std::hash<std::string_view>{}(utf8);
        auto it = std::lower_bound(m_keys.begin(), m_keys.end(), std::pair<size_t, int>{h, -1});
        for (; it != m_keys.end() && it->first == h; ++it)
            if (m_ops[size_t(it->second)].opName.utf8() == utf8)
                return it->second;
        return -1;
    }

private:
    const std::vector<OpRecord> &m_ops;
    std::vector<std::pair<size_t, int>> m_keys;
};

/// msprobe-like entry names: modules, APIs, calls and passes; some repeated.
std::vector<OpRecord> generatedOps(size_t count, unsigned seed)
{
    std::mt19937 rng(seed);
    const char *apis[] = {"Functional.linear", "Tensor.__add__", "Torch.matmul", "Module.layers.{}.Block", "Distributed.all_reduce",
                          "Cell.net.\xe5\xb1\x82", ""};
    std::vector<OpRecord> ops(count);
    std::vector<std::string> made;
    for (size_t i = 0; i < count; ++i) {
        std::string name;
        const unsigned pick = rng() % 100;
        if (pick < 8 && !made.empty()) {
            name = made[rng() % made.size()]; // a repeated name
        } else if (pick < 10) {
            name = apis[rng() % std::size(apis)]; // a bare prefix (one of them empty)
        } else {
            name = std::string(apis[rng() % (std::size(apis) - 1)]) + '.' + std::to_string(i) + (rng() % 2 ? ".forward" : ".backward");
        }
        made.push_back(name);
        ops[i].opName = PackedText::fromUtf8(name);
    }
    return ops;
}

/// Names that are absent or nearly present: one byte changed, cut, or extended.
std::vector<std::string> probes(const std::vector<OpRecord> &ops, unsigned seed)
{
    std::mt19937 rng(seed);
    std::vector<std::string> out;
    for (const OpRecord &op : ops) {
        std::string name(op.opName.utf8());
        out.push_back(name);
        out.push_back(name + ".0");
        if (!name.empty()) {
            out.push_back(name.substr(0, name.size() - 1));
            std::string changed = name;
            changed[rng() % changed.size()] ^= 1;
            out.push_back(changed);
        }
    }
    out.emplace_back();
    out.emplace_back("absent");
    return out;
}

} // namespace

class TestMsprobeNameIndex : public QObject
{
    Q_OBJECT

private slots:
    void agreesWithSortedArray_data()
    {
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("seed");
        for (int count : {0, 1, 2, 15, 16, 17, 1000, 100000})
            QTest::addRow("%d ops", count) << count << count + 7;
    }
    void agreesWithSortedArray()
    {
        QFETCH(int, count);
        QFETCH(int, seed);
        const std::vector<OpRecord> ops = generatedOps(size_t(count), unsigned(seed));
        const msprobe::NameIndex index(ops);
        const SortedNameIndex oracle(ops);
        int found = 0;
        for (const std::string &p : probes(ops, unsigned(seed))) {
            const int got = index.find(std::string_view(p)), want = oracle.find(std::string_view(p));
            if (got != want)
                QFAIL(qPrintable(QStringLiteral("\"%1\": %2, the sorted array %3").arg(QString::fromStdString(p)).arg(got).arg(want)));
            found += got >= 0;
            QCOMPARE(index.find(QString::fromStdString(p)), want);
        }
        QVERIFY(count == 0 || found >= count);
    }

    void repeatedNamesGiveTheFirst()
    {
        std::vector<OpRecord> ops(5);
        const char *names[] = {"a.0.forward", "b", "a.0.forward", "b", "a.0.forward"};
        for (size_t i = 0; i < ops.size(); ++i)
            ops[i].opName = PackedText::fromUtf8(std::string_view(names[i]));
        const msprobe::NameIndex index(ops);
        QCOMPARE(index.find(std::string_view("a.0.forward")), 0);
        QCOMPARE(index.find(std::string_view("b")), 1);
        QCOMPARE(index.find(std::string_view("a.0.forward.")), -1);
        QVERIFY(!index.contains(QStringLiteral("c")));
    }
};

QTEST_GUILESS_MAIN(TestMsprobeNameIndex)
#include "tst_msprobenameindex.moc"
