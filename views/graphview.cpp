#include "graphview.h"

#include "background.h"
#include "dumpgraph/visdbgraph.h"

#include "dumpgraph/graphstart.h"
#include "dumpgraph/modulegraph.h"

#include <QApplication>
#include <QFutureWatcher>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QToolTip>
#include <QWheelEvent>
#include <QtConcurrent>
#include <algorithm>
#include <cmath>
#include <tuple>

namespace ds {

namespace {

constexpr double kMinZoom = 0.01, kMaxZoom = 4.0;
constexpr int kFirstViewBudget = 40; ///< boxes the first view opens groups up to (initialExpansion)

double distanceToSegment(QPointF p, QPointF a, QPointF b)
{
    const QPointF ab = b - a;
    const double len2 = QPointF::dotProduct(ab, ab);
    const double t = len2 > 0 ? std::clamp(QPointF::dotProduct(p - a, ab) / len2, 0.0, 1.0) : 0.0;
    const QPointF d = p - (a + t * ab);
    return std::hypot(d.x(), d.y());
}

QString shapeText(const std::vector<std::int64_t> &shape)
{
    QStringList dims;
    for (auto d : shape)
        dims << QString::number(d);
    return QLatin1Char('[') + dims.join(QStringLiteral(", ")) + QLatin1Char(']');
}

} // namespace

/// What the background job of setGraph delivers.
struct GraphView::FirstView
{
    std::shared_ptr<GraphLayoutEngine> engine;
    GraphExpansion expansion;
    NodeId start;
    std::shared_ptr<const GraphLayout> layout;
};

GraphView::GraphView(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAutoFillBackground(false);
    setMinimumSize(200, 150);
}

GraphView::~GraphView() = default; // running layout jobs hold the engine, not the view

QFont GraphView::labelFont() const
{
    QFont f = font();
    if (f.pointSizeF() < 9)
        f.setPointSizeF(9);
    return f;
}

GraphLayoutOptions GraphView::layoutOptions() const
{
    // Boxes sized for the label fonts at zoom 1; no layer wider than the widget (a screen).
    GraphLayoutOptions o;
    const QFont name = labelFont();
    QFont small = name;
    small.setPointSizeF(name.pointSizeF() * 0.85);
    const QFontMetricsF fm(name), sm(small);
    o.charWidth = std::max(6.0, fm.averageCharWidth() * 1.05);
    o.nodeHeight = std::ceil(fm.height() + sm.height() + 10);
    o.groupHeight = o.nodeHeight + 8;
    o.frameHeader = std::ceil(fm.height() + 10);
    o.minWidth = std::max(90.0, o.charWidth * 12);
    o.maxWidth = std::max(240.0, o.charWidth * 34);
    o.maxRowWidth = std::max(800.0, width() * 0.92);
    return o;
}

void GraphView::setGraph(std::shared_ptr<const Graph> graph, NodeId start)
{
    // The previous graph's hierarchy, layouts and graph (plain data, hundreds of thousands of
    // strings for a big one) are freed on a worker: dropping them here would stall the GUI.
    if (m_engine || m_layout || m_graph)
        (void)QtConcurrent::run(backgroundPool(), [old = std::make_tuple(std::move(m_engine), std::move(m_layout), std::move(m_graph))]() mutable {
            old = {};
        });
    m_graph = std::move(graph);
    m_nodeRows.clear();
    m_engine.reset();
    m_layout.reset();
    m_expanded.clear();
    m_selected = m_pendingCenter = NodeId{};
    m_start = start;
    m_nodeLevels.clear();
    m_groupLevels.clear();
    m_faded.clear();
    m_labels.clear();
    m_edgeBounds.clear();
    m_painted.clear();
    m_hoverEdge = -1;
    m_userMoved = false;
    m_minimapValid = false;
    m_moduleLabels = m_graph && isModuleHierarchy(*m_graph);
    if (!m_graph) {
        m_pendingJob = 0;
        update();
        return;
    }
    // The hierarchy (folding needs the whole graph), the groups to open and the first layout
    // are made on a worker thread.
    const int job = ++m_jobCounter;
    m_pendingJob = job;
    FoldOptions folds;
    folds.consecutiveOnly = m_moduleLabels; // module graphs: calls fold only in runs
    auto *watcher = new QFutureWatcher<std::shared_ptr<FirstView>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, job] {
        watcher->deleteLater();
        if (job != m_pendingJob)
            return; // another graph was set meanwhile
        const auto first = watcher->result();
        m_pendingJob = 0;
        m_engine = first->engine;
        m_start = first->start;
        // Expansions asked for meanwhile (selectNode) are kept on top of the first view's.
        m_expanded.insert(first->expansion.begin(), first->expansion.end());
        updateGroupLevels();
        m_showStartPending = !m_pendingCenter.isValid();
        if (m_engine->normalize(m_expanded) == first->layout->expanded)
            applyLayout(first->layout, {});
        else
            requestLayout({});
    });
    watcher->setFuture(QtConcurrent::run(backgroundPool(), [graph = m_graph, options = layoutOptions(), folds, start] {
        const BackgroundPriority background;
        auto first = std::make_shared<FirstView>();
        first->engine = std::make_shared<GraphLayoutEngine>(graph, options, folds);
        first->start = start.isValid() && start.index() < graph->nodes.size() ? start : entryNode(*graph);
        first->expansion = initialExpansion(first->engine->hierarchy(), first->start, kFirstViewBudget);
        first->layout = first->engine->layout(first->expansion);
        return first;
    }));
    update();
}

