#include "mainwindow.h"

#include "compare/resulttable.h"
#include "compare/resulttablepaged.h"

#include "background.h"
#include "compareview.h"
#include "documentcontext.h"
#include "exportdialog.h"
#include "graphpanel.h"
#include "dumpgraph/graphdiscovery.h"
#include "settingsdialog.h"
#include "models/comparetablemodel.h"
#include "models/dumptreemodel.h"
#include "index/buildindex.h"
#include "index/problems.h"
#include "optablepanel.h"
#include "overflowmarkdelegate.h"
#include "overflowpanel.h"
#include "monitor/monitor.h"
#include "monitorpanel.h"
#include "msprobeanswerpanel.h"
#include "run/monitortrend.h"
#include "precheck/precheck.h"
#include "precheckpanel.h"
#include "run/runcompare.h"
#include "runspanel.h"
#include "tensorinspector.h"
#include "trendspanel.h"
#include "runsetpanel.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QTreeView>

namespace ds {

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent), m_context(new DocumentContext(this))
{
    setWindowTitle(tr("DumpScope"));
    setAcceptDrops(true);

    m_tree = new QTreeView(this);
    m_tree->setModel(m_context->treeModel());
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_tree->header()->setSectionResizeMode(DumpTreeModel::NameColumn, QHeaderView::Interactive);
    m_tree->header()->resizeSection(DumpTreeModel::NameColumn, 250);
    auto *treeDock = new QDockWidget(tr("Dump tree"), this);
    treeDock->setObjectName(QStringLiteral("dumpTreeDock"));
    treeDock->setWidget(m_tree);
    addDockWidget(Qt::LeftDockWidgetArea, treeDock);
    m_treeDock = treeDock;

    m_opTable = new OpTablePanel(this);
    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    // Every tab stays in view (no scroll arrows hiding Compare and Trends): a narrow centre
    // elides the labels instead (the View menu and the tooltips name them in full).
    m_tabs->setUsesScrollButtons(false);
    m_tabs->setElideMode(Qt::ElideRight);
    m_tabs->addTab(m_opTable, tr("Operators"));
    m_runs = new RunsPanel(this);
    m_tabs->addTab(m_runs, tr("Runs"));
    m_overflow = new OverflowPanel(this);
    m_tabs->addTab(m_overflow, tr("Overflow"));
    m_graph = new GraphPanel(this);
    m_tabs->addTab(m_graph, tr("Graph"));
    m_compare = new CompareView(this);
    m_tabs->addTab(m_compare, tr("Compare"));
    m_trends = new TrendsPanel(this);
    m_tabs->addTab(m_trends, tr("Trends"));
    m_runSet = new RunSetPanel(this);
    m_tabs->addTab(m_runSet, tr("Run Set"));
    // Trends names the run set's runs x operators matrix and links to it (issue 34, item 2)
    connect(m_runSet, &RunSetPanel::finished, this, [this] {
        const RunSetResult *r = m_runSet->result();
        m_trends->setRunSet(r ? int(r->paths.size()) : 0, r ? int(r->rows.size()) : 0);
    });
    connect(m_trends, &TrendsPanel::showRunSetRequested, this, [this] { m_tabs->setCurrentWidget(m_runSet); });
    m_tree->setItemDelegate(new OverflowMarkDelegate(DumpTreeModel::OverflowRole, DumpTreeModel::ProblemRole, m_tree));
    m_opTable->view()->setItemDelegate(new OverflowMarkDelegate(OpTableModel::OverflowRole, -1, m_opTable->view()));
    setCentralWidget(m_tabs);

    m_inspector = new TensorInspector(m_context, this);
    auto *inspectorDock = new QDockWidget(tr("Tensor inspector"), this);
    inspectorDock->setObjectName(QStringLiteral("inspectorDock"));
    inspectorDock->setWidget(boundedDockContent(m_inspector));
    addDockWidget(Qt::RightDockWidgetArea, inspectorDock);
    m_inspectorDock = inspectorDock;

    m_problems = new QListWidget(this);
    m_problems->setAlternatingRowColors(true);
    auto *problemsDock = new QDockWidget(tr("Problems"), this);
    problemsDock->setObjectName(QStringLiteral("problemsDock"));
    problemsDock->setWidget(m_problems);
    addDockWidget(Qt::BottomDockWidgetArea, problemsDock);
    problemsDock->hide(); // shown when a dump has unreadable files or files read with warnings
    m_problemsDock = problemsDock;

    m_statusText = new QLabel(tr("Open a dump directory to begin (File \u2192 Open, or drop a folder here)."), this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(220);
    m_progress->setVisible(false);
    m_cancel = new QToolButton(this);
    m_cancel->setText(tr("Cancel"));
    m_cancel->setVisible(false);
    // The run-level compare answer has a label of its own: indexing and overflow messages that
    // arrive later (the overflow scan finishes after the compare) must not replace it.
    m_runStatus = new QLabel(this);
    m_runStatus->setVisible(false);
    m_runStatus->setToolTip(tr("The run-level answer of the last comparison (Runs tab)"));
    // The overflow answer of the open dumps, recomputed whenever they change (updateOverflowStatus).
    m_overflowStatus = new QLabel(this);
    m_overflowStatus->setObjectName(QStringLiteral("overflowStatus"));
    m_overflowStatus->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // a long answer must not widen the window
    m_overflowStatus->setVisible(false);
    statusBar()->addWidget(m_statusText, 1);
    statusBar()->addWidget(m_overflowStatus, 2);
    statusBar()->addWidget(m_runStatus);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);

    createActions();

    connect(m_cancel, &QToolButton::clicked, m_context, &DocumentContext::cancelIndexing);
    connect(m_context, &DocumentContext::indexingStarted, this, [this](const QString &path) {
        docksBack();
        // the runs overview fills from the document's walk of the folder (runsWalked), before
        // the index is complete
        m_runs->awaitRuns(m_context->indexingDump(), path);
        m_closeDump->setEnabled(true);
        m_statusText->setText(tr("Indexing %1\u2026").arg(path));
        m_progress->setValue(0);
        m_progress->setVisible(true);
        m_cancel->setVisible(true);
    });
    connect(m_context, &DocumentContext::runsWalked, m_runs, &RunsPanel::setRuns);
    connect(m_context, &DocumentContext::indexingProgress, m_progress, &QProgressBar::setValue);
    connect(m_context, &DocumentContext::indexingCount, this, [this](qint64 ops) { // the tree fills meanwhile
        const QString path = m_context->treeModel()->dumpPath(m_context->indexingDump());
        if (!path.isEmpty())
            m_statusText->setText(tr("Indexing %1\u2026 %2 operators so far").arg(path, QLocale().toString(ops)));
    });
    connect(m_context, &DocumentContext::indexingFinished, this, &MainWindow::onIndexingFinished);
    connect(m_context, &DocumentContext::dumpClosed, this, &MainWindow::onDumpClosed);
    connect(m_context, &DocumentContext::scopeRead, this, [this](int dump, const std::vector<FileError> &errors) {
        m_scopeErrors[dump] += int(errors.size());
        for (const FileError &e : errors) { // the Problems panel lists what is read
            auto *item = new QListWidgetItem(style()->standardIcon(QStyle::SP_MessageBoxCritical),
                                             QStringLiteral("%1 \u2014 %2").arg(e.file, e.message), m_problems);
            item->setData(Qt::UserRole, dump);
            item->setData(Qt::UserRole + 1, e.file);
            m_problemsDock->show();
        }
        if (!m_context->isIndexing())
            showScopesRead(dump);
        // the table and the graph of the current item, when they waited for this scope
        if (const QModelIndex current = m_tree->currentIndex().siblingAtColumn(0);
            current.isValid() && current.data(DumpTreeModel::DumpRole).toInt() == dump && m_context->isScopeByScope(dump))
            showScopeItem(current);
    });
    connect(m_context, &DocumentContext::openFailed, this, [this](const QString &message) {
        m_progress->setVisible(false);
        m_cancel->setVisible(false);
        m_statusText->setText(message);
        // Not a nested event loop: the paths opened after this one load while it is shown.
        auto *box = new QMessageBox(QMessageBox::Warning, tr("Cannot open"), message, QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, &MainWindow::onCurrentChanged);
    connect(m_opTable, &OpTablePanel::opActivated, this, &MainWindow::onOpActivated);
    connect(m_overflow, &OverflowPanel::showOperator, this, &MainWindow::onOpActivated);
    connect(m_overflow, &OverflowPanel::analysisFinished, this, &MainWindow::onOverflowAnalyzed);
    connect(m_overflow, &OverflowPanel::summaryChanged, this, &MainWindow::updateOverflowStatus);
    connect(m_graph, &GraphPanel::opActivated, this, &MainWindow::onOpActivated);     // graph -> tree, table, inspector
    connect(m_graph, &GraphPanel::recordedNodeActivated, m_inspector, &TensorInspector::showGraphNode); // a database node without dump
    connect(m_opTable, &OpTablePanel::opActivated, m_graph, &GraphPanel::selectOp);   // table -> graph
    connect(m_overflow, &OverflowPanel::showOperator, m_graph, &GraphPanel::selectOp); // overflow -> graph
    connect(m_graph, &GraphPanel::graphShown, this, [this] { // marks may arrive before the graph
        if (const auto *marks = m_overflow->marks(m_graph->dump()))
            m_graph->setOpMarks(*marks);
        if (const auto it = m_firstOverflow.find(m_graph->dump()); it != m_firstOverflow.end())
            m_graph->setFirstOverflowOp(it->second);
    });
    connect(m_graph, &GraphPanel::pairRequested, m_compare, &CompareView::mapOperators); // side-by-side graphs -> mapping
    connect(m_compare, &CompareView::npuTensorSelected, this, [this](int dump, const TensorId &tensorId) {
        const QModelIndex item = m_context->treeModel()->findTensor(dump, tensorId);
        if (item.isValid() && item != m_tree->currentIndex().siblingAtColumn(0)) {
            m_tree->scrollTo(item);
            m_tree->setCurrentIndex(item);
        }
    });
    auto compareToGraph = [this] {
        if (m_compare->npuDump() == m_graph->dump())
            if (const auto result = m_compare->model()->result()) {
                // Both graphs start at the run's first divergence: the row the Compare tab pins.
                const Divergence *first = m_compare->model()->firstDivergence();
                m_graph->setCompareResult(result, m_compare->model()->benchIndex(),
                                          first ? int(first - result->divergences.data()) : 0);
            }
    };
    connect(m_compare, &CompareView::finished, this, compareToGraph);
    connect(m_compare, &CompareView::mappingApplied, this, compareToGraph);
    connect(m_compare, &CompareView::finished, this, &MainWindow::onCompareFinished);
    connect(m_runs, &RunsPanel::scopeActivated, this, &MainWindow::showScope);
    connect(m_runs, &RunsPanel::compareUpdated, this, &MainWindow::onScopesCompared);
    connect(m_runs, &RunsPanel::scanUpdated, this, &MainWindow::onScopesScanned);
    connect(m_trends, &TrendsPanel::readRankChosen, this, [this](qint64 rank) {
        if (m_context->isScopeByScope(m_trendRun.first))
            showScopeByScopeTrends(m_trendRun.first, m_trendRun.second, rank);
    });
    connect(m_runs, &RunsPanel::runsFound, this, [this](int dump) {
        if (const auto index = m_context->index(dump)) // indexed before the walk finished
            m_runs->setIndex(dump, index);
        onCurrentChanged();
    });
    connect(m_problems, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) {
        const int dump = item->data(Qt::UserRole).toInt();
        const QString file = item->data(Qt::UserRole + 1).toString();
        auto *model = m_context->treeModel();
        if (const QString op = item->data(Qt::UserRole + 2).toString(); !op.isEmpty()) { // a warning: its operator
            const QModelIndex i = model->findOp(dump, op);
            if (i.isValid()) {
                m_tree->scrollTo(i);
                m_tree->setCurrentIndex(i);
            }
            return;
        }
        const QModelIndex root = model->dumpItem(dump);
        for (int r = 0; r < model->rowCount(root); ++r) {
            const QModelIndex group = model->index(r, 0, root);
            if (group.data(DumpTreeModel::KindRole).toInt() != int(DumpTreeModel::Kind::ErrorGroup))
                continue;
            for (int e = 0; e < model->rowCount(group); ++e)
                if (model->index(e, 0, group).data().toString() == file)
                    m_tree->setCurrentIndex(model->index(e, 0, group));
        }
    });

    setupContextMenus();
    restoreLayout();
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *openDir = file->addAction(tr("&Open Dump Folder\u2026"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open dump folder"), dialogFolder());
        if (!dir.isEmpty())
            openPath(dir);
    });
    openDir->setShortcut(QKeySequence::Open);
    file->addAction(tr("Open Dump &File\u2026"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open dump file"), dialogFolder());
        if (!path.isEmpty())
            openPath(path);
    });
    QAction *addGraphs = file->addAction(tr("Add &Graph Folder\u2026"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder with GE graph files (ge_proto_*.txt)"), dialogFolder());
        if (!dir.isEmpty()) {
            rememberDialogFolder(dir);
            addGraphFolder(dir);
        }
    });
    addGraphs->setToolTip(tr("GE writes its graph files into the training job's working directory: add that folder "
                             "to link its graphs to the open dumps"));
    QAction *exportAction = file->addAction(tr("&Export Tensors…"), this, &MainWindow::exportSelected);
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    exportAction->setToolTip(tr("Export the selected tensors to .npy or .txt"));
    // Enabled while the selection holds a leaf with values (a statistics-only dump has none).
    // A selection of more than 2,000 rows is not walked here: the dialog counts it.
    auto updateExport = [this, exportAction] {
        const qsizetype rows = m_tree->selectionModel()->selectedRows().size() + m_opTable->view()->selectionModel()->selectedRows().size();
        bool any = rows > 2000;
        ExportCounts counts;
        if (!any)
            for (const ExportItem &item : selectedTensors())
                counts.add(exportBlock(item.index->tensor(item.ref)));
        any = any || counts.exportable > 0;
        exportAction->setEnabled(any);
        exportAction->setToolTip(any || counts.total() == 0 ? tr("Export the selected tensors to .npy or .txt")
                                                            : tr("Nothing to export: %1").arg(counts.text()));
    };
    connect(m_tree->selectionModel(), &QItemSelectionModel::selectionChanged, this, updateExport);
    connect(m_opTable->view()->selectionModel(), &QItemSelectionModel::selectionChanged, this, updateExport);
    connect(m_context, &DocumentContext::selectionChanged, this, updateExport);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    updateRecentMenu();
    m_closeDump = file->addAction(tr("&Close Dump"), this, &MainWindow::closeCurrentDump);
    m_closeDump->setObjectName(QStringLiteral("closeDumpAction"));
    m_closeDump->setShortcut(QKeySequence::Close);
    m_closeDump->setToolTip(tr("Close the dump of the selected tree item; the other open dumps stay"));
    m_closeDump->setEnabled(false);
    file->addSeparator();
    QAction *prefs = file->addAction(tr("&Settings…"), this, [this] { SettingsDialog(this).exec(); });
    prefs->setMenuRole(QAction::PreferencesRole);
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    QMenu *analysis = menuBar()->addMenu(tr("&Analysis"));
    QAction *firstOverflow = analysis->addAction(tr("Go to &First Overflow"), this, [this] { goToFirstOverflow(); });
    firstOverflow->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F1));
    firstOverflow->setToolTip(tr("Select the first overflow (the earlier of the OpDebug records and the software scan, as the status bar names it) and show its operator"));
    QAction *compare = analysis->addAction(tr("&Compare with\u2026"), this, [this] { compareWith(); });
    compare->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    compare->setToolTip(tr("Compare the selected (NPU) dump with a bench dump (GPU/CPU) and find the first divergence"));
    QAction *runSet = analysis->addAction(tr("Compare &Runs\u2026"), this, [this] { compareRunsIn(); });
    runSet->setObjectName(QStringLiteral("compareRuns"));
    runSet->setToolTip(tr("Compare three or more runs of the same training with each other: identical runs, the run that "
                          "departs first, nondeterministic operators (Run Set tab)"));
    QToolBar *tools = addToolBar(tr("Main"));
    tools->setObjectName(QStringLiteral("mainToolBar"));
    openDir->setIconText(tr("Open Dump Folder"));
    exportAction->setIconText(tr("Export Tensors"));
    tools->addAction(openDir);
    tools->addAction(exportAction);
    firstOverflow->setIconText(tr("First Overflow"));
    tools->addAction(firstOverflow);
    createViewMenu();
    createHelpMenu();
}

