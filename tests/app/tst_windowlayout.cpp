// The main window's layout belongs to the user, not to the content: no tensor pushes a dock
// wide, every central tab stays in view, View lists every dock and tab, Reset Layout brings
// back the default, and a saved layout that does not fit is never restored.
#include "documentcontext.h"
#include "heatmapwidget.h"
#include "mainwindow.h"
#include "sliceselector.h"
#include "tensorinspector.h"
#include "valuegridwidget.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QTest>
#include <QTreeView>

#include <memory>

using namespace ds;

namespace {

// A side dock keeps its default width within this many pixels when content changes.
constexpr int kTolerance = 4;

const QString kCannModel = QStringLiteral(DUMPSCOPE_SAMPLES "/cann/model_dump");
const QString kCannSingleOp = QStringLiteral(DUMPSCOPE_SAMPLES "/cann/single_op");

/// A window of `size`, shown, with `path` indexed.
std::unique_ptr<MainWindow> openWindow(QSize size, const QString &path = {})
{
    auto w = std::make_unique<MainWindow>();
    w->resize(size);
    w->show();
    if (!QTest::qWaitForWindowExposed(w.get()))
        return nullptr;
    if (!path.isEmpty()) {
        QSignalSpy finished(w->context(), &DocumentContext::indexingFinished);
        w->openPath(path);
        if (!finished.wait(20000))
            return nullptr;
        QCoreApplication::processEvents();
    }
    return w;
}

bool containsRect(const QRect &outer, const QRect &inner) { return outer.contains(inner.topLeft()) && outer.contains(inner.bottomRight()); }

} // namespace

