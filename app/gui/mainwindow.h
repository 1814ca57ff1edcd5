#pragma once

#include "dump/tensorid.h"
#include "index/problems.h"

#include <QHash>
#include <QMainWindow>
#include <QPointer>
#include <memory>
#include <map>

class QAction;
class QDialog;
class QDockWidget;
class QLabel;
class QListWidget;
class QMenu;
class QProgressBar;
class QTabWidget;
class QToolButton;
class QTreeView;

namespace ds {

class DocumentContext;
class DumpIndex;
class CompareView;
class PrecheckPanel;
class MsprobeAnswerPanel;
namespace monitor {
struct Anomaly;
}
class MonitorPanel;
class GraphPanel;
struct MenuTarget;
class OpTablePanel;
class OverflowPanel;
class RunsPanel;
class TensorInspector;
class TrendsPanel;
class RunSetPanel;

/// The workbench window: dump tree dock, tensor inspector, status bar with indexing progress.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    DocumentContext *context() const { return m_context; }
    QTreeView *tree() const { return m_tree; }
    TensorInspector *inspector() const { return m_inspector; }
    OpTablePanel *opTable() const { return m_opTable; }
    OverflowPanel *overflow() const { return m_overflow; }
    GraphPanel *graph() const { return m_graph; }
    CompareView *compareView() const { return m_compare; }
    RunsPanel *runsPanel() const { return m_runs; }
    TrendsPanel *trendsPanel() const { return m_trends; }
    RunSetPanel *runSetPanel() const { return m_runSet; }
    /// Compares the three or more runs under `folder` with each other (asks for the folder when empty).
    void compareRunsIn(QString folder = {});
    /// Compares the current dump (NPU) with the bench dump at `benchPath` (asks when empty).
    void compareWith(QString benchPath = {});
    QListWidget *problems() const { return m_problems; }
    QTabWidget *centralTabs() const { return m_tabs; }

    void openPath(const QString &path);
    /// Opens `paths` (the command line's) once the window has painted its first frame, or
    /// after a second if it is never shown: indexing threads started before would compete
    /// with that paint (35-65 ms for the empty window on 2 cores) and stall the GUI thread.
    void openAfterFirstPaint(const QStringList &paths);
    /// Adds a folder of GE graph files (File -> Add Graph Folder): linked to the open dumps.
    void addGraphFolder(const QString &path);
    /// msprobe's precheck results on their own tab (made when first needed).
    void showPrecheck(const QString &path);
    /// msprobe's training monitor output on its own tab (made when first needed).
    void showMonitor(const QString &path);
    /// msprobe overflow_check / compare -da answer files: the Answer tab.
    void showMsprobeAnswer(const QString &path);
    /// Selects op `opName` of rank `rank` ("rank_1") and `step` (empty: any) in the open dumps; false
    /// (said in the status bar) when no open dump holds it.
    bool selectAnswerOp(const QString &rank, const QString &step, const QString &opName);
    /// Selects the module entry a monitor anomaly points at (monitorAnomalyOp) in the open dumps;
    /// false (said in the status bar) when none holds it.
    bool selectMonitorAnomaly(const monitor::Anomaly &anomaly);
    /// Tensors chosen for export: selected tree tensors and operators, else the selected
    /// table rows, else the tensor in the inspector.
    std::vector<struct ExportItem> selectedTensors() const;
    void exportSelected();
    /// Shows the first overflow of the open dumps in the overflow panel and selects its operator.
    bool goToFirstOverflow();
    /// Closes dump `dump` (DocumentContext::closeDump); every panel, summary, mark, the
    /// comparison and the status bar follow (onDumpClosed). mainwindowclose.cpp.
    void closeDump(int dump);
    /// File -> Close: closes the dump of the current tree item (the last opened when none is current).
    void closeCurrentDump();
    /// The File -> Close action (object name "closeDumpAction", Ctrl+W), for context menus.
    QAction *closeDumpAction() const { return m_closeDump; }

