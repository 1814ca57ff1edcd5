// The main window's layout: default dock sizes, the View menu, Reset Layout, and a saved
// layout that is checked before it is kept (a broken one falls back to the default).
#include "mainwindow.h"

#include "models/dumptreemodel.h"

#include <QAction>
#include <QActionGroup>
#include <QDockWidget>
#include <QGuiApplication>
#include <QHeaderView>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QShowEvent>
#include <QTabBar>
#include <QTabWidget>
#include <QToolBar>
#include <QTreeView>

#include <algorithm>

namespace ds {

namespace {

// Share of the window a side dock may take in a usable layout, and the room the central tabs
// keep (the smaller of the pixels and the share of the window).
constexpr double kMaxDockShare = 0.6;
constexpr int kMinCentralWidth = 320;
constexpr double kMinCentralShare = 0.3;
constexpr int kMinCentralHeight = 200;
constexpr int kMinDockWidth = 60; ///< a visible side dock narrower than this is lost to the user

} // namespace

QString MainWindow::geometryKey() { return QStringLiteral("window/geometry"); }
QString MainWindow::stateKey() { return QStringLiteral("window/state"); }

QWidget *MainWindow::boundedDockContent(QWidget *content)
{
    auto *scroll = new QScrollArea;
    scroll->setObjectName(content->objectName() + QStringLiteral("Scroll"));
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    // The dock's minimum is the scroll area's, not the content's.
    scroll->setMinimumSize(120, 120);
    return scroll;
}

void MainWindow::restoreLayout()
{
    if (!QSettings().contains(geometryKey()))
        resize(1280, 800);
    applyDefaultDockSizes();
    m_defaultState = saveState(kLayoutVersion);
    QSettings settings;
    restoreGeometry(settings.value(geometryKey()).toByteArray());
    // A state saved by another layout version (or none) is refused here; a state of this
    // version is checked once the window is laid out (checkRestoredLayout).
    m_stateRestored = restoreState(settings.value(stateKey()).toByteArray(), kLayoutVersion);
}

void MainWindow::applyDefaultDockSizes()
{
    // Centre first: at 1280 px the tree takes 281, the inspector 460 and the tabs ~530.
    const int w = width();
    const int tree = std::clamp(int(w * 0.22), 220, 380);
    const int inspector = std::clamp(int(w * 0.36), 320, 700);
    resizeDocks({m_treeDock, m_inspectorDock}, {tree, inspector}, Qt::Horizontal);
    resizeDocks({m_problemsDock}, {110}, Qt::Vertical);
    // The names take the tree's width (operator names are long; the counts, sizes and notes
    // are a scroll away, and the Operators tab counts the operators of the level too).
    m_tree->header()->resizeSection(DumpTreeModel::NameColumn, std::max(140, tree - 24));
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    if (!m_layoutChecked && !event->spontaneous()) {
        m_layoutChecked = true;
        checkRestoredLayout();
    }
}

void MainWindow::checkRestoredLayout()
{
    if (!m_stateRestored) {
        applyDefaultDockSizes(); // for the size the window was shown at
        return;
    }
    const QString problem = layoutProblem();
    if (problem.isEmpty())
        return;
    qInfo("DumpScope: the saved window layout is not usable (%s); the default layout is shown.", qPrintable(problem));
    resetLayout();
}

QString MainWindow::layoutProblem() const
{
    const int w = width(), h = height();
    QStringList problems;
    for (QDockWidget *dock : findChildren<QDockWidget *>()) {
        if (dock->isHidden())
            continue;
        if (dock->isFloating()) {
            // Reachable: a part of its title bar lies on some screen.
            const QRect title(dock->frameGeometry().topLeft(), QSize(dock->frameGeometry().width(), 24));
            bool onScreen = false;
            for (const QScreen *screen : QGuiApplication::screens()) {
                const QRect common = title.intersected(screen->availableGeometry());
                onScreen = onScreen || (common.width() >= std::min(60, title.width()) && common.height() >= 8);
            }
            if (!onScreen)
                problems << QStringLiteral("%1 floats off-screen at %2,%3").arg(dock->objectName()).arg(dock->x()).arg(dock->y());
            continue;
        }
        const Qt::DockWidgetArea area = dockWidgetArea(dock);
        if (area == Qt::LeftDockWidgetArea || area == Qt::RightDockWidgetArea) {
            if (dock->width() > w * kMaxDockShare)
                problems << QStringLiteral("%1 is %2 px wide of %3").arg(dock->objectName()).arg(dock->width()).arg(w);
            else if (dock->width() < kMinDockWidth)
                problems << QStringLiteral("%1 is %2 px wide").arg(dock->objectName()).arg(dock->width());
        } else if (dock->height() > h * kMaxDockShare) {
            problems << QStringLiteral("%1 is %2 px high of %3").arg(dock->objectName()).arg(dock->height()).arg(h);
        }
    }
    const QWidget *central = centralWidget();
    const int minWidth = std::min(kMinCentralWidth, int(w * kMinCentralShare));
    const int minHeight = std::min(kMinCentralHeight, int(h * kMinCentralShare));
    if (central && (central->width() < minWidth || central->height() < minHeight))
        problems << QStringLiteral("the central tabs are squeezed to %1 x %2 px").arg(central->width()).arg(central->height());
    return problems.join(QStringLiteral("; "));
}

void MainWindow::resetLayout()
{
    restoreState(m_defaultState, kLayoutVersion);
    // The Problems dock starts hidden and is shown when a dump has problems.
    m_problemsDock->setVisible(m_problems->count() > 0);
    applyDefaultDockSizes();
}

void MainWindow::saveLayout()
{
    docksBack(); // docks put aside for a result document are not the user's layout
    QSettings settings;
    settings.setValue(geometryKey(), saveGeometry());
    // Never keep a broken layout: the next start shows the default instead.
    if (layoutProblem().isEmpty())
        settings.setValue(stateKey(), saveState(kLayoutVersion));
    else
        settings.remove(stateKey());
}

void MainWindow::createViewMenu()
{
    m_viewMenu = menuBar()->addMenu(tr("&View"));
    m_viewMenu->setObjectName(QStringLiteral("viewMenu"));
    for (QDockWidget *dock : {m_treeDock, m_inspectorDock, m_problemsDock})
        m_viewMenu->addAction(dock->toggleViewAction());
    if (auto *tools = findChild<QToolBar *>(QStringLiteral("mainToolBar")))
        m_viewMenu->addAction(tools->toggleViewAction());
    m_viewMenu->addSeparator();
    // One entry per central tab (Ctrl+1...), checked while it is shown.
    auto *tabGroup = new QActionGroup(this);
    for (int i = 0; i < m_tabs->count(); ++i) {
        QAction *tab = m_viewMenu->addAction(m_tabs->tabText(i), this, [this, i] { m_tabs->setCurrentIndex(i); });
        tab->setObjectName(QStringLiteral("viewTab%1").arg(i));
        tab->setCheckable(true);
        tab->setChecked(i == m_tabs->currentIndex());
        tabGroup->addAction(tab);
        if (i < 9)
            tab->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
        m_tabs->setTabToolTip(i, tab->text() + QStringLiteral(" (%1)").arg(tab->shortcut().toString(QKeySequence::NativeText)));
    }
    connect(m_tabs, &QTabWidget::currentChanged, tabGroup, [tabGroup](int i) {
        if (i >= 0 && i < int(tabGroup->actions().size()))
            tabGroup->actions().at(i)->setChecked(true);
    });
    m_viewMenu->addSeparator();
    QAction *find = m_viewMenu->addAction(tr("&Find\u2026"), this, &MainWindow::focusSearch);
    find->setObjectName(QStringLiteral("find"));
    find->setShortcut(QKeySequence::Find);
    find->setToolTip(tr("Go to the search box of the current view (the graph's search on the Graph tab, else the operator filter)"));
    m_viewMenu->addSeparator();
    QAction *reset = m_viewMenu->addAction(tr("&Reset Layout"), this, &MainWindow::resetLayout);
    reset->setObjectName(QStringLiteral("resetLayout"));
    reset->setToolTip(tr("Bring back the default docks, toolbar and sizes"));
}

} // namespace ds
