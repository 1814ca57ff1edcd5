// The error each operator adds in the GUI (issue 34, item 3; docs/COMPARE.md "Error added per
// operator"): the Compare tab's "Added error" column and its ranking "Ops that add the most
// error" beside the first divergence, and the graph's "error added" colour mode, on the real
// msprobe pair samples/msprobe_addederror (fc1 alone in bfloat16) against base_tensor_mix.
// Expectations come from the core API (compareIndexes, addedErrorRanking) run on its own.
#include "addederrorpanel.h"
#include "compare/compare.h"
#include "compareview.h"
#include "graphpanel.h"
#include "graphview.h"
#include "index/buildindex.h"
#include "models/addederrortext.h"
#include "models/comparetablemodel.h"

#include "tsfile.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QTranslator>
#include <QMenu>
#include <QToolButton>

using namespace ds;

namespace {

const QString kNpu = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_addederror/dumps/npu_fc1bf16_tensor_mix/step0/");
const QString kBench = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_tensor_mix/step0/");

/// The core's own answer for a rank: the comparison and the ranking of the first divergence's scope.
struct CoreAnswer
{
    std::shared_ptr<const DumpIndex> npu;
    CompareResult result;
    std::vector<size_t> ranking;
};

CoreAnswer coreAnswer(const QString &rank)
{
    CoreAnswer a;
    auto n = buildIndex(kNpu + rank);
    auto b = buildIndex(kBench + rank);
    if (!n || !b)
        return a;
    a.npu = *n;
    a.result = compareIndexes(**n, **b);
    a.ranking = addedErrorRanking(**n, a.result, a.result.divergences.empty() ? QString() : a.result.divergences.front().scope,
                                  AddedErrorPanel::kListed);
    return a;
}

} // namespace

class TestAddedErrorViews : public QObject
{
    Q_OBJECT

private slots:
    void rank_data()
    {
        QTest::addColumn<QString>("rank");
        QTest::addRow("rank0") << "rank0";
        QTest::addRow("rank1") << "rank1";
    }

    /// The ranking beside the first divergence lists the core's ranking; the column shows the
    /// core's added error on the top operator's output rows (not on its inputs); clicking an
    /// entry selects that row, also when the filter had hidden it.
    void compareTab_data() { rank_data(); }
    void compareTab()
    {
        QFETCH(QString, rank);
        const CoreAnswer core = coreAnswer(rank);
        QVERIFY(core.npu);
        QVERIFY(!core.ranking.empty());
        const AddedError &top = core.result.addedErrors[core.ranking.front()];
        QVERIFY(top.added > 0 && top.worstOutputRow >= 0);

        CompareView view;
        view.resize(1280, 800);
        view.show();
        QAbstractItemModelTester tester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy finished(&view, &CompareView::finished);
        view.start(core.npu, 0, kBench + rank);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);

        // The ranking: the core's operators in the core's order, the first ones as buttons.
        AddedErrorPanel *panel = view.addedErrorPanel();
        QVERIFY(panel->isVisible());
        QCOMPARE(panel->ranking(), core.ranking);
        const auto entryText = [&](size_t k) {
            const AddedError &e = core.result.addedErrors[core.ranking[k]];
            return QStringLiteral("%1  %2").arg(opMatchKey(core.npu->ops[size_t(e.op)]), AddedErrorText::value(e.added));
        };
        // as many buttons as the line holds (at 1280 x 800 at least one), the others in "n more"
        const auto &buttons = panel->entryButtons();
        QCOMPARE(buttons.size(), core.ranking.size());
        const size_t shownButtons = panel->shownButtons();
        QVERIFY(shownButtons >= 1);
        for (size_t k = 0; k < buttons.size(); ++k) {
            QCOMPARE(buttons[k]->text(), entryText(k));
            QCOMPARE(buttons[k]->isVisible(), k < shownButtons);
        }
        QVERIFY(buttons.front()->text().contains(QStringLiteral("  +")));
        QVERIFY(buttons.front()->toolTip().contains(addedInputsName(top.inputs)));
        const QList<QAction *> more = panel->moreButton()->menu()->actions();
        QCOMPARE(size_t(more.size()), core.ranking.size() - shownButtons);
        for (qsizetype i = 0; i < more.size(); ++i)
            QCOMPARE(more[i]->text(), entryText(shownButtons + size_t(i)));
        QCOMPARE(panel->moreButton()->isVisible(), !more.isEmpty());
        // one line, inside the tab
        QVERIFY(panel->height() <= 2 * panel->fontMetrics().height() + 12);
        QVERIFY(view.rect().contains(panel->moreButton()->geometry().translated(panel->mapTo(&view, QPoint()))));
        for (size_t k = 0; k < shownButtons; ++k)
            QVERIFY(view.rect().contains(buttons[k]->geometry().translated(panel->mapTo(&view, QPoint()))));