    /// Selects a tensor by id in the first dump that has it; false if none does.
    bool selectTensor(const TensorId &tensorId);

    // Layout (mainwindowlayout.cpp). The saved layout carries this version: a layout saved by
    // another version (or none) is not restored.
    static constexpr int kLayoutVersion = 1;
    /// QSettings keys of the saved window geometry and dock state.
    static QString geometryKey();
    static QString stateKey();
    QDockWidget *treeDock() const { return m_treeDock; }
    QDockWidget *inspectorDock() const { return m_inspectorDock; }
    QDockWidget *problemsDock() const { return m_problemsDock; }
    QMenu *viewMenu() const { return m_viewMenu; }
    /// View -> Reset Layout: the docks and toolbars as at construction, sized for the window.
    void resetLayout();
    /// Why the current layout is unusable (a dock wider than the window allows, the central
    /// tabs squeezed, a floating dock off every screen), or empty when it is fine.
    QString layoutProblem() const;

    // Conveniences (mainwindowmenus.cpp, contextmenus.cpp).
    /// Ctrl+F: focuses the search box of the current view (the graph's search when the Graph
    /// tab is shown, the rows' filter on the Compare tab, else the operator table's filter).
    void focusSearch();
    /// The folder the file dialogs start in: the last folder used (QSettings).
    static QString dialogFolder();
    /// Remembers the folder of `path` (a file's folder, a chosen folder's parent) for dialogFolder().
    static void rememberDialogFolder(const QString &path);
    /// Help -> First Steps (non-modal; one at a time).
    void showFirstSteps();

protected:
    void showEvent(QShowEvent *event) override;
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void paintEvent(QPaintEvent *event) override;

private:
    void openPending();
    void createActions();
    void onCurrentChanged();
    void onOpActivated(int dump, int op);
    void onOverflowAnalyzed(int dump);
    void updateOverflowStatus();
    void onIndexingFinished(int dump, bool cancelled, int ops, int errors);
    /// A dump was closed: each panel forgets it (mainwindowclose.cpp).
    void onDumpClosed(int dump);
    /// The run (RunInfo::relPath) the tree item belongs to, and the item's dump.
    QString runOfItem(const QModelIndex &item, int &dump) const;
    /// The index of one run of a dump: the dump's index, or the run cut out of a folder of runs.
    std::shared_ptr<const DumpIndex> runIndex(int dump, const QString &runPath) const;
    void showScope(int dump, const QString &runPath, const QString &scopeId);
    void onCompareFinished();
    /// Lists the problems (indexProblems, found by the indexing worker) of a dump; returns the
    /// number of warnings.
    int addProblems(int dump, const DumpIndex &index, const std::vector<Problem> &problems);
    /// The status line of a dump opened scope by scope: how many of its scopes are read.
    void showScopesRead(int dump);
    /// The operator table and the Graph tab for `item` of a dump opened scope by scope: its
    /// read scope's operators and module graph, or (an unread scope: read now, as expanding it
    /// does; a level above several scopes) what the user sees instead and why.
    void showScopeItem(const QModelIndex &item);
    /// Trends of a run opened scope by scope: one rank's scopes read for them (mainwindowscopes.cpp).
    /// Compares a run opened scope by scope with a bench run pair by pair (RunsPanel::compareScopes).
    void compareScopeByScope(int dump, QString benchPath);
    void onScopesCompared(int dump, const QString &runPath, qulonglong done, qulonglong total, bool finished, const QString &error);
    /// The overflow of the current (else the first) dump opened scope by scope, scanned scope by
    /// scope (RunsPanel::scanScopes); false when no such dump is open or its scan is known.
    bool scanScopeByScope();
    void onScopesScanned(int dump, qulonglong done, qulonglong total, bool finished, const QString &first, const QString &error);
    void showScopeByScopeTrends(int dump, const QString &runPath, qint64 rank = -1);
    void addRecent(const QString &path);
    void updateRecentMenu();

