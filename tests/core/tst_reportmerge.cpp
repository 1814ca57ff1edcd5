// The merge step of `info` and `overflow` (core/index/infopart.h, core/overflow/overflowpart.h,
// issue 17): a tree indexed scope by scope (IndexLabels::Always, as each MPI process indexes the
// scopes it owns), every part sent through its byte format, and the parts merged in any order
// give exactly the report one index of the whole tree gives (the single process's path, which is
// itself one part merged). The trees are the committed samples: real msprobe runs (one run, and
// a folder of 26 runs with overflows), CANN trees with OpDebug overflow files in several layouts,
// and the whole samples folder (every format, unreadable files listed once, in the whole order).
#include "dump/levels.h"
#include "formats/readers.h"
#include "index/buildindex.h"
#include "index/infopart.h"
#include "index/jsonreport.h"
#include "overflow/overflowpart.h"
#include "run/firstoverflow.h"
#include "run/runcompare.h"
#include "run/runtree.h"
#include "run/streamedinfo.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <limits>
#include <map>
#include <random>

using namespace ds;

namespace {

QString sample(const char *rel) { return QStringLiteral(DUMPSCOPE_SAMPLES "/") + QLatin1String(rel); }

/// The claims of every unit of work: a run's scope (overflow: a rank's scopes together, as an
/// OpDebug record links operators of its device's sibling iterations and a step's first anomaly
/// can come from the rank's previous step), claims no run holds alone.
std::vector<std::vector<size_t>> units(const RunTree &tree, bool overflow)
{
    std::map<QString, std::vector<size_t>> byKey;
    std::vector<bool> held(tree.walk.claims.size(), false);
    for (const RunInfo &run : tree.runs)
        for (const RunScope &s : run.scopes) {
            auto &claims = byKey[run.relPath + QLatin1Char('\n') + (overflow ? QStringLiteral("rank ") + s.rank : s.id)];
            claims.insert(claims.end(), s.claims.begin(), s.claims.end());
            for (size_t c : s.claims)
                held[c] = true;
        }
    for (size_t c = 0; c < held.size(); ++c)
        if (!held[c])
            byKey[QStringLiteral("other\n%1").arg(c)].push_back(c);
    std::vector<std::vector<size_t>> out;
    for (auto &[key, claims] : byKey) {
        std::sort(claims.begin(), claims.end());
        out.push_back(claims);
    }
    return out;
}

/// One unit indexed alone, as a process indexes what it owns (with the walk's own errors).
std::shared_ptr<DumpIndex> indexUnit(const RunTree &tree, const std::vector<size_t> &claims)
{
    auto index = indexClaims(tree.walk, claims, nullptr, {}, IndexLabels::Always);
    index->errors.insert(index->errors.end(), tree.walk.errors.begin(), tree.walk.errors.end());
    index->finalize();
    return index;
}

/// The orders the parts are merged in: as walked, reversed, and two shuffles.
std::vector<std::vector<size_t>> orders(size_t n)
{
    std::vector<size_t> forward(n);
    for (size_t i = 0; i < n; ++i)
        forward[i] = i;
    std::vector<std::vector<size_t>> out{forward, {forward.rbegin(), forward.rend()}};
    std::mt19937 random(17);
    for (int k = 0; k < 2; ++k) {
        std::shuffle(forward.begin(), forward.end(), random);
        out.push_back(forward);
    }
    return out;
}

template<typename T>
std::vector<T> reordered(const std::vector<T> &parts, const std::vector<size_t> &order)
{
    std::vector<T> out;
    for (size_t i : order)
        out.push_back(parts[i]);
    return out;
}

} // namespace

