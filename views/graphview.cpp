#include "graphview.h"

#include <QApplication>
#include <QFutureWatcher>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <QWheelEvent>
#include <QtConcurrent>
#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>

namespace ds {

namespace {

constexpr double kMinZoom = 0.01, kMaxZoom = 4.0;
constexpr double kLabelZoom = 0.45; ///< below this zoom, labels are not drawn
constexpr int kMinimapMax = 200;

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

GraphView::GraphView(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAutoFillBackground(false);
    setMinimumSize(200, 150);
}

GraphView::~GraphView() = default; // running layout jobs hold the engine, not the view

const Graph *GraphView::graph() const
{
    return m_engine ? &m_engine->graph() : nullptr;
}

void GraphView::setGraph(std::shared_ptr<const Graph> graph)
{
    m_engine = graph ? std::make_shared<GraphLayoutEngine>(std::move(graph)) : nullptr;
    m_layout.reset();
    m_expanded.clear();
    m_selected = m_pendingCenter = NodeId{};
    m_nodeLevels.clear();
    m_faded.clear();
    m_hoverEdge = -1;
    m_userMoved = false;
    updateGroupLevels();
    if (m_engine)
        requestLayout({});
    else
        m_pendingJob = 0;
    update();
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
    const Graph *g = graph();
    m_groupLevels.assign(g ? g->groups.size() : 0, 0);
    if (!g)
        return;
    for (const auto &[node, level] : m_nodeLevels) {
        if (node < 0 || size_t(node) >= g->nodes.size())
            continue;
        for (GroupId grp = g->nodes[size_t(node)].group; grp.isValid(); grp = g->group(grp).parent)
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
    if (!m_engine || !group.isValid() || isExpanded(group) == expanded)
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
    watcher->setFuture(QtConcurrent::run([engine = m_engine, expansion = m_expanded] { return engine->layout(expansion); }));
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
    if (!old) {
        fitToView();
    } else if (anchor.isValid()) {
        m_userMoved = true;
        // Keep the group that was opened or closed where the user clicked it.
        const int before = old->groupItem[anchor.index()], after = m_layout->groupItem[anchor.index()];
        if (before >= 0 && after >= 0)
            m_origin += m_layout->items[size_t(after)].rect.topLeft() - old->items[size_t(before)].rect.topLeft();
    }
    if (m_pendingCenter.isValid()) {
        const NodeId node = m_pendingCenter;
        m_pendingCenter = NodeId{};
        selectNode(node);
    }
    update();
    emit layoutChanged();
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
    if (m_zoom < 0.8)
        m_zoom = 1.0; // readable labels at the target
    centerOn(m_layout->items[size_t(item)].rect.center());
}

void GraphView::fitToView()
{
    if (!m_layout || m_layout->bounds.isEmpty()) {
        update();
        return;
    }
    const QRectF b = m_layout->bounds.adjusted(-20, -20, 20, 20);
    m_zoom = std::clamp(std::min(width() / b.width(), height() / b.height()), kMinZoom, 1.5);
    centerOn(b.center());
}

void GraphView::centerOn(QPointF scenePos)
{
    m_origin = scenePos - QPointF(width(), height()) / (2 * m_zoom);
    update();
}

void GraphView::resizeEvent(QResizeEvent *)
{
    m_minimapValid = false;
    if (!m_userMoved)
        fitToView();
}

void GraphView::setZoom(double zoom, QPointF anchor)
{
    m_userMoved = true;
    const QPointF at = mapToScene(anchor);
    m_zoom = std::clamp(zoom, kMinZoom, kMaxZoom);
    m_origin = at - anchor / m_zoom;
    update();
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

QString GraphView::itemToolTip(int item) const
{
    const Graph *g = graph();
    const LayoutItem &it = m_layout->items[size_t(item)];
    if (it.kind == LayoutItem::Kind::Node) {
        const GraphNode &n = g->node(it.node());
        QString text = tr("%1\nType: %2").arg(n.name, n.type);
        for (size_t o = 0; o < n.outputDescs.size(); ++o)
            text += QLatin1Char('\n') + tr("Output %1: %2 %3").arg(o).arg(n.outputDescs[o].dtypeName, shapeText(n.outputDescs[o].shape));
        return text;
    }
    const NameGroup &grp = g->group(it.group());
    return tr("%1\n%n operator(s); double-click to %2", nullptr, m_engine->groupNodeCount(it.group()))
        .arg(grp.path, it.kind == LayoutItem::Kind::Group ? tr("open") : tr("close"));
}

bool GraphView::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip && m_layout) {
        auto *help = static_cast<QHelpEvent *>(event);
        QString text;
        if (const int edge = edgeAt(help->pos()); edge >= 0)
            text = edgeToolTip(edge);
        else if (const int item = itemAt(help->pos()); item >= 0)
            text = itemToolTip(item);
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

QRect GraphView::minimapRect() const
{
    if (!m_layout || m_layout->bounds.isEmpty() || visibleSceneRect().contains(m_layout->bounds))
        return {}; // everything is on screen: no minimap needed
    const QSizeF b = m_layout->bounds.size();
    const double s = std::min(kMinimapMax / b.width(), kMinimapMax / b.height());
    const QSize size(std::max(24, int(b.width() * s)), std::max(24, int(b.height() * s)));
    return QRect(QPoint(width() - size.width() - 10, height() - size.height() - 10), size);
}

namespace {

/// Liang-Barsky: the part of segment a-b inside r (false when none). Painting only that part
/// keeps long dashed frames and edges cheap: the raster engine dashes and antialiases a line
/// over its whole length, not just the visible part.
bool clipSegment(QPointF &a, QPointF &b, const QRectF &r)
{
    double t0 = 0, t1 = 1;
    const double dx = b.x() - a.x(), dy = b.y() - a.y();
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {a.x() - r.left(), r.right() - a.x(), a.y() - r.top(), r.bottom() - a.y()};
    for (int i = 0; i < 4; ++i) {
        if (p[i] == 0) {
            if (q[i] < 0)
                return false;
            continue;
        }
        const double t = q[i] / p[i];
        if (p[i] < 0)
            t0 = std::max(t0, t);
        else
            t1 = std::min(t1, t);
        if (t0 > t1)
            return false;
    }
    const QPointF a0 = a;
    a = a0 + QPointF(dx, dy) * t0;
    b = a0 + QPointF(dx, dy) * t1;
    return true;
}

void drawClippedPolyline(QPainter &p, const std::vector<QPointF> &pts, const QRectF &clip)
{
    for (size_t i = 1; i < pts.size(); ++i) {
        QPointF a = pts[i - 1], b = pts[i];
        if (clipSegment(a, b, clip))
            p.drawLine(a, b);
    }
}

} // namespace

GraphView::BoxLabels &GraphView::boxLabels(int item, const QFont &font, const QFont &small)
{
    BoxLabels &lb = m_labels[size_t(item)];
    if (lb.ready)
        return lb;
    const LayoutItem &it = m_layout->items[size_t(item)];
    const int width = int(it.rect.width() - 12);
    const QFontMetrics fm(font), sm(small);
    const Graph &g = *graph();
    QString name, type;
    if (it.kind == LayoutItem::Kind::Group) {
        name = fm.elidedText(QStringLiteral("\u25b8 ") + g.group(it.group()).label, Qt::ElideMiddle, width);
        type = tr("%n op(s)", nullptr, m_engine->groupNodeCount(it.group()));
    } else {
        name = fm.elidedText(m_engine->nodeLabel(it.node()), Qt::ElideMiddle, width);
        type = sm.elidedText(g.node(it.node()).type, Qt::ElideRight, width);
    }
    for (auto [text, f, out] : {std::tuple{name, &font, &lb.name}, std::tuple{type, &small, &lb.type}}) {
        out->setTextFormat(Qt::PlainText);
        out->setText(text);
        out->setPerformanceHint(QStaticText::AggressiveCaching);
        out->prepare(QTransform(), *f);
    }
    lb.ready = true;
    return lb;
}

/// Edges batched by style: one pen change per style, segments clipped to the view.
void GraphView::paintEdges(QPainter &p, const QRectF &view, const QColor &mid, const QColor &accent)
{
    const QRectF clip = view.adjusted(-20, -20, 20, 20);
    const QColor styleColor[2] = {mid.darker(130), QColor(0x8e, 0x44, 0xad)};
    std::vector<QLineF> segments[4]; // [reversed * 2 + control]
    std::vector<std::array<QPointF, 3>> heads[2]; // [reversed]
    auto addEdge = [&](const LayoutEdge &le, std::vector<QLineF> &out, std::vector<std::array<QPointF, 3>> *arrows) {
        for (size_t i = 1; i < le.points.size(); ++i) {
            QPointF a = le.points[i - 1], b = le.points[i];
            if (clipSegment(a, b, clip))
                out.emplace_back(a, b);
        }
        if (!arrows || m_zoom < 0.3) // arrow heads at the consumer
            return;
        const QPointF tip = le.points.back(), from = le.points[le.points.size() - 2];
        const QPointF d = tip - from;
        const double len = std::hypot(d.x(), d.y());
        if (len > 0 && clip.contains(tip)) {
            const QPointF u = d / len, n(-u.y(), u.x());
            arrows->push_back({tip, tip - 7 * u + 3.5 * n, tip - 7 * u - 3.5 * n});
        }
    };
    for (size_t e = 0; e < m_layout->edges.size(); ++e) {
        if (int(e) == m_hoverEdge || !view.intersects(m_edgeBounds[e]))
            continue;
        const LayoutEdge &le = m_layout->edges[e];
        addEdge(le, segments[(le.reversed ? 2 : 0) + (le.control ? 1 : 0)], &heads[le.reversed ? 1 : 0]);
    }
    const double width = 1.2 / std::max(m_zoom, 0.4);
    for (int style = 0; style < 4; ++style) {
        if (segments[style].empty())
            continue;
        p.setPen(QPen(styleColor[style / 2], width, style % 2 ? Qt::DashLine : Qt::SolidLine));
        p.drawLines(segments[style].data(), int(segments[style].size()));
    }
    p.setPen(Qt::NoPen);
    for (int r = 0; r < 2; ++r) {
        p.setBrush(styleColor[r]);
        for (const auto &h : heads[r])
            p.drawPolygon(h.data(), 3);
    }
    if (m_hoverEdge >= 0 && size_t(m_hoverEdge) < m_layout->edges.size()) {
        const LayoutEdge &le = m_layout->edges[size_t(m_hoverEdge)];
        std::vector<QLineF> hover;
        std::vector<std::array<QPointF, 3>> head;
        addEdge(le, hover, &head);
        p.setPen(QPen(accent, 2.5 / std::max(m_zoom, 0.4), le.control ? Qt::DashLine : Qt::SolidLine));
        p.drawLines(hover.data(), int(hover.size()));
        p.setPen(Qt::NoPen);
        p.setBrush(accent);
        for (const auto &h : head)
            p.drawPolygon(h.data(), 3);
    }
    p.setBrush(Qt::NoBrush);
}

void GraphView::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (!m_layout) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                   m_engine ? tr("Laying out the graph\u2026") : tr("No computation graph. Open a dump whose folder (or its parent) holds GE graph files (ge_proto_*.txt)."));
        return;
    }
    const bool labels = m_zoom >= kLabelZoom;
    p.setRenderHint(QPainter::Antialiasing, m_zoom >= 0.3);
    p.save();
    p.scale(m_zoom, m_zoom);
    p.translate(-m_origin);
    const QRectF view = visibleSceneRect();
    const QColor text = palette().color(QPalette::Text), mid = palette().color(QPalette::Mid);
    const QColor accent = palette().color(QPalette::Highlight);
    QFont font = p.font();
    font.setPointSizeF(9);
    QFont small = font;
    small.setPointSizeF(7.5);
    const Graph &g = *graph();