void MainWindow::openPath(const QString &path)
{
    addRecent(path);
    // A folder of GE graph files only (GE writes them into the job's working directory) is
    // no dump: its graphs go to the Graph tab. (A bounded walk of directory entries.)
    if (isGraphOnlyFolder(path)) {
        addGraphFolder(path);
        return;
    }
    // msprobe's own answers (overflow_check's anomaly_analyze, compare -da's JSON): their own tab.
    if (QFileInfo(path).isFile() && isMsprobeAnswerName(QFileInfo(path).fileName())) {
        showMsprobeAnswer(path);
        return;
    }
    // msprobe's API precheck results (acc_check / api_precision_compare tables, ut_error_data*):
    // their own tab. (A listing of one folder.)
    if (precheck::looksLikePrecheck(path)) {
        showPrecheck(path);
        return;
    }
    // msprobe's training monitor output (CSVs in rank folders, anomaly files): its own tab.
    if (monitor::looksLikeMonitor(path)) {
        showMonitor(path);
        return;
    }
    // msprobe's compare table (a .csv or .xlsx file): its rows on the Compare tab.
    if (const QFileInfo info(path); info.isFile() && (isCompareTableName(path) || info.suffix().compare(QLatin1String("csv"), Qt::CaseInsensitive) == 0
                                                       || info.suffix().compare(QLatin1String("xlsx"), Qt::CaseInsensitive) == 0)) {
        m_tabs->setCurrentWidget(m_compare);
        // a table read paged links no dumps: with none open, the empty tree and inspector step aside
        if (info.suffix().compare(QLatin1String("csv"), Qt::CaseInsensitive) == 0 && info.size() >= pagedTableThreshold())
            docksAsideForResults();
        m_compare->openTable(path);
        // the first screen: what it is and where to go next, in one line (the full path on hover)
        m_statusText->setText(tr("%1: msprobe's rows and Result on the Compare tab. Next: select a row, or filter above.").arg(info.fileName()));
        m_statusText->setToolTip(path);
        return;
    }
    m_context->openDump(path);
}

