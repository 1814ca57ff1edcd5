// The MPI-free half of the distributed compare (app/cli/distributedplan.h): scope fingerprints
// on copies of real msprobe scopes, rank 0's plan (every pair exactly once, to a process that
// sees both sides, deterministic and balanced; different contents and pairs nobody sees whole
// refused with the ranks, nodes and paths named) and the message format's round trips; for
// info and overflow, the units of work of a tree and rank 0's plan for them.
#include "distributedplan.h"
#include "../core/copytree.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <bit>
#include <limits>

using namespace ds;
using ds::testing::copyTree;

namespace {

const QString kCorpus = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps");

CatalogScope scope(const QString &id, qint64 step, qint64 rank, const QByteArray &fp, quint64 bytes)
{
    return {id, QStringLiteral("step%1").arg(step), QStringLiteral("rank%1").arg(rank), step, rank, fp, bytes};
}

/// A catalog seeing `ids` ("step0/rank1") on both sides.
Catalog catalog(const QStringList &ids, const QString &root, quint64 bytes = 100)
{
    Catalog c;
    c.npu.openedPath = root + QStringLiteral("/npu");
    c.bench.openedPath = root + QStringLiteral("/bench");
    for (const QString &id : ids) {
        const qint64 step = id.section(QLatin1Char('/'), 0, 0).mid(4).toLongLong();
        const qint64 rank = id.section(QLatin1Char('/'), 1, 1).mid(4).toLongLong();
        c.npu.scopes.push_back(scope(id, step, rank, "npu-" + id.toUtf8(), bytes));
        c.bench.scopes.push_back(scope(id, step, rank, "bench-" + id.toUtf8(), bytes));
    }
    return c;
}

const QStringList kFour{QStringLiteral("step0/rank0"), QStringLiteral("step0/rank1"), QStringLiteral("step1/rank0"),
                        QStringLiteral("step1/rank1")};

std::vector<PeerInfo> peers(int n)
{
    std::vector<PeerInfo> p;
    for (int i = 0; i < n; ++i)
        p.push_back({QStringLiteral("node%1").arg(i), {}, {}});
    return p;
}

/// pair index -> the rank it was given to (empty when a pair was given twice).
std::map<int, int> owners(const Plan &plan)
{
    std::map<int, int> out;
    for (size_t r = 0; r < plan.byRank.size(); ++r)
        for (const Assignment &a : plan.byRank[r]) {
            if (out.count(a.pair))
                return {};
            out[a.pair] = int(r);
        }
    return out;
}

} // namespace

class TestDistributedPlan : public QObject
{
    Q_OBJECT

private slots:
    void fingerprintFollowsContents()
    {
        QTemporaryDir tmp;
        const QString a = tmp.filePath(QStringLiteral("a/run")), b = tmp.filePath(QStringLiteral("b/run"));
        QVERIFY(copyTree(kCorpus + QStringLiteral("/base_tensor_mix"), a));
        QVERIFY(copyTree(kCorpus + QStringLiteral("/base_tensor_mix"), b));
        RunTree ta, tb;
        const RunInfo *ra = nullptr, *rb = nullptr;
        const SideCatalog ca = catalogSide(a, QStringLiteral("NPU"), ta, ra);
        const SideCatalog cb0 = catalogSide(b, QStringLiteral("NPU"), tb, rb);
        QVERIFY(ca.error.isEmpty());
        QCOMPARE(ca.scopes.size(), size_t(4));
        QCOMPARE(cb0.scopes.size(), ca.scopes.size());
        for (size_t i = 0; i < ca.scopes.size(); ++i) { // the same files under another root
            QCOMPARE(cb0.scopes[i].id, ca.scopes[i].id);
            QCOMPARE(cb0.scopes[i].fingerprint, ca.scopes[i].fingerprint);
            QVERIFY(ca.scopes[i].bytes > 0);
        }
        QVERIFY(ca.scopes[0].fingerprint != ca.scopes[1].fingerprint);
        // every file's size counts, the tensors' included
        quint64 files = 0;
        const QDir tensors(a + QStringLiteral("/step0/rank0/dump_tensor_data"));
        QVERIFY(tensors.exists());
        for (const QFileInfo &f : QDir(a + QStringLiteral("/step0/rank0")).entryInfoList(QDir::Files))
            files += quint64(f.size());
        for (const QFileInfo &f : tensors.entryInfoList(QDir::Files))
            files += quint64(f.size());
        QCOMPARE(ca.scopes[0].bytes, files);

        // one byte of a dump.json changed (same size), one tensor file a byte shorter
        QFile dump(b + QStringLiteral("/step0/rank0/dump.json"));
        QVERIFY(dump.open(QIODevice::ReadWrite));
        QByteArray text = dump.readAll();
        const qsizetype at = text.indexOf("\"Max\"");
        QVERIFY(at > 0);
        text[at + 1] = 'N';
        QVERIFY(dump.seek(0));
        QCOMPARE(dump.write(text), text.size());
        dump.close();
        const QFileInfo tensor = QDir(b + QStringLiteral("/step1/rank1/dump_tensor_data")).entryInfoList(QDir::Files).first();
        QFile t(tensor.filePath());
        QVERIFY(t.resize(tensor.size() - 1));
        RunTree tb2;
        const SideCatalog cb = catalogSide(b, QStringLiteral("NPU"), tb2, rb);
        QCOMPARE(cb.scopes.size(), ca.scopes.size());
        for (size_t i = 0; i < ca.scopes.size(); ++i) {
            const bool changed = ca.scopes[i].id == QLatin1String("step0/rank0") || ca.scopes[i].id == QLatin1String("step1/rank1");
            QCOMPARE(cb.scopes[i].fingerprint != ca.scopes[i].fingerprint, changed);
        }
    }