        // The column: the core's number on the top operator's output rows, nothing on its inputs.
        const CompareTableModel *model = view.model();
        QCOMPARE(model->headerData(CompareTableModel::ErrorAdded, Qt::Horizontal).toString(), QStringLiteral("Added error"));
        const QModelIndex cell = model->index(top.worstOutputRow, CompareTableModel::ErrorAdded);
        QCOMPARE(model->result()->rows[size_t(top.worstOutputRow)].npuName, core.result.rows[size_t(top.worstOutputRow)].npuName);
        QVERIFY(qFuzzyCompare(cell.data(CompareTableModel::AddedErrorRole).toDouble(), top.added));
        QCOMPARE(cell.data().toString(), AddedErrorText::value(top.added));
        const QString tip = cell.data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("Output relative error: %1").arg(AddedErrorText::value(top.outputRelErr, false)))
                     && tip.contains(QStringLiteral("Largest input relative error: %1").arg(AddedErrorText::value(top.inputRelErr, false)))
                     && tip.contains(addedInputsName(top.inputs)),
                 qPrintable(tip));
        int inputs = 0;
        for (size_t i = 0; i < core.result.rows.size(); ++i) {
            const CompareRow &row = core.result.rows[i];
            if (row.npu.op != top.op)
                continue;
            const QString shown = model->index(int(i), CompareTableModel::ErrorAdded).data().toString();
            if (row.io == IoKind::Output) {
                QCOMPARE(shown, AddedErrorText::value(top.added));
            } else {
                QCOMPARE(shown, QString());
                ++inputs;
            }
        }
        QVERIFY(inputs > 0);

        // Clicking an entry selects its row, as the pinned first divergence is selected; a
        // filter that hides the row is cleared.
        int hidden = 0;
        for (size_t k = 0; k < std::min<size_t>(core.ranking.size(), shownButtons + 2); ++k) {
            const int row = core.result.addedErrors[core.ranking[k]].worstOutputRow;
            const int other = row == 0 ? 1 : 0;
            view.table()->setCurrentIndex(view.proxy()->mapFromSource(model->index(other, 0)));
            QCOMPARE(view.proxy()->mapToSource(view.table()->currentIndex()).row(), other);
            if (row != model->pinnedRow()) { // the pinned row stays in view whatever the filter
                view.filterEdit()->setText(QStringLiteral("no row is called like this"));
                QVERIFY(!view.proxy()->mapFromSource(model->index(row, 0)).isValid());
                ++hidden;
            }
            if (k < shownButtons)
                QTest::mouseClick(buttons[k], Qt::LeftButton);
            else
                more[qsizetype(k - shownButtons)]->trigger();
            QTRY_COMPARE(view.proxy()->mapToSource(view.table()->currentIndex()).row(), row);
            QVERIFY(view.table()->selectionModel()->isRowSelected(view.table()->currentIndex().row(), {}));
            QVERIFY(view.filterEdit()->text().isEmpty());
            // the selected row's detail says what its operator adds
            const AddedError &e = core.result.addedErrors[core.ranking[k]];
            QTRY_VERIFY2(view.detailStatus()->text().contains(QStringLiteral("Error added by %1: %2 (output %3")
                                                                  .arg(opMatchKey(core.npu->ops[size_t(e.op)]), AddedErrorText::value(e.added),
                                                                       AddedErrorText::value(e.outputRelErr, false))),
                         qPrintable(view.detailStatus()->text()));
        }
        QVERIFY(hidden > 0);

        // Closing the NPU dump drops the ranking.
        view.clear();
        QVERIFY(!panel->isVisible());
        QVERIFY(panel->ranking().empty() && panel->entryButtons().empty());
    }

    /// "Compare: error added" colours the top operator's node by the band of its added error,
    /// with a four-entry legend.
    void graphColourMode_data() { rank_data(); }
    void graphColourMode()
    {
        QFETCH(QString, rank);
        const CoreAnswer core = coreAnswer(rank);
        QVERIFY(core.npu && !core.ranking.empty());
        const AddedError &top = core.result.addedErrors[core.ranking.front()];

        CompareView compare;
        QSignalSpy finished(&compare, &CompareView::finished);
        compare.start(core.npu, 0, kBench + rank);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        GraphPanel panel;
        panel.resize(1280, 800);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QSignalSpy shown(&panel, &GraphPanel::graphShown);
        panel.loadForDump(core.npu->openedPath, core.npu, 0);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 30000);
        panel.setCompareResult(compare.model()->result(), compare.model()->benchIndex());
        panel.setOverlayKind(GraphPanel::Overlay::CompareAddedError);
        QCOMPARE(panel.overlayKind(), GraphPanel::Overlay::CompareAddedError);

        const NodeId node = panel.nodeOfOp(top.op);
        QVERIFY2(node.isValid(), qPrintable(opMatchKey(core.npu->ops[size_t(top.op)])));
        // The bands: <= 0, (0, 1e-3), [1e-3, 1e-2), >= 1e-2.
        const int expected = top.added >= 1e-2 ? 4 : top.added >= 1e-3 ? 3 : 2;
        QCOMPARE(panel.view()->nodeLevel(node), expected);
        QVERIFY(expected >= 3); // bfloat16 rounding: about 2^-8
        QCOMPARE(panel.view()->legend().size(), size_t(4));
        QVERIFY(panel.legendLabel()->text().contains(QStringLiteral("Error added:")));
        panel.selectOp(0, top.op);
        QTRY_VERIFY(!panel.view()->isLayoutPending());
        QVERIFY(panel.grab().save(QDir::temp().filePath(QStringLiteral("dumpscope-added-error-graph-%1.png").arg(rank))));
        // An operator that passes error on (added <= 0) is in the first band.
        for (const AddedError &e : core.result.addedErrors) {
            const NodeId n = panel.nodeOfOp(e.op);
            if (!e.known() || e.added > 0 || !n.isValid() || panel.opsOfNode(n).size() != 1)
                continue;
            QCOMPARE(panel.view()->nodeLevel(n), 1);
            break;
        }
        // The other colour modes are unchanged by it.
        panel.setOverlayKind(GraphPanel::Overlay::Compare);
        QVERIFY(panel.view()->nodeLevel(node) >= 1 && panel.view()->nodeLevel(node) <= 3);
    }

    /// The new words are in Chinese (expectations from the committed .ts).
    void chinese()
    {
        const QString header = tsTranslation(QStringLiteral("ds::CompareTableModel"), QStringLiteral("Added error"));
        const QString agree = tsTranslation(QStringLiteral("ds::AddedErrorText"), QStringLiteral("its inputs agree"));
        const QString mode = tsTranslation(QStringLiteral("ds::GraphPanel"), QStringLiteral("Compare: error added"));
        QVERIFY(!header.isEmpty() && !agree.isEmpty() && !mode.isEmpty());
        QTranslator translator;
        QVERIFY(translator.load(QStringLiteral(DUMPSCOPE_QM)));
        QCoreApplication::installTranslator(&translator);
        CompareTableModel model;
        QCOMPARE(model.headerData(CompareTableModel::ErrorAdded, Qt::Horizontal).toString(), header);
        QCOMPARE(AddedErrorText::inputs(AddedInputs::Agree), agree);
        QCoreApplication::removeTranslator(&translator);
        QCOMPARE(AddedErrorText::inputs(AddedInputs::Agree), QStringLiteral("its inputs agree"));
    }
};

QTEST_MAIN(TestAddedErrorViews)
#include "tst_addederrorviews.moc"