void MainWindow::docksAsideForResults()
{
    if (m_docksAside || !m_context->treeModel()->dumpIds().isEmpty() || !m_treeDock->isVisible() || m_treeDock->isFloating())
        return;
    m_docksAside = true;
    m_treeDock->hide();
    m_inspectorDock->hide();
}

void MainWindow::docksBack()
{
    if (!m_docksAside)
        return;
    m_docksAside = false;
    m_treeDock->show();
    m_inspectorDock->show();
}

void MainWindow::showPrecheck(const QString &path)
{
    docksAsideForResults();
    if (!m_precheck) {
        m_precheck = new PrecheckPanel(this);
        m_precheck->setObjectName(QStringLiteral("precheckPanel"));
        m_tabs->addTab(m_precheck, tr("Precheck"));
    }
    m_tabs->setCurrentWidget(m_precheck);
    m_precheck->open(path);
    m_statusText->setText(tr("Opened msprobe's API precheck results %1 (Precheck tab).").arg(path));
}

void MainWindow::showMonitor(const QString &path)
{
    docksAsideForResults();
    if (!m_monitor) {
        m_monitor = new MonitorPanel(this);
        m_monitor->setObjectName(QStringLiteral("monitorPanel"));
        // its series also go to the Trends tab (step x module x rank, as a run's statistics)
        connect(m_monitor, &MonitorPanel::anomalyActivated, this, &MainWindow::selectMonitorAnomaly);
        connect(m_monitor, &MonitorPanel::opened, this, [this] {
            if (const auto doc = m_monitor->document())
                m_trends->setMonitor(doc, tr("msprobe monitor output %1").arg(doc->root));
        });
        m_tabs->addTab(m_monitor, tr("Monitor"));
    }
    m_tabs->setCurrentWidget(m_monitor);
    m_monitor->open(path);
    m_statusText->setText(tr("Opened msprobe's monitor output %1 (Monitor tab).").arg(path));
}

