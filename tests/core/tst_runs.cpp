// core/run: runs and scopes of a tree, the communication-op clock, per-scope summaries and the
// run-level answer. The real-producer corpus samples/msprobe_real (2 ranks x 2 steps per run,
// real Distributed.all_reduce entries) and runs assembled from it are the oracle: every expected
// answer comes from expected.json's designed half (tests/core/runcorpus.h).
#include "runcorpus.h"

#include "compare/comparereport.h"
#include "dump/levels.h"
#include "index/buildindex.h"
#include "models/dumptreemodel.h"
#include "run/runcompare.h"
#include "run/trend.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using namespace ds;

namespace {

CommOp comm(const QString &api, int position, QList<qint64> group = {}, qint64 peer = -1)
{
    CommOp c;
    c.name = QStringLiteral("Distributed.%1.%2.forward").arg(api).arg(position);
    c.api = api;
    c.group = std::move(group);
    c.peer = peer;
    c.position = position;
    return c;
}

ScopeSummary scope(qint64 step, qint64 rank, std::vector<CommOp> ops, std::optional<int> firstAt = {})
{
    ScopeSummary s;
    s.step = QStringLiteral("step%1").arg(step);
    s.rank = QStringLiteral("rank%1").arg(rank);
    s.id = s.step + QLatin1Char('/') + s.rank;
    s.stepNumber = step;
    s.rankNumber = rank;
    s.comm = std::move(ops);
    s.rows = 10;
    s.pass = firstAt ? 9 : 10;
    s.error = firstAt ? 1 : 0;
    if (firstAt)
        s.first = ScopeFinding{QStringLiteral("Op.%1").arg(*firstAt), QStringLiteral("Op.%1.output.0").arg(*firstAt),
                               QStringLiteral("test"), *firstAt, true, {}, {}, {}};
    return s;
}

/// The run answer of a case, by the same per-scope path the CLI takes.
RunAnswer answerOf(const runcorpus::RunCase &c, std::vector<ScopeSummary> *summaries = nullptr)
{
    std::vector<ScopeSummary> sums;
    if (c.bench.isEmpty()) {
        auto index = buildIndex(c.npu);
        if (!index)
            qFatal("%s", qPrintable(index.errorText()));
        sums = summarizeOverflow(**index, analyzeOverflow(**index));
    } else {
        auto npu = discoverRuns(c.npu), bench = discoverRuns(c.bench);
        if (!npu || !bench || npu->runs.size() != 1 || bench->runs.size() != 1)
            qFatal("%s: not one run on each side", qPrintable(c.name));
        for (const ScopeCompare &s : compareRuns(*npu, npu->runs.front(), *bench, bench->runs.front()))
            sums.push_back(s.summary);
    }
    if (summaries)
        *summaries = sums;
    return combineRun(sums, c.bench.isEmpty() ? RunAnswerKind::Overflow : RunAnswerKind::Compare);
}

} // namespace

class TestRuns : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    std::vector<runcorpus::RunCase> m_assembled;