class TestReportMerge : public QObject
{
    Q_OBJECT

private slots:
    void trees_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("minRecords");  // OpDebug records the overflow report must hold
        QTest::addColumn<int>("minFindings"); // software-scan findings
        QTest::addColumn<int>("minErrors");   // unreadable files
        QTest::newRow("cann opdebug runs") << sample("overflow") << 10 << 1 << 0;
        QTest::newRow("msprobe overflow run") << sample("msprobe_real/dumps/overflow_tensor_mix") << 0 << 1 << 0;
        QTest::newRow("msprobe 26 runs") << sample("msprobe_real/dumps") << 0 << 3 << 0;
        QTest::newRow("cann trees") << sample("cann") << 0 << 0 << 1;
        // every sample: several formats (levels.part), runs and errors (unreadable files) together
        QTest::newRow("all samples") << QStringLiteral(DUMPSCOPE_SAMPLES) << 10 << 3 << 10;
    }

    /// Overflow: the parts of the scopes, merged in any order, are the whole tree's report.
    void overflowParts_data() { trees_data(); }
    void overflowParts()
    {
        QFETCH(QString, path);
        QFETCH(int, minRecords);
        QFETCH(int, minFindings);
        QFETCH(int, minErrors);
        auto tree = discoverRuns(path);
        QVERIFY(tree);
        auto whole = indexClaims(tree->walk);
        const OverflowReport report = analyzeOverflow(*whole);
        const OverflowDocument wholeDoc = overflowDocument(*whole, report);
        const QByteArray json = overflowJson(wholeDoc);
        const QString text = overflowText(wholeDoc);
        // the case is not empty: what the merge must reproduce
        const QJsonObject doc = QJsonDocument::fromJson(json).object();
        QVERIFY(doc.value(QStringLiteral("records")).toArray().size() >= minRecords);
        QVERIFY(doc.value(QStringLiteral("software")).toObject().value(QStringLiteral("findings")).toArray().size() >= minFindings);
        QVERIFY(doc.value(QStringLiteral("errors")).toArray().size() >= minErrors);

        const auto groups = units(*tree, true);
        QVERIFY2(groups.size() > 1, "one unit: nothing to merge");
        std::vector<OverflowPart> parts;
        std::vector<ScopeSummary> scopes; // what the first-overflow answer is made from (scancommand.cpp)
        for (const auto &claims : groups) {
            const auto index = indexUnit(*tree, claims);
            const OverflowReport partReport = analyzeOverflow(*index);
            for (const ScopeSummary &s : summarizeOverflow(*index, partReport)) { // they travel as JSON
                const auto back = ScopeSummary::fromJson(s.toJson());
                QVERIFY(back && *back == s);
                scopes.push_back(*back);
            }
            const QByteArray bytes = encodeOverflowPart(overflowPart(*index, partReport));
            auto decoded = decodeOverflowPart(bytes);
            QVERIFY(decoded);
            QCOMPARE(encodeOverflowPart(*decoded), bytes);
            QVERIFY(!decodeOverflowPart(bytes.left(bytes.size() - 1))); // truncated: refused
            parts.push_back(std::move(*decoded));
        }
        for (const auto &order : orders(parts.size())) {
            OverflowDocument merged = mergeOverflow(reordered(parts, order), whole->openedPath, true);
            answerOverflow(merged, scopes);
            QCOMPARE(overflowText(merged), text);
            QCOMPARE(overflowJson(merged), json);
        }
        // the answer itself, from the summaries in any order: the same as the whole index's
        OverflowDocument merged = mergeOverflow(parts, whole->openedPath, true);
        std::reverse(scopes.begin(), scopes.end());
        answerOverflow(merged, scopes);
        QCOMPARE(merged.firstJson, wholeDoc.firstJson);
        QCOMPARE(merged.firstText, wholeDoc.firstText);
        QVERIFY(!wholeDoc.firstJson.isEmpty() || minRecords + minFindings == 0);
    }

    /// Info: the same for the counts, levels, warnings and errors.
    void infoParts_data() { trees_data(); }
    void infoParts()
    {
        QFETCH(QString, path);
        auto tree = discoverRuns(path);
        QVERIFY(tree);
        auto whole = indexClaims(tree->walk);
        const QByteArray json = infoJson(*whole);
        const QJsonObject doc = QJsonDocument::fromJson(json).object();
        QCOMPARE(doc.value(QStringLiteral("ops")).toInteger(), qint64(whole->ops.size()));
        const InfoDocument single = mergeInfo({infoPart(*whole)}, whole->openedPath);

        std::vector<InfoPart> parts;
        for (const auto &claims : units(*tree, false)) {
            const auto index = indexUnit(*tree, claims);
            const QByteArray bytes = encodeInfoPart(infoPart(*index));
            auto decoded = decodeInfoPart(bytes);
            QVERIFY(decoded);
            QVERIFY(!decodeInfoPart(bytes.left(bytes.size() - 1)));
            parts.push_back(std::move(*decoded));
        }
        QVERIFY(parts.size() > 1);
        for (const auto &order : orders(parts.size())) {
            const InfoDocument merged = mergeInfo(reordered(parts, order), whole->openedPath);
            QCOMPARE(infoJson(merged), json);
            QCOMPARE(merged.warningLines, single.warningLines);
            QCOMPARE(merged.levels.size(), single.levels.size());
            for (size_t i = 0; i < merged.levels.size(); ++i) // execution order of the distinct levels
                QVERIFY(sameLevels(merged.levels[i], single.levels[i]));
        }
    }

    /// `info` of a run without its whole index (issue 35, item 3): batches of whole scopes,
    /// each indexed, counted and dropped, give the report of the whole index byte for byte.
    void streamedInfo_data() { trees_data(); }
    void streamedInfo()
    {
        QFETCH(QString, path);
        auto tree = discoverRuns(path);
        QVERIFY(tree);
        const QByteArray json = infoJson(*indexClaims(tree->walk));
        // Batches: the scopes', plus one of the claims no run holds.
        size_t scopes = 0, held = 0;
        for (const RunInfo &r : tree->runs)
            for (const RunScope &s : r.scopes) {
                ++scopes;
                held += s.claims.size();
            }
        const size_t rest = held < tree->walk.claims.size() ? 1 : 0;
        // One run folder with dumps of several frameworks (all samples): the batches decline.
        const bool mixed = json.contains("several frameworks");
        for (const size_t perBatch : {size_t(1), size_t(2), size_t(3), scopes}) {
            const auto parts = streamedInfoParts(*tree, nullptr, perBatch);
            const size_t batches = (scopes + perBatch - 1) / perBatch + rest;
            QCOMPARE(parts.has_value(), batches > 1 && !mixed);
            if (parts)
                QCOMPARE(infoJson(mergeInfo(*parts, tree->walk.openedPath)), json);
        }
    }

    /// A generated run of 4 steps x 5 ranks (real msprobe 26 rank folders copied) with bad
    /// files: a truncated dump.json, a missing stack.json, an unreadable construct.json (a
    /// folder of that name) and stack.json. Batches read on several lanes at once (issue 35,
    /// item 3) finish out of order; the report is the whole index's byte for byte.
    void streamedInfoGeneratedRun()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString from = sample("msprobe_real/dumps/optnan_statistics_mix/step0/rank0");
        for (int s = 0; s < 4; ++s)
            for (int r = 0; r < 5; ++r) {
                const QString dir = tmp.path() + QStringLiteral("/run/step%1/rank%2").arg(s).arg(r);
                QVERIFY(QDir().mkpath(dir));
                for (const char *f : {"dump.json", "stack.json", "construct.json"})
                    QVERIFY(QFile::copy(from + QLatin1Char('/') + QLatin1String(f), dir + QLatin1Char('/') + QLatin1String(f)));
            }
        const QString run = tmp.path() + QStringLiteral("/run");
        QFile truncated(run + QStringLiteral("/step1/rank3/dump.json"));
        QVERIFY(truncated.open(QIODevice::ReadWrite));
        QVERIFY(truncated.resize(truncated.size() / 2));
        truncated.close();
        QVERIFY(QFile::remove(run + QStringLiteral("/step2/rank0/stack.json")));
        QVERIFY(QFile::remove(run + QStringLiteral("/step2/rank4/construct.json")));
        QVERIFY(QDir().mkpath(run + QStringLiteral("/step2/rank4/construct.json")));
        QVERIFY(QFile::remove(run + QStringLiteral("/step3/rank1/stack.json")));
        QVERIFY(QDir().mkpath(run + QStringLiteral("/step3/rank1/stack.json")));
        auto tree = discoverRuns(run);
        QVERIFY(tree);
        const QByteArray json = infoJson(*indexClaims(tree->walk));
        const QJsonObject doc = QJsonDocument::fromJson(json).object();
        QCOMPARE(doc.value(QStringLiteral("errors")).toInt(), 3); // truncated + 2 unreadable
        for (const size_t perBatch : {size_t(1), size_t(2), size_t(3), size_t(7)}) {
            const auto parts = streamedInfoParts(*tree, nullptr, perBatch);
            QVERIFY(parts);
            QCOMPARE(infoJson(mergeInfo(*parts, tree->walk.openedPath)), json);
        }
    }

    /// Cancelled before it starts: the first batch's part says so and no later part follows
    /// (as when batches were read one after another), whichever lane saw the flag first.
    void streamedInfoCancelled()
    {
        auto tree = discoverRuns(sample("msprobe_real/dumps"));
        QVERIFY(tree);
        std::atomic<bool> cancel{true};
        JobControl job;
        job.cancelFlag = &cancel;
        const auto parts = streamedInfoParts(*tree, &job, 1);
        QVERIFY(parts);
        QCOMPARE(parts->size(), size_t(1));
        QVERIFY(parts->front().cancelled);
    }

    /// A run folder with dumps of two frameworks: the index's error naming them needs all of
    /// the run's claims at once, so the batches decline (the CLI then builds the whole index).
    void streamedInfoDeclinesMixedFrameworks()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString run = tmp.path() + QStringLiteral("/run");
        QVERIFY(QDir().mkpath(run + QStringLiteral("/step0/rank1")));
        QVERIFY(QFile::copy(sample("msprobe/step0/proc2016/dump.json"), run + QStringLiteral("/step0/rank1/dump.json")));
        const QString kernel = QStringLiteral("/rank_0/Net/0/0");
        QVERIFY(QDir().mkpath(run + kernel));
        QVERIFY(QFile::copy(sample("mindspore_kernel/statistic/npu") + kernel + QStringLiteral("/statistic.csv"),
                            run + kernel + QStringLiteral("/statistic.csv")));
        auto tree = discoverRuns(tmp.path());
        QVERIFY(tree);
        QVERIFY(infoJson(*indexClaims(tree->walk)).contains("several frameworks"));
        QVERIFY(!streamedInfoParts(*tree, nullptr, 1));
    }

    /// Runs found by processes that each see some scopes: as one walk of the whole lists them.
    void runsOfParts()
    {
        auto tree = discoverRuns(sample("msprobe_real/dumps"));
        QVERIFY(tree);
        QVERIFY(tree->runs.size() > 2);
        std::vector<std::vector<RunInfo>> lists(3);
        for (const RunInfo &r : tree->runs)
            for (size_t i = 0; i < r.scopes.size(); ++i) { // scope i of every run to list i % 3
                std::vector<RunInfo> &list = lists[i % 3];
                if (list.empty() || list.back().relPath != r.relPath) {
                    RunInfo copy = r;
                    copy.scopes.clear();
                    list.push_back(copy);
                }
                list.back().scopes.push_back(r.scopes[i]);
            }
        for (const auto &order : orders(lists.size())) {
            const std::vector<RunInfo> merged = mergeRuns(reordered(lists, order));
            QCOMPARE(merged.size(), tree->runs.size());
            for (size_t i = 0; i < merged.size(); ++i) {
                const RunInfo &a = merged[i], &b = tree->runs[i];
                QCOMPARE(a.relPath, b.relPath);
                QCOMPARE(a.name, b.name);
                QCOMPARE(a.formats, b.formats);
                QCOMPARE(a.steps, b.steps);
                QCOMPARE(a.ranks, b.ranks);
                QCOMPARE(a.scopes.size(), b.scopes.size());
                for (size_t k = 0; k < a.scopes.size(); ++k)
                    QCOMPARE(a.scopes[k].id, b.scopes[k].id);
            }
        }
    }

    /// Errors seen by several processes are listed once, sorted by file then message.
    void errorsOnce()
    {
        const std::vector<FileError> in{{QStringLiteral("b/x"), QStringLiteral("m2")}, {QStringLiteral("a"), QStringLiteral("m")},
                                        {QStringLiteral("b/x"), QStringLiteral("m1")}, {QStringLiteral("a"), QStringLiteral("m")}};
        const std::vector<FileError> out = mergedErrors(in);
        QCOMPARE(out.size(), size_t(3));
        QCOMPARE(out[0].file, QStringLiteral("a"));
        QCOMPARE(out[1].message, QStringLiteral("m1"));
        QCOMPARE(out[2].message, QStringLiteral("m2"));
    }
};

QTEST_GUILESS_MAIN(TestReportMerge)
#include "tst_reportmerge.moc"
