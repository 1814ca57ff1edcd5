#pragma once

#include "tensor/stats.h"

#include <QWidget>

class QCustomPlot;
class QCPBars;
class QCheckBox;
class QLabel;
class QSpinBox;
class QLineEdit;

namespace ds {

/// A histogram of bins computed in core: bar plot with linear/log count axis, the NaN/Inf/zero
/// counts beside it, hover read-out of bin range and count, and PNG/PDF export.
class HistogramWidget : public QWidget
{
    Q_OBJECT
public:
    explicit HistogramWidget(QWidget *parent = nullptr);

    void setHistogram(const Histogram &h, const TensorStats &stats);
    void clear(const QString &message = {});
    int bins() const;
    /// User range; lo > hi when "from data".
    std::pair<double, double> range() const;
    QCustomPlot *plot() const { return m_plot; }
    bool savePlot(const QString &path);

signals:
    /// Bin count or range changed: the owner recomputes the histogram.
    void parametersChanged();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void applyScale();
    void exportPlot();

    QCustomPlot *m_plot;
    QCPBars *m_bars;
    QSpinBox *m_bins;
    QCheckBox *m_log, *m_customRange;
    QLineEdit *m_lo, *m_hi;
    QLabel *m_counts, *m_hover;
    Histogram m_hist;
};

} // namespace ds
