// GraphView painting: boxes, labels, edges and the minimap (graphview.cpp has the rest).
#include "graphview.h"

#include <QPainter>
#include <algorithm>
#include <array>
#include <map>
#include <cmath>
#include <tuple>

namespace ds {

namespace {

constexpr double kLabelZoom = 0.6;  ///< below this zoom (labels under 6 pt), labels are not drawn
constexpr double kTypeZoom = 0.85;  ///< below this zoom, the second line (type, count) is not drawn
/// Box labels laid out (QStaticText::prepare, ~0.1 ms a box) per frame at most: more boxes
/// coming into view at once get their labels over the next frames, so no frame stalls.
constexpr int kLabelsPerFrame = 80;
constexpr int kMinimapMax = 200;
constexpr size_t kFineEdges = 400; ///< edge segments in view up to which they are antialiased and dashed

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

/// A pen whose width is in device pixels whatever the zoom: the raster engine's cosmetic
/// stroker is far cheaper than stroking scaled (sub-pixel, when zoomed out) wide lines, and
/// lines look the same at every zoom.
QPen cosmetic(const QColor &c, double pixels, Qt::PenStyle style = Qt::SolidLine)
{
    QPen pen(c, pixels, style);
    pen.setCosmetic(true);
    return pen;
}

/// The legend colour washed with white: keeps labels readable and levels apart.
QColor washed(const QColor &c)
{
    return QColor::fromRgbF(c.redF() * 0.55f + 0.45f, c.greenF() * 0.55f + 0.45f, c.blueF() * 0.55f + 0.45f);
}

} // namespace

QRect GraphView::minimapRect() const
{
    if (!m_layout || m_layout->bounds.isEmpty() || visibleSceneRect().contains(m_layout->bounds))
        return {}; // everything is on screen: no minimap needed
    const QSizeF b = m_layout->bounds.size();
    // At most a quarter of the view's smaller side (narrow side-by-side views keep their boxes).
    const double most = std::clamp(std::min(width(), height()) / 4.0, 60.0, double(kMinimapMax));
    const double s = std::min(most / b.width(), most / b.height());
    const QSize size(std::max(24, int(b.width() * s)), std::max(24, int(b.height() * s)));
    return QRect(QPoint(width() - size.width() - 10, height() - size.height() - 10), size);
}

GraphView::BoxLabels &GraphView::boxLabels(int item, const QFont &font, const QFont &small)
{
    BoxLabels &lb = m_labels[size_t(item)];
    if (lb.ready)
        return lb;
    const LayoutItem &it = m_layout->items[size_t(item)];
    const int width = int(it.rect.width() - 12);
    const QFontMetrics fm(font), sm(small);
    QString name, type;
    if (it.kind == LayoutItem::Kind::Group) {
        const HierarchyGroup &hg = m_engine->hierarchy().group(it.group());
        name = fm.elidedText(QStringLiteral("\u25b8 ") + itemName(item), Qt::ElideMiddle, width);
        if (hg.kind == GroupKind::Fold && !hg.commonType.isEmpty() && hg.childGroups.empty())
            type = tr("\u00d7%1 %2").arg(hg.memberCount).arg(hg.commonType); // "×120 AtomicAddrClean"
        else if (hg.kind == GroupKind::Fold)
            type = tr("\u00d7%1, %n op(s)", nullptr, hg.nodeCount).arg(hg.memberCount);
        else if (hg.nodeCount == 1 && !hg.commonType.isEmpty())
            type = hg.commonType; // a scope around one operator: its type says more than "1 op"
        else
            type = tr("%n op(s)", nullptr, hg.nodeCount);
        type = sm.elidedText(type, Qt::ElideRight, width);
    } else {
        name = fm.elidedText(itemName(item), Qt::ElideMiddle, width);
        type = sm.elidedText(graph()->node(it.node()).type, Qt::ElideRight, width);
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
    // Level of detail: dashes and antialiasing only where they can be seen and are few;
    // otherwise one-pixel lines (the raster engine's fastest), control edges lighter.
    size_t count = 0;
    for (const auto &v : segments)
        count += v.size();
    const bool fine = m_zoom >= 0.3 && count <= kFineEdges;
    const bool antialias = p.testRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::Antialiasing, antialias && fine);
    for (int style = 0; style < 4; ++style) {
        if (segments[style].empty())
            continue;
        const bool control = style % 2;
        QColor c = styleColor[style / 2];
        if (control && !fine)
            c = c.lighter(140);
        p.setPen(fine ? cosmetic(c, 1.2, control ? Qt::DashLine : Qt::SolidLine) : cosmetic(c, 0));
        p.drawLines(segments[style].data(), int(segments[style].size()));
    }
    p.setRenderHint(QPainter::Antialiasing, antialias);
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
        p.setPen(cosmetic(accent, 2.5, le.control ? Qt::DashLine : Qt::SolidLine));
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
    m_painted.clear();
    if (!m_layout) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(20, 20, -20, -20), Qt::AlignCenter | Qt::TextWordWrap,
                   m_graph ? tr("Laying out the graph\u2026")
                           : tr("No computation graph. Open a dump whose folder (or its parent) holds GE graph files "
                                "(ge_proto_*.txt), or add the graph folder with File \u2192 Add Graph Folder."));
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
    const QFont font = labelFont();
    QFont small = font;
    small.setPointSizeF(font.pointSizeF() * 0.85);
    const double fontPixels = QFontMetricsF(font).height(), smallPixels = QFontMetricsF(small).height();
    const QRectF widgetRect(rect());
    const GraphHierarchy &h = m_engine->hierarchy();
    auto record = [&](int item, const QStaticText &t, QPointF at, double pixels, double points, bool isName) {
        const QRectF r(mapFromScene(at), t.size() * m_zoom);
        if (widgetRect.contains(r))
            m_painted.push_back({item, t.text(), r, pixels * m_zoom, points * m_zoom, isName});
    };

