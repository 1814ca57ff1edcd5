#pragma once

#include "tensor/stats.h"

#include <QWidget>

class QCustomPlot;
class QSplitter;

namespace ds {

/// The two histograms of a compare row: NPU and bench over the same bins (overlaid steps) and
/// the histogram of |NPU - bench|. Laid out for the room they get: side by side when each plot
/// keeps a readable size that way, else one above the other; the legend sits in a row above the
/// bars (never over them) and the axes take as many ticks as their length holds without the
/// labels touching.
class CompareHistograms : public QWidget
{
    Q_OBJECT
public:
    /// The smallest plot that stays readable (its tick labels and axis titles do not collide).
    static constexpr int kMinPlotWidth = 180, kMinPlotHeight = 140;

    explicit CompareHistograms(QWidget *parent = nullptr);

    /// Both sides over the same bins; an empty histogram clears that plot.
    void setValues(const Histogram &npu, const Histogram &bench);
    void setError(const Histogram &absErr);
    void clear();

    QCustomPlot *valuePlot() const { return m_values; }
    QCustomPlot *errorPlot() const { return m_error; }
    /// Qt::Horizontal: side by side; Qt::Vertical: stacked.
    Qt::Orientation arrangement() const;

protected:
    void resizeEvent(QResizeEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void arrange();

    QSplitter *m_split;
    QCustomPlot *m_values, *m_error;
};

} // namespace ds