void MainWindow::showMsprobeAnswer(const QString &path)
{
    docksAsideForResults();
    if (!m_answer) {
        m_answer = new MsprobeAnswerPanel(this);
        m_answer->setObjectName(QStringLiteral("msprobeAnswerPanel"));
        connect(m_answer, &MsprobeAnswerPanel::opRequested, this, &MainWindow::selectAnswerOp);
        m_tabs->addTab(m_answer, tr("msprobe Answer"));
    }
    m_tabs->setCurrentWidget(m_answer);
    m_answer->open(path);
    m_statusText->setText(tr("Opened msprobe's answer %1 (msprobe Answer tab).").arg(path));
}

bool MainWindow::selectAnswerOp(const QString &rank, const QString &step, const QString &opName)
{
    const QString rankNumber = rank.section(QLatin1Char('_'), -1); // "rank_1" -> "1"
    const auto sameRank = [&](const QString &level) { // "rank1"; no rank level: rank 0 (msprobe's single process)
        return level.isEmpty() ? rankNumber == QLatin1String("0") : level.endsWith(rankNumber) && level.chopped(rankNumber.size()).endsWith(QLatin1String("rank"));
    };
    auto *model = m_context->treeModel();
    for (const int d : model->dumpIds()) {
        const auto index = m_context->index(d);
        if (!index)
            continue;
        for (size_t i = 0; i < index->ops.size(); ++i) {
            const OpRecord &op = index->ops[i];
            if (op.opName.toString() != opName || !sameRank(op.levels->rank) || (!step.isEmpty() && !op.levels->step.isEmpty() && op.levels->step != step))
                continue;
            const QModelIndex item = model->findOp(d, int(i));
            if (!item.isValid())
                continue;
            m_tree->scrollTo(item);
            m_tree->setCurrentIndex(item);
            m_statusText->setText(tr("Selected %1 of %2 in the open dump.").arg(opName, rank));
            return true;
        }
    }
    m_statusText->setText(tr("%1 of %2%3 is in no open dump: open the dump msprobe read (File \u2192 Open), then double-click the rank again.")
                              .arg(opName, rank, step.isEmpty() ? QString() : QStringLiteral(", ") + step));
    return false;
}