void GraphView::setStartNode(NodeId node)
{
    if (!m_graph || !node.isValid() || node.index() >= m_graph->nodes.size())
        return;
    m_start = node;
    if (!m_engine)
        return; // the first view is still being made: it starts at its own start node
    if (m_userMoved)
        return; // keep where the user is; "Start" goes there
    bool missing = false;
    for (GroupId g : m_engine->ancestors(node))
        missing = m_expanded.insert(g).second || missing;
    if (missing) {
        m_showStartPending = true;
        requestLayout({});
    } else {
        showStart();
    }
}

void GraphView::setOverlay(std::unordered_map<int, int> nodeLevels, std::vector<GraphLegendEntry> legend)
{
    m_nodeLevels = std::move(nodeLevels);
    m_legend = std::move(legend);
    updateGroupLevels();
    m_minimapValid = false;
    update();
}

void GraphView::setFadedNodes(std::vector<bool> faded)
{
    m_faded = std::move(faded);
    update();
}

void GraphView::updateGroupLevels()
{
    const GraphHierarchy *h = hierarchy();
    m_groupLevels.assign(h ? h->groups.size() : 0, 0);
    if (!h)
        return;
    for (const auto &[node, level] : m_nodeLevels) {
        if (node < 0 || size_t(node) >= h->nodeGroup.size())
            continue;
        for (GroupId grp = h->nodeGroup[size_t(node)]; grp.isValid(); grp = h->group(grp).parent)
            m_groupLevels[grp.index()] = std::max(m_groupLevels[grp.index()], level);
    }
}

int GraphView::itemLevel(int item) const
{
    if (!m_layout || item < 0 || size_t(item) >= m_layout->items.size())
        return 0;
    const LayoutItem &it = m_layout->items[size_t(item)];
    if (it.kind == LayoutItem::Kind::Node) {
        const auto found = m_nodeLevels.find(it.id);
        return found == m_nodeLevels.end() ? 0 : found->second;
    }
    return size_t(it.id) < m_groupLevels.size() ? m_groupLevels[size_t(it.id)] : 0;
}

QColor GraphView::levelColor(int level) const
{
    for (const auto &e : m_legend)
        if (e.level == level)
            return e.color;
    return {};
}

void GraphView::setExpanded(GroupId group, bool expanded)
{
    if (!m_engine || !group.isValid() || group.index() >= m_engine->hierarchy().groups.size() || isExpanded(group) == expanded)
        return;
    if (expanded)
        m_expanded.insert(group);
    else
        m_expanded.erase(group);
    requestLayout(group);
}

void GraphView::requestLayout(GroupId anchor)
{
    if (auto cached = m_engine->cached(m_expanded)) { // switching back to a known state: instant
        m_pendingJob = 0;
        applyLayout(std::move(cached), anchor);
        return;
    }
    const int job = ++m_jobCounter;
    m_pendingJob = job;
    auto *watcher = new QFutureWatcher<std::shared_ptr<const GraphLayout>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, job, anchor] {
        watcher->deleteLater();
        if (job != m_pendingJob)
            return; // a newer expansion was asked for meanwhile
        m_pendingJob = 0;
        applyLayout(watcher->result(), anchor);
    });
    watcher->setFuture(QtConcurrent::run(backgroundPool(), [engine = m_engine, expansion = m_expanded] {
        const BackgroundPriority background;
        return engine->layout(expansion);
    }));
    update();
}