    void catalogErrors()
    {
        RunTree tree;
        const RunInfo *run = nullptr;
        const SideCatalog missing = catalogSide(QStringLiteral("/nonexistent/dumpscope/path"), QStringLiteral("bench"), tree, run);
        QCOMPARE(missing.code, 3);
        QVERIFY(missing.error.contains(QLatin1String("/nonexistent/dumpscope/path")));
        QVERIFY(!run);
        RunTree many;
        const SideCatalog several = catalogSide(kCorpus, QStringLiteral("NPU"), many, run); // a folder of many runs
        QCOMPARE(several.code, 2);
        QVERIFY2(several.error.contains(QLatin1String("runs")), qPrintable(several.error));
    }

    void sharedLayoutSplitsEvenly()
    {
        const std::vector<Catalog> cats{catalog(kFour, QStringLiteral("/s")), catalog(kFour, QStringLiteral("/s"))};
        const Plan plan = planCompare(cats, peers(2));
        QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
        QCOMPARE(plan.pairs, size_t(4));
        const auto own = owners(plan);
        QCOMPARE(own.size(), size_t(4));
        QCOMPARE(plan.byRank[0].size(), size_t(2));
        QCOMPARE(plan.byRank[1].size(), size_t(2));
        QCOMPARE(owners(planCompare(cats, peers(2))), own); // deterministic
        QStringList order{QString(), QString(), QString(), QString()};
        for (const auto &list : plan.byRank)
            for (const Assignment &a : list)
                order[a.pair] = a.id;
        QCOMPARE(order, kFour); // pairs in the reports' order: step, then rank
    }

    void largestFirst()
    {
        std::vector<Catalog> cats{catalog(kFour, QStringLiteral("/s")), catalog(kFour, QStringLiteral("/s"))};
        for (Catalog &c : cats) { // step0/rank0 is as large as the three others together
            c.npu.scopes[0].bytes = 300;
            c.bench.scopes[0].bytes = 300;
        }
        const auto own = owners(planCompare(cats, peers(2)));
        QCOMPARE(own.size(), size_t(4));
        QCOMPARE(own.at(1), own.at(2));
        QCOMPARE(own.at(2), own.at(3));
        QVERIFY(own.at(0) != own.at(1));
    }

    void splitLayoutStaysWithTheData()
    {
        const std::vector<Catalog> cats{catalog({kFour[0], kFour[2]}, QStringLiteral("/r0")),
                                        catalog({kFour[1], kFour[3]}, QStringLiteral("/r1")), catalog({}, QStringLiteral("/r2"))};
        const Plan plan = planCompare(cats, peers(3));
        QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
        QCOMPARE(plan.pairs, size_t(4));
        QCOMPARE(owners(plan), (std::map<int, int>{{0, 0}, {1, 1}, {2, 0}, {3, 1}}));
        QVERIFY(plan.byRank[2].empty());
    }

    void oneBenchScopePairsWithEveryNpuScope()
    {
        Catalog c = catalog(kFour, QStringLiteral("/s"));
        c.bench.scopes = {CatalogScope{QString(), {}, {}, -1, -1, "golden", 100}};
        const Plan plan = planCompare({c, c}, peers(2));
        QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
        QCOMPARE(plan.pairs, size_t(4));
        QCOMPARE(owners(plan).size(), size_t(4));
        for (const auto &list : plan.byRank)
            for (const Assignment &a : list) {
                QVERIFY(a.hasNpu && a.hasBench);
                QCOMPARE(a.benchId, QString());
            }
    }

