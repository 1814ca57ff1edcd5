#pragma once

#include "models/tensorvaluesmodel.h"

#include <QFutureWatcher>
#include <QWidget>
#include <atomic>
#include <memory>
#include <utility>

class QCPColorMap;
class QCPGraph;
class QCPColorScale;
class QComboBox;
class QCustomPlot;
class QLabel;

namespace ds {

class SliceSelector;

/// A 2-D slice of a tensor as a colour map (Jet or Polar gradient with a colour scale).
/// Slices larger than 1024 x 1024 are reduced to blocks (mean of the finite values) in a
/// background job; NaN / Inf / saturated elements show as marker colours over the map, a
/// block holding any of them shows the marker. Hover reads out the N-D index and value.
class HeatmapWidget : public QWidget
{
    Q_OBJECT
public:
    explicit HeatmapWidget(QWidget *parent = nullptr);
    ~HeatmapWidget() override;

    /// The map is computed while the widget is visible (a hidden tab costs nothing). Another
    /// tensor of the same shape keeps the slice.
    void setTensor(std::shared_ptr<const LoadedTensor> tensor, int headerDataType);
    void setTensor(std::shared_ptr<const LoadedTensor> tensor);
    void clear(const QString &message = {});
    /// The tensor shown (null after clear()).
    const std::shared_ptr<const LoadedTensor> &tensor() const { return m_tensor; }
    /// Shows another slice of the current tensor (as the slice controls do).
    void setSlice(const TensorSlice &slice);
    /// Largest number of cells along each axis (default 1024).
    void setMaxSide(int cells);

    bool isBusy() const { return m_watcher.isRunning(); }
    /// The blocks drawn now (null before the first result).
    std::shared_ptr<const SliceBlocks> blocks() const { return m_blocks; }
    QCustomPlot *plot() const { return m_plot; }
    QCPColorMap *colorMap() const { return m_map; }
    QCPColorMap *markerMap() const { return m_markers; }
    /// Fixed-size dots over the marked cells (0 NaN, 1 Inf, 2 saturated), so that a single
    /// marked cell among 1024 x 1024 stays visible. Empty when most cells are marked anyway.
    QCPGraph *markerDots(int kind) const { return m_dots[kind]; }
    SliceSelector *sliceSelector() const { return m_selector; }
    QComboBox *gradientCombo() const { return m_gradient; }
    QLabel *hoverLabel() const { return m_hover; }
    bool savePng(const QString &path);

signals:
    /// A computation finished and its blocks are drawn.
    void blocksReady();
    /// Double-click: the first element of the cell under the mouse (to show it in the grid).
    void indexActivated(const std::vector<std::uint64_t> &ndIndex);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    void start();
    void onFinished();
    void draw();
    void applyGradient();
    void updateHover(const QPointF &pos);
    bool cellAt(const QPointF &pos, int &blockRow, int &blockCol) const;
    void exportPlot();

    QCustomPlot *m_plot;
    QCPColorMap *m_map, *m_markers;
    QCPGraph *m_dots[3];
    QCPColorScale *m_scale;
    SliceSelector *m_selector;
    QComboBox *m_gradient;
    QLabel *m_legend, *m_status, *m_hover;
    std::shared_ptr<const LoadedTensor> m_tensor;
    TensorSlice m_slice;
    std::shared_ptr<const SliceBlocks> m_blocks;
    using JobResult = std::pair<quint64, std::shared_ptr<const SliceBlocks>>; ///< job id, blocks
    QFutureWatcher<JobResult> m_watcher;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    quint64 m_job = 0;
    int m_maxSide = 1024;
    bool m_deferred = false; ///< hidden (e.g. another tab): compute when shown
    int m_dataType = 0;
};

} // namespace ds
