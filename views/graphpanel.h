#pragma once

#include "dumpgraph/dumpmapping.h"
#include "dumpgraph/visdbgraph.h"
#include "models/optablemodel.h"

#include <QWidget>
#include <atomic>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <vector>

class QComboBox;
class QCompleter;
class QLabel;
class QLineEdit;
class QStackedWidget;
class QStringListModel;
class QToolButton;

namespace ds {

struct CompareResult;

class DumpIndex;
class GraphCompareView;
class GraphView;

/// The computation graph of a dump: graph selector (ranked, the chosen one first), sub-graph
/// selector, search with incremental results, Start / Fit buttons, overlay chooser and
/// legend, and the GraphView. Nodes are coloured by the overflow marks of their operators,
/// NaN/Inf in their outputs or their largest output magnitude (statistics computed in the
/// background, with progress and a stop button), or after a comparison by its verdicts and
/// metrics; clicking a node with dump data emits opActivated. The line above the graph says
/// how many of the dump's operators are linked to graph nodes.
///
/// Graphs come from discoverGraphs(): the GE graph files in or next to the dump, plus the
/// graph folders added with addGraphPaths ("Add graph folder…", or a graph folder opened as
/// another path); without any, a framework dump's module graphs. With a comparison whose bench
/// dump has a graph too, "Side by side" shows both graphs (GraphCompareView).
class GraphPanel : public QWidget
{
    Q_OBJECT
public:
    explicit GraphPanel(QWidget *parent = nullptr);
    ~GraphPanel() override;

    /// Finds and reads the graphs for an opened dump path in the background (discoverGraphs
    /// with the added graph paths), then calls setGraphs. `index` may be null and `dumpPath`
    /// empty (added graph folders alone).
    void loadForDump(const QString &dumpPath, std::shared_ptr<const DumpIndex> index, int dump);
    /// Graph files or folders that belong to the open dumps although they are elsewhere (GE
    /// writes them into the job's working directory): read and linked to the shown dump by the
    /// same rules as `dumpscope-cli graph DUMP GRAPH_PATH`.
    void addGraphPaths(const QStringList &paths);
    const QStringList &graphPaths() const { return m_graphPaths; }
    /// A graph database of more nodes than this is read without its nodes' input and output
    /// rows (DiscoveryOptions::visDbRowsUpTo): a node's are read when it is shown. Tests lower it.
    static constexpr qint64 kVisDbRowsInMemoryUpTo = 20000;
    void setVisDbRowsInMemoryUpTo(qint64 nodes) { m_visDbRowsUpTo = nodes; }
    /// A database graph of more nodes than this has the levels msprobe stored on its nodes
    /// (visDbStatus, the Overflow / Compare colouring) lifted on a worker the first time they are
    /// shown, then kept: a pass over a million nodes on the GUI thread stalled it 0.1-0.3 s at
    /// open. Smaller graphs are coloured at once. Tests lower it.
    static constexpr qint64 kVisDbLevelsOnGuiUpTo = 20000;
    void setVisDbLevelsOnGuiUpTo(qint64 nodes) { m_visDbLevelsOnGuiUpTo = nodes; }
    /// A dump's graph (a module graph, a GE graph) of more nodes than this has its colouring's
    /// per-operator values lifted to the nodes (liftOpStatus, then the levels) on a worker: the
    /// pass over a million nodes took 46 ms of the GUI thread when the graph appeared. No values
    /// (nothing to colour): no pass at all. Tests lower it.
    static constexpr qint64 kOverlayOnGuiUpTo = 20000;
    void setOverlayOnGuiUpTo(qint64 nodes) { m_overlayOnGuiUpTo = nodes; }
    /// Ranks `models` for the dump (rankComputationGraphs), shows the chosen one and maps the
    /// dump's operators onto its nodes. `index` may be null (graph only). Module graphs
    /// (isModuleGraph) keep their order and are mapped with mapModuleGraph.
    void setGraphs(std::shared_ptr<const std::vector<GraphModel>> models, std::shared_ptr<const DumpIndex> index, int dump);
    /// Overflow marks per op of dump(): kept across graph switches, cleared when the dump changes
    /// (0 none, 1 medium, 2 high, 3 critical, 4 named by an OpDebug record).
    void setOpMarks(std::unordered_map<int, int> opMarks);
    /// The first overflow of dump() (the first producing operator): the graph starts there.
    void setFirstOverflowOp(int op);