void GraphView::applyLayout(std::shared_ptr<const GraphLayout> layout, GroupId anchor)
{
    const auto old = std::move(m_layout);
    m_layout = std::move(layout);
    m_hoverEdge = -1;
    m_minimapValid = false;
    m_labels.assign(m_layout ? m_layout->items.size() : 0, BoxLabels{});
    m_edgeBounds.clear();
    if (m_layout) {
        m_edgeBounds.reserve(m_layout->edges.size());
        for (const LayoutEdge &le : m_layout->edges) {
            double x0 = le.points.front().x(), x1 = x0, y0 = le.points.front().y(), y1 = y0;
            for (const QPointF &pt : le.points) {
                x0 = std::min(x0, pt.x()), x1 = std::max(x1, pt.x());
                y0 = std::min(y0, pt.y()), y1 = std::max(y1, pt.y());
            }
            m_edgeBounds.emplace_back(QPointF(x0 - 1, y0 - 1), QPointF(x1 + 1, y1 + 1));
        }
    }
    if (m_showStartPending) {
        m_showStartPending = false;
        showStart();
    } else if (old && anchor.isValid()) {
        m_userMoved = true;
        // Keep the group that was opened or closed where the user clicked it.
        const int before = anchor.index() < old->groupItem.size() ? old->groupItem[anchor.index()] : -1;
        const int after = m_layout->groupItem[anchor.index()];
        if (before >= 0 && after >= 0)
            m_origin += m_layout->items[size_t(after)].rect.topLeft() - old->items[size_t(before)].rect.topLeft();
    } else if (!old && !m_pendingCenter.isValid()) {
        showStart();
    }
    if (m_pendingCenter.isValid()) {
        const NodeId node = m_pendingCenter;
        m_pendingCenter = NodeId{};
        selectNode(node);
    }
    update();
    emit layoutChanged();
    emit viewportChanged();
}

std::vector<NodeId> GraphView::findNodes(const QString &text, int limit) const
{
    std::vector<NodeId> out;
    const Graph *g = graph();
    if (!g || text.isEmpty())
        return out;
    for (size_t n = 0; n < g->nodes.size() && int(out.size()) < limit; ++n)
        if (g->nodes[n].name.contains(text, Qt::CaseInsensitive) || g->nodes[n].type.contains(text, Qt::CaseInsensitive))
            out.push_back(NodeId{int(n)});
    return out;
}

void GraphView::selectNode(NodeId node)
{
    const Graph *g = graph();
    if (!g || !node.isValid() || node.index() >= g->nodes.size())
        return;
    m_selected = node;
    if (!m_engine) { // the first view is still being made
        m_pendingCenter = node;
        update();
        return;
    }
    bool missing = false;
    for (GroupId grp : m_engine->ancestors(node))
        missing = m_expanded.insert(grp).second || missing;
    if (missing || !m_layout || isLayoutPending()) {
        m_pendingCenter = node;
        if (missing)
            requestLayout({});
        update();
        return;
    }
    const int item = m_layout->nodeItem[node.index()];
    if (item < 0)
        return;
    m_userMoved = true;
    if (m_zoom < readableZoom() * 0.8)
        m_zoom = readableZoom(); // readable labels at the target
    centerOn(m_layout->items[size_t(item)].rect.center());
}

void GraphView::showStart()
{
    if (!m_layout || m_layout->bounds.isEmpty()) {
        update();
        return;
    }
    m_userMoved = false;
    const QRectF b = m_layout->bounds.adjusted(-20, -20, 20, 20);
    const double fit = std::min(width() / b.width(), height() / b.height());
    if (fit >= readableZoom()) { // everything fits with readable labels
        m_zoom = std::min(fit, 1.5);
        centerOn(b.center());
        return;
    }
    m_zoom = readableZoom();
    const int item = m_layout->visibleItemOf(m_start);
    const QRectF target = item >= 0 ? m_layout->items[size_t(item)].rect : QRectF(b.topLeft(), QSizeF(1, 1));
    const QSizeF view(width() / m_zoom, height() / m_zoom);
    // The start near the top (the entry: what comes after it is below), centred across;
    // a start deep in the graph (first overflow) in the middle. No empty margin beyond the graph.
    const bool atTop = target.top() - b.top() < view.height() / 2;
    QPointF o(target.center().x() - view.width() / 2, atTop ? b.top() : target.center().y() - view.height() / 2);
    if (b.width() > view.width())
        o.setX(std::clamp(o.x(), b.left(), b.right() - view.width()));
    else
        o.setX(b.center().x() - view.width() / 2);
    if (b.height() > view.height())
        o.setY(std::clamp(o.y(), b.top(), b.bottom() - view.height()));
    else
        o.setY(b.center().y() - view.height() / 2);
    m_origin = o;
    update();
    emit viewportChanged();
}

