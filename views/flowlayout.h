#pragma once

#include <QLayout>
#include <vector>

namespace ds {

/// Lays its items out left to right and wraps onto the next line when the width runs out (as
/// Qt's flow layout example), so that a row of controls asks for the width of its widest item
/// only: the slice controls of a 4-D tensor no longer set the minimum width of the dock that
/// holds them (they used to push the inspector to ~1000 px). Hidden items take no room; items
/// on a line are centred vertically; an item wider than the line is given the line's width
/// (down to its minimum) and its height for that width.
class FlowLayout : public QLayout
{
public:
    explicit FlowLayout(QWidget *parent = nullptr);
    ~FlowLayout() override;

    void addItem(QLayoutItem *item) override;
    int count() const override;
    QLayoutItem *itemAt(int index) const override;
    QLayoutItem *takeAt(int index) override;
    Qt::Orientations expandingDirections() const override { return {}; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    /// The widest item (and the tallest), plus the margins.
    QSize minimumSize() const override;
    /// Every item on one line.
    QSize sizeHint() const override;
    void setGeometry(const QRect &rect) override;

private:
    int horizontalSpacing() const;
    int verticalSpacing() const;
    /// Places the items in `rect` (or only measures); returns the height used.
    int doLayout(const QRect &rect, bool place) const;

    std::vector<QLayoutItem *> m_items;
};

} // namespace ds