    void differentContentsRefused()
    {
        std::vector<Catalog> cats{catalog(kFour, QStringLiteral("/n0")), catalog(kFour, QStringLiteral("/n1"))};
        cats[1].npu.scopes[2].fingerprint = "changed";
        const Plan plan = planCompare(cats, peers(2));
        QCOMPARE(plan.code, 5);
        QVERIFY2(plan.error.contains(QLatin1String("scope step1/rank0 of the NPU run has different contents")), qPrintable(plan.error));
        QVERIFY2(plan.error.contains(QLatin1String("rank 0 on node node0 (/n0/npu)")), qPrintable(plan.error));
        QVERIFY2(plan.error.contains(QLatin1String("rank 1 on node node1 (/n1/npu)")), qPrintable(plan.error));
    }

    void pairNobodySeesWholeRefused()
    {
        Catalog a = catalog(kFour, QStringLiteral("/n0")), b = catalog(kFour, QStringLiteral("/n1"));
        a.bench.scopes.pop_back(); // step1/rank1: its NPU data on node0 only, its bench data on node1 only
        b.npu.scopes.pop_back();
        const Plan plan = planCompare({a, b}, peers(2));
        QCOMPARE(plan.code, 5);
        QVERIFY2(plan.error.contains(QLatin1String("scope step1/rank1: no process sees both its NPU data (seen by rank 0 on node "
                                                   "node0) and its bench data (seen by rank 1 on node node1)")),
                 qPrintable(plan.error));
    }

    /// info / overflow: units of a folder of several runs; a CANN device's iterations are one
    /// unit for overflow (an OpDebug record links operators of sibling iterations), not for info.
    void scanUnits()
    {
        RunTree tree;
        std::map<QString, std::vector<size_t>> units;
        const SideCatalog runs = catalogScan(kCorpus, false, tree, units);
        QVERIFY2(runs.error.isEmpty(), qPrintable(runs.error));
        QCOMPARE(runs.scopes.size(), units.size());
        size_t scopes = 0, claims = 0;
        for (const RunInfo &r : tree.runs)
            scopes += r.scopes.size();
        QCOMPARE(units.size(), scopes); // every scope of the 26 runs, named by its run
        QVERIFY(units.count(QStringLiteral("overflow_tensor_mix:step1/rank0")));
        for (const auto &[id, c] : units)
            claims += c.size();
        QCOMPARE(claims, tree.walk.claims.size()); // every claim in exactly one unit
        const QString legacy = QStringLiteral(DUMPSCOPE_SAMPLES "/overflow/legacy");
        std::map<QString, std::vector<size_t>> info, overflow;
        QVERIFY(catalogScan(legacy, false, tree, info).error.isEmpty());
        QVERIFY(catalogScan(legacy, true, tree, overflow).error.isEmpty());
        QCOMPARE(info.size(), size_t(2)); // device 0, iterations 0 and 1
        QCOMPARE(overflow.size(), size_t(1));
        QCOMPARE(overflow.begin()->first, QStringLiteral("0 (every iteration)"));
        QCOMPARE(catalogScan(QStringLiteral("/nonexistent/dumpscope/path"), true, tree, overflow).code, 3);
    }

    void scanPlan()
    {
        std::vector<Catalog> cats{catalog(kFour, QStringLiteral("/n0")), catalog({kFour[0], kFour[1]}, QStringLiteral("/n1")),
                                  catalog({}, QStringLiteral("/n2"))};
        Plan plan = planScan(cats, peers(3));
        QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
        QCOMPARE(plan.pairs, size_t(4));
        const auto own = owners(plan);
        QCOMPARE(own.size(), size_t(4)); // every unit once
        for (const auto &list : plan.byRank)
            for (const Assignment &a : list) // to a process that sees it
                QVERIFY(std::any_of(cats[size_t(own.at(a.pair))].npu.scopes.begin(), cats[size_t(own.at(a.pair))].npu.scopes.end(),
                                    [&](const CatalogScope &c) { return c.id == a.id; }));
        // largest first to the least loaded: step0/rank0 to rank 0, step0/rank1 to rank 1 (rank 0
        // already holds 100 bytes), step1/* only seen by rank 0
        QCOMPARE(own, (std::map<int, int>{{0, 0}, {1, 1}, {2, 0}, {3, 0}}));
        QVERIFY(plan.byRank[2].empty());
        cats[1].npu.scopes[1].fingerprint = "changed";
        plan = planScan(cats, peers(3));
        QCOMPARE(plan.code, 5);
        QVERIFY2(plan.error.contains(QLatin1String("scope step0/rank1 has different contents on rank 0 on node node0 (/n0/npu) "
                                                   "and on rank 1 on node node1 (/n1/npu)")),
                 qPrintable(plan.error));
    }