    // Open group frames (outer first), edges, then boxes on top.
    for (size_t i = 0; i < m_layout->items.size(); ++i) {
        const LayoutItem &it = m_layout->items[i];
        if (it.kind != LayoutItem::Kind::ExpandedGroup || !view.intersects(it.rect))
            continue;
        const int level = itemLevel(int(i));
        const bool fold = h.group(it.group()).kind == GroupKind::Fold;
        QColor fill = palette().color(QPalette::AlternateBase);
        p.setPen(cosmetic(level > 0 ? levelColor(level) : mid, 1.2, m_zoom < 0.3 ? Qt::SolidLine : fold ? Qt::DotLine : Qt::DashLine));
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
            const HierarchyGroup &hg = h.group(it.group());
            const QString title = QStringLiteral("\u25be ") + itemName(int(i))
                                  + (fold ? QStringLiteral("  (\u00d7%1)").arg(hg.memberCount) : QStringLiteral("  (%1)").arg(hg.nodeCount));
            const QRectF titleRect = it.rect.adjusted(10, 4, -10, 0);
            p.drawText(titleRect, Qt::AlignLeft | Qt::AlignTop, title);
            const QRectF wr(mapFromScene(titleRect.topLeft()), QSizeF(std::min(titleRect.width(), QFontMetricsF(font).horizontalAdvance(title)), fontPixels) * m_zoom);
            if (widgetRect.contains(wr))
                m_painted.push_back({int(i), title, wr, fontPixels * m_zoom, font.pointSizeF() * m_zoom, true});
        }
    }
    paintEdges(p, view, mid, accent);
    const QColor base = palette().color(QPalette::Base), button = palette().color(QPalette::Button);
    // Boxes of a few pixels are filled without outline, batched per colour (zoomed-out views
    // show thousands of them).
    std::vector<std::vector<QRectF>> tiny;
    std::map<std::pair<int, bool>, std::vector<QRectF>> outlined; // (level, group) -> boxes
    int prepared = 0;
    bool labelsPending = false;
    for (size_t i = 0; i < m_layout->items.size(); ++i) {
        const LayoutItem &it = m_layout->items[i];
        if (it.kind == LayoutItem::Kind::ExpandedGroup || !view.intersects(it.rect))
            continue;
        const int level = itemLevel(int(i));
        const bool isGroup = it.kind == LayoutItem::Kind::Group;
        const bool fold = isGroup && h.group(it.group()).kind == GroupKind::Fold;
        const bool faded = !isGroup && size_t(it.id) < m_faded.size() && m_faded[size_t(it.id)];
        QColor fill = isGroup ? button : base;
        if (level > 0)
            fill = washed(levelColor(level));
        const bool selected = !isGroup && it.id == m_selected.value;
        const double pixels = it.rect.width() * m_zoom;
        if (pixels < 3 && !selected) { // level of detail: a few pixels need no outline
            if (tiny.size() <= size_t(level))
                tiny.resize(size_t(level) + 1);
            tiny[size_t(level)].push_back(it.rect);
            continue;
        }
        if (pixels < 14 && !selected) { // no label, no visible corner: batched outlined rectangles
            auto &batch = outlined[std::make_pair(level, isGroup)];
            batch.push_back(it.rect);
            continue;
        }
        const QPen pen = cosmetic(selected ? accent : (level > 0 ? levelColor(level) : mid), selected ? 3.0 : 1.0,
                                  faded && m_zoom >= 0.3 ? Qt::DotLine : Qt::SolidLine);
        if (fold) { // a fold is a stack of boxes: two edges peek out behind it
            p.setPen(pen);
            p.setBrush(fill.darker(108));
            p.drawRoundedRect(it.rect.translated(6, -6), 6, 6);
            p.drawRoundedRect(it.rect.translated(3, -3), 6, 6);
        }
        p.setBrush(fill);
        p.setPen(pen);
        p.drawRoundedRect(it.rect, isGroup ? 6 : 3, isGroup ? 6 : 3);
        if (isGroup && !fold) { // a stacked look tells a group from an operator
            p.setBrush(Qt::NoBrush);
            p.drawLine(it.rect.bottomLeft() + QPointF(4, 3), it.rect.bottomRight() + QPointF(-4, 3));
        }
        if (!labels)
            continue;
        if (!m_labels[i].ready && ++prepared > kLabelsPerFrame) {
            labelsPending = true; // drawn on the next frames
            continue;
        }
        const QRectF r = it.rect.adjusted(6, 3, -6, -3);
        BoxLabels &lb = boxLabels(int(i), font, small);
        const QPointF nameAt(isGroup ? r.left() : r.center().x() - lb.name.size().width() / 2, r.top());
        const QPointF typeAt(isGroup ? r.left() : r.center().x() - lb.type.size().width() / 2, r.bottom() - lb.type.size().height());
        p.setPen(faded ? palette().color(QPalette::PlaceholderText) : text);
        p.setFont(font);
        p.drawStaticText(nameAt, lb.name);
        record(int(i), lb.name, nameAt, fontPixels, font.pointSizeF(), true);
        if (m_zoom < kTypeZoom)
            continue;
        p.setFont(small);
        if (!isGroup)
            p.setPen(faded ? palette().color(QPalette::PlaceholderText) : mid.darker(160));
        p.drawStaticText(typeAt, lb.type);
        record(int(i), lb.type, typeAt, smallPixels, small.pointSizeF(), false);
    }
    for (const auto &[key, boxes] : outlined) {
        const auto [level, isGroup] = key;
        p.setBrush(level > 0 ? washed(levelColor(level)) : isGroup ? button : base);
        p.setPen(cosmetic(level > 0 ? levelColor(level) : mid, 1.0));
        p.drawRects(boxes.data(), int(boxes.size()));
    }
    p.setPen(Qt::NoPen);
    for (size_t level = 0; level < tiny.size(); ++level) {
        if (tiny[level].empty())
            continue;
        p.setBrush(level > 0 ? levelColor(int(level)) : mid);
        p.drawRects(tiny[level].data(), int(tiny[level].size()));
    }
    p.restore();
    if (labelsPending)
        QMetaObject::invokeMethod(this, qOverload<>(&QWidget::update), Qt::QueuedConnection);
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

} // namespace ds
