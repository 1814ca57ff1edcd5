#pragma once

#include "graph/graphlayout.h"

#include <QColor>
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

/// A laid-out computation graph: pan (drag), zoom (wheel, labels hidden when small), fit,
/// minimap, double-click a group to open or close it (layouts are computed off the GUI thread
/// and cached per expansion state; stale results are dropped), overlay colours per node
/// (groups show their worst member), edge tooltips with the producer's tensor.
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

    /// Shows `graph` with every group collapsed (null: clears).
    void setGraph(std::shared_ptr<const Graph> graph);
    const Graph *graph() const;
    std::shared_ptr<const GraphLayout> currentLayout() const { return m_layout; }
    const GraphLayoutEngine *engine() const { return m_engine.get(); }

    /// Overlay levels per node (NodeId::value -> level, 0 = none) and the legend that names
    /// them; the highest level of a group's members colours the group.
    void setOverlay(std::unordered_map<int, int> nodeLevels, std::vector<GraphLegendEntry> legend);
    const std::vector<GraphLegendEntry> &legend() const { return m_legend; }
    /// Nodes drawn faded (e.g. no dump data); indexed by NodeId::value. Empty: none.
    void setFadedNodes(std::vector<bool> faded);
    /// The overlay level an item is drawn with.
    int itemLevel(int item) const;

    bool isExpanded(GroupId group) const { return m_expanded.count(group) > 0; }
    const GraphExpansion &expansion() const { return m_expanded; }
    void setExpanded(GroupId group, bool expanded);
    void toggleGroup(GroupId group) { setExpanded(group, !isExpanded(group)); }
    /// A layout for the current expansion is being computed.
    bool isLayoutPending() const { return m_pendingJob != 0; }

    /// Nodes whose name or type contains `text` (case-insensitive), in graph order.
    std::vector<NodeId> findNodes(const QString &text, int limit = 200) const;
    NodeId selectedNode() const { return m_selected; }

    double zoom() const { return m_zoom; }
    void setZoom(double zoom, QPointF anchor);
    QPointF mapToScene(QPointF widgetPos) const { return m_origin + widgetPos / m_zoom; }
    QPointF mapFromScene(QPointF scenePos) const { return (scenePos - m_origin) * m_zoom; }
    QRectF visibleSceneRect() const;
    /// The visible item (box or open-group frame) under a widget position, or -1.
    int itemAt(QPointF widgetPos) const;
    /// The visible edge near a widget position, or -1.
    int edgeAt(QPointF widgetPos) const;
    QString edgeToolTip(int edge) const;
    QRect minimapRect() const;

public slots:
    /// Opens the groups containing `node`, centres it and highlights it.
    void selectNode(ds::NodeId node);
    void fitToView();
    void centerOn(QPointF scenePos);

signals:
    /// A node was clicked.
    void nodeActivated(ds::NodeId node);
    /// A node (not a group) was double-clicked.
    void nodeDoubleClicked(ds::NodeId node);
    /// A new layout is shown (after setGraph or an expansion).
    void layoutChanged();

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
    void requestLayout(GroupId anchor);
    void applyLayout(std::shared_ptr<const GraphLayout> layout, GroupId anchor);
    void updateGroupLevels();
    QColor levelColor(int level) const;
    void paintMinimap(QPainter &p);
    QString itemToolTip(int item) const;
    /// Label texts of a box, laid out once per layout (the painter only translates them when
    /// panning): name centred at the top, type at the bottom.
    struct BoxLabels
    {
        QStaticText name, type;
        bool ready = false;
    };
    BoxLabels &boxLabels(int item, const QFont &font, const QFont &small);
    void paintEdges(QPainter &p, const QRectF &view, const QColor &mid, const QColor &accent);

    // Paint caches, rebuilt with the layout (or the overlay, for the minimap).
    std::vector<QRectF> m_edgeBounds;
    std::vector<BoxLabels> m_labels;
    QPixmap m_minimap;
    bool m_minimapValid = false;

    std::shared_ptr<GraphLayoutEngine> m_engine;
    std::shared_ptr<const GraphLayout> m_layout;
    GraphExpansion m_expanded;
    int m_jobCounter = 0, m_pendingJob = 0;
    NodeId m_selected, m_pendingCenter;
    std::unordered_map<int, int> m_nodeLevels;
    std::vector<int> m_groupLevels;
    std::vector<bool> m_faded;
    std::vector<GraphLegendEntry> m_legend;
    double m_zoom = 1.0;
    QPointF m_origin; ///< the scene point at the widget's top-left corner
    QPoint m_pressPos, m_lastPos;
    bool m_pressed = false, m_dragging = false, m_minimapDrag = false;
    bool m_userMoved = false; ///< false: keep fitting the graph to the widget on resize
    int m_hoverEdge = -1;
};

} // namespace ds

Q_DECLARE_METATYPE(ds::NodeId)