    void messagesRoundTrip()
    {
        Catalog c = catalog(kFour, QStringLiteral("/r"));
        c.bench.error = QStringLiteral("no such file");
        c.bench.code = 3;
        const QByteArray bytes = encodeCatalog(c);
        const auto back = decodeCatalog(bytes);
        QVERIFY(back);
        QCOMPARE(back->npu.openedPath, c.npu.openedPath);
        QCOMPARE(back->bench.error, c.bench.error);
        QCOMPARE(back->bench.code, 3);
        QCOMPARE(back->npu.scopes.size(), size_t(4));
        QCOMPARE(back->npu.scopes[3].fingerprint, c.npu.scopes[3].fingerprint);
        QCOMPARE(back->npu.scopes[3].rankNumber, 1);
        QVERIFY(!decodeCatalog(bytes.left(bytes.size() / 2))); // truncated
        QVERIFY(!decodeCatalog(QByteArray("not a message")));

        const std::vector<Assignment> as{{2, QStringLiteral("step1/rank0"), QStringLiteral("step1/rank0"), QString(), true, false}};
        const auto asBack = decodeAssignments(encodeAssignments(as));
        QVERIFY(asBack && asBack->size() == 1);
        QCOMPARE(asBack->front().pair, 2);
        QCOMPARE(asBack->front().npuId, QStringLiteral("step1/rank0"));
        QCOMPARE(asBack->front().hasBench, false);

        const std::vector<ComparedScope> cs{{1, "{\"id\":\"step0/rank1\"}", quint8(CompareMode::Summary)}};
        const auto csBack = decodeCompared(encodeCompared(cs));
        QVERIFY(csBack && csBack->size() == 1);
        QCOMPARE(csBack->front().summary, cs.front().summary);
        QCOMPARE(CompareMode(csBack->front().mode), CompareMode::Summary);

        ScopePiece p;
        p.pair = 3;
        p.csv = "a,b\n1,2\n";
        p.json = "{}";
        p.npuOps = 45;
        p.notPass = QStringLiteral("  error  x.output.0\n");
        p.warnings = QStringList{QStringLiteral("w")};
        p.reached = true;
        p.stack = true;
        const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
        p.cells = {{MsCell::str(QStringLiteral("Functional.linear.0.forward.input.0")), MsCell::integer(3), MsCell::real(0.25),
                    MsCell::boolean(true), MsCell::str(QStringLiteral("\u8bef\u5dee"))},
                   {},
                   {MsCell::real(-inf), MsCell::real(nan), MsCell::real(-0.0), MsCell::boolean(false), MsCell::str({})}};
        const QByteArray pieceBytes = encodePiece(p);
        const auto pBack = decodePiece(pieceBytes);
        QVERIFY(pBack);
        QCOMPARE(pBack->pair, 3);
        QCOMPARE(pBack->csv, p.csv);
        QCOMPARE(pBack->npuOps, 45);
        QCOMPARE(pBack->notPass, p.notPass);
        QCOMPARE(pBack->warnings, p.warnings);
        QVERIFY(pBack->reached);
        QVERIFY(pBack->stack);
        QCOMPARE(pBack->cells.size(), p.cells.size());
        for (size_t r = 0; r < p.cells.size(); ++r) {
            QCOMPARE(pBack->cells[r].size(), p.cells[r].size());
            for (size_t i = 0; i < p.cells[r].size(); ++i) {
                const MsCell &a = p.cells[r][i], &b = pBack->cells[r][i];
                QCOMPARE(int(b.kind), int(a.kind));
                QCOMPARE(b.text, a.text);
                // bit for bit: NaN and the sign of zero travel too
                QCOMPARE(std::bit_cast<quint64>(b.number), std::bit_cast<quint64>(a.number));
            }
        }
        QVERIFY(!decodePiece(pieceBytes.left(pieceBytes.size() - 3))); // truncated inside the cells
        // a cell kind that does not exist is refused, not guessed: the first cell's kind byte
        // follows the counts (two quint32) after everything else
        ScopePiece one;
        one.cells = {{MsCell::integer(7)}};
        QByteArray bad = encodePiece(one);
        const qsizetype kindAt = bad.size() - qsizetype(sizeof(double)) - 1;
        QCOMPARE(quint8(bad[kindAt]), quint8(MsCell::Kind::Int));
        bad[kindAt] = char(9);
        QVERIFY(!decodePiece(bad));
        QVERIFY(decodePiece(encodePiece(one)));
    }
};

QTEST_GUILESS_MAIN(TestDistributedPlan)
#include "tst_distributedplan.moc"
