#pragma once
// msprobe's API precheck results (core/precheck): a table of msprobe's verdicts per API and
// output, and for each failed output DumpScope's comparison of the saved bench and device tensors.

#include "loadeddocument.h"
#include "precheck/precheck.h"

#include <QFutureWatcher>
#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QListWidget;
class QTableView;

namespace ds {

class HeatmapWidget;
class PrecheckTableModel;

class PrecheckPanel : public QWidget
{
    Q_OBJECT
public:
    explicit PrecheckPanel(QWidget *parent = nullptr);
    ~PrecheckPanel() override;
    /// Reads `path` (a table or a folder) in the background and shows it.
    void open(const QString &path);
    /// Reading or comparing in the background.
    bool isBusy() const { return m_load.isRunning() || m_compare.isRunning(); }
    PrecheckTableModel *model() const { return m_model; }
    QListWidget *failedList() const { return m_failed; }
    QLabel *detail() const { return m_detail; }
    /// The heatmap of the selected failed output's |device - bench|.
    HeatmapWidget *errorHeatmap() const { return m_heatmap; }
    QTableView *view() const { return m_view; }

signals:
    void opened();

private:
    void showDocument();
    void showFailed(int row);
    void fitColumns();

    using Loaded = LoadedDocument<precheck::PrecheckDocument>;
    QLabel *m_summary;
    QComboBox *m_tables;
    QTableView *m_view;
    PrecheckTableModel *m_model;
    QListWidget *m_failed;
    QLabel *m_detail;
    HeatmapWidget *m_heatmap;
    std::shared_ptr<const precheck::PrecheckDocument> m_doc;
    QFutureWatcher<Loaded> m_load;
    QFutureWatcher<Result<precheck::PairComparison>> m_compare;
    int m_compareRow = -1;
};

} // namespace ds
