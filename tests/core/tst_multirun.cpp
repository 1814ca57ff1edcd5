// The answers of a run set (core/run/multirun.h) from hand-made rows: which run departs from the
// majority first, which operator's output differs while its inputs agree (per phase; a backward
// entry also needs its forward entry's inputs to agree), and which runs are the same.
#include "run/multirun.h"

#include <QTest>

using namespace ds;

namespace {

/// A row of scope step<step>/rank<rank> at `position`; `cls` the runs' classes.
RunSetRow row(qint64 step, qint64 rank, int position, const QString &op, IoKind io, std::vector<int> cls,
              RunPhase phase = RunPhase::Forward)
{
    RunSetRow r;
    r.stepNumber = step;
    r.rankNumber = rank;
    r.step = QStringLiteral("step%1").arg(step);
    r.rank = QStringLiteral("rank%1").arg(rank);
    r.scope = r.step + QLatin1Char('/') + r.rank;
    r.position = position;
    r.op = op;
    r.name = op + (io == IoKind::Output ? QStringLiteral(".output.0") : QStringLiteral(".input.0"));
    r.io = io;
    r.phase = phase;
    r.cls = std::move(cls);
    return r;
}

RunSetResult set(int runs, std::vector<RunSetRow> rows)
{
    RunSetResult s;
    for (int i = 0; i < runs; ++i)
        s.paths.push_back(QStringLiteral("run%1").arg(i + 1));
    s.rows = std::move(rows);
    return s;
}

} // namespace

class TestMultiRun : public QObject
{
    Q_OBJECT
private slots:
    void departure_data()
    {
        QTest::addColumn<int>("runs");
        QTest::addColumn<std::vector<RunSetRow>>("rows");
        QTest::addColumn<QString>("op");   // empty: no departure
        QTest::addColumn<QList<int>>("departing");
        const QString a = QStringLiteral("A.0.forward"), b = QStringLiteral("B.0.forward");
        QTest::addRow("third run departs") << 3 << std::vector{row(0, 0, 0, a, IoKind::Input, {0, 0, 0}), row(0, 0, 1, b, IoKind::Input, {0, 0, 2})}
                                           << b << QList<int>{2};
        QTest::addRow("first run departs") << 3 << std::vector{row(0, 0, 0, a, IoKind::Input, {0, 1, 1})} << a << QList<int>{0};
        QTest::addRow("2-2 split: no majority") << 4 << std::vector{row(0, 0, 0, a, IoKind::Input, {0, 0, 2, 2})} << QString()
                                                << QList<int>{};
        QTest::addRow("earlier step wins over a lower rank")
            << 3 << std::vector{row(0, 1, 5, b, IoKind::Input, {0, 0, 2}), row(1, 0, 0, a, IoKind::Input, {0, 1, 0})} << b
            << QList<int>{2};
        QTest::addRow("a row missing in one run is skipped")
            << 3 << std::vector{row(0, 0, 0, a, IoKind::Input, {0, -1, 2}), row(0, 0, 1, b, IoKind::Input, {0, 1, 0})} << b
            << QList<int>{1};
    }
    void departure()
    {
        QFETCH(int, runs);
        QFETCH(std::vector<RunSetRow>, rows);
        QFETCH(QString, op);
        QFETCH(QList<int>, departing);
        RunSetResult s = set(runs, rows);
        findRunSetAnswers(s);
        QCOMPARE(s.departure.has_value(), !op.isEmpty());
        if (s.departure) {
            QCOMPARE(s.departure->row.op, op);
            QCOMPARE(QList<int>(s.departure->runs.begin(), s.departure->runs.end()), departing);
        }
    }

