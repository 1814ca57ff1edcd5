#pragma once

#include "dumpgraph/visdbgraph.h"
#include "graph/graphlayout.h"

#include <QColor>
#include <QFont>
#include <QPixmap>
#include <QStaticText>
#include <QWidget>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ds {

/// One row of the overlay legend: nodes whose level is `level` are filled with `color`.
struct GraphLegendEntry
{
    int level = 0;
    QColor color;
    QString text;
    bool operator==(const GraphLegendEntry &) const = default;
};

/// A label as the last paint drew it (for tests and screenshots: what a person sees).
struct PaintedLabel
{
    int item = -1;
    QString text;
    QRectF rect;           ///< widget coordinates
    double pixelSize = 0;  ///< rendered font height in device-independent pixels (font height x zoom)
    double pointSize = 0;  ///< rendered size in points (font point size x zoom)
    bool isName = true;    ///< the box's name line (false: its type / count line)
};

/// A laid-out computation graph: pan (drag), zoom (wheel, labels hidden when small), fit,
/// minimap, double-click a group to open or close it (layouts are computed off the GUI thread
/// and cached per expansion state; stale results are dropped), overlay colours per node
/// (groups show their worst member), edge tooltips with the producer's tensor.
///
/// The first view is legible: the hierarchy (name scopes, folded crowds) and a first layout
/// are made on a worker thread with the groups around the start node open (initialExpansion)
/// and the view starts at zoom 1 (labels at the widget's font, at least 9 pt) on the start
/// node: the data entry, or the node given to setGraph / setStartNode (first overflow, first
/// divergence). A graph small enough to fit at zoom 1 or more is fitted instead.
///
/// A custom painter over the plain GraphLayout rather than a QGraphicsScene: the layout is
/// already plain data computed on a worker thread, so a scene would duplicate every box as a
/// QGraphicsItem (and rebuild tens of thousands of them on each expansion on the GUI thread);
/// painting the rectangles that intersect the exposed area, with the level of detail chosen
/// by the zoom, stays cheap and the minimap is a second pass over the same data (Cutter's
/// GraphView works the same way).
class GraphView : public QWidget
{
    Q_OBJECT
public:
    explicit GraphView(QWidget *parent = nullptr);
    ~GraphView() override;

    /// Shows `graph` (null: clears): builds its hierarchy and first layout in the background
    /// and starts at `start` (invalid: the data entry, entryNode()).
    void setGraph(std::shared_ptr<const Graph> graph, NodeId start = {});
    const Graph *graph() const { return m_graph.get(); }
    std::shared_ptr<const GraphLayout> currentLayout() const { return m_layout; }
    const GraphLayoutEngine *engine() const { return m_engine.get(); }
    const GraphHierarchy *hierarchy() const { return m_engine ? &m_engine->hierarchy() : nullptr; }
    /// Where the first view starts (and "Start" returns to).
    NodeId startNode() const { return m_start; }
    /// A better start became known (first overflow, first divergence): opens the groups around
    /// it and, when the user has not moved the view yet, shows it.
    void setStartNode(NodeId node);

    /// Overlay levels per node (NodeId::value -> level, 0 = none) and the legend that names
    /// them; the highest level of a group's members colours the group.
    void setOverlay(std::unordered_map<int, int> nodeLevels, std::vector<GraphLegendEntry> legend);
    const std::vector<GraphLegendEntry> &legend() const { return m_legend; }
    /// Nodes drawn faded (e.g. no dump data); indexed by NodeId::value. Empty: none.
    void setFadedNodes(std::vector<bool> faded);
    /// The overlay level an item is drawn with.
    int itemLevel(int item) const;
    /// The overlay level of a node (0: none).
    int nodeLevel(NodeId node) const
    {
        const auto it = m_nodeLevels.find(node.value);
        return it == m_nodeLevels.end() ? 0 : it->second;
    }

    bool isExpanded(GroupId group) const { return m_expanded.count(group) > 0; }
    const GraphExpansion &expansion() const { return m_expanded; }
    void setExpanded(GroupId group, bool expanded);
    void toggleGroup(GroupId group) { setExpanded(group, !isExpanded(group)); }
    /// A layout for the current expansion (or the first one) is being computed.
    bool isLayoutPending() const { return m_pendingJob != 0; }

    /// Nodes whose name or type contains `text` (case-insensitive), in graph order.
    std::vector<NodeId> findNodes(const QString &text, int limit = 200) const;
    NodeId selectedNode() const { return m_selected; }

