// core/util/flatmap.h against std::unordered_map (the oracle), with a good hash and with a
// hash that puts every key into a few probe chains; core/util/prefault.h keeps contents.
#include "util/flatmap.h"
#include "util/prefault.h"

#include <QTest>

#include <random>
#include <string>
#include <unordered_map>

using namespace ds;

namespace {
struct FewChains // 5 hash values: long probe chains, wrap-around at the table's end
{
    size_t operator()(std::uint64_t k) const { return size_t(k % 5) * 0x9E3779B97F4A7C15ULL; }
};
struct Mixed
{
    size_t operator()(std::uint64_t k) const { return std::hash<std::string>()(std::to_string(k)); }
};

template<typename Hash>
void against(size_t keys, size_t reserve)
{
    FlatMap<std::uint64_t, int, Hash> map(reserve);
    std::unordered_map<std::uint64_t, int> oracle;
    std::mt19937_64 rng(5);
    for (size_t i = 0; i < 4 * keys; ++i) {
        const std::uint64_t k = rng() % (2 * keys);
        bool added = false;
        const int v = int(i);
        const int got = map.emplace(k, v, added);
        const auto [it, fresh] = oracle.emplace(k, v);
        QCOMPARE(added, fresh);
        QCOMPARE(got, it->second);
        map.prefetch(Hash()(rng() % (2 * keys)));
    }
    QCOMPARE(map.size(), oracle.size());
    for (std::uint64_t k = 0; k < 2 * keys + 10; ++k) {
        const auto it = oracle.find(k);
        const int *got = map.find(k, Hash()(k));
        QCOMPARE(got != nullptr, it != oracle.end());
        if (got)
            QCOMPARE(*got, it->second);
    }
}
} // namespace

class TestFlatMap : public QObject
{
    Q_OBJECT
private slots:
    void mixedHash() { against<Mixed>(100000, 0); }
    void mixedHashReserved() { against<Mixed>(100000, 200000); }
    void fewChains() { against<FewChains>(2000, 0); }
    void emptyFind()
    {
        const FlatMap<std::uint64_t, int, Mixed> map;
        QVERIFY(map.find(7) == nullptr);
        map.prefetch(3); // no slots yet: nothing to ask for
        QCOMPARE(map.size(), size_t(0));
    }
    void prefaultKeepsContents()
    {
        // Written values survive: prefault only maps pages, and only whole pages of the range.
        std::vector<std::uint64_t> v(1000);
        for (size_t i = 0; i < v.size(); ++i)
            v[i] = i * 2654435761u;
        reservePrefaulted(v, size_t(8) << 20); // 64 MiB: several 8 MiB chunks
        QCOMPARE(v.size(), size_t(1000));
        QVERIFY(v.capacity() >= size_t(8) << 20);
        for (size_t i = 0; i < v.size(); ++i)
            QCOMPARE(v[i], std::uint64_t(i) * 2654435761u);
        v.resize(size_t(8) << 20);
        QCOMPARE(v.back(), std::uint64_t(0));
        QCOMPARE(v[999], std::uint64_t(999) * 2654435761u);
    }
};

QTEST_APPLESS_MAIN(TestFlatMap)
#include "tst_flatmap.moc"