    // Open group frames (outer first), edges, then boxes on top.
    for (size_t i = 0; i < m_layout->items.size(); ++i) {
        const LayoutItem &it = m_layout->items[i];
        if (it.kind != LayoutItem::Kind::ExpandedGroup || !view.intersects(it.rect))
            continue;
        const int level = itemLevel(int(i));
        QColor fill = palette().color(QPalette::AlternateBase);
        p.setPen(QPen(level > 0 ? levelColor(level) : mid, 1.2 / std::max(m_zoom, 0.5), Qt::DashLine));
        p.setBrush(fill);
        const QRectF clip = view.adjusted(-20, -20, 20, 20);
        if (clip.contains(it.rect)) {
            p.drawRoundedRect(it.rect, 8, 8);
        } else { // a frame larger than the view: fill the visible part, draw only visible sides
            p.fillRect(it.rect.intersected(clip), fill);
            drawClippedPolyline(p, {it.rect.topLeft(), it.rect.topRight(), it.rect.bottomRight(), it.rect.bottomLeft(), it.rect.topLeft()}, clip);
        }
        if (labels) {
            p.setFont(font);
            p.setPen(text);
            p.drawText(it.rect.adjusted(10, 4, -10, 0).toRect(), Qt::AlignLeft | Qt::AlignTop,
                       QStringLiteral("\u25be ") + g.group(it.group()).label + QStringLiteral("  (%1)").arg(m_engine->groupNodeCount(it.group())));
        }
    }
    paintEdges(p, view, mid, accent);
    const QColor base = palette().color(QPalette::Base), button = palette().color(QPalette::Button);
    // Boxes of a few pixels are filled without outline, batched per colour (zoomed-out views
    // show thousands of them).
    std::vector<std::vector<QRectF>> tiny;
    for (size_t i = 0; i < m_layout->items.size(); ++i) {
        const LayoutItem &it = m_layout->items[i];
        if (it.kind == LayoutItem::Kind::ExpandedGroup || !view.intersects(it.rect))
            continue;
        const int level = itemLevel(int(i));
        const bool isGroup = it.kind == LayoutItem::Kind::Group;
        const bool faded = !isGroup && size_t(it.id) < m_faded.size() && m_faded[size_t(it.id)];
        QColor fill = isGroup ? button : base;
        if (level > 0) { // the legend colour washed with white keeps labels readable and levels apart
            const QColor c = levelColor(level);
            fill = QColor::fromRgbF(c.redF() * 0.55f + 0.45f, c.greenF() * 0.55f + 0.45f, c.blueF() * 0.55f + 0.45f);
        }
        const bool selected = !isGroup && it.id == m_selected.value;
        if (it.rect.width() * m_zoom < 3 && !selected) { // level of detail: a few pixels need no outline
            if (tiny.size() <= size_t(level))
                tiny.resize(size_t(level) + 1);
            tiny[size_t(level)].push_back(it.rect);
            continue;
        }
        p.setBrush(fill);
        p.setPen(QPen(selected ? accent : (level > 0 ? levelColor(level) : mid), (selected ? 3.0 : 1.0) / std::max(m_zoom, 0.5),
                      faded ? Qt::DotLine : Qt::SolidLine));
        p.drawRoundedRect(it.rect, isGroup ? 6 : 3, isGroup ? 6 : 3);
        if (isGroup) { // a stacked look tells a group from an operator
            p.setBrush(Qt::NoBrush);
            p.drawLine(it.rect.bottomLeft() + QPointF(4, 3), it.rect.bottomRight() + QPointF(-4, 3));
        }
        if (!labels)
            continue;
        const QRectF r = it.rect.adjusted(6, 2, -6, -2);
        BoxLabels &lb = boxLabels(int(i), font, small);
        const double nameX = isGroup ? r.left() : r.center().x() - lb.name.size().width() / 2;
        const double typeX = isGroup ? r.left() : r.center().x() - lb.type.size().width() / 2;
        p.setPen(faded ? palette().color(QPalette::PlaceholderText) : text);
        p.setFont(font);
        p.drawStaticText(QPointF(nameX, r.top()), lb.name);
        p.setFont(small);
        if (!isGroup)
            p.setPen(faded ? palette().color(QPalette::PlaceholderText) : mid.darker(160));
        p.drawStaticText(QPointF(typeX, r.bottom() - lb.type.size().height()), lb.type);
    }
    p.setPen(Qt::NoPen);
    for (size_t level = 0; level < tiny.size(); ++level) {
        if (tiny[level].empty())
            continue;
        p.setBrush(level > 0 ? levelColor(int(level)) : mid);
        p.drawRects(tiny[level].data(), int(tiny[level].size()));
    }
    p.restore();
    if (isLayoutPending()) {
        p.setPen(text);
        p.drawText(rect().adjusted(8, 6, -8, -6), Qt::AlignLeft | Qt::AlignTop, tr("Laying out\u2026"));
    }
    paintMinimap(p);
}

void GraphView::paintMinimap(QPainter &p)
{
    const QRect mm = minimapRect();
    if (mm.isEmpty())
        return;
    const QRectF b = m_layout->bounds;
    const double s = std::min(mm.width() / b.width(), mm.height() / b.height());
    auto toMini = [&](const QRectF &r) {
        return QRectF(mm.topLeft() + (r.topLeft() - b.topLeft()) * s, r.size() * s);
    };
    p.setRenderHint(QPainter::Antialiasing, false);
    if (!m_minimapValid || m_minimap.size() != mm.size() + QSize(1, 1)) {
        // The overview changes only with the layout or the overlay: draw it once.
        m_minimap = QPixmap(mm.size() + QSize(1, 1));
        m_minimap.fill(Qt::transparent);
        QPainter mp(&m_minimap);
        mp.translate(-mm.topLeft() + QPoint(1, 1));
        QColor bg = palette().color(QPalette::Window);
        bg.setAlpha(225);
        mp.setPen(palette().color(QPalette::Mid));
        mp.setBrush(bg);
        mp.drawRect(mm.adjusted(-1, -1, 0, 0));
        std::vector<std::vector<QRectF>> boxes;
        std::vector<QRectF> frames;
        for (size_t i = 0; i < m_layout->items.size(); ++i) {
            const LayoutItem &it = m_layout->items[i];
            if (it.kind == LayoutItem::Kind::ExpandedGroup) {
                frames.push_back(toMini(it.rect));
                continue;
            }
            const int level = itemLevel(int(i));
            if (boxes.size() <= size_t(level))
                boxes.resize(size_t(level) + 1);
            boxes[size_t(level)].push_back(toMini(it.rect));
        }
        mp.setBrush(Qt::NoBrush);
        mp.drawRects(frames.data(), int(frames.size()));
        mp.setPen(Qt::NoPen);
        for (size_t level = 0; level < boxes.size(); ++level) {
            mp.setBrush(level > 0 ? levelColor(int(level)) : palette().color(QPalette::Dark));
            mp.drawRects(boxes[level].data(), int(boxes[level].size()));
        }
        m_minimapValid = true;
    }
    p.drawPixmap(mm.topLeft() - QPoint(1, 1), m_minimap);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(palette().color(QPalette::Highlight), 1.5));
    p.drawRect(toMini(visibleSceneRect()).intersected(QRectF(mm)));
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
            m_userMoved = true;
            m_origin -= QPointF(pos - m_lastPos) / m_zoom;
            m_lastPos = pos;
            update();
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
    default: QWidget::keyPressEvent(event);
    }
}

} // namespace ds