void GraphView::fitToView()
{
    if (!m_layout || m_layout->bounds.isEmpty()) {
        update();
        return;
    }
    const QRectF b = m_layout->bounds.adjusted(-20, -20, 20, 20);
    m_zoom = std::clamp(std::min(width() / b.width(), height() / b.height()), kMinZoom, 1.5);
    m_userMoved = true; // a resize keeps the fitted view where it is
    centerOn(b.center());
}

void GraphView::centerOn(QPointF scenePos)
{
    m_origin = scenePos - QPointF(width(), height()) / (2 * m_zoom);
    update();
    emit viewportChanged();
}

void GraphView::moved()
{
    m_userMoved = true;
    update();
    emit viewportChanged();
}

void GraphView::resizeEvent(QResizeEvent *)
{
    m_minimapValid = false;
    if (!m_userMoved && m_layout)
        showStart();
}

void GraphView::setZoom(double zoom, QPointF anchor)
{
    const QPointF at = mapToScene(anchor);
    m_zoom = std::clamp(zoom, kMinZoom, kMaxZoom);
    m_origin = at - anchor / m_zoom;
    moved();
}

QRectF GraphView::visibleSceneRect() const
{
    return QRectF(m_origin, QSizeF(width() / m_zoom, height() / m_zoom));
}

int GraphView::itemAt(QPointF widgetPos) const
{
    if (!m_layout)
        return -1;
    const QPointF s = mapToScene(widgetPos);
    // Items are stored outer frames first: the last hit is the innermost.
    for (size_t i = m_layout->items.size(); i-- > 0;)
        if (m_layout->items[i].rect.contains(s))
            return int(i);
    return -1;
}

int GraphView::edgeAt(QPointF widgetPos) const
{
    if (!m_layout)
        return -1;
    const QPointF s = mapToScene(widgetPos);
    const double tolerance = 5 / m_zoom;
    int best = -1;
    double bestDist = tolerance;
    for (size_t e = 0; e < m_layout->edges.size(); ++e) {
        if (!m_edgeBounds[e].adjusted(-tolerance, -tolerance, tolerance, tolerance).contains(s))
            continue;
        const auto &pts = m_layout->edges[e].points;
        for (size_t i = 1; i < pts.size(); ++i) {
            const double d = distanceToSegment(s, pts[i - 1], pts[i]);
            if (d < bestDist) {
                bestDist = d;
                best = int(e);
            }
        }
    }
    return best;
}

QString GraphView::edgeToolTip(int edge) const
{
    const Graph *g = graph();
    if (!g || !m_layout || edge < 0 || size_t(edge) >= m_layout->edges.size())
        return {};
    const LayoutEdge &le = m_layout->edges[size_t(edge)];
    const GraphEdge &ge = g->edges[size_t(le.graphEdge)];
    const GraphNode &from = g->node(ge.from), &to = g->node(ge.to);
    QString text;
    if (ge.isControl()) {
        text = tr("Control edge: %1 \u2192 %2").arg(from.name, to.name);
    } else if (m_moduleLabels) {
        text = tr("Call order: %1 \u2192 %2 (msprobe records no data flow)").arg(from.name, to.name);
    } else {
        text = tr("%1:%2 \u2192 %3 (input %4)").arg(from.name).arg(ge.outIndex).arg(to.name).arg(ge.inIndex);
        if (size_t(ge.outIndex) < from.outputDescs.size()) {
            const GraphTensorDesc &d = from.outputDescs[size_t(ge.outIndex)];
            text += QLatin1Char('\n') + tr("Tensor: %1 %2 %3").arg(d.dtypeName, shapeText(d.shape), d.layout);
        } else {
            text += QLatin1Char('\n') + tr("Tensor: output %1 has no descriptor in the graph").arg(ge.outIndex);
        }
    }
    if (le.count > 1)
        text += QLatin1Char('\n') + tr("%n more edge(s) between these boxes", nullptr, le.count - 1);
    if (le.reversed)
        text += QLatin1Char('\n') + tr("Part of a cycle: drawn upward");
    return text;
}