bool MainWindow::selectMonitorAnomaly(const monitor::Anomaly &anomaly)
{
    auto *model = m_context->treeModel();
    for (const int d : model->dumpIds()) {
        const auto index = m_context->index(d);
        const int op = index ? monitorAnomalyOp(*index, anomaly) : -1;
        const QModelIndex item = op >= 0 ? model->findOp(d, op) : QModelIndex();
        if (!item.isValid())
            continue;
        m_tree->scrollTo(item);
        m_tree->setCurrentIndex(item);
        m_statusText->setText(tr("Selected %1, where the monitor's %2 anomaly of step %3, rank %4 is.")
                                  .arg(index->ops[size_t(op)].opName.toString(), anomaly.module()).arg(anomaly.step).arg(anomaly.rank));
        return true;
    }
    m_statusText->setText(tr("No open dump holds module %1 at step %2, rank %3: open the dump of that step (File \u2192 Open) "
                             "with module entries (level L0 or mix), then double-click the anomaly again.")
                              .arg(anomaly.module()).arg(anomaly.step).arg(anomaly.rank));
    return false;
}

void MainWindow::openAfterFirstPaint(const QStringList &paths)
{
    m_pendingOpen += paths;
    QTimer::singleShot(1000, this, &MainWindow::openPending); // never shown (or never painted)
}

void MainWindow::paintEvent(QPaintEvent *event)
{
    QMainWindow::paintEvent(event);
    // The children paint after this, in the same event: the open starts once the frame is out,
    // after what waited for the paint (a timer due earlier fires first; a zero timer, a posted
    // event, would go before it).
    if (!m_pendingOpen.isEmpty())
        QTimer::singleShot(1, this, &MainWindow::openPending);
}

void MainWindow::openPending()
{
    for (const QString &path : std::exchange(m_pendingOpen, {}))
        openPath(path);
}

void MainWindow::addRecent(const QString &path)
{
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("recent")).toStringList();
    const QString abs = QFileInfo(path).absoluteFilePath();
    recent.removeAll(abs);
    recent.prepend(abs);
    settings.setValue(QStringLiteral("recent"), recent.mid(0, 10));
    rememberDialogFolder(abs); // the next Open dialog starts beside it
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    if (!m_recentMenu)
        return;
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(QStringLiteral("recent")).toStringList();
    for (const QString &path : recent)
        m_recentMenu->addAction(path, this, [this, path] { openPath(path); });
    m_recentMenu->setEnabled(!recent.isEmpty());
}

bool MainWindow::selectTensor(const TensorId &tensorId)
{
    auto *model = m_context->treeModel();
    for (const int d : model->dumpIds()) {
        const QModelIndex i = model->findTensor(d, tensorId);
        if (i.isValid()) {
            m_tree->scrollTo(i);
            m_tree->setCurrentIndex(i);
            return true;
        }
    }
    return false;
}

