#include "overflowmarkdelegate.h"

#include <QApplication>
#include <QStyle>

namespace ds {

QColor OverflowMarkDelegate::markColor(int mark)
{
    switch (mark) {
    case 1: return QColor(0xb8, 0x8a, 0x00);
    case 2: return QColor(0xef, 0x6c, 0x00);
    case 3: case 4: return QColor(0xd3, 0x2f, 0x2f);
    default: return {};
    }
}

void OverflowMarkDelegate::initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    if (m_problemRole >= 0 && index.column() == 0 && index.data(m_problemRole).toBool()) {
        option->features |= QStyleOptionViewItem::HasDecoration;
        option->icon = QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
        option->decorationSize = QSize(14, 14);
    }
    const int mark = index.data(m_role).toInt();
    if (mark <= 0)
        return;
    option->palette.setColor(QPalette::Text, markColor(mark));
    option->palette.setColor(QPalette::HighlightedText, option->palette.color(QPalette::HighlightedText));
    if (mark == 4)
        option->font.setBold(true);
}

} // namespace ds
