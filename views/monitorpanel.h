#pragma once
// msprobe's training monitor output (core/monitor): a metric and statistic over step x module x
// rank as a colour grid with anomalies outlined, and the anomalies in msprobe's order.

#include "loadeddocument.h"
#include "monitor/monitor.h"

#include <QFutureWatcher>
#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QListWidget;
class QTableView;

namespace ds {

class MonitorTrendModel;

class MonitorPanel : public QWidget
{
    Q_OBJECT
public:
    explicit MonitorPanel(QWidget *parent = nullptr);
    ~MonitorPanel() override;
    /// Reads `path` in the background and shows it.
    void open(const QString &path);
    bool isBusy() const { return m_load.isRunning(); }
    MonitorTrendModel *model() const { return m_model; }
    QListWidget *anomalies() const { return m_anomalies; }
    QComboBox *metrics() const { return m_metric; }
    QComboBox *stats() const { return m_stat; }
    /// The output shown (null before the first open() ends, or when it failed).
    std::shared_ptr<const monitor::MonitorDocument> document() const { return m_doc; }

signals:
    void opened();
    /// An anomaly was activated (double-click, Enter): show its module in an open dump.
    void anomalyActivated(const ds::monitor::Anomaly &anomaly);

private:
    void showDocument();
    void showSeries();
    void goToAnomaly(int row);

    using Loaded = LoadedDocument<monitor::MonitorDocument>;
    QLabel *m_summary;
    QComboBox *m_metric, *m_stat;
    QTableView *m_view;
    MonitorTrendModel *m_model;
    QListWidget *m_anomalies;
    std::shared_ptr<const monitor::MonitorDocument> m_doc;
    QFutureWatcher<Loaded> m_load;
};

} // namespace ds
