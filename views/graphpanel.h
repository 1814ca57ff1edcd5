#pragma once

#include "dumpgraph/dumpmapping.h"
#include "models/optablemodel.h"

#include <QWidget>
#include <atomic>
#include <limits>
#include <memory>
#include <unordered_map>
#include <vector>

class QComboBox;
class QCompleter;
class QLabel;
class QLineEdit;
class QStringListModel;
class QToolButton;

namespace ds {

struct CompareResult;

class DumpIndex;
class GraphView;

/// The computation graph of a dump: graph selector (ranked, the chosen one first), sub-graph
/// selector, search with incremental results, fit button, overlay chooser and legend, and the
/// GraphView. Nodes are coloured by the overflow marks of their operators, NaN/Inf in their
/// outputs or their largest output magnitude (statistics computed in the background, with
/// progress and a stop button); clicking a node with dump data emits opActivated.
class GraphPanel : public QWidget
{
    Q_OBJECT
public:
    explicit GraphPanel(QWidget *parent = nullptr);
    ~GraphPanel() override;

    /// Finds and reads the GE graph files for an opened dump path in the background
    /// (ge::findGraphFiles), then calls setGraphs. Without any, a framework dump (msprobe,
    /// ptdbg) shows its module hierarchy instead (buildModuleGraphs, one per step/rank).
    void loadForDump(const QString &dumpPath, std::shared_ptr<const DumpIndex> index, int dump);
    /// Ranks `models` for the dump (rankComputationGraphs), shows the chosen one and maps the
    /// dump's operators onto its nodes. `index` may be null (graph only). Module graphs
    /// (isModuleGraph) keep their order and are mapped with mapModuleGraph.
    void setGraphs(std::shared_ptr<const std::vector<GraphModel>> models, std::shared_ptr<const DumpIndex> index, int dump);
    /// Overflow marks per op of dump(): kept across graph switches, cleared when the dump changes
    /// (0 none, 1 medium, 2 high, 3 critical, 4 named by an OpDebug record).
    void setOpMarks(std::unordered_map<int, int> opMarks);

    enum class Overlay { Overflow, NonFinite, MaxAbs, Compare, CompareCosine, CompareMaxAbsErr, CompareMaxRelErr };
    /// A comparison of dump() (its NPU side) with a bench dump: adds the compare colourings
    /// (worst verdict, lowest cosine, largest max absolute / relative error per operator) and
    /// shows the verdicts.
    void setCompareResult(const CompareResult &result);
    void setOverlayKind(Overlay kind);
    Overlay overlayKind() const;

    int dump() const { return m_dump; }
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

    GraphView *view() const { return m_view; }
    QComboBox *graphSelector() const { return m_selector; }
    QComboBox *subgraphSelector() const { return m_subgraphs; }
    QLineEdit *searchBox() const { return m_search; }
    QLabel *legendLabel() const { return m_legend; }

public slots:
    /// Centres and highlights the node of an op (when it belongs to the shown graph).
    void selectOp(int dump, int op);
    /// Jumps to the next search result (Enter in the search box).
    void nextSearchResult();

signals:
    void opActivated(int dump, int op);
    /// A graph (and its mapping) is shown; also after switching in the selector.
    void graphShown();

private:
    void showModel(int model);
    void applyOverlay();
    void startStats();
    void stopStats();
    void onSearchEdited(const QString &text);
    void jumpTo(NodeId node);
    /// Shows the node in the status line; returns its ops.
    std::vector<int> describe(NodeId node);

    GraphView *m_view;
    QComboBox *m_selector, *m_subgraphs, *m_overlay;
    QLineEdit *m_search;
    QCompleter *m_completer;
    QStringListModel *m_results;
    QLabel *m_hits, *m_legend, *m_status;
    QToolButton *m_fit, *m_stopStats;
    QLabel *m_statsProgress;
    std::shared_ptr<const std::vector<GraphModel>> m_models;
    std::shared_ptr<const DumpIndex> m_index;
    std::shared_ptr<const DumpMapping> m_mapping;
    std::unordered_map<int, int> m_opMarks;
    /// Per op of dump(): worst verdict (int(Verdict)), lowest cosine, largest errors (±Inf
    /// while no row had a value; NaN when a row's metric was undefined).
    struct OpCompare
    {
        int verdict = 0;
        double cosine = std::numeric_limits<double>::infinity();
        double maxAbsErr = -std::numeric_limits<double>::infinity(), maxRelErr = -std::numeric_limits<double>::infinity();
    };
    std::unordered_map<int, OpCompare> m_compare;
    std::unordered_map<int, OpStats> m_opStats; ///< output statistics per op of dump()
    std::shared_ptr<std::atomic<bool>> m_statsCancel;
    std::vector<NodeId> m_resultNodes;
    int m_resultPos = -1;
    int m_dump = -1, m_shown = -1, m_graph = 0, m_job = 0, m_statsJob = 0;
};

} // namespace ds
