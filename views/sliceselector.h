#pragma once

#include "models/tensorvaluesmodel.h"

#include <QWidget>
#include <vector>

class QComboBox;
class QLabel;
class QSpinBox;

namespace ds {

/// Picks a 2-D slice of a tensor: the dim shown as rows, the dim shown as columns, and one
/// index spin box for every other dim. Shared by the value grid and the heatmap.
class SliceSelector : public QWidget
{
    Q_OBJECT
public:
    explicit SliceSelector(QWidget *parent = nullptr);

    /// Rebuilds the controls for `shape` and selects its default slice (no signal).
    void setShape(const Shape &shape);
    /// Shows `slice` (same shape) without emitting sliceChanged.
    void setSlice(const TensorSlice &slice);
    TensorSlice slice() const;

    QComboBox *rowDimCombo() const { return m_row; }
    QComboBox *colDimCombo() const { return m_col; }
    /// The index spin box of a dim, null for a displayed dim or a dim outside the shape.
    QSpinBox *indexSpin(int dim) const;

signals:
    /// The user changed a dim or an index.
    void sliceChanged(const ds::TensorSlice &slice);

private:
    void onDimChosen(bool rowCombo);
    void updateSpins();
    void emitSlice();

    Shape m_shape;
    QComboBox *m_row, *m_col;
    QLabel *m_fixedLabel;
    QWidget *m_spinBox;
    std::vector<QLabel *> m_labels;
    std::vector<QSpinBox *> m_spins;
    int m_lastRow = -1, m_lastCol = -1;
};

} // namespace ds