    // mainwindowlayout.cpp
    /// A dock's content in a scroll area: the content's minimum size (a plot, a row of
    /// controls) can no longer set the dock's; below it the content scrolls.
    static QWidget *boundedDockContent(QWidget *content);
    /// Keeps the default layout (View -> Reset Layout), then restores the saved one.
    void restoreLayout();
    /// The default widths of the side docks for the window's width, applied.
    void applyDefaultDockSizes();
    /// On the first show: the saved layout (restored in the constructor) is checked against the
    /// laid-out window; a broken one is replaced by the default.
    void checkRestoredLayout();
    void saveLayout();
    /// A result document (precheck, monitor, msprobe answer) opened while no dump is open:
    /// the empty dump tree and inspector step aside, so that the tab bar has room for its
    /// labels ("R..." for Runs at 1280x800 beside them). docksBack() when a dump is opened.
    void docksAsideForResults();
    void docksBack();
    void createViewMenu();
    // mainwindowmenus.cpp
    void createHelpMenu();
    /// After a dump indexes: unless the user chose an item, selects its first operator (in
    /// execution order, skipping "Files that could not be read") so the inspector shows a tensor.
    void selectInitialItem(int dump);
    // contextmenus.cpp
    void setupContextMenus();
    /// The context menus (shown with popup(), deleted on close); null where there is none.
    QMenu *treeMenu(const QModelIndex &item);
    QMenu *opTableMenu(const QModelIndex &row);
    QMenu *graphMenu(QPoint pos);
    QMenu *targetMenu(const MenuTarget &target);

    DocumentContext *m_context;
    QStringList m_pendingOpen; ///< openAfterFirstPaint's paths, until the first paint
    QTreeView *m_tree;
    TensorInspector *m_inspector;
    OpTablePanel *m_opTable;
    OverflowPanel *m_overflow;
    GraphPanel *m_graph;
    CompareView *m_compare;
    PrecheckPanel *m_precheck = nullptr;
    MonitorPanel *m_monitor = nullptr;
    MsprobeAnswerPanel *m_answer = nullptr;
    RunsPanel *m_runs;
    TrendsPanel *m_trends;
    RunSetPanel *m_runSet;
    QString m_compareRun;   ///< the run (RunInfo::relPath) of the current comparison
    QHash<int, int> m_scopeErrors; ///< unreadable files in the scopes read, by dump opened scope by scope
    std::pair<int, QString> m_trendRun{-1, QString()}; ///< the run whose statistics the trends show
    std::map<int, QString> m_scopeScans; ///< dumps opened scope by scope: their overflow scan's line
    qint64 m_trendRank = -1; ///< of a run opened scope by scope: the rank the trends read
    QListWidget *m_problems;
    QDockWidget *m_problemsDock;
    QDockWidget *m_treeDock = nullptr;
    QDockWidget *m_inspectorDock = nullptr;
    QMenu *m_viewMenu = nullptr;
    QByteArray m_defaultState; ///< saveState() at construction: View -> Reset Layout
    bool m_stateRestored = false; ///< a saved layout of kLayoutVersion was restored
    bool m_docksAside = false;    ///< docksAsideForResults() hid the tree and inspector docks
    bool m_layoutChecked = false; ///< checkRestoredLayout ran (first show)
    QPointer<QDialog> m_firstSteps;
    QTabWidget *m_tabs;
    QMenu *m_recentMenu = nullptr;
    QAction *m_closeDump = nullptr;
    std::map<int, int> m_firstOverflow; ///< dump -> op of the first overflow (-1: none)
    QProgressBar *m_progress;
    QToolButton *m_cancel;
    QLabel *m_statusText;
    QLabel *m_runStatus; ///< "Run: <answer>" after a comparison
    QLabel *m_overflowStatus; ///< OverflowPanel::statusLine() of the open dumps
};

} // namespace ds
