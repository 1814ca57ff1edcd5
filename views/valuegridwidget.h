#pragma once

#include "models/tensorvaluesmodel.h"

#include <QColor>
#include <QWidget>
#include <memory>

class QLabel;
class QLineEdit;
class QSpinBox;
class QTableView;
class QToolButton;

namespace ds {

class SliceSelector;

/// Marker colours of the element classes, shared by the value grid and the heatmap (chosen
/// to stay apart from the Jet and Polar gradients). Invalid for ValueClass::Normal.
QColor valueClassColor(ValueClass c);
/// Rich-text legend of the markers that can occur for `elem` (empty for integer kinds);
/// `typeName` names the stored type whose largest finite value marks saturation.
QString valueClassLegend(Elem elem, const QString &typeName);

/// The values of a tensor as a table: a 2-D slice (row dim, column dim, fixed indices for the
/// others), paged 10,000 rows x 1,000 columns at a time, NaN / Inf / saturated cells
/// coloured, and a go-to box for an N-D index. Opening a tensor of 10^9 elements is instant:
/// only the visible cells are decoded.
class ValueGridWidget : public QWidget
{
    Q_OBJECT
public:
    explicit ValueGridWidget(QWidget *parent = nullptr);

    /// `headerDataType` names the stored type in the legend (the decoded kind may differ).
    void setTensor(std::shared_ptr<const LoadedTensor> tensor, int headerDataType);
    void setTensor(std::shared_ptr<const LoadedTensor> tensor);
    void clear(const QString &message = {});

    /// Selects and scrolls to an element ("i, j, k"); false with a message when invalid.
    bool goTo(const QString &text);
    bool goTo(const std::vector<std::uint64_t> &ndIndex);
    /// N-D index of the current cell, empty when none.
    std::vector<std::uint64_t> currentIndex() const;

    TensorValuesModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    SliceSelector *sliceSelector() const { return m_selector; }
    QLineEdit *goToEdit() const { return m_goTo; }
    QLabel *message() const { return m_message; }

private:
    void updatePageControls();
    void updateColumnWidth();
    void showCurrent();
    void copySelection();

    TensorValuesModel *m_model;
    SliceSelector *m_selector;
    QTableView *m_view;
    QToolButton *m_prevRows, *m_nextRows, *m_prevCols, *m_nextCols;
    QLabel *m_rowsLabel, *m_colsLabel, *m_legend, *m_message, *m_info;
    QLineEdit *m_goTo;
    QSpinBox *m_digits;
    int m_dataType = 0;
};

} // namespace ds