    double zoom() const { return m_zoom; }
    void setZoom(double zoom, QPointF anchor);
    /// The zoom at which labels are drawn at their font size (at least 9 pt): 1.
    static constexpr double readableZoom() { return 1.0; }
    QPointF mapToScene(QPointF widgetPos) const { return m_origin + widgetPos / m_zoom; }
    QPointF mapFromScene(QPointF scenePos) const { return (scenePos - m_origin) * m_zoom; }
    QRectF visibleSceneRect() const;
    /// The visible item (box or open-group frame) under a widget position, or -1.
    int itemAt(QPointF widgetPos) const;
    /// The visible edge near a widget position, or -1.
    int edgeAt(QPointF widgetPos) const;
    QString edgeToolTip(int edge) const;
    QRect minimapRect() const;
    /// The labels the last paint drew, inside the widget.
    const std::vector<PaintedLabel> &paintedLabels() const { return m_painted; }
    /// The font of box names at zoom 1 (the widget's font, at least 9 pt).
    QFont labelFont() const;
    /// The text of a box's name line (module graphs: "layer1.0 · Bottleneck").
    QString itemName(int item) const;

public slots:
    /// Opens the groups containing `node`, centres it and highlights it.
    void selectNode(ds::NodeId node);
    /// Shows the start node at a readable zoom (the first view).
    void showStart();
    void fitToView();
    void centerOn(QPointF scenePos);

signals:
    /// A node was clicked.
    void nodeActivated(ds::NodeId node);
    /// A node (not a group) was double-clicked.
    void nodeDoubleClicked(ds::NodeId node);
    /// A new layout is shown (after setGraph or an expansion).
    void layoutChanged();
    /// The visible part of the scene changed (pan, zoom, fit, resize).
    void viewportChanged();

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    bool event(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    struct FirstView;
    void requestLayout(GroupId anchor);
    void applyLayout(std::shared_ptr<const GraphLayout> layout, GroupId anchor);
    void updateGroupLevels();
    QColor levelColor(int level) const;
    void paintMinimap(QPainter &p);
    QString itemToolTip(int item) const;
    /// A database node whose rows were left in the file: reads them on a worker for its tooltip
    /// (kept in m_nodeRows), then shows the tooltip again if the pointer is still on it.
    void fetchNodeRows(NodeId node);
    GraphLayoutOptions layoutOptions() const;
    /// Label texts of a box, laid out once per layout (the painter only translates them when
    /// panning): name centred at the top, type (or count) at the bottom.
    struct BoxLabels
    {
        QStaticText name, type;
        bool ready = false;
    };
    BoxLabels &boxLabels(int item, const QFont &font, const QFont &small);
    void paintEdges(QPainter &p, const QRectF &view, const QColor &mid, const QColor &accent);
    void moved(); ///< the user moved the view: keep it, tell the listeners

    // Paint caches, rebuilt with the layout (or the overlay, for the minimap).
    std::vector<QRectF> m_edgeBounds;
    std::vector<BoxLabels> m_labels;
    std::vector<PaintedLabel> m_painted;
    QPixmap m_minimap;
    bool m_minimapValid = false;

    std::shared_ptr<const Graph> m_graph;
    std::shared_ptr<GraphLayoutEngine> m_engine;
    std::shared_ptr<const GraphLayout> m_layout;
    GraphExpansion m_expanded;
    int m_jobCounter = 0, m_pendingJob = 0;
    NodeId m_selected, m_pendingCenter, m_start;
    bool m_moduleLabels = false;
    bool m_showStartPending = false; ///< the next applied layout shows the start node
    std::unordered_map<int, int> m_nodeLevels;
    std::vector<int> m_groupLevels;
    std::vector<bool> m_faded;
    std::vector<GraphLegendEntry> m_legend;
    double m_zoom = 1.0;
    QPointF m_origin; ///< the scene point at the widget's top-left corner
    QPoint m_pressPos, m_lastPos;
    bool m_pressed = false, m_dragging = false, m_minimapDrag = false;
    bool m_userMoved = false; ///< false: keep showing the start on resize
    int m_hoverEdge = -1;
    /// Rows of database nodes read on demand for tooltips (a null Result while being read).
    std::unordered_map<int, std::shared_ptr<const Result<VisDbNodeRows>>> m_nodeRows;
    NodeId m_tipNode; ///< the node of the last tooltip shown, and where it was asked for
    QPoint m_tipPos;
};

} // namespace ds