class TestWindowLayout : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("DumpScopeLayoutTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_windowlayout"));
    }
    void init() { QSettings().clear(); }
    void cleanupTestCase() { QSettings().clear(); }

    /// Opening the Values or Heatmap tab on a 4-D (5-D) tensor leaves the docks where they
    /// were: the slice controls wrap instead of pushing the inspector to ~1000 px (which made
    /// the window wider than the screen and squeezed the dump tree to ~70 px). The inspector
    /// can then be made small.
    void docksStayPutOnManyDimensions_data()
    {
        QTest::addColumn<QString>("dump");
        QTest::addColumn<QString>("tensor");
        QTest::addColumn<QSize>("size");
        const QString nc1hwc0 = QStringLiteral("20240315101500/0/ge_default_20240315101512_1/1/0/Conv2D.resnet_conv1_Conv2D.12.3.1710490512000001.input.0");
        const QString ndc1hwc0 = QStringLiteral("20240315102000/0/0/0/Conv3D.Conv3D.47.0.1710490520000003.input.0");
        QTest::addRow("NC1HWC0 (4-D) 1280x800") << kCannModel << nc1hwc0 << QSize(1280, 800);
        QTest::addRow("NC1HWC0 (4-D) 1600x900") << kCannModel << nc1hwc0 << QSize(1600, 900);
        QTest::addRow("NDC1HWC0 (5-D) 1280x800") << kCannSingleOp << ndc1hwc0 << QSize(1280, 800);
    }
    void docksStayPutOnManyDimensions()
    {
        QFETCH(QString, dump);
        QFETCH(QString, tensor);
        QFETCH(QSize, size);
        auto w = openWindow(size, dump);
        QVERIFY(w);
        QDockWidget *tree = w->treeDock(), *inspector = w->inspectorDock();
        const int treeWidth = tree->width(), inspectorWidth = inspector->width();
        QVERIFY2(inspectorWidth <= size.width() / 2, qPrintable(QString::number(inspectorWidth)));

        QSignalSpy loaded(w->inspector(), &TensorInspector::tensorLoaded);
        QVERIFY(w->selectTensor(*TensorId::parse(tensor)));
        QVERIFY(loaded.wait(10000));
        const int rank = int(w->inspector()->values()->model()->shape().size());
        QVERIFY2(rank >= 4, qPrintable(QString::number(rank)));
        // Every dim but the two shown has an index box: the controls that used to set the width.
        QVERIFY(w->inspector()->values()->sliceSelector()->indexSpin(0));

        for (QWidget *page : {static_cast<QWidget *>(w->inspector()->values()), static_cast<QWidget *>(w->inspector()->heatmap()),
                              static_cast<QWidget *>(w->inspector()->values())}) {
            w->inspector()->tabs()->setCurrentWidget(page);
            QTRY_VERIFY_WITH_TIMEOUT(!w->inspector()->heatmap()->isBusy(), 10000);
            QTest::qWait(50); // the layouts settle
            QCOMPARE(w->size(), size);
            QVERIFY2(qAbs(inspector->width() - inspectorWidth) <= kTolerance,
                     qPrintable(QStringLiteral("inspector %1 px, was %2").arg(inspector->width()).arg(inspectorWidth)));
            QVERIFY2(qAbs(tree->width() - treeWidth) <= kTolerance,
                     qPrintable(QStringLiteral("tree %1 px, was %2").arg(tree->width()).arg(treeWidth)));
            QVERIFY2(w->layoutProblem().isEmpty(), qPrintable(w->layoutProblem()));
            // The slice controls are all inside the page (wrapped, not cut off).
            const SliceSelector *selector = page == w->inspector()->values() ? w->inspector()->values()->sliceSelector()
                                                                               : w->inspector()->heatmap()->sliceSelector();
            for (QWidget *control : selector->findChildren<QWidget *>())
                if (control->isVisible())
                    QVERIFY2(containsRect(page->rect(), QRect(control->mapTo(page, QPoint(0, 0)), control->size())),
                             qPrintable(QStringLiteral("%1 at %2 outside the page width %3")
                                            .arg(QString::fromLatin1(control->metaObject()->className()))
                                            .arg(control->mapTo(page, QPoint(0, 0)).x())
                                            .arg(page->width())));
        }

        // The user can make the inspector small again, whatever it shows.
        w->resizeDocks({inspector}, {240}, Qt::Horizontal);
        QTRY_VERIFY2(inspector->width() <= 240 + kTolerance, qPrintable(QString::number(inspector->width())));
        QVERIFY(inspector->minimumSizeHint().width() <= 240);
        QCOMPARE(w->size(), size);
    }

    /// Every central tab is in view at the common laptop sizes (no scroll arrows hiding
    /// Compare and Trends), at the default layout with full labels; with the side docks made
    /// wide, elided but still in view.
    void everyCentralTabInView_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<int>("inspectorWidth"); // 0: the default
        QTest::addRow("1280x800") << QSize(1280, 800) << 0;
        QTest::addRow("1600x900") << QSize(1600, 900) << 0;
        QTest::addRow("1366x768") << QSize(1366, 768) << 0;
        QTest::addRow("1280x800, wide inspector") << QSize(1280, 800) << 700;
    }
    void everyCentralTabInView()
    {
        QFETCH(QSize, size);
        QFETCH(int, inspectorWidth);
        auto w = openWindow(size);
        QVERIFY(w);
        if (inspectorWidth > 0)
            w->resizeDocks({w->inspectorDock()}, {inspectorWidth}, Qt::Horizontal);
        QTest::qWait(50);
        QTabBar *bar = w->centralTabs()->tabBar();
        QVERIFY(bar->count() >= 6);
        for (int i = 0; i < bar->count(); ++i) {
            const QRect tab = bar->tabRect(i);
            QVERIFY2(containsRect(bar->rect(), tab), qPrintable(QStringLiteral("%1: %2,%3 %4 px, bar %5 px")
                                                                    .arg(bar->tabText(i))
                                                                    .arg(tab.x())
                                                                    .arg(tab.y())
                                                                    .arg(tab.width())
                                                                    .arg(bar->width())));
            if (inspectorWidth == 0)
                QVERIFY2(tab.width() >= bar->fontMetrics().horizontalAdvance(bar->tabText(i)),
                         qPrintable(QStringLiteral("%1 elided in %2 px").arg(bar->tabText(i)).arg(tab.width())));
        }
        for (QWidget *arrow : bar->findChildren<QWidget *>())
            QVERIFY2(!arrow->isVisible(), arrow->metaObject()->className());
        // No tab asks for more than a 768 px screen holds beside the Problems dock: a tall
        // minimum grows the window past the screen's bottom edge.
        for (int i = 0; i < w->centralTabs()->count(); ++i) {
            const QWidget *page = w->centralTabs()->widget(i);
            const int minHeight = page->minimumSize().height() > 0 ? page->minimumSize().height() : page->minimumSizeHint().height();
            QVERIFY2(minHeight <= 300, qPrintable(QStringLiteral("%1 asks for %2 px").arg(bar->tabText(i)).arg(minHeight)));
        }
    }

    /// msprobe's result documents opened with no dump: the empty dump tree and inspector step
    /// aside, so that every tab label (Precheck, Monitor, msprobe Answer added) reads in full at
    /// 1280x800 (beside the docks "Runs" was "R..."); opening a dump brings the docks back, and
    /// closing the window saves them shown.
    void resultDocumentsLeaveRoomForTabLabels()
    {
        auto w = openWindow(QSize(1280, 800));
        QVERIFY(w);
        const QString real = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/compare/weight_statistics_mix/step0/diff_analyze");
        const QStringList answers = QDir(real).entryList({QStringLiteral("diff_analyze_*.json")}, QDir::Files);
        QVERIFY(!answers.isEmpty());
        w->openPath(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_precheck/pytorch_bf16"));
        w->openPath(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_monitor/monitor_output"));
        w->openPath(real + QLatin1Char('/') + answers.front());
        QTabBar *bar = w->centralTabs()->tabBar();
        QCOMPARE(bar->count(), 10); // 7 tabs + Precheck, Monitor, msprobe Answer
        QTRY_VERIFY(!w->inspectorDock()->isVisible());
        QTest::qWait(50);
        for (int i = 0; i < bar->count(); ++i)
            QVERIFY2(bar->tabRect(i).width() >= bar->fontMetrics().horizontalAdvance(bar->tabText(i)),
                     qPrintable(QStringLiteral("%1 elided in %2 px").arg(bar->tabText(i)).arg(bar->tabRect(i).width())));
        QSignalSpy started(w->context(), &DocumentContext::indexingStarted);
        w->openPath(kCannModel);
        QTRY_VERIFY_WITH_TIMEOUT(started.count() > 0, 20000); // may be emitted inside openPath
        QTRY_VERIFY(w->inspectorDock()->isVisible());
        QVERIFY(w->findChild<QDockWidget *>(QStringLiteral("dumpTreeDock"))->isVisible());
    }

    /// A compare table read paged links no dumps: opened with none open, the empty dump tree and
    /// inspector step aside for its columns (h31: "the table is narrow" beside them), and come
    /// back with the first dump. A table opened whole keeps them (it may find its dumps).
    void pagedTableLeavesRoomForItsColumns()
    {
        const QString table = QDir(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/compare/bf16_statistics_mix/step0/csv"))
                                  .entryInfoList({QStringLiteral("compare_result_rank0_*.csv")}, QDir::Files)
                                  .value(0)
                                  .absoluteFilePath();
        QVERIFY(!table.isEmpty());
        {
            auto whole = openWindow(QSize(1280, 800));
            QVERIFY(whole);
            whole->openPath(table);
            QTest::qWait(50);
            QVERIFY(whole->inspectorDock()->isVisible());
        }
        qputenv("DS_PAGED_TABLE_BYTES", "1"); // this small table read as a large one would be
        auto w = openWindow(QSize(1280, 800));
        QVERIFY(w);
        w->openPath(table);
        qunsetenv("DS_PAGED_TABLE_BYTES");
        QTRY_VERIFY(!w->inspectorDock()->isVisible());
        QVERIFY(!w->findChild<QDockWidget *>(QStringLiteral("dumpTreeDock"))->isVisible());
        QSignalSpy started(w->context(), &DocumentContext::indexingStarted);
        w->openPath(kCannModel);
        QTRY_VERIFY_WITH_TIMEOUT(started.count() > 0, 20000);
        QTRY_VERIFY(w->inspectorDock()->isVisible());
        QVERIFY(w->findChild<QDockWidget *>(QStringLiteral("dumpTreeDock"))->isVisible());
    }

    /// View lists every dock (its show/hide action) and every central tab, and Reset Layout.
    void viewMenuListsDocksAndTabs()
    {
        auto w = openWindow(QSize(1280, 800));
        QVERIFY(w);
        QMenu *view = w->viewMenu();
        QVERIFY(view);
        const QList<QAction *> actions = view->actions();
        const auto docks = w->findChildren<QDockWidget *>();
        QCOMPARE(docks.size(), 3);
        for (QDockWidget *dock : docks)
            QVERIFY2(actions.contains(dock->toggleViewAction()), qPrintable(dock->windowTitle()));
        QTabWidget *tabs = w->centralTabs();
        for (int i = 0; i < tabs->count(); ++i) {
            auto *tab = view->findChild<QAction *>(QStringLiteral("viewTab%1").arg(i));
            QVERIFY(tab && actions.contains(tab));
            QCOMPARE(tab->text(), tabs->tabText(i));
        }
        // Choosing a tab shows it; the menu follows a tab chosen elsewhere.
        const int last = tabs->count() - 1;
        view->findChild<QAction *>(QStringLiteral("viewTab%1").arg(last))->trigger();
        QCOMPARE(tabs->currentIndex(), last);
        tabs->setCurrentIndex(0);
        QVERIFY(view->findChild<QAction *>(QStringLiteral("viewTab0"))->isChecked());
        QVERIFY(!view->findChild<QAction *>(QStringLiteral("viewTab%1").arg(last))->isChecked());
        // Ctrl+2 shows the second tab.
        w->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(w.get()));
        QTest::keyClick(w.get(), Qt::Key_2, Qt::ControlModifier);
        QCOMPARE(tabs->currentIndex(), 1);
        // A dock's entry hides and shows it.
        w->treeDock()->toggleViewAction()->trigger();
        QVERIFY(w->treeDock()->isHidden());
        w->treeDock()->toggleViewAction()->trigger();
        QVERIFY(w->treeDock()->isVisible());
        QVERIFY(view->findChild<QAction *>(QStringLiteral("resetLayout")));
        QVERIFY(view->findChild<QAction *>(QStringLiteral("find")));
    }

    /// View -> Reset Layout brings back the docks as a new window has them, whatever the user did.
    void resetLayoutBringsBackTheDefault()
    {
        auto reference = openWindow(QSize(1280, 800));
        QVERIFY(reference);
        const int treeWidth = reference->treeDock()->width(), inspectorWidth = reference->inspectorDock()->width();
        reference.reset();

        auto w = openWindow(QSize(1280, 800));
        QVERIFY(w);
        w->treeDock()->hide();
        w->inspectorDock()->setFloating(true);
        w->inspectorDock()->move(5000, 5000);
        w->problemsDock()->show();
        w->removeDockWidget(w->problemsDock());
        w->addDockWidget(Qt::LeftDockWidgetArea, w->problemsDock());
        QTRY_VERIFY(!w->layoutProblem().isEmpty()); // the inspector floats off-screen

        w->viewMenu()->findChild<QAction *>(QStringLiteral("resetLayout"))->trigger();
        QTRY_VERIFY(w->treeDock()->isVisible());
        QVERIFY(!w->inspectorDock()->isFloating());
        QCOMPARE(w->dockWidgetArea(w->treeDock()), Qt::LeftDockWidgetArea);
        QCOMPARE(w->dockWidgetArea(w->inspectorDock()), Qt::RightDockWidgetArea);
        QCOMPARE(w->dockWidgetArea(w->problemsDock()), Qt::BottomDockWidgetArea);
        QVERIFY(w->problemsDock()->isHidden()); // no dump with problems is open
        QTRY_VERIFY2(qAbs(w->treeDock()->width() - treeWidth) <= kTolerance, qPrintable(QString::number(w->treeDock()->width())));
        QTRY_VERIFY2(qAbs(w->inspectorDock()->width() - inspectorWidth) <= kTolerance,
                     qPrintable(QString::number(w->inspectorDock()->width())));
        QVERIFY2(w->layoutProblem().isEmpty(), qPrintable(w->layoutProblem()));
    }

    /// A saved layout that does not fit (made by a window whose content pushed a dock wide, a
    /// layout of an older version, bytes that are no state) is never restored: the window
    /// starts with the default layout. A usable one is restored as saved; one Qt brings back
    /// within reach itself (a dock floating off every screen, a bottom dock taller than the
    /// window) is restored usable.
    void savedLayoutIsChecked_data()
    {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<QString>("expected");
        QTest::addRow("inspector pushed wide") << QStringLiteral("wide") << QStringLiteral("default");
        QTest::addRow("older layout version") << QStringLiteral("version") << QStringLiteral("default");
        QTest::addRow("not a state") << QStringLiteral("garbage") << QStringLiteral("default");
        QTest::addRow("usable layout") << QStringLiteral("usable") << QStringLiteral("saved");
        QTest::addRow("inspector floating off-screen") << QStringLiteral("offscreen") << QStringLiteral("usable");
        QTest::addRow("problems dock taller than the window") << QStringLiteral("tall") << QStringLiteral("usable");
    }
    void savedLayoutIsChecked()
    {
        QFETCH(QString, damage);
        QFETCH(QString, expected);
        const QSize size(1280, 800);
        auto reference = openWindow(size);
        QVERIFY(reference);
        const int treeWidth = reference->treeDock()->width(), inspectorWidth = reference->inspectorDock()->width();
        reference.reset();

        // The state to save, made on a window as the user (or content) left it.
        QByteArray state;
        int savedTree = -1, savedInspector = -1;
        {
            auto w = openWindow(size);
            QVERIFY(w);
            if (damage == QLatin1String("wide")) {
                w->inspectorDock()->widget()->setMinimumWidth(1000); // as a 4-D tensor's heatmap did
                w->resizeDocks({w->inspectorDock()}, {1000}, Qt::Horizontal);
            } else if (damage == QLatin1String("offscreen")) {
                w->inspectorDock()->setFloating(true);
                w->inspectorDock()->move(-20000, 20000);
            } else if (damage == QLatin1String("tall")) {
                w->problemsDock()->show();
                w->problemsDock()->widget()->setMinimumHeight(700);
            } else if (damage == QLatin1String("version")) {
                w->removeDockWidget(w->treeDock()); // the tree on the right, saved by another version
                w->addDockWidget(Qt::RightDockWidgetArea, w->treeDock());
                w->treeDock()->show();
            } else if (damage == QLatin1String("usable")) {
                w->resizeDocks({w->treeDock(), w->inspectorDock()}, {300, 380}, Qt::Horizontal);
            }
            QTest::qWait(50);
            // The layout settles over a few events (longer on a loaded machine): wait for it.
            if (damage != QLatin1String("usable") && damage != QLatin1String("version") && damage != QLatin1String("garbage"))
                QTRY_VERIFY2(!w->layoutProblem().isEmpty(),
                             qPrintable(QStringLiteral("the damage to save is not a broken layout: window %1x%2, problems dock %3 px high, central %4 px high")
                                            .arg(w->width()).arg(w->height()).arg(w->problemsDock()->height()).arg(w->centralWidget()->height())));
            savedTree = w->treeDock()->width();
            savedInspector = w->inspectorDock()->width();
            state = damage == QLatin1String("garbage") ? QByteArray("not a window state")
                    : damage == QLatin1String("version") ? w->saveState(MainWindow::kLayoutVersion - 1)
                                                          : w->saveState(MainWindow::kLayoutVersion);
        }
        QSettings().setValue(MainWindow::stateKey(), state);

        auto w = openWindow(size);
        QVERIFY(w);
        QTest::qWait(50);
        QVERIFY2(w->layoutProblem().isEmpty(), qPrintable(w->layoutProblem()));
        QCOMPARE(w->size(), size);
        QVERIFY(w->treeDock()->isVisible() && w->inspectorDock()->isVisible());
        if (expected == QLatin1String("usable"))
            return; // restored, and within reach (layoutProblem checks the floating dock's title)
        QVERIFY(!w->inspectorDock()->isFloating());
        QCOMPARE(w->dockWidgetArea(w->treeDock()), Qt::LeftDockWidgetArea);
        QCOMPARE(w->dockWidgetArea(w->inspectorDock()), Qt::RightDockWidgetArea);
        const int tree = expected == QLatin1String("saved") ? savedTree : treeWidth;
        const int inspector = expected == QLatin1String("saved") ? savedInspector : inspectorWidth;
        QVERIFY2(qAbs(w->treeDock()->width() - tree) <= kTolerance, qPrintable(QString::number(w->treeDock()->width())));
        QVERIFY2(qAbs(w->inspectorDock()->width() - inspector) <= kTolerance, qPrintable(QString::number(w->inspectorDock()->width())));
        if (expected == QLatin1String("default"))
            QVERIFY(w->problemsDock()->isHidden());
    }

    /// Closing the window saves the layout with its version; a broken one is not saved.
    void closeSavesOnlyUsableLayouts()
    {
        {
            auto w = openWindow(QSize(1280, 800));
            QVERIFY(w);
            w->close();
        }
        QSettings settings;
        QVERIFY(settings.contains(MainWindow::geometryKey()));
        QVERIFY(settings.contains(MainWindow::stateKey()));
        {
            auto w = openWindow(QSize(1280, 800));
            QVERIFY(w);
            QVERIFY(w->restoreState(settings.value(MainWindow::stateKey()).toByteArray(), MainWindow::kLayoutVersion));
            w->inspectorDock()->setFloating(true);
            w->inspectorDock()->move(30000, 30000);
            QTest::qWait(50);
            w->close();
        }
        QVERIFY(!QSettings().contains(MainWindow::stateKey()));
    }
};

QTEST_MAIN(TestWindowLayout)
#include "tst_windowlayout.moc"
