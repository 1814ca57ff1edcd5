#pragma once

#include <QStyledItemDelegate>

namespace ds {

/// Colours item text by an overflow mark role (0 none, 1 medium, 2 high, 3 critical,
/// 4 named by an OpDebug record): the models give the numbers, this gives the colours.
class OverflowMarkDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    /// `problemRole` (optional): items whose role is true get a warning icon in column 0.
    OverflowMarkDelegate(int role, int problemRole = -1, QObject *parent = nullptr)
        : QStyledItemDelegate(parent), m_role(role), m_problemRole(problemRole) {}
    static QColor markColor(int mark);

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override;

private:
    int m_role, m_problemRole;
};

} // namespace ds
