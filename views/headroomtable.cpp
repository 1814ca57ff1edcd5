#include "headroomtable.h"

#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <cmath>

namespace ds {

namespace {

QString num(double v) { return std::isfinite(v) ? QString::number(v, 'g', 6) : QStringLiteral("\u2014"); }

/// "12 (0.0012 %)": the count and its share of the finite values.
QString countText(std::uint64_t count, std::uint64_t finite)
{
    if (!finite || !count) // "0", not "0 (0 %)": the table stays narrow enough for its limits
        return QString::number(count);
    const double percent = 100.0 * double(count) / double(finite);
    return QStringLiteral("%1 (%2 %)").arg(count).arg(QString::number(percent, 'g', 3));
}

/// A power of two as "2^-6" (every smallest normal and subnormal is one), else as a number.
QString power(double v)
{
    int e = 0;
    return std::frexp(v, &e) == 0.5 ? QStringLiteral("2^%1").arg(e - 1) : num(v);
}

/// "448 / 2^-6 / 2^-9": largest finite, smallest normal, smallest subnormal (the header's tooltip
/// says which is which; the full sentence is the row's tooltip).
QString limitsText(const HeadroomLimits &l)
{
    return QStringLiteral("%1 / %2 / %3").arg(num(l.maxFinite), power(l.minNormal), power(l.minSubnormal));
}

QTreeWidgetItem *targetRow(QTreeWidget *table, const HeadroomLimits &l)
{
    auto *row = new QTreeWidgetItem(table);
    row->setText(HeadroomTable::TargetColumn, QString::fromLatin1(l.name) + (*l.unconfirmed ? QStringLiteral(" *") : QString()));
    row->setText(HeadroomTable::LimitsColumn, limitsText(l));
    row->setToolTip(HeadroomTable::LimitsColumn, HeadroomTable::tr("largest finite %1, smallest normal %2, smallest subnormal %3")
                                                     .arg(num(l.maxFinite), num(l.minNormal), num(l.minSubnormal)));
    if (*l.unconfirmed)
        row->setToolTip(HeadroomTable::TargetColumn,
                        HeadroomTable::tr("Limits derived from the HiFloat8 layout of the CANN documentation, not confirmed on hardware."));
    for (int c = HeadroomTable::OverflowColumn; c <= HeadroomTable::SubnormalColumn; ++c)
        row->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
    return row;
}

QString unconfirmedNote()
{
    return HeadroomTable::tr("* hifloat8: limits from the CANN documentation's layout, not confirmed on hardware.");
}

} // namespace

HeadroomTable::HeadroomTable(QWidget *parent) : QWidget(parent)
{
    m_table = new QTreeWidget(this);
    m_table->setColumnCount(ColumnCount);
    m_table->setHeaderLabels({tr("Target type"), tr("Overflow"), tr("Underflow"), tr("Subnormal"), tr("Limits")});
    m_table->setRootIsDecorated(false);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->headerItem()->setToolTip(OverflowColumn, tr("Finite values with |x| greater than the largest finite value of the type"));
    m_table->headerItem()->setToolTip(LimitsColumn, tr("largest finite value / smallest normal / smallest subnormal of the type"));
    m_table->headerItem()->setToolTip(UnderflowColumn, tr("Nonzero values with |x| below half the smallest subnormal: they become zero"));
    m_table->headerItem()->setToolTip(SubnormalColumn,
                                      tr("Values with half the smallest subnormal \u2264 |x| < the smallest normal: they keep fewer significant bits"));
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_note);
    clear();
}

QString HeadroomTable::noteText() const { return m_note->text(); }

void HeadroomTable::clear(const QString &message)
{
    m_table->clear();
    m_table->setEnabled(false);
    m_note->setText(message.isEmpty() ? tr("Select a floating-point tensor to see how its values would fare in narrower types.") : message);
}

void HeadroomTable::setHeadroom(const Headroom &h, std::uint64_t finite)
{
    if (!h.valid) {
        clear(tr("Only real floating-point tensors have a precision headroom."));
        return;
    }
    m_table->clear();
    m_table->setEnabled(true);
    for (const auto &l : headroomLimits()) {
        const HeadroomCounts &c = h.at(l.target);
        QTreeWidgetItem *row = targetRow(m_table, l);
        const std::pair<int, std::uint64_t> cells[] = {{OverflowColumn, c.overflow}, {UnderflowColumn, c.underflow}, {SubnormalColumn, c.subnormal}};
        for (const auto &[column, count] : cells) {
            row->setText(column, countText(count, finite));
            row->setData(column, Qt::UserRole, QVariant::fromValue<qulonglong>(count));
        }
    }
    QString note = tr("Counts of the %1 finite values (NaN and \u00b1Inf are not counted).").arg(finite);
    const double range = h.dynamicRangeLog2();
    note += QLatin1Char(' ')
            + (std::isfinite(range) ? tr("Dynamic range: log2(max |x| / smallest nonzero |x|) = %1 (max |x| %2, smallest nonzero |x| %3).")
                                          .arg(QString::number(range, 'f', 2), num(h.maxAbs), num(h.minNonzeroAbs))
                                    : tr("Dynamic range: none (no nonzero finite value)."));
    note += QLatin1Char('\n') + tr("Choose a row to shade that type's ranges over the histogram (Summary tab).");
    note += QLatin1Char('\n') + unconfirmedNote();
    m_note->setText(note);
}

void HeadroomTable::setRecorded(const RecordedStats &r)
{
    if (!(r.present & (RecordedStats::Max | RecordedStats::Min | RecordedStats::Norm))) {
        clear(tr("No values and no max, min or norm were recorded: nothing can be said about the precision headroom."));
        return;
    }
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    const RecordedHeadroom h = headroomFromRecorded(r.has(RecordedStats::Max) ? r.max : nan, r.has(RecordedStats::Min) ? r.min : nan,
                                                    r.has(RecordedStats::Norm) ? r.norm : nan);
    m_table->clear();
    m_table->setEnabled(true);
    auto answer = [](const std::optional<bool> &a) { return a ? (*a ? tr("yes") : tr("no")) : tr("cannot tell"); };
    for (const auto &l : headroomLimits()) {
        const auto &a = h.targets[size_t(l.target)];
        QTreeWidgetItem *row = targetRow(m_table, l);
        row->setText(OverflowColumn, answer(a.overflow));
        row->setText(UnderflowColumn, answer(a.underflow));
        row->setText(SubnormalColumn, answer(a.subnormal));
    }
    m_note->setText(tr("No values were dumped: only the recorded max, min and norm are known. Overflow follows from them "
                       "(a recorded max or min beyond the type's range is one; max |x| or the norm within it rules it out). "
                       "Underflow and subnormal values cannot be told unless every value has one sign (then the smallest "
                       "|x| is the recorded min or max); counts need the values (dump with task tensor).")
                    + QLatin1Char('\n') + unconfirmedNote());
}

} // namespace ds