    void nondeterministic()
    {
        const QString conv = QStringLiteral("Functional.conv2d.0.forward"), convBw = QStringLiteral("Functional.conv2d.0.backward");
        const QString add = QStringLiteral("Tensor.add_.0.forward"), ce = QStringLiteral("Functional.cross_entropy.0.backward");
        const QString ceFw = QStringLiteral("Functional.cross_entropy.0.forward");
        RunSetResult s = set(3, {
            row(0, 0, 0, conv, IoKind::Input, {0, 0, 0}),
            row(0, 0, 1, conv, IoKind::Output, {0, 0, 0}),
            row(0, 0, 2, ceFw, IoKind::Input, {0, 0, 2}),     // the logits differ in run 3
            row(0, 0, 3, ce, IoKind::Input, {0, 0, 0}, RunPhase::Backward),  // grad of the loss: 1
            row(0, 0, 4, ce, IoKind::Output, {0, 0, 2}, RunPhase::Backward), // from the saved logits: not the op's fault
            row(0, 0, 5, convBw, IoKind::Input, {0, 0, 0}, RunPhase::Backward),
            row(0, 0, 6, convBw, IoKind::Output, {0, 1, 0}, RunPhase::Backward), // inputs agree: nondeterministic
            row(0, 0, 7, add, IoKind::Input, {0, 0, 0}, RunPhase::Optimizer),
            row(0, 0, 8, add, IoKind::Output, {0, 0, 0}, RunPhase::Optimizer),
        });
        findRunSetAnswers(s);
        QVERIFY(!s.nondeterministic[size_t(RunPhase::Forward)]);
        QVERIFY(s.nondeterministic[size_t(RunPhase::Backward)]);
        QCOMPARE(s.nondeterministic[size_t(RunPhase::Backward)]->row.op, convBw);
        QCOMPARE(s.nondeterministic[size_t(RunPhase::Backward)]->runs, std::vector<int>{1});
        QVERIFY(!s.nondeterministic[size_t(RunPhase::Optimizer)]);
        // the departure is run 3 at the cross entropy's input
        QVERIFY(s.departure);
        QCOMPARE(s.departure->row.op, ceFw);
    }

    void updateBetweenSteps()
    {
        // fc1.weight agrees at step 0 with its gradient, differs at step 1 in run 3: the update
        // between the steps (outside the dump) differs; conv.weight's gradient already differs
        const QString fc1 = QStringLiteral("Module.fc1.Linear.forward.0"), conv = QStringLiteral("Module.conv.Conv2d.forward.0");
        auto named = [](RunSetRow r, const QString &name) {
            r.name = name;
            return r;
        };
        RunSetResult s = set(3, {
            named(row(0, 0, 0, conv, IoKind::Parameter, {0, 0, 0}), conv + QStringLiteral(".parameters.weight")),
            named(row(0, 0, 1, fc1, IoKind::Parameter, {0, 0, 0}), fc1 + QStringLiteral(".parameters.weight")),
            named(row(0, 0, 2, QStringLiteral("Module.fc1.Linear.parameters_grad.0"), IoKind::Output, {0, 0, 0}, RunPhase::Backward),
                  QStringLiteral("Module.fc1.Linear.parameters_grad.0.weight")),
            named(row(0, 0, 3, QStringLiteral("Module.conv.Conv2d.parameters_grad.0"), IoKind::Output, {0, 1, 0}, RunPhase::Backward),
                  QStringLiteral("Module.conv.Conv2d.parameters_grad.0.weight")),
            named(row(1, 0, 0, conv, IoKind::Parameter, {0, 1, 0}), conv + QStringLiteral(".parameters.weight")),
            named(row(1, 0, 1, fc1, IoKind::Parameter, {0, 0, 2}), fc1 + QStringLiteral(".parameters.weight")),
        });
        findRunSetAnswers(s);
        const auto &f = s.nondeterministic[size_t(RunPhase::Optimizer)];
        QVERIFY(f);
        QVERIFY(f->betweenSteps);
        QCOMPARE(f->row.name, fc1 + QStringLiteral(".parameters.weight"));
        QCOMPARE(f->row.stepNumber, 1);
        QCOMPARE(f->runs, std::vector<int>{2});
    }

    void sameGroups()
    {
        RunSetResult s = set(4, {});
        auto pair = [](int a, int b, bool same) {
            RunSetPair p;
            p.a = a;
            p.b = b;
            p.same = same;
            return p;
        };
        s.pairs = {pair(0, 1, true), pair(0, 2, false), pair(0, 3, false), pair(1, 2, false), pair(1, 3, false), pair(2, 3, true)};
        findRunSetAnswers(s);
        QCOMPARE(s.sameGroups, (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
        QCOMPARE(RunSetResult::sameWords(CompareMode::Md5), QStringLiteral("bit-identical"));
        QCOMPARE(RunSetResult::sameWords(CompareMode::Summary), QStringLiteral("identical statistics"));
    }
};

QTEST_GUILESS_MAIN(TestMultiRun)
#include "tst_multirun.moc"