std::vector<ExportItem> MainWindow::selectedTensors() const
{
    std::vector<ExportItem> items;
    auto addOp = [&](const std::shared_ptr<const DumpIndex> &index, int op) {
        const auto &tensors = index->ops[size_t(op)].tensors;
        for (size_t t = 0; t < tensors.size(); ++t)
            if (tensors[t].io() == IoKind::Input || tensors[t].io() == IoKind::Output)
                items.push_back({index, {op, int(t)}});
    };
    for (const QModelIndex &i : m_tree->selectionModel()->selectedRows()) {
        const auto index = m_context->index(i.data(DumpTreeModel::DumpRole).toInt());
        if (!index)
            continue;
        const auto kind = DumpTreeModel::Kind(i.data(DumpTreeModel::KindRole).toInt());
        if (kind == DumpTreeModel::Kind::Tensor) {
            if (auto ref = index->find(i.data(DumpTreeModel::TensorIdRole).value<TensorId>()))
                items.push_back({index, *ref});
        } else if (kind == DumpTreeModel::Kind::Op) {
            addOp(index, index->opIndex(i.data(DumpTreeModel::OpPathRole).toString()));
        }
    }
    if (items.empty() && m_opTable->model()->dumpIndex())
        for (const QModelIndex &i : m_opTable->view()->selectionModel()->selectedRows())
            addOp(m_opTable->model()->dumpIndex(), i.data(OpTableModel::OpRole).toInt());
    if (items.empty())
        if (const auto index = m_context->index(m_context->selectedDump()))
            if (auto ref = index->find(m_context->selectedTensor()))
                items.push_back({index, *ref});
    // Selecting an op and one of its tensors must not export it twice.
    std::sort(items.begin(), items.end(), [](const ExportItem &a, const ExportItem &b) {
        return std::tie(a.index, a.ref.op, a.ref.tensor) < std::tie(b.index, b.ref.op, b.ref.tensor);
    });
    items.erase(std::unique(items.begin(), items.end(), [](const ExportItem &a, const ExportItem &b) {
                    return a.index == b.index && a.ref == b.ref;
                }), items.end());
    return items;
}

void MainWindow::exportSelected()
{
    auto items = selectedTensors();
    if (items.empty()) {
        QMessageBox::information(this, tr("Export tensors"), tr("Select tensors or operators in the dump tree or the operator table first."));
        return;
    }
    auto *dialog = new ExportDialog(std::move(items), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
}

void MainWindow::onCurrentChanged()
{
    const QModelIndex i = m_tree->currentIndex().siblingAtColumn(0);
    auto *model = m_context->treeModel();
    const int dump = i.data(DumpTreeModel::DumpRole).toInt();
    const auto index = m_context->index(dump);
    if (i.isValid()) { // the runs overview and the trends follow the run of the current item
        int runDump = -1;
        const QString run = runOfItem(i, runDump);
        m_runs->showRun(runDump, run);
        if (index && m_runs->runs(runDump) && m_trendRun != std::pair{runDump, run}) {
            m_trendRun = {runDump, run};
            m_trends->setReadRanks({}, -1); // every rank is in the index
            if (const auto runIdx = runIndex(runDump, run))
                m_trends->setStatistics(runIdx, runIdx->openedPath + (run.isEmpty() ? QString() : QLatin1Char('/') + run));
        } else if (m_context->isScopeByScope(runDump) && m_runs->runs(runDump) && m_trendRun != std::pair{runDump, run}) {
            m_trendRun = {runDump, run};
            showScopeByScopeTrends(runDump, run);
        }
    }
    const auto kind = DumpTreeModel::Kind(i.data(DumpTreeModel::KindRole).toInt());
    if (index && i.isValid() && kind != DumpTreeModel::Kind::Error && kind != DumpTreeModel::Kind::ErrorGroup) {
        const QString opPath = i.data(DumpTreeModel::OpPathRole).toString();
        m_opTable->showOps(dump, index, model->opsUnder(i), opPath.isEmpty() ? -1 : index->opIndex(opPath));
        const auto *marks = m_overflow->marks(dump);
        m_opTable->model()->setOverflowMarks(marks ? *marks : std::unordered_map<int, int>{});
        if (m_graph->dump() != dump && m_context->isScopeByScope(m_graph->dump())) // it followed a scope of that dump: back to this one's
            m_graph->loadForDump(index->openedPath, index, dump);
    } else if (!index && i.isValid() && m_context->isScopeByScope(dump) && kind != DumpTreeModel::Kind::Error &&
               kind != DumpTreeModel::Kind::ErrorGroup) {
        showScopeItem(i);
    }
    if (kind == DumpTreeModel::Kind::Op && model->rowCount(i) > 0) {
        // An operator shows its first output (or its first tensor) in the inspector.
        QModelIndex pick = model->index(0, 0, i);
        for (int r = 0; r < model->rowCount(i); ++r)
            if (model->index(r, 0, i).data().toString().startsWith(QLatin1String("output"))) {
                pick = model->index(r, 0, i);
                break;
            }
        m_context->selectTensor(dump, pick.data(DumpTreeModel::TensorIdRole).value<TensorId>());
        return;
    }
    const auto id = i.data(DumpTreeModel::TensorIdRole).value<TensorId>();
    m_context->selectTensor(id.isNull() ? -1 : dump, id);
}

void MainWindow::compareRunsIn(QString folder)
{
    if (folder.isEmpty())
        folder = QFileDialog::getExistingDirectory(this, tr("Folder holding three or more runs"));
    if (folder.isEmpty())
        return;
    m_runSet->compareRunsIn(folder);
    m_tabs->setCurrentWidget(m_runSet);
}

void MainWindow::compareWith(QString benchPath)
{
    // No current item (the dump that held it was closed): the run the Runs overview shows.
    int dump = m_tree->currentIndex().isValid() ? m_tree->currentIndex().data(DumpTreeModel::DumpRole).toInt()
                                                : std::max(m_runs->dump(), 0);
    // In a folder of several runs, the run of the current item is compared.
    m_compareRun = m_tree->currentIndex().isValid() ? runOfItem(m_tree->currentIndex().siblingAtColumn(0), dump)
                   : dump == m_runs->dump()         ? m_runs->runPath()
                                                    : QString();
    const auto npu = runIndex(dump, m_compareRun);
    if (!npu && m_context->isScopeByScope(dump)) { // no index of the whole run: compared pair by pair
        compareScopeByScope(dump, benchPath);
        return;
    }
    if (!npu) {
        QMessageBox::information(this, tr("Compare"), tr("Open the NPU dump first and wait until it is indexed; then compare it with a bench dump."));
        return;
    }
    if (benchPath.isEmpty())
        benchPath = QFileDialog::getExistingDirectory(this, tr("Bench dump (GPU/CPU) to compare %1 with").arg(npu->openedPath), dialogFolder());
    if (benchPath.isEmpty())
        return;
    rememberDialogFolder(benchPath);
    m_tabs->setCurrentWidget(m_compare);
    m_compare->start(npu, dump, benchPath);
}

void MainWindow::onOpActivated(int dump, int op)
{
    const auto index = m_context->index(dump);
    // a dump opened scope by scope: `op` is of the scope the table and the graph show
    const QModelIndex item = index                             ? m_context->treeModel()->findOp(dump, op)
                             : m_context->isScopeByScope(dump) ? m_context->treeModel()->findScopeOp(dump, m_opTable->model()->dumpIndex().get(), op)
                                                               : QModelIndex();
    if (item.isValid() && item != m_tree->currentIndex().siblingAtColumn(0)) {
        m_tree->scrollTo(item);
        m_tree->setCurrentIndex(item);
    }
}

void MainWindow::onIndexingFinished(int dump, bool cancelled, int ops, int errors)
{
    m_progress->setVisible(false);
    m_cancel->setVisible(false);
    if (m_context->isScopeByScope(dump)) { // nothing indexed yet: say what is read, not totals
        m_runs->setScopeByScope(dump);
        selectInitialItem(dump);
        showScopesRead(dump);
        return;
    }
    const QString what = tr("%1, %2").arg(tr("%n operator(s)", nullptr, ops), tr("%n unreadable file(s)", nullptr, errors));
    m_statusText->setText(cancelled ? tr("Indexing cancelled: %1 indexed so far.").arg(what) : tr("Indexed %1.").arg(what));
    selectInitialItem(dump);
    if (const auto index = m_context->index(dump); index && !cancelled && recognisedNothing(*index)) {
        // Nothing to index: a folder holding graph files among other files (a job's working
        // directory) opened as another path? (checked off the GUI thread) Else the status bar
        // says what was looked for (the CLI's message).
        const QString path = index->openedPath;
        auto *watcher = new QFutureWatcher<bool>(this);
        connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, path, dump, nothing = nothingRecognisedMessage(*index)] {
            watcher->deleteLater();
            if (!watcher->result()) {
                m_statusText->setText(nothing);
                return;
            }
            m_context->closeDump(dump); // the empty entry goes (the other dumps keep their numbers)
            addGraphFolder(path);
        });
        watcher->setFuture(QtConcurrent::run(backgroundPool(), [path] { return holdsGraphFiles(path); }));
        return;
    }
    if (const auto index = m_context->index(dump); index && !cancelled) {
        m_overflow->analyzeOnOpen(dump, index);
        m_graph->loadForDump(index->openedPath, index, dump); // GE graph files in or next to the dump (and added graph folders), else the msprobe module hierarchy
    }
    if (const auto index = m_context->index(dump))
        m_runs->setIndex(dump, index);
    if (const auto index = m_context->index(dump))
        if (const int warnings = addProblems(dump, *index, m_context->finishedProblems()))
            m_statusText->setText(m_statusText->text() + QLatin1Char(' ') + tr("%n file warning(s): see Problems.", nullptr, warnings));
}

