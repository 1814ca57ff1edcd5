#pragma once

#include "models/tensorvaluesmodel.h"

#include <QWidget>
#include <vector>

class QComboBox;
class QLabel;
class QSpinBox;

namespace ds {

class FlowLayout;

/// Picks a 2-D slice of a tensor: the dim shown as rows, the dim shown as columns, and one
/// index spin box for every other dim. Shared by the value grid and the heatmap. The controls
/// wrap onto several lines when the widget is narrow (FlowLayout).
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
    /// A label and its control as one widget (they wrap together).
    QWidget *labelled(QLabel *label, QWidget *control);

    Shape m_shape;
    QComboBox *m_row, *m_col;
    QLabel *m_fixedLabel;
    FlowLayout *m_layout;
    std::vector<QWidget *> m_groups; ///< per dim: its label and index spin box
    std::vector<QSpinBox *> m_spins;
    int m_lastRow = -1, m_lastCol = -1;
};

} // namespace ds
