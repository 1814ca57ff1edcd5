#include "sliceselector.h"

#include "flowlayout.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <climits>

namespace ds {

SliceSelector::SliceSelector(QWidget *parent) : QWidget(parent)
{
    m_row = new QComboBox(this);
    m_col = new QComboBox(this);
    m_row->setToolTip(tr("The tensor dimension shown down the rows"));
    m_col->setToolTip(tr("The tensor dimension shown across the columns"));
    m_row->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_col->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_fixedLabel = new QLabel(tr("Fixed indices:"), this);

    // The controls wrap onto more lines in a narrow dock instead of widening it: each label
    // stays with its control.
    m_layout = new FlowLayout(this);
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->addWidget(labelled(new QLabel(tr("Rows:"), this), m_row));
    m_layout->addWidget(labelled(new QLabel(tr("Columns:"), this), m_col));

    connect(m_row, &QComboBox::currentIndexChanged, this, [this] { onDimChosen(true); });
    connect(m_col, &QComboBox::currentIndexChanged, this, [this] { onDimChosen(false); });
    setShape({});
}

QWidget *SliceSelector::labelled(QLabel *label, QWidget *control)
{
    auto *pair = new QWidget(this);
    auto *layout = new QHBoxLayout(pair);
    layout->setContentsMargins(0, 0, 0, 0);
    label->setParent(pair);
    control->setParent(pair);
    label->setBuddy(control);
    layout->addWidget(label);
    layout->addWidget(control);
    return pair;
}

void SliceSelector::setShape(const Shape &shape)
{
    m_shape = shape;
    const QSignalBlocker b1(m_row), b2(m_col);
    m_row->clear();
    m_col->clear();
    if (QLayout *old = m_fixedLabel->parentWidget()->layout()) // out of the group it was shown in
        old->removeWidget(m_fixedLabel);
    m_fixedLabel->setParent(this);
    for (QWidget *g : m_groups)
        delete g;
    m_groups.clear();
    m_spins.clear();

    const int rank = int(shape.size());
    for (int d = 0; d < rank; ++d) {
        const QString text = tr("dim %1 (size %2)").arg(d).arg(shape[size_t(d)]);
        m_row->addItem(text, d);
        if (rank >= 2)
            m_col->addItem(text, d);
        auto *label = new QLabel(tr("dim %1 (size %2):").arg(d).arg(shape[size_t(d)]), this);
        auto *spin = new QSpinBox(this);
        const auto n = shape[size_t(d)];
        spin->setRange(0, n == 0 ? 0 : int(std::min<std::uint64_t>(n - 1, INT_MAX)));
        spin->setToolTip(tr("Index along dim %1: 0 to %2").arg(d).arg(n == 0 ? 0 : n - 1));
        spin->setEnabled(n > 1);
        spin->setKeyboardTracking(false);
        spin->setAccelerated(true);
        QWidget *group = labelled(label, spin);
        m_layout->addWidget(group);
        m_groups.push_back(group);
        m_spins.push_back(spin);
        connect(spin, &QSpinBox::valueChanged, this, &SliceSelector::emitSlice);
    }
    if (rank == 0)
        m_row->addItem(tr("\u2014 (scalar)"), -1);
    if (rank < 2)
        m_col->addItem(rank == 1 ? tr("\u2014 (1-D tensor)") : tr("\u2014 (scalar)"), -1);
    m_row->setEnabled(rank >= 2);
    m_col->setEnabled(rank >= 2);
    setSlice(TensorSlice::defaultFor(shape));
}

void SliceSelector::setSlice(const TensorSlice &slice)
{
    if (slice.shape() != m_shape)
        return;
    const QSignalBlocker b1(m_row), b2(m_col);
    m_row->setCurrentIndex(std::max(0, m_row->findData(slice.rowDim())));
    m_col->setCurrentIndex(std::max(0, m_col->findData(slice.colDim())));
    m_lastRow = slice.rowDim();
    m_lastCol = slice.colDim();
    for (size_t d = 0; d < m_spins.size(); ++d) {
        const QSignalBlocker b(m_spins[d]);
        m_spins[d]->setValue(int(std::min<std::uint64_t>(slice.fixed()[d], INT_MAX)));
    }
    updateSpins();
}

TensorSlice SliceSelector::slice() const
{
    std::vector<std::uint64_t> fixed(m_shape.size(), 0);
    for (size_t d = 0; d < m_spins.size(); ++d)
        fixed[d] = std::uint64_t(m_spins[d]->value());
    return TensorSlice(m_shape, m_row->currentData().toInt(), m_col->currentData().toInt(), std::move(fixed));
}

QSpinBox *SliceSelector::indexSpin(int dim) const
{
    if (dim < 0 || dim >= int(m_spins.size()) || dim == m_lastRow || dim == m_lastCol)
        return nullptr;
    return m_spins[size_t(dim)];
}

void SliceSelector::onDimChosen(bool rowCombo)
{
    const int row = m_row->currentData().toInt(), col = m_col->currentData().toInt();
    if (row == col) { // picking the other combo's dim swaps the two
        QComboBox *other = rowCombo ? m_col : m_row;
        const QSignalBlocker b(other);
        other->setCurrentIndex(other->findData(rowCombo ? m_lastRow : m_lastCol));
    }
    m_lastRow = m_row->currentData().toInt();
    m_lastCol = m_col->currentData().toInt();
    updateSpins();
    emitSlice();
}

void SliceSelector::updateSpins()
{
    bool any = false;
    for (size_t d = 0; d < m_spins.size(); ++d) {
        const bool shown = int(d) != m_lastRow && int(d) != m_lastCol;
        m_groups[d]->setVisible(shown);
        if (shown && !any) { // "Fixed indices:" wraps with the first index it introduces
            if (QLayout *old = m_fixedLabel->parentWidget()->layout())
                old->removeWidget(m_fixedLabel);
            static_cast<QHBoxLayout *>(m_groups[d]->layout())->insertWidget(0, m_fixedLabel);
        }
        any = any || shown;
    }
    m_fixedLabel->setVisible(any);
}

void SliceSelector::emitSlice()
{
    emit sliceChanged(slice());
}

} // namespace ds