    enum class Overlay { Overflow, NonFinite, MaxAbs, Compare, CompareCosine, CompareMaxAbsErr, CompareMaxRelErr,
                         CompareAddedError /* the error each operator adds (compare/addederror.h) */,
                         UnderflowFraction /* the fraction of the outputs' finite values that becomes zero in
                                              underflowTarget() (tensor/headroom.h) */ };
    /// A comparison of dump() (its NPU side) with a bench dump: adds the compare colourings
    /// (worst verdict, lowest cosine, largest max absolute / relative error per operator),
    /// shows the verdicts and starts at the first divergence. With the bench index, the bench
    /// dump's graph is found in the background and "Side by side" becomes available.
    void setCompareResult(const CompareResult &result);
    /// `firstDivergence` is the index in result->divergences of the run's first divergence
    /// (CompareTableModel::firstDivergence: the one the run answer names), where both graphs start.
    void setCompareResult(std::shared_ptr<const CompareResult> result, std::shared_ptr<const DumpIndex> bench,
                          int firstDivergence = 0);
    void setOverlayKind(Overlay kind);
    Overlay overlayKind() const;
    /// Colours by the fraction of the output values that underflows in `target`
    /// (Overlay::UnderflowFraction; one entry of the colour menu per target dtype).
    void setUnderflowOverlay(HeadroomTarget target);
    /// The target of the UnderflowFraction overlay shown (float16 when another is).
    HeadroomTarget underflowTarget() const;
    /// Shows the NPU and bench graphs side by side (when the bench has a graph).
    void setSideBySide(bool on);
    bool isSideBySide() const;
    /// True when the bench graph of the comparison is ready for the side-by-side view.
    bool hasBenchGraph() const { return m_benchMapping != nullptr; }

    int dump() const { return m_dump; }
    /// The index of the dump shown or being loaded (loadForDump, setGraphs), null when none.
    std::shared_ptr<const DumpIndex> loadedIndex() const { return m_loadIndex; }
    /// No graph to show for dump `dump`: an empty graph and `text` (why) above it.
    void showNote(int dump, const QString &text);
    /// Forgets a closed dump: its graph (when shown) and a module graph deferred until shown.
    void closeDump(int dump);
    /// The shown model (index into the models given), or -1.
    int shownModel() const { return m_shown; }
    /// The shown graph of the model (0 = root graph, then its sub-graphs).
    int shownGraph() const { return m_graph; }
    /// Shows graph `graph` of the shown model (a sub-graph when > 0).
    void showGraph(int graph);
    const DumpMapping *mapping() const { return m_mapping.get(); }
    /// The node of an op in the shown root graph (invalid when it has none).
    NodeId nodeOfOp(int op) const;
    /// The dump ops of a root-graph node (empty without dump data).
    std::vector<int> opsOfNode(NodeId node) const;
    /// "Show in graph": operator `op` of `dump` has a node in the shown graphs, or the dump's
    /// module graph is still to be drawn (when this tab is shown).
    bool canShowOp(int dump, int op) const;
    /// Selects the node of `op` now, or once the dump's graph is shown (show this tab first).
    void showOp(int dump, int op);
    /// Operators of the dump linked to nodes of the shown model, and the operators considered.
    int linkedOps() const { return m_linked; }

    GraphView *view() const { return m_view; }
    GraphCompareView *compareView() const { return m_compareView; }
    QComboBox *graphSelector() const { return m_selector; }
    QComboBox *subgraphSelector() const { return m_subgraphs; }
    QLineEdit *searchBox() const { return m_search; }
    QLabel *legendLabel() const { return m_legend; }
    QLabel *linkLabel() const { return m_links; }
    QLabel *statusLabel() const { return m_status; }
    QToolButton *sideBySideButton() const { return m_sideBySide; }

public slots:
    /// Centres and highlights the node of an op (when it belongs to the shown graph).
    void selectOp(int dump, int op);
    /// Jumps to the next search result (Enter in the search box).
    void nextSearchResult();

signals:
    void opActivated(int dump, int op);
    /// A node of an msprobe graph database without an operator of the open dump was clicked:
    /// show its own recorded data (the inspector's showGraphNode). `where` names the graph.
    /// `rows` is valid when the database's rows were left in the file (a big database): the
    /// receiver reads the node's rows with readVisDbNodeRows, off the GUI thread.
    void recordedNodeActivated(const ds::GraphNode &node, const QString &where, const ds::VisDbRowsKey &rows);
    /// A graph (and its mapping) is shown; also after switching in the selector.
    void graphShown();
    /// The bench graph of the comparison is ready (hasBenchGraph()).
    void benchGraphReady();
    /// The user paired an NPU node with a bench node in the side-by-side view: map these
    /// operators (CompareView::mapOperators).
    void pairRequested(const QStringList &npuOps, const QStringList &benchOps);

protected:
    void showEvent(QShowEvent *event) override;

private:
    /// A module hierarchy waiting until the panel is shown (see loadForDump).
    struct Deferred
    {
        QString path;
        std::shared_ptr<const DumpIndex> index;
        int dump = -1;
    };
    Deferred m_deferred;
    void showModel(int model);
    /// The colouring an msprobe graph database asks for (build: overflow, compare: its
    /// precision levels), chosen when the kind of database shown changes.
    void followDatabaseColours(const GraphModel &model);
    void applyOverlay();
    void startStats();
    void stopStats();
    void startVisDbLevels(int model, int graph, NodeStatusRole role);
    /// What applyOverlay hands the view and the legend line, also when a worker's levels arrive.
    struct OverlayShown;
    void showOverlay(std::unordered_map<int, int> levels, const OverlayShown &shown);
    void onSearchEdited(const QString &text);
    void jumpTo(NodeId node);
    /// Shows the node in the status line; returns its ops.
    std::vector<int> describe(NodeId node);
    void updateLinks();
    NodeId startNode() const;
    void loadBenchGraph();
    void showCompareSides();