void MainWindow::showScopesRead(int dump)
{
    // Short enough for the status bar of a 1280-px window; unreadable files only when there are some.
    const auto [scopes, read] = m_context->treeModel()->scopesRead(dump);
    QString text = tr("Opened scope by scope: the operators of %1 of %2 scopes read (select or expand a scope to read it).")
                       .arg(QLocale().toString(read), QLocale().toString(scopes));
    if (const int errors = m_scopeErrors.value(dump))
        text += QLatin1Char(' ') + tr("%n unreadable file(s) in them: see Problems.", nullptr, errors);
    m_statusText->setText(text);
}

int MainWindow::addProblems(int dump, const DumpIndex &index, const std::vector<Problem> &problems)
{
    // Unreadable files (errors), then files read with inconsistencies (warnings). A dump of
    // millions of entries could warn about many: the list shows the first kMaxWarnings.
    constexpr int kMaxWarnings = 500;
    const QIcon errorIcon = style()->standardIcon(QStyle::SP_MessageBoxCritical);
    const QIcon warningIcon = style()->standardIcon(QStyle::SP_MessageBoxWarning);
    int warnings = 0, hidden = 0;
    for (const Problem &p : problems) {
        const bool error = p.severity == Problem::Severity::Error;
        if (!error && ++warnings > kMaxWarnings) {
            ++hidden;
            continue;
        }
        auto *item = new QListWidgetItem(error ? errorIcon : warningIcon,
                                         p.entry.isEmpty() ? QStringLiteral("%1 \u2014 %2").arg(p.file, p.message)
                                                           : QStringLiteral("%1 (%2) \u2014 %3").arg(p.file, p.entry, p.message),
                                         m_problems);
        item->setData(Qt::UserRole, dump);
        item->setData(Qt::UserRole + 1, p.file);
        item->setData(Qt::UserRole + 2, p.op >= 0 ? index.ops[size_t(p.op)].relPath.toString() : QString());
        item->setToolTip(error ? tr("Unreadable: %1").arg(index.rootDir + QLatin1Char('/') + p.file)
                               : tr("Read with a warning: %1").arg(index.rootDir + QLatin1Char('/') + p.file));
    }
    if (hidden)
        (new QListWidgetItem(tr("\u2026 and %n more warning(s) (dumpscope-cli info --json lists them all)", nullptr, hidden), m_problems))
            ->setData(Qt::UserRole, dump); // goes with its dump (onDumpClosed)
    if (m_problems->count())
        m_problemsDock->show();
    return warnings;
}

