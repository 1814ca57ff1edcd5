#pragma once

#include "dumpgraph/graphmatch.h"

#include <QWidget>
#include <memory>

class QLabel;
class QSplitter;
class QToolButton;

namespace ds {

class DumpIndex;
class GraphView;
struct CompareResult;

/// NPU and bench graphs side by side (msprobe's graph compare, without building a database):
/// the nodes are paired through the comparison's rows (matchGraphs) and coloured by the worst
/// verdict of their rows; nodes whose rows found no counterpart are "unmatched" on both sides.
/// Matched nodes stay aligned: selecting a node, or moving one view, puts the partner of the
/// node nearest the centre at the same place in the other view. Click an NPU node, then a
/// bench node, to pair them: pairRequested carries their operators' matching names (the
/// names of a user mapping, UserMapping::assign), which the compare view applies.
class GraphCompareView : public QWidget
{
    Q_OBJECT
public:
    explicit GraphCompareView(QWidget *parent = nullptr);
    ~GraphCompareView() override;

    /// One side: a graph, the mapping of its dump onto it, the dump's index.
    struct Side
    {
        std::shared_ptr<const Graph> graph;
        std::shared_ptr<const DumpMapping> mapping;
        int graphIndex = 0; ///< the graph's index in the mapping's model
        std::shared_ptr<const DumpIndex> index;
        QString title;
    };
    /// Shows both sides (the views start at the first divergence of `result` when it has one,
    /// else at their data entries).
    /// `firstDivergence`: the index in result->divergences where both sides start (the run's first).
    void setSides(Side npu, Side bench, std::shared_ptr<const CompareResult> result, int firstDivergence = 0);
    /// A new result of the same two dumps (after a mapping edit): colours and pairs again,
    /// keeps the layouts and the view positions.
    void updateResult(std::shared_ptr<const CompareResult> result, int firstDivergence = 0);
    void clear();

    GraphView *npuView() const { return m_npu; }
    GraphView *benchView() const { return m_bench; }
    const GraphMatch &match() const { return m_match; }
    /// The NPU node waiting for a bench node to pair with (invalid: none).
    NodeId armedNode() const { return m_armed; }
    QLabel *statusLabel() const { return m_status; }
    /// Overlay level of unmatched nodes (between warning and error: a group holding an error
    /// shows the error).
    static constexpr int kUnmatchedLevel = 3;

public slots:
    /// Centres the partner of `npuNode` in the bench view where `npuNode` is in the NPU view.
    void alignOnNpu(ds::NodeId npuNode);
    void alignOnBench(ds::NodeId benchNode);

signals:
    /// The user paired an NPU node with a bench node (operator matching names, execution order).
    void pairRequested(const QStringList &npuOps, const QStringList &benchOps);
    /// A node with dump data was clicked (its first operator), to select it elsewhere.
    void npuOpActivated(int op);

protected:
    void keyPressEvent(QKeyEvent *event) override;

private:
    void recolour();
    void syncFrom(GraphView *from);
    void onNpuClicked(NodeId node);
    void onBenchClicked(NodeId node);
    QStringList opNames(const Side &side, NodeId node) const;
    void updateStatus();

    GraphView *m_npu, *m_bench;
    QLabel *m_npuTitle, *m_benchTitle, *m_status;
    QToolButton *m_sync;
    QSplitter *m_split;
    Side m_npuSide, m_benchSide;
    std::shared_ptr<const CompareResult> m_result;
    int m_firstDivergence = 0;
    GraphMatch m_match;
    NodeId m_armed;
    bool m_syncing = false;
};

} // namespace ds