    GraphView *m_view;
    GraphCompareView *m_compareView;
    QStackedWidget *m_pages;
    QComboBox *m_selector, *m_subgraphs, *m_overlay;
    QLineEdit *m_search;
    QCompleter *m_completer;
    QStringListModel *m_results;
    QLabel *m_hits, *m_legend, *m_status, *m_links;
    QToolButton *m_fit, *m_start, *m_stopStats, *m_sideBySide;
    QLabel *m_statsProgress;
    std::shared_ptr<const std::vector<GraphModel>> m_models;
    std::shared_ptr<const DumpIndex> m_index;
    std::shared_ptr<const DumpMapping> m_mapping;
    QString m_dumpPath;
    std::shared_ptr<const DumpIndex> m_loadIndex; ///< of the last loadForDump (m_index: of the graphs shown)
    int m_loadDump = -1;
    qint64 m_visDbRowsUpTo = kVisDbRowsInMemoryUpTo;
    qint64 m_visDbLevelsOnGuiUpTo = kVisDbLevelsOnGuiUpTo;
    qint64 m_overlayOnGuiUpTo = kOverlayOnGuiUpTo;
    int m_overlayJob = 0; ///< the latest overlay lifted on a worker; older results are dropped
    /// What the lifted levels on the view are of (overlay kind, the view's graph): a worker's
    /// new levels of the same colouring replace them; another colouring or graph clears them
    /// meanwhile.
    std::pair<int, const Graph *> m_overlayShownKey{-1, nullptr};
    /// Levels of m_models' database graphs lifted on a worker, by (model, graph, role); an entry
    /// without a value is being computed.
    std::map<std::tuple<int, int, int>, std::optional<std::unordered_map<int, int>>> m_visDbLevels;
    QString m_visDbKind; ///< the kind of database whose colouring was chosen last ("" none)
    QStringList m_graphPaths;
    QStringList m_readErrors; ///< graph files that could not be read
    std::unordered_map<int, int> m_opMarks;
    int m_firstOverflowOp = -1;
    /// Per op of dump(): worst verdict (int(Verdict)), lowest cosine, largest errors (NaN when
    /// a row's metric was undefined); a metric no row had is absent.
    struct OpCompare
    {
        int verdict = 0;
        bool hasCosine = false, hasAbs = false, hasRel = false;
        double cosine = std::numeric_limits<double>::infinity();
        double maxAbsErr = -std::numeric_limits<double>::infinity(), maxRelErr = -std::numeric_limits<double>::infinity();
    };
    std::unordered_map<int, OpCompare> m_compare;
    std::shared_ptr<const CompareResult> m_compareResult;
    int m_firstDivergence = 0; ///< index in m_compareResult->divergences where the graphs start
    std::shared_ptr<const DumpIndex> m_bench;
    std::shared_ptr<const std::vector<GraphModel>> m_benchModels;
    std::shared_ptr<const DumpMapping> m_benchMapping;
    int m_benchModel = -1, m_benchJob = 0;
    std::unordered_map<int, OpStats> m_opStats; ///< output statistics per op of dump()
    std::shared_ptr<std::atomic<bool>> m_statsCancel;
    std::vector<NodeId> m_resultNodes;
    int m_resultPos = -1;
    int m_dump = -1, m_shown = -1, m_graph = 0, m_job = 0, m_statsJob = 0, m_linked = 0;
};

} // namespace ds