private slots:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        m_assembled = runcorpus::assembledCases(m_tmp.path());
    }

    void scopeIds_data()
    {
        QTest::addColumn<QString>("step");
        QTest::addColumn<QString>("rank");
        QTest::addColumn<QString>("device");
        QTest::addColumn<QString>("dataIndex");
        QTest::addColumn<QString>("id");
        QTest::addColumn<qint64>("stepNumber");
        QTest::addColumn<qint64>("rankNumber");
        QTest::addRow("msprobe") << "step12" << "rank3" << "" << "" << "step12/rank3" << qint64(12) << qint64(3);
        QTest::addRow("rank without number") << "step0" << "rank" << "" << "" << "step0/rank" << qint64(0) << qint64(0);
        QTest::addRow("process folder") << "step1" << "proc4711" << "" << "" << "step1/proc4711" << qint64(1) << qint64(-1);
        QTest::addRow("cann") << "" << "" << "4" << "17" << "device4/iteration17" << qint64(17) << qint64(4);
        QTest::addRow("none") << "" << "" << "" << "" << "" << qint64(-1) << qint64(-1);
    }
    void scopeIds()
    {
        QFETCH(QString, step);
        QFETCH(QString, rank);
        QFETCH(QString, device);
        QFETCH(QString, dataIndex);
        DumpLevels l;
        l.step = step;
        l.rank = rank;
        l.device = device;
        l.dataIndex = dataIndex;
        QTEST(scopeIdOf(l), "id");
        QTEST(levelNumber(scopeStepLabel(l)), "stepNumber");
        QTEST(levelNumber(scopeRankLabel(l), true), "rankNumber");
    }

    void runRoots_data()
    {
        QTest::addColumn<QString>("relPath");
        QTest::addColumn<QString>("step");
        QTest::addColumn<QString>("rank");
        QTest::addColumn<QString>("time");
        QTest::addColumn<QString>("run");
        QTest::addRow("msprobe below runs") << "experiments/npu_bf16/step0/rank0" << "step0" << "rank0" << "" << "experiments/npu_bf16";
        QTest::addRow("opened at the run") << "step3/rank1" << "step3" << "rank1" << "" << "";
        QTest::addRow("opened at a step") << "rank1" << "step3" << "rank1" << "" << "";
        QTest::addRow("a file in a rank folder") << "a/step0/rank0/model.h5" << "step0" << "rank0" << "" << "a";
        QTest::addRow("cann") << "npu/20200808163566/0/ge_default/1/0" << "" << "" << "20200808163566" << "npu";
        QTest::addRow("cann opened below time") << "0/ge_default/1/0" << "" << "" << "20200808163566" << "";
        QTest::addRow("no levels") << "some/folder" << "" << "" << "" << "";
    }
    void runRoots()
    {
        QFETCH(QString, relPath);
        DumpLevels l;
        QFETCH(QString, step);
        QFETCH(QString, rank);
        QFETCH(QString, time);
        l.step = step;
        l.rank = rank;
        l.time = time;
        QTEST(runRootOf(relPath, l), "run");
    }

    /// Every run of the corpus, as expected.json lists it (path, steps, ranks).
    void discoverCorpus()
    {
        const QString dumps = runcorpus::corpusDir() + QStringLiteral("/dumps");
        auto tree = discoverRuns(dumps);
        QVERIFY(tree);
        const QJsonObject runs = runcorpus::expected().value(QStringLiteral("runs")).toObject();
        QCOMPARE(qsizetype(tree->runs.size()), runs.size());
        for (auto it = runs.begin(); it != runs.end(); ++it) {
            const QJsonObject r = it.value().toObject();
            const RunInfo *run = tree->run(r.value(QStringLiteral("path")).toString().mid(QStringLiteral("dumps/").size()));
            QVERIFY2(run, qPrintable(it.key()));
            QCOMPARE(run->name, it.key());
            QCOMPARE(run->formats, QStringList{QStringLiteral("msprobe")});
            std::vector<qint64> steps, ranks;
            for (const QJsonValue &v : r.value(QStringLiteral("steps")).toArray())
                steps.push_back(v.toInteger());
            for (const QJsonValue &v : r.value(QStringLiteral("ranks")).toArray())
                ranks.push_back(v.toInteger());
            QCOMPARE(run->steps, steps);
            QCOMPARE(run->ranks, ranks);
            QCOMPARE(run->scopes.size(), steps.size() * ranks.size());
            for (const RunScope &s : run->scopes) {
                QCOMPARE(s.id, s.step + QLatin1Char('/') + s.rank);
                QCOMPARE(s.dirs, QStringList{run->relPath + QLatin1Char('/') + s.id});
            }
        }
        // One run opened at its own folder: the run is the folder itself.
        auto one = discoverRuns(runcorpus::runDir(QStringLiteral("npu_rank1_statistics_mix")));
        QVERIFY(one);
        QCOMPARE(one->runs.size(), size_t(1));
        QCOMPARE(one->runs.front().relPath, QString());
        QCOMPARE(one->runs.front().name, QStringLiteral("npu_rank1_statistics_mix"));
    }

    /// A folder with two runs side by side: each run under its own tree node named by its
    /// folder, holding exactly the operators of that run (not one merged step0/rank0 node).
    void multiRunFolder()
    {
        QTemporaryDir tmp;
        const QString experiments = runcorpus::assembleExperiments(tmp.path());
        auto tree = discoverRuns(experiments);
        QVERIFY(tree);
        QCOMPARE(tree->runs.size(), size_t(2));
        QCOMPARE(tree->runs[0].relPath, QStringLiteral("bench"));
        QCOMPARE(tree->runs[1].relPath, QStringLiteral("npu_bf16"));
        auto index = buildIndex(experiments);
        QVERIFY(index);
        DumpTreeModel model;
        QAbstractItemModelTester tester(&model);
        const int dump = model.beginDump(experiments);
        model.finishDump(dump, *index);
        const QModelIndex root = model.index(dump, 0);
        QCOMPARE(model.rowCount(root), 2);
        for (int r = 0; r < 2; ++r) {
            const QModelIndex run = model.index(r, 0, root);
            QCOMPARE(DumpTreeModel::Kind(run.data(DumpTreeModel::KindRole).toInt()), DumpTreeModel::Kind::Run);
            const QString name = run.data().toString();
            QCOMPARE(name, tree->runs[size_t(r)].relPath);
            // the run's own index, built alone, is the oracle for what the node holds
            auto alone = buildIndex(experiments + QLatin1Char('/') + name);
            QVERIFY(alone);
            QCOMPARE(model.opsUnder(run)->size(), (*alone)->ops.size());
            QCOMPARE(model.rowCount(run), 2); // step0, step1
            const QModelIndex step0 = model.index(0, 0, run);
            QCOMPARE(step0.data().toString(), QStringLiteral("step0"));
            QCOMPARE(model.rowCount(step0), 2); // rank0, rank1
            DumpLevels levels;
            levels.run = name;
            levels.step = QStringLiteral("step1");
            levels.rank = QStringLiteral("rank1");
            const QModelIndex scope = model.findLevels(dump, levels);
            QVERIFY(scope.isValid());
            QCOMPARE(scope.data().toString(), QStringLiteral("rank1"));
            QCOMPARE(scope.parent().parent(), run);
            // each entry once per scope: a run's step0/rank0 is not the union of both runs
            auto scopeAlone = buildIndex(experiments + QLatin1Char('/') + name + QStringLiteral("/step1/rank1"));
            QVERIFY(scopeAlone);
            QCOMPARE(model.opsUnder(scope)->size(), (*scopeAlone)->ops.size());
            // and a run can be cut out of the folder's index for comparing
            auto sub = runSubIndex(**index, name);
            QCOMPARE(sub->ops.size(), (*alone)->ops.size());
            QVERIFY(std::all_of(sub->ops.begin(), sub->ops.end(), [](const OpRecord &op) { return op.levels->run.isEmpty(); }));
        }
    }

    /// Opening one scope of a run indexes that scope only, with the ids of the whole tree.
    void indexOneScope()
    {
        const QString dir = runcorpus::runDir(QStringLiteral("npu_step1_statistics_mix"));
        auto tree = discoverRuns(dir);
        QVERIFY(tree);
        auto whole = buildIndex(dir);
        QVERIFY(whole);
        size_t total = 0;
        for (const RunScope &s : tree->runs.front().scopes) {
            const auto index = indexScope(*tree, s);
            QVERIFY(!index->ops.empty());
            total += index->ops.size();
            for (const OpRecord &op : index->ops) {
                QVERIFY(op.relPath.startsWith(s.id + QLatin1Char('/')));
                QVERIFY((*whole)->opIndex(op.relPath) >= 0);
            }
        }
        QCOMPARE(total, (*whole)->ops.size());
    }

    void clockCollectives()
    {
        // both ranks: 3 ops, all_reduce, 2 ops, all_reduce
        const std::vector<CommOp> ops{comm(QStringLiteral("all_reduce"), 3), comm(QStringLiteral("all_reduce"), 6)};
        const StepClock clock({{0, ops}, {1, ops}});
        QVERIFY(clock.consistent());
        QCOMPARE(clock.layers(), 2);
        QCOMPARE(clock.unmatched(), 0);
        const ClockPosition before = clock.position(1, 2), at = clock.position(0, 3), between = clock.position(0, 4),
                            after = clock.position(0, 9);
        QCOMPARE(before.layer, 0);
        QCOMPARE(before.phase, 0);
        QCOMPARE(before.offset, 2);
        QCOMPARE(before.commIndex, 0);
        QCOMPARE(at.phase, 1);
        QVERIFY(before.before(at));      // before comm #0 on any rank comes before comm #0's outputs
        QVERIFY(at.before(between));     // and those before anything after it
        QCOMPARE(between.layer, 1);
        QCOMPARE(between.offset, 0);
        QCOMPARE(after.layer, 2);        // after the last one: the end of the step
        QCOMPARE(after.commIndex, -1);
        QVERIFY(between.before(after));
        QCOMPARE(before.describe(), QStringLiteral("before communication op #0 (Distributed.all_reduce.3.forward)"));
        QCOMPARE(after.describe(), QStringLiteral("after the last communication op (#1 Distributed.all_reduce.6.forward)"));
        const StepClock none({{0, {}}, {1, {}}});
        QCOMPARE(none.position(0, 5).describe(), QStringLiteral("no communication op in the step"));
    }

    /// Pipeline stages: rank 1 waits in recv for rank 0's send, so rank 1's first ops come after
    /// everything rank 0 did before its send; the clock lines the send and the recv up.
    void clockPointToPoint()
    {
        // rank 0: 5 compute ops, send(dst=1), 1 op, all_reduce; rank 1: recv(src=0), 5 ops, all_reduce
        const StepClock clock({{0, {comm(QStringLiteral("send"), 5, {}, 1), comm(QStringLiteral("all_reduce"), 7)}},
                               {1, {comm(QStringLiteral("recv"), 0, {}, 0), comm(QStringLiteral("all_reduce"), 6)}}});
        QVERIFY(clock.consistent());
        QCOMPARE(clock.layerOf(0, 0), clock.layerOf(1, 0));
        QCOMPARE(clock.layerOf(0, 1), clock.layerOf(1, 1));
        const ClockPosition rank0BeforeSend = clock.position(0, 4), rank1AfterRecv = clock.position(1, 3);
        QVERIFY(rank0BeforeSend.before(rank1AfterRecv));
        // a second send/recv pair matches the second of each, not the first
        const StepClock two({{0, {comm(QStringLiteral("send"), 1, {}, 1), comm(QStringLiteral("send"), 3, {}, 1)}},
                             {1, {comm(QStringLiteral("recv"), 0, {}, 0), comm(QStringLiteral("barrier"), 1), comm(QStringLiteral("recv"), 2, {}, 0)}}});
        QCOMPARE(two.layerOf(0, 1), two.layerOf(1, 2));
        QCOMPARE(two.unmatched(), 1); // the barrier rank 0 never reached
    }

    /// Collectives of different process groups are counted apart.
    void clockGroups()
    {
        const QList<qint64> g01{0, 1}, g23{2, 3};
        std::vector<std::pair<qint64, std::vector<CommOp>>> ranks;
        ranks.push_back({0, {comm(QStringLiteral("all_reduce"), 1, g01), comm(QStringLiteral("all_gather"), 2)}});
        ranks.push_back({1, {comm(QStringLiteral("all_reduce"), 1, g01), comm(QStringLiteral("all_gather"), 2)}});
        ranks.push_back({2, {comm(QStringLiteral("all_reduce"), 1, g23), comm(QStringLiteral("all_reduce"), 3, g23), comm(QStringLiteral("all_gather"), 4)}});
        ranks.push_back({3, {comm(QStringLiteral("all_reduce"), 1, g23), comm(QStringLiteral("all_reduce"), 3, g23), comm(QStringLiteral("all_gather"), 4)}});
        const StepClock clock(ranks);
        QVERIFY(clock.consistent());
        QCOMPARE(clock.unmatched(), 0);
        // the world all_gather waits for the second all_reduce of group 2-3
        QCOMPARE(clock.layerOf(0, 1), 2);
        QCOMPARE(clock.layerOf(2, 2), 2);
        QCOMPARE(clock.layerOf(0, 0), 0);
        // any input order gives the same layers
        std::reverse(ranks.begin(), ranks.end());
        const StepClock reversed(ranks);
        for (qint64 r = 0; r < 4; ++r)
            for (int i = 0; i < 3; ++i)
                QCOMPARE(reversed.layerOf(r, i), clock.layerOf(r, i));
    }

    /// Ranks whose communication orders contradict each other (a cycle) are counted on their own.
    void clockInconsistent()
    {
        const StepClock clock({{0, {comm(QStringLiteral("all_reduce"), 1), comm(QStringLiteral("broadcast"), 2)}},
                               {1, {comm(QStringLiteral("broadcast"), 1), comm(QStringLiteral("all_reduce"), 2)}}});
        QVERIFY(!clock.consistent());
        QCOMPARE(clock.layerOf(0, 1), 1);
        QCOMPARE(clock.layerOf(1, 0), 0);
    }

    void combineRules()
    {
        const std::vector<CommOp> ops{comm(QStringLiteral("all_reduce"), 4)};
        // step 0 agrees; in step 1 rank 1 diverges before the all_reduce, rank 0 at it
        std::vector<ScopeSummary> s{scope(0, 0, ops), scope(0, 1, ops), scope(1, 0, ops, 4), scope(1, 1, ops, 3)};
        RunAnswer a = combineRun(s);
        QVERIFY(a.first);
        QCOMPARE(a.first->step, qint64(1));
        QCOMPARE(a.first->at.rankNumber, qint64(1));
        QCOMPARE(a.agreeUpTo, std::optional<qint64>(0));
        QCOMPARE(a.first->ranks.size(), size_t(2));
        QCOMPARE(a.first->tiedRanks, std::vector<qint64>{1});
        QCOMPARE(a.line(), QStringLiteral("runs agree up to step 0; first divergence: step 1, rank 1, op Op.3"));
        QCOMPARE(a.steps.size(), size_t(2));
        QCOMPARE(a.steps[1].error, qint64(2));
        QCOMPARE(a.steps[1].divergedRanks, (std::vector<qint64>{0, 1}));
        // the same position on both ranks: a tie, the lowest rank reported
        s = {scope(0, 3, ops, 2), scope(0, 1, ops, 2)};
        a = combineRun(s);
        QCOMPARE(a.first->at.rankNumber, qint64(1));
        QCOMPARE(a.first->tiedRanks, (std::vector<qint64>{1, 3}));
        QVERIFY(!a.agreeUpTo);
        QCOMPARE(a.line(), QStringLiteral("first divergence: step 0, rank 1, op Op.2"));
        // no divergence
        s = {scope(0, 0, ops), scope(1, 0, ops)};
        a = combineRun(s);
        QVERIFY(!a.first);
        QCOMPARE(a.line(), QStringLiteral("runs agree on every compared step (steps 0 to 1)"));
        QCOMPARE(combineRun(s, RunAnswerKind::Overflow).line(), QStringLiteral("no anomaly in any step (steps 0 to 1)"));
        QCOMPARE(combineRun({}).line(), QStringLiteral("no scope was compared"));
    }

    /// The answer never claims agreement over rows that were not compared: it says how many
    /// were not and why (the reason codes' texts), and "nothing was compared" when no row was;
    /// the counts travel in the summaries' JSON and in the run object's steps.
    void notComparedIsNeverAgreement()
    {
        const std::vector<CommOp> ops{comm(QStringLiteral("all_reduce"), 4)};
        auto uncompared = [&](qint64 step, qint64 unmatched, qint64 missing, std::optional<int> firstAt = {}) {
            ScopeSummary s = scope(step, 0, ops, firstAt);
            s.rows = 4;
            s.error = firstAt ? 1 : 0;
            s.pass = 4 - unmatched - missing - s.error;
            s.notCompared = unmatched + missing;
            if (unmatched)
                s.notComparedBy[QStringLiteral("UNMATCHED_BENCH")] = unmatched;
            if (missing)
                s.notComparedBy[QStringLiteral("MISSING_FILE")] = missing;
            return s;
        };
        // 3 of 4 rows not compared, no divergence among the one that was
        std::vector<ScopeSummary> s{uncompared(0, 3, 0)};
        RunAnswer a = combineRun(s);
        QVERIFY(!a.first);
        QCOMPARE(a.line(), QStringLiteral("runs agree on every compared row (step 0); 3 of 4 rows not compared: No bench data matched 3"));
        QVERIFY(!a.line().contains(QLatin1String("every compared step")));
        // nothing compared
        s = {uncompared(0, 3, 1)};
        QCOMPARE(combineRun(s).line(), QStringLiteral("nothing was compared (step 0); 4 of 4 rows not compared: No bench data matched 3, Data file missing 1"));
        // with a divergence the count follows it
        s = {uncompared(0, 0, 0), uncompared(1, 1, 1, 2)};
        a = combineRun(s);
        QCOMPARE(a.line(), QStringLiteral("runs agree up to step 0; first divergence: step 1, rank 0, op Op.2; 2 of 8 rows not compared: "
                                          "Data file missing 1, No bench data matched 1"));
        // everything compared: as before
        s = {scope(0, 0, ops), scope(1, 0, ops)};
        QCOMPARE(combineRun(s).line(), QStringLiteral("runs agree on every compared step (steps 0 to 1)"));
        // JSON: the summaries and the run object's steps
        s = {uncompared(0, 3, 0)};
        const auto back = ScopeSummary::fromJson(s[0].toJson());
        QVERIFY(back);
        QCOMPARE(back->notComparedBy, s[0].notComparedBy);
        const QJsonObject run = QJsonDocument::fromJson(combineRun(s).toJson(s)).object();
        QCOMPARE(run.value("steps").toArray().at(0).toObject().value("not_compared_by").toObject(),
                 (QJsonObject{{QStringLiteral("UNMATCHED_BENCH"), 3}}));
        QCOMPARE(run.value("scopes").toArray().at(0).toObject().value("not_compared_by").toObject(),
                 (QJsonObject{{QStringLiteral("UNMATCHED_BENCH"), 3}}));
    }

    /// Summaries travel as JSON and the answer does not depend on the order they arrive in.
    void summariesOrderAndJson()
    {
        std::vector<ScopeSummary> sums;
        const auto cases = runcorpus::corpusCases();
        const auto c = std::find_if(cases.begin(), cases.end(), [](const auto &x) { return x.name == QLatin1String("rank1_md5_mix"); });
        QVERIFY(c != cases.end());
        const RunAnswer reference = answerOf(*c, &sums);
        QVERIFY(reference.first);
        const QByteArray referenceJson = reference.toJson(sums);
        for (const ScopeSummary &s : sums) {
            const auto back = ScopeSummary::fromJson(s.toJson());
            QVERIFY(back);
            QCOMPARE(*back, s);
            QVERIFY(!s.comm.empty());
        }
        QVERIFY(!ScopeSummary::fromJson(QJsonObject{{QStringLiteral("no"), 1}}));
        std::mt19937 rng(16);
        for (int i = 0; i < 24; ++i) {
            std::vector<ScopeSummary> shuffled;
            for (const ScopeSummary &s : sums)
                shuffled.push_back(*ScopeSummary::fromJson(s.toJson()));
            std::shuffle(shuffled.begin(), shuffled.end(), rng);
            QCOMPARE(combineRun(shuffled).toJson(shuffled), referenceJson);
        }
    }

    void runAnswers_data()
    {
        QTest::addColumn<int>("which");
        const auto cases = runcorpus::corpusCases();
        for (size_t i = 0; i < cases.size(); ++i)
            QTest::addRow("%s", qPrintable(cases[i].name)) << int(i);
        for (size_t i = 0; i < m_assembled.size(); ++i)
            QTest::addRow("assembled %s", qPrintable(m_assembled[i].name)) << int(1000 + i);
    }
    /// The run-level answer of every case is the designed one.
    void runAnswers()
    {
        QFETCH(int, which);
        static const auto corpus = runcorpus::corpusCases();
        const runcorpus::RunCase &c = which >= 1000 ? m_assembled[size_t(which - 1000)] : corpus[size_t(which)];
        const RunAnswer a = answerOf(c);
        if (!c.knownFailure.isEmpty()) { // one check, so that a fixed per-scope analysis shows as XPASS
            const bool right = a.first && a.first->step == c.answer.step && a.first->at.rankNumber == c.answer.rank
                               && c.answer.ops.contains(a.first->at.finding.op) && a.agreeUpTo == c.answer.agreeUpTo;
            const QByteArray failure = c.knownFailure.toUtf8();
            QEXPECT_FAIL("", failure.constData(), Abort);
            QVERIFY2(right, qPrintable(a.line()));
            return;
        }
        QVERIFY2(a.first, qPrintable(a.line()));
        QCOMPARE(a.first->step, c.answer.step);
        QCOMPARE(a.first->at.rankNumber, c.answer.rank);
        QVERIFY2(c.answer.ops.contains(a.first->at.finding.op), qPrintable(a.first->at.finding.op));
        QCOMPARE(a.agreeUpTo, c.answer.agreeUpTo);
        // every rank of that step is listed with its own finding (or none)
        const auto step = std::find_if(a.steps.begin(), a.steps.end(), [&](const RunAnswer::Step &s) { return s.number == c.answer.step; });
        QVERIFY(step != a.steps.end());
        QCOMPARE(int(a.first->ranks.size()), step->scopes);
        QVERIFY(std::is_sorted(a.first->ranks.begin(), a.first->ranks.end(),
                               [](const auto &x, const auto &y) { return x.rankNumber < y.rankNumber; }));
        QCOMPARE(size_t(std::count_if(a.first->ranks.begin(), a.first->ranks.end(), [](const auto &r) { return r.found; })),
                 step->divergedRanks.size());
        // the one line names the same
        QVERIFY(a.line().contains(QStringLiteral("step %1, rank %2, op %3").arg(c.answer.step).arg(c.answer.rank).arg(a.first->at.finding.op)));
        if (c.answer.agreeUpTo)
            QVERIFY(a.line().startsWith(QStringLiteral("%1 up to step %2;").arg(c.bench.isEmpty() ? QStringLiteral("no anomaly") : QStringLiteral("runs agree"))
                                            .arg(*c.answer.agreeUpTo)));
    }

    void perScopeEqualsWhole_data()
    {
        QTest::addColumn<QString>("caseId");
        for (const char *id : {"step1_statistics_mix", "rank1_md5_mix", "weight_tensor_mix"})
            QTest::addRow("%s", id) << QString::fromLatin1(id);
    }
    /// Comparing scope by scope writes the same CSV and rows as comparing the whole runs at once:
    /// what a process that sees every scope writes is the union of what the scopes give.
    void perScopeEqualsWhole()
    {
        QFETCH(QString, caseId);
        const QJsonObject c = runcorpus::caseById(caseId);
        const QString npuDir = runcorpus::runDir(c.value(QStringLiteral("npu")).toString()),
                      benchDir = runcorpus::runDir(c.value(QStringLiteral("bench")).toString());
        auto npu = buildIndex(npuDir), bench = buildIndex(benchDir);
        QVERIFY(npu && bench);
        const CompareResult whole = compareIndexes(**npu, **bench);
        auto npuTree = discoverRuns(npuDir), benchTree = discoverRuns(benchDir);
        QVERIFY(npuTree && benchTree);
        std::vector<ScopeCompare> scopes = compareRuns(*npuTree, npuTree->runs.front(), *benchTree, benchTree->runs.front());
        QCOMPARE(scopes.size(), size_t(4));
        QCOMPARE(runCompareCsv(scopes, whole.mode), compareCsv(**npu, **bench, whole));
        // the summaries of the whole comparison are those of the scopes
        std::vector<ScopeSummary> fromWhole = summarizeCompare(**npu, **bench, whole), fromScopes;
        for (const ScopeCompare &s : scopes)
            fromScopes.push_back(s.summary);
        sortScopes(fromWhole);
        QCOMPARE(fromWhole, fromScopes);
        // and the JSON rows
        const QJsonObject merged = QJsonDocument::fromJson(runCompareJson(scopes, whole.mode, "{}")).object();
        const QJsonObject single = QJsonDocument::fromJson(compareJson(**npu, **bench, whole)).object();
        QCOMPARE(merged.value(QStringLiteral("rows")), single.value(QStringLiteral("rows")));
        QCOMPARE(merged.value(QStringLiteral("summary")), single.value(QStringLiteral("summary")));
        QCOMPARE(merged.value(QStringLiteral("first_divergence")), single.value(QStringLiteral("first_divergence")));
    }

    /// Overflow: per-scope analyses summarise to what the whole-run analysis gives.
    void overflowPerScope()
    {
        const QString dir = runcorpus::runDir(QStringLiteral("overflow_tensor_mix"));
        auto whole = buildIndex(dir);
        QVERIFY(whole);
        std::vector<ScopeSummary> fromWhole = summarizeOverflow(**whole, analyzeOverflow(**whole)), fromScopes;
        auto tree = discoverRuns(dir);
        QVERIFY(tree);
        for (const RunScope &s : tree->runs.front().scopes) {
            const auto index = indexScope(*tree, s);
            for (ScopeSummary &x : summarizeOverflow(*index, analyzeOverflow(*index)))
                fromScopes.push_back(std::move(x));
        }
        sortScopes(fromWhole);
        sortScopes(fromScopes);
        QCOMPARE(fromScopes, fromWhole);
        QVERIFY(std::any_of(fromWhole.begin(), fromWhole.end(), [](const ScopeSummary &s) { return s.first.has_value(); }));
    }

    /// Trends of recorded statistics over the real runs: a parameters_grad entry gives one row
    /// per parameter ("Module.fc1.Linear.parameters_grad.weight"), the same row in every step,
    /// valued by the gradient's recorded Norm / Max from dump.json (the rows were blank: only
    /// outputs were read, and a parameters_grad entry has none). "counted" is a real run whose
    /// entries carry a per-step trigger counter (….parameters_grad.1 in step 0, .3 in step 1):
    /// it was split into a row per step.
    void statisticsTrendOfParameterGradients_data()
    {
        QTest::addColumn<QString>("run");
        QTest::addColumn<int>("metric");
        QTest::addColumn<int>("group");
        for (const QString &run : {QStringLiteral("base_statistics_mix"), QStringLiteral("npu_weight_statistics_L0"),
                                  QStringLiteral("overflow_statistics_mix"), QStringLiteral("npu_bf16_md5_mix")}) {
            QTest::addRow("%s norm", qPrintable(run)) << runcorpus::runDir(run) << int(TrendMetric::Norm) << int(TrendGroup::Operator);
            QTest::addRow("%s max modules", qPrintable(run)) << runcorpus::runDir(run) << int(TrendMetric::Max) << int(TrendGroup::Module);
        }
        const QString counted = runcorpus::assembleCountedGradients(m_tmp.path(), QStringLiteral("counted_gradients"),
                                                                    QStringLiteral("npu_weight_statistics_mix"));
        QTest::newRow("counted norm") << counted << int(TrendMetric::Norm) << int(TrendGroup::Operator);
        QTest::newRow("counted max modules") << counted << int(TrendMetric::Max) << int(TrendGroup::Module);
    }
    void statisticsTrendOfParameterGradients()
    {
        QFETCH(QString, run);
        QFETCH(int, metric);
        QFETCH(int, group);
        auto index = buildIndex(run);
        QVERIFY(index);
        const TrendTable t = statisticsTrend(**index, TrendMetric(metric), TrendGroup(group));
        const QString key = TrendMetric(metric) == TrendMetric::Norm ? QStringLiteral("Norm") : QStringLiteral("Max");
        QMap<QString, int> rowsWanted; // row -> scopes recording it
        int cells = 0;
        for (const QString &step : QDir(run).entryList({QStringLiteral("step*")}, QDir::Dirs))
            for (const QString &rank : QDir(run + QLatin1Char('/') + step).entryList({QStringLiteral("rank*")}, QDir::Dirs)) {
                const int s = t.stepIndex(step.mid(4).toLongLong());
                const auto r = std::find(t.ranks.begin(), t.ranks.end(), rank.mid(4).toLongLong());
                QVERIFY(s >= 0 && r != t.ranks.end());
                for (const auto &g : runcorpus::recordedGradients(run + QLatin1Char('/') + step + QLatin1Char('/') + rank + QStringLiteral("/dump.json"))) {
                    const QString row = g.base + QLatin1Char('.') + g.parameter;
                    ++rowsWanted[row];
                    const int at = int(t.rows.indexOf(row));
                    QVERIFY2(at >= 0, qPrintable(row));
                    double want = runcorpus::statistic(g.leaf, key);
                    if (std::isnan(want) && g.leaf.contains(key))
                        want = std::numeric_limits<double>::infinity(); // a NaN statistic counts as +Inf
                    const double got = t.value(at, s, int(r - t.ranks.begin()));
                    QVERIFY2(got == want, qPrintable(QStringLiteral("%1 %2/%3: %4, dump.json %5").arg(row, step, rank).arg(got).arg(want)));
                    ++cells;
                }
            }
        QVERIFY(cells >= 8);
        // one row per parameter, whatever the entry's counter: no other row names a gradient
        QStringList gradientRows;
        for (const QString &row : t.rows)
            if (row.contains(QLatin1String(".parameters_grad")))
                gradientRows << row;
        QStringList wanted = rowsWanted.keys();
        gradientRows.sort();
        QCOMPARE(gradientRows, wanted);
        for (const QString &row : std::as_const(wanted))
            QCOMPARE(t.rows.count(row), 1);
        QCOMPARE(parametersGradBase(QStringLiteral("Module.fc1.Linear.parameters_grad.12")), QStringLiteral("Module.fc1.Linear.parameters_grad"));
        QCOMPARE(parametersGradBase(QStringLiteral("Module.fc1.Linear.parameters_grad")), QStringLiteral("Module.fc1.Linear.parameters_grad"));
        QCOMPARE(parametersGradBase(QStringLiteral("Module.fc1.Linear.parameters_grad.0.weight")), QString());
        QCOMPARE(parametersGradBase(QStringLiteral("Module.fc1.Linear.forward.0")), QString());
    }

    /// A run compare's trend: the parameters_grad rows are per parameter too, valued by the
    /// gradients' norm relative error (they were blank: only outputs counted).
    void compareTrendOfParameterGradients()
    {
        const QJsonObject c = runcorpus::caseById(QStringLiteral("weight_statistics_mix"));
        auto npu = buildIndex(runcorpus::runDir(c.value(QStringLiteral("npu")).toString()));
        auto bench = buildIndex(runcorpus::runDir(c.value(QStringLiteral("bench")).toString()));
        QVERIFY(npu && bench);
        const CompareResult result = compareIndexes(**npu, **bench, {});
        const TrendTable t = compareTrend(**npu, result, TrendMetric::NormRelativeError, TrendGroup::Operator);
        const QString run = runcorpus::runDir(c.value(QStringLiteral("npu")).toString());
        const QString benchRun = runcorpus::runDir(c.value(QStringLiteral("bench")).toString());
        int checked = 0;
        for (const QString &step : {QStringLiteral("step0"), QStringLiteral("step1")})
            for (const QString &rank : {QStringLiteral("rank0"), QStringLiteral("rank1")}) {
                const auto n = runcorpus::recordedGradients(run + QLatin1Char('/') + step + QLatin1Char('/') + rank + QStringLiteral("/dump.json"));
                const auto b = runcorpus::recordedGradients(benchRun + QLatin1Char('/') + step + QLatin1Char('/') + rank + QStringLiteral("/dump.json"));
                QCOMPARE(n.size(), b.size());
                for (size_t k = 0; k < n.size(); ++k) {
                    const double x = runcorpus::statistic(n[k].leaf, QStringLiteral("Norm")), y = runcorpus::statistic(b[k].leaf, QStringLiteral("Norm"));
                    const double want = x == y ? 0 : std::fabs(x - y) / std::max(std::fabs(y), 1e-30);
                    const int at = int(t.rows.indexOf(n[k].base + QLatin1Char('.') + n[k].parameter));
                    QVERIFY2(at >= 0, qPrintable(n[k].entry));
                    const double got = t.value(at, t.stepIndex(step.mid(4).toLongLong()), rank.mid(4).toInt());
                    QVERIFY2(std::fabs(got - want) <= 1e-12 * std::max(1.0, want), qPrintable(QStringLiteral("%1.%2 %3/%4: %5, dump.json %6").arg(n[k].entry, n[k].parameter, step, rank).arg(got).arg(want)));
                    checked += want > 0;
                }
            }
        QVERIFY(checked >= 8); // the changed weight's gradients differ
    }

    /// A trend's rows drawn as bands (trendBands, bandValue, worstRowOfBand) against a brute
    /// force over a table of random values with NaN (no value) and Inf in it.
    void trendBandsAsBruteForce_data()
    {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("maxBands");
        QTest::newRow("fewer rows than bands") << 37 << 600;
        QTest::newRow("as many") << 600 << 600;
        QTest::newRow("one more") << 601 << 600;
        QTest::newRow("a rank of a large run") << 17472 << 600;
    }
    void trendBandsAsBruteForce()
    {
        QFETCH(int, rows);
        QFETCH(int, maxBands);
        TrendTable t;
        t.steps = {0, 1, 2};
        t.ranks = {0, 1};
        for (int r = 0; r < rows; ++r)
            t.rows << QStringLiteral("op%1").arg(r);
        std::mt19937 rng{uint32_t(rows)};
        std::uniform_real_distribution<double> u(0, 1);
        t.values.resize(size_t(rows) * 3 * 2);
        for (double &v : t.values) {
            const double x = u(rng);
            v = x < 0.3 ? std::numeric_limits<double>::quiet_NaN() : x > 0.999 ? std::numeric_limits<double>::infinity() : x;
        }
        const TrendBands b = trendBands(t, maxBands);
        QCOMPARE(b.rows, rows);
        QVERIFY(b.count <= maxBands);
        QCOMPARE(b.rowsPerBand == 1, rows <= maxBands);
        // the bands cover every row once, in order
        int covered = 0;
        for (int band = 0; band < b.count; ++band) {
            QCOMPARE(b.firstRow(band), covered);
            QVERIFY(b.endRow(band) > b.firstRow(band));
            for (int r = b.firstRow(band); r < b.endRow(band); ++r)
                QCOMPARE(b.bandOf(r), band);
            covered = b.endRow(band);
        }
        QCOMPARE(covered, rows);
        // from the values, then from the cache of the largest value over the ranks
        for (const bool cached : {false, true}) {
            if (cached)
                t.cacheRankMax();
            QCOMPARE(t.rankMax.size(), cached ? t.values.size() / 2 : 0);
            for (int band = 0; band < b.count; ++band) {
                for (int rank = -1; rank < 2; ++rank)
                    for (int s = 0; s < 3; ++s) {
                        double want = std::numeric_limits<double>::quiet_NaN();
                        for (int r = b.firstRow(band); r < b.endRow(band); ++r)
                            for (int k = 0; k < 2; ++k) {
                                if (rank >= 0 && k != rank)
                                    continue;
                                const double v = t.values[(size_t(r) * 3 + size_t(s)) * 2 + size_t(k)];
                                if (!std::isnan(v) && (std::isnan(want) || v > want))
                                    want = v;
                            }
                        const double got = bandValue(t, b, band, s, rank);
                        QVERIFY2(std::isnan(want) ? std::isnan(got) : got == want, qPrintable(QStringLiteral("band %1 step %2 rank %3").arg(band).arg(s).arg(rank)));
                    }
                // the worst row: the first row holding the band's largest value over steps and ranks
                int worst = b.firstRow(band);
                double worstValue = std::numeric_limits<double>::quiet_NaN();
                for (int r = b.firstRow(band); r < b.endRow(band); ++r)
                    for (int s = 0; s < 3; ++s)
                        for (int k = 0; k < 2; ++k) {
                            const double v = t.values[(size_t(r) * 3 + size_t(s)) * 2 + size_t(k)];
                            if (!std::isnan(v) && (std::isnan(worstValue) || v > worstValue))
                                worstValue = v, worst = r;
                        }
                QCOMPARE(worstRowOfBand(t, b, band, -1), worst);
            }
        }
    }

    /// Communication ops of the corpus: the two all_reduce of every scope, the gradient one with
    /// its process group [0, 1] (expected.json lists them per scope).
    void corpusCommOps()
    {
        const QJsonObject matrix = runcorpus::caseById(QStringLiteral("matrix")).value(QStringLiteral("msprobe")).toObject();
        const QJsonObject mix = matrix.value(QStringLiteral("base_statistics_mix")).toObject();
        auto index = buildIndex(runcorpus::runDir(QStringLiteral("base_statistics_mix")));
        QVERIFY(index);
        for (const auto &[id, ops] : opsByScope(**index)) {
            const std::vector<CommOp> c = communicationOps(**index, ops);
            QStringList names;
            for (const CommOp &op : c)
                names << op.name;
            QStringList want;
            for (const QJsonValue &v : mix.value(id).toObject().value(QStringLiteral("distributed")).toArray())
                want << v.toString();
            QCOMPARE(names, want);
            QCOMPARE(c[0].group, QList<qint64>{});
            QCOMPARE(c[1].group, (QList<qint64>{0, 1}));
        }
    }
};

QTEST_GUILESS_MAIN(TestRuns)
#include "tst_runs.moc"
