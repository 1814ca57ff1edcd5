#pragma once

#include "dump/records.h"
#include "tensor/stats.h"

#include <QWidget>

class QCustomPlot;
class QCPBars;
class QCPItemRect;
class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;
class QStackedWidget;
class QLineEdit;
class QPushButton;

namespace ds {

/// A histogram of bins computed in core: bar plot with linear/log count axis, the NaN/Inf/zero
/// counts beside it, hover read-out of bin range and count, and PNG/PDF export.
class HistogramWidget : public QWidget
{
    Q_OBJECT
public:
    explicit HistogramWidget(QWidget *parent = nullptr);

    void setHistogram(const Histogram &h, const TensorStats &stats);
    /// No histogram: the message (or "Select a tensor…") in place of the plot, never an empty
    /// plot with made-up axes; the bin and range controls are disabled.
    void clear(const QString &message = {});
    /// A tensor whose values were not dumped: says so and shows what the producer recorded
    /// instead (its max, min, mean and L2 norm, the fields it has).
    void showRecorded(const RecordedStats &recorded, const QString &message);
    /// True while a histogram is drawn (false: the message page shows).
    bool hasPlot() const;
    /// The text shown in place of the plot (empty while a histogram is drawn).
    QString messageText() const;
    int bins() const;
    /// User range; lo > hi when "from data".
    std::pair<double, double> range() const;
    QCustomPlot *plot() const { return m_plot; }
    /// The target dtype whose bands are drawn over the histogram (precision headroom, issue 34):
    /// underflow, subnormal and overflow ranges shaded, normal values unshaded; -1: none.
    void setBandTarget(int target);
    int bandTarget() const;
    /// The legend of the bands as plain text, one line per band (overflow, subnormal, become
    /// zero: its range and count), then a line on the unshaded values; empty without bands.
    QString bandText() const;
    bool savePlot(const QString &path);

signals:
    /// Bin count or range changed: the owner recomputes the histogram.
    void parametersChanged();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void applyScale();
    void exportPlot();
    void drawBands();

    QCustomPlot *m_plot;
    QCPBars *m_bars;
    QSpinBox *m_bins;
    QCheckBox *m_log, *m_customRange;
    QLineEdit *m_lo, *m_hi;
    void showPlot(bool on);

    QLabel *m_counts, *m_hover, *m_message, *m_bandNote;
    QComboBox *m_bands;
    std::vector<QCPItemRect *> m_bandItems;
    TensorStats m_stats;
    QString m_bandPlain;
    QStackedWidget *m_pages;
    QWidget *m_plotPage;
    QPushButton *m_save;
    Histogram m_hist;
};

} // namespace ds
