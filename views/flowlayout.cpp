#include "flowlayout.h"

#include <QStyle>
#include <QWidget>

#include <algorithm>

namespace ds {

FlowLayout::FlowLayout(QWidget *parent) : QLayout(parent) {}

FlowLayout::~FlowLayout()
{
    for (QLayoutItem *item : m_items)
        delete item;
}

void FlowLayout::addItem(QLayoutItem *item) { m_items.push_back(item); }

int FlowLayout::count() const { return int(m_items.size()); }

QLayoutItem *FlowLayout::itemAt(int index) const
{
    return index >= 0 && index < count() ? m_items[size_t(index)] : nullptr;
}

QLayoutItem *FlowLayout::takeAt(int index)
{
    if (index < 0 || index >= count())
        return nullptr;
    QLayoutItem *item = m_items[size_t(index)];
    m_items.erase(m_items.begin() + index);
    return item;
}

int FlowLayout::heightForWidth(int width) const { return doLayout(QRect(0, 0, width, 0), false); }

QSize FlowLayout::minimumSize() const
{
    QSize size;
    for (const QLayoutItem *item : m_items)
        if (!item->isEmpty())
            size = size.expandedTo(item->minimumSize());
    const QMargins m = contentsMargins();
    return size + QSize(m.left() + m.right(), m.top() + m.bottom());
}

QSize FlowLayout::sizeHint() const
{
    int width = 0, height = 0, shown = 0;
    for (const QLayoutItem *item : m_items) {
        if (item->isEmpty())
            continue;
        const QSize hint = item->sizeHint();
        width += hint.width();
        height = std::max(height, hint.height());
        ++shown;
    }
    width += std::max(0, shown - 1) * horizontalSpacing();
    const QMargins m = contentsMargins();
    return QSize(width + m.left() + m.right(), height + m.top() + m.bottom());
}

void FlowLayout::setGeometry(const QRect &rect)
{
    QLayout::setGeometry(rect);
    doLayout(rect, true);
}

int FlowLayout::horizontalSpacing() const
{
    if (spacing() >= 0)
        return spacing();
    const QWidget *w = parentWidget();
    const int s = w ? w->style()->pixelMetric(QStyle::PM_LayoutHorizontalSpacing, nullptr, w) : -1;
    return s >= 0 ? s : 6;
}

int FlowLayout::verticalSpacing() const
{
    if (spacing() >= 0)
        return spacing();
    const QWidget *w = parentWidget();
    const int s = w ? w->style()->pixelMetric(QStyle::PM_LayoutVerticalSpacing, nullptr, w) : -1;
    return s >= 0 ? s : 4;
}

int FlowLayout::doLayout(const QRect &rect, bool place) const
{
    const QMargins m = contentsMargins();
    const QRect area = rect.marginsRemoved(m);
    const int hSpace = horizontalSpacing(), vSpace = verticalSpacing();
    struct Placed
    {
        QLayoutItem *item;
        int x;
        QSize size;
    };
    std::vector<Placed> line;
    int x = area.x(), y = area.y(), lineHeight = 0;
    auto finishLine = [&] {
        if (place)
            for (const Placed &p : line)
                p.item->setGeometry(QRect(QPoint(p.x, y + (lineHeight - p.size.height()) / 2), p.size));
        line.clear();
    };
    for (QLayoutItem *item : m_items) {
        if (item->isEmpty())
            continue;
        const QSize hint = item->sizeHint();
        const int width = std::max(item->minimumSize().width(), std::min(hint.width(), std::max(area.width(), 1)));
        const int height = item->hasHeightForWidth() ? item->heightForWidth(width) : hint.height();
        if (!line.empty() && x + width > area.x() + area.width()) { // wrap
            finishLine();
            x = area.x();
            y += lineHeight + vSpace;
            lineHeight = 0;
        }
        line.push_back({item, x, QSize(width, height)});
        x += width + hSpace;
        lineHeight = std::max(lineHeight, height);
    }
    finishLine();
    return y + lineHeight - rect.y() + m.bottom();
}

} // namespace ds