QString GraphView::itemName(int item) const
{
    if (!m_layout || !m_engine || item < 0 || size_t(item) >= m_layout->items.size())
        return {};
    const LayoutItem &it = m_layout->items[size_t(item)];
    if (it.kind != LayoutItem::Kind::Node)
        return m_moduleLabels ? moduleDisplayLabel(m_engine->groupLabel(it.group())) : m_engine->groupLabel(it.group());
    const QString label = m_engine->nodeLabel(it.node());
    if (!m_moduleLabels)
        return label;
    const GroupId scope = m_graph->node(it.node()).group; // the module scope (a fold may hold it)
    return moduleNodeLabel(label, scope.isValid() ? m_graph->group(scope).label : QString());
}

QString GraphView::itemToolTip(int item) const
{
    const Graph *g = graph();
    const LayoutItem &it = m_layout->items[size_t(item)];
    if (it.kind == LayoutItem::Kind::Node) {
        const GraphNode &n = g->node(it.node());
        QString text = tr("%1\nType: %2").arg(n.name, n.type);
        if (n.attr(QString::fromLatin1(kVisNodeAttr))) { // msprobe graph database: its rows and levels
            for (const GraphAttr &a : n.attrs)
                if (a.key == QLatin1String(kVisOverflowAttr) || a.key == QLatin1String(kVisPrecisionLevelAttr))
                    text += QLatin1Char('\n') + tr("%1: %2").arg(a.key, a.value);
            constexpr size_t kRows = 12;
            const std::vector<GraphTensorDesc> *inputs = &n.inputDescs, *outputs = &n.outputDescs;
            if (visDbRowsKey(*g, n).isValid()) { // rows left in the database: read on demand
                const auto fetched = m_nodeRows.find(it.node().value);
                if (fetched == m_nodeRows.end() || !fetched->second)
                    return text + QLatin1Char('\n') + tr("Inputs and outputs: reading them from the graph database\u2026");
                if (!fetched->second->ok())
                    return text + QLatin1Char('\n') + tr("Inputs and outputs: cannot read them: %1").arg(fetched->second->errorText());
                inputs = &(*fetched->second)->inputs;
                outputs = &(*fetched->second)->outputs;
            }
            for (const auto *rows : {inputs, outputs})
                for (size_t r = 0; r < rows->size() && r < kRows; ++r)
                    text += QLatin1Char('\n') + visDbRowSummary((*rows)[r]);
            return text;
        }
        for (size_t o = 0; o < n.outputDescs.size(); ++o)
            text += QLatin1Char('\n') + tr("Output %1: %2 %3").arg(o).arg(n.outputDescs[o].dtypeName, shapeText(n.outputDescs[o].shape));
        return text;
    }
    const HierarchyGroup &grp = m_engine->hierarchy().group(it.group());
    const QString action = it.kind == LayoutItem::Kind::Group ? tr("open") : tr("close");
    if (grp.kind == GroupKind::Fold)
        return tr("%1\n%n sibling(s) sharing this name pattern, folded into one box; double-click to %2", nullptr, grp.memberCount)
            .arg(grp.path, action);
    return tr("%1\n%n operator(s); double-click to %2", nullptr, grp.nodeCount).arg(grp.path, action);
}