void MainWindow::addGraphFolder(const QString &path)
{
    m_graph->addGraphPaths({path});
    m_tabs->setCurrentWidget(m_graph);
    m_statusText->setText(m_graph->dump() >= 0 ? tr("Graph folder %1 added: its graphs are linked to the open dump (Graph tab).").arg(path)
                                               : tr("Graph folder %1 added: open the dump to link its operators to the graph.").arg(path));
}

bool MainWindow::goToFirstOverflow()
{
    for (const int d : m_context->treeModel()->dumpIds())
        if (m_overflow->selectFirst(d)) {
            m_tabs->setCurrentWidget(m_overflow);
            m_overflow->showLinkedOperator();
            return true;
        }
    if (scanScopeByScope()) // a run opened scope by scope: scanned scope by scope on request
        return false;
    m_statusText->setText(tr("No overflow found in the open dumps."));
    return false;
}

void MainWindow::onOverflowAnalyzed(int dump)
{
    const std::unordered_map<int, int> *marks = m_overflow->marks(dump);
    if (!marks)
        return;
    m_context->treeModel()->setOverflowMarks(dump, *marks);
    if (m_opTable->model()->dump() == dump)
        m_opTable->model()->setOverflowMarks(*marks);
    // The one first overflow (run/firstoverflow.h), as the status bar and the panel's star name it.
    const int first = m_overflow->firstOverflowOp(dump);
    m_firstOverflow[dump] = first;
    if (m_graph->dump() == dump) {
        m_graph->setOpMarks(*marks);
        m_graph->setFirstOverflowOp(first);
    }
    // The first anomaly across the steps and ranks of each run (communication-op clock).
    if (const auto *runs = m_overflow->runAnswers(dump); m_context->index(dump) && runs)
        m_runs->setOverflow(dump, *runs);
}

void MainWindow::updateOverflowStatus()
{
    QString line = m_overflow->statusLine(); // from every open dump (One source of truth)
    for (const auto &[dump, scanned] : m_scopeScans) // and the runs opened scope by scope, scanned so
        line += (line.isEmpty() ? QString() : QStringLiteral("; ")) + scanned;
    m_overflowStatus->setText(line);
    m_overflowStatus->setToolTip(m_overflow->statusToolTip());
    m_overflowStatus->setVisible(!line.isEmpty());
}

QString MainWindow::runOfItem(const QModelIndex &item, int &dump) const
{
    dump = item.data(DumpTreeModel::DumpRole).toInt();
    QString levelsRun;
    for (QModelIndex i = item; i.isValid(); i = i.parent())
        if (DumpTreeModel::Kind(i.data(DumpTreeModel::KindRole).toInt()) == DumpTreeModel::Kind::Run) {
            levelsRun = i.data(DumpTreeModel::LevelRole).toString();
            break;
        }
    const auto tree = m_runs->runs(dump);
    return tree ? RunsPanel::runPathOf(*tree, levelsRun) : QString();
}

std::shared_ptr<const DumpIndex> MainWindow::runIndex(int dump, const QString &runPath) const
{
    const auto index = m_context->index(dump);
    if (!index || index->ops.empty() || index->ops.front().levels->run.isEmpty())
        return index; // one run
    return runSubIndex(*index, runPath.isEmpty() ? QStringLiteral(".") : runPath);
}

void MainWindow::showScope(int dump, const QString &runPath, const QString &scopeId)
{
    const auto index = m_context->index(dump);
    if (!index)
        return;
    const auto tree = m_runs->runs(dump);
    for (const OpRecord &op : index->ops) {
        if (scopeIdOf(*op.levels) != scopeId || (tree && RunsPanel::runPathOf(*tree, op.levels->run) != runPath))
            continue;
        const QModelIndex item = m_context->treeModel()->findLevels(dump, *op.levels);
        if (item.isValid()) {
            m_tree->scrollTo(item);
            m_tree->setCurrentIndex(item);
            m_tree->expand(item);
            m_tabs->setCurrentWidget(m_opTable);
        }
        return;
    }
}

void MainWindow::onCompareFinished()
{
    const RunAnswer *answer = m_compare->runAnswer();
    const auto result = m_compare->model()->result();
    if (!answer || !result)
        return;
    m_runs->setCompare(m_compare->npuDump(), m_compareRun, m_compare->runScopes(), *answer);
    m_trends->setComparison(m_compare->npuIndex(), result, answer->agreeUpTo,
                            tr("%1 compared with its bench run — %2").arg(m_compare->npuIndex()->openedPath, answer->line()));
    m_runStatus->setText(tr("Run: %1").arg(answer->line()));
    m_runStatus->setVisible(true);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    saveLayout();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    for (const QUrl &url : event->mimeData()->urls())
        if (url.isLocalFile())
            openPath(url.toLocalFile());
}

} // namespace ds
