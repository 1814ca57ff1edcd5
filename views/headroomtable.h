#pragma once

#include "dump/records.h"
#include "tensor/headroom.h"

#include <QWidget>

class QLabel;
class QTreeWidget;

namespace ds {

/// The precision headroom of the inspected tensor (issue 34, core/tensor/headroom.h): one row
/// per target dtype with the finite values that would overflow, underflow (become zero) or land
/// subnormal, each as a count and a fraction of the finite values, the target's limits, and the
/// tensor's dynamic range below. For a statistics-only leaf: what the recorded max / min / norm
/// allow to conclude (yes / no / cannot tell) and why no more can be said.
class HeadroomTable : public QWidget
{
    Q_OBJECT
public:
    /// The columns of table(); a count cell holds its count as a qulonglong in Qt::UserRole.
    enum Column { TargetColumn, OverflowColumn, UnderflowColumn, SubnormalColumn, LimitsColumn, ColumnCount };

    explicit HeadroomTable(QWidget *parent = nullptr);

    /// Counts measured from the values; `finite` is the denominator of the fractions.
    void setHeadroom(const Headroom &h, std::uint64_t finite);
    /// A statistics-only leaf: the answers headroomFromRecorded gives.
    void setRecorded(const RecordedStats &recorded);
    /// No headroom (integer, bool or complex tensor, nothing selected): the message instead.
    void clear(const QString &message = {});

    QTreeWidget *table() const { return m_table; }
    /// The text under the table (dynamic range, or what statistics can tell).
    QString noteText() const;

private:
    QTreeWidget *m_table;
    QLabel *m_note;
};

} // namespace ds