bool GraphView::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip && m_layout) {
        auto *help = static_cast<QHelpEvent *>(event);
        QString text;
        if (const int edge = edgeAt(help->pos()); edge >= 0)
            text = edgeToolTip(edge);
        else if (const int item = itemAt(help->pos()); item >= 0) {
            const LayoutItem &it = m_layout->items[size_t(item)];
            m_tipNode = it.kind == LayoutItem::Kind::Node ? it.node() : NodeId{};
            m_tipPos = help->pos();
            if (it.kind == LayoutItem::Kind::Node && !m_nodeRows.count(it.node().value)
                && visDbRowsKey(*m_graph, m_graph->node(it.node())).isValid())
                fetchNodeRows(it.node());
            text = itemToolTip(item);
        }
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void GraphView::fetchNodeRows(NodeId node)
{
    if (m_nodeRows.size() >= 4096) // rows of nodes hovered long ago: read again when needed
        m_nodeRows.clear();
    m_nodeRows[node.value] = nullptr; // being read
    auto *watcher = new QFutureWatcher<std::shared_ptr<const Result<VisDbNodeRows>>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, node, graph = m_graph.get()] {
        watcher->deleteLater();
        if (graph != m_graph.get())
            return; // another graph is shown
        m_nodeRows[node.value] = watcher->result();
        if (!QToolTip::isVisible() || !m_layout || !(m_tipNode == node))
            return; // the tooltip asking for them is gone
        const int item = itemAt(m_tipPos);
        if (item >= 0 && m_layout->items[size_t(item)].kind == LayoutItem::Kind::Node && m_layout->items[size_t(item)].node() == node)
            QToolTip::showText(mapToGlobal(m_tipPos), itemToolTip(item), this);
    });
    watcher->setFuture(QtConcurrent::run(backgroundPool(), [key = visDbRowsKey(*m_graph, m_graph->node(node))] {
        const BackgroundPriority background;
        return std::shared_ptr<const Result<VisDbNodeRows>>(std::make_shared<Result<VisDbNodeRows>>(readVisDbNodeRows(key)));
    }));
}

void GraphView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    m_pressed = true;
    m_dragging = false;
    m_pressPos = m_lastPos = event->position().toPoint();
    const QRect mm = minimapRect();
    m_minimapDrag = mm.contains(m_pressPos);
    if (m_minimapDrag) {
        const QRectF b = m_layout->bounds;
        const double s = std::min(mm.width() / b.width(), mm.height() / b.height());
        m_userMoved = true;
        centerOn(b.topLeft() + QPointF(m_pressPos - mm.topLeft()) / s);
    }
}

void GraphView::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    if (m_pressed && m_minimapDrag) {
        const QRect mm = minimapRect();
        if (!mm.isEmpty()) {
            const QRectF b = m_layout->bounds;
            const double s = std::min(mm.width() / b.width(), mm.height() / b.height());
            centerOn(b.topLeft() + QPointF(pos - mm.topLeft()) / s);
        }
        return;
    }
    if (m_pressed) {
        if (!m_dragging && (pos - m_pressPos).manhattanLength() >= QApplication::startDragDistance()) {
            m_dragging = true;
            setCursor(Qt::ClosedHandCursor);
        }
        if (m_dragging) {
            m_origin -= QPointF(pos - m_lastPos) / m_zoom;
            m_lastPos = pos;
            moved();
        }
        return;
    }
    const int hover = edgeAt(pos);
    if (hover != m_hoverEdge) {
        m_hoverEdge = hover;
        update();
    }
}

void GraphView::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || !m_pressed)
        return QWidget::mouseReleaseEvent(event);
    m_pressed = false;
    unsetCursor();
    if (m_dragging || m_minimapDrag) {
        m_dragging = m_minimapDrag = false;
        return;
    }
    const int item = itemAt(event->position());
    if (item >= 0 && m_layout->items[size_t(item)].kind == LayoutItem::Kind::Node) {
        m_selected = m_layout->items[size_t(item)].node();
        update();
        emit nodeActivated(m_selected);
    }
}

void GraphView::mouseDoubleClickEvent(QMouseEvent *event)
{
    const int item = itemAt(event->position());
    if (item < 0 || event->button() != Qt::LeftButton)
        return;
    const LayoutItem &it = m_layout->items[size_t(item)];
    if (it.kind != LayoutItem::Kind::Node)
        toggleGroup(it.group());
    else
        emit nodeDoubleClicked(it.node());
}

void GraphView::wheelEvent(QWheelEvent *event)
{
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0)
        return;
    setZoom(m_zoom * std::pow(1.2, steps), event->position());
    event->accept();
}

void GraphView::keyPressEvent(QKeyEvent *event)
{
    const QPointF centre(width() / 2.0, height() / 2.0);
    switch (event->key()) {
    case Qt::Key_Plus: case Qt::Key_Equal: setZoom(m_zoom * 1.25, centre); break;
    case Qt::Key_Minus: setZoom(m_zoom / 1.25, centre); break;
    case Qt::Key_0: fitToView(); break;
    case Qt::Key_Home: showStart(); break;
    default: QWidget::keyPressEvent(event);
    }
}

} // namespace ds
