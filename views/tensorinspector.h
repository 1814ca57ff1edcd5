#pragma once

#include "tensorjob.h"
#include "dumpgraph/visdbgraph.h"
#include "graph/graph.h"

#include <optional>

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QWidget>

class QCheckBox;
class QLabel;
class QTabWidget;
class QTreeWidget;

namespace ds {

class DocumentContext;
class HeadroomTable;
class HeatmapWidget;
class HistogramWidget;
class ValueGridWidget;

/// Shows the selected tensor: metadata, statistics, histogram (and more in tabs). All loading
/// and maths run in a background job; a newer selection drops the stale job's result.
class TensorInspector : public QWidget
{
    Q_OBJECT
public:
    explicit TensorInspector(DocumentContext *context, QWidget *parent = nullptr);
    ~TensorInspector() override;

    /// The last finished report with statistics (tests, copy statistics); null while loading.
    std::shared_ptr<const TensorReport> report() const { return m_report; }
    /// The loaded tensor (before statistics), or null.
    std::shared_ptr<const TensorReport> loaded() const { return m_loaded; }
    HistogramWidget *histogram() const { return m_hist; }
    HeadroomTable *headroom() const { return m_headroom; }
    ValueGridWidget *values() const { return m_values; }
    HeatmapWidget *heatmap() const { return m_heatmap; }
    QTabWidget *tabs() const { return m_tabs; }
    bool isBusy() const { return m_loadWatcher.isRunning() || m_statsWatcher.isRunning() || m_rowsPending; }
    /// Milliseconds from the last selection until its tensor was ready for the value views.
    double firstPageMs() const { return m_firstPageMs; }

public slots:
    /// A node of an msprobe graph database (no operator of an open dump behind it): its rows
    /// and the statistics msprobe recorded for them, instead of a tensor. `where` names the graph.
    /// With a valid `rows` (a database read with deferred rows) the node's rows are read from
    /// the database on a worker, the inspector saying so until they are shown.
    void showGraphNode(const ds::GraphNode &node, const QString &where, const ds::VisDbRowsKey &rows = {});

signals:
    /// Stage 1 done: the tensor is mapped/converted and can be paged.
    void tensorLoaded();
    /// Stage 2 done: statistics and histogram are shown.
    void reportReady();

private:
    void onSelectionChanged(int dump, const TensorId &tensorId);
    void startLoad();
    void dropJobs();
    void startStats();
    void onLoaded();
    void onStatsDone();
    void showMetadata();
    void showFrameworkMetadata();
    void showStats();
    void showRecordedStats();
    void showRecordedStats(const RecordedStats &r, std::optional<std::uint64_t> elements, const QString &source);

    DocumentContext *m_context;
    QLabel *m_title, *m_status;
    QCheckBox *m_raw;
    QTabWidget *m_tabs;
    QTreeWidget *m_meta, *m_stats;
    HistogramWidget *m_hist;
    HeadroomTable *m_headroom;
    ValueGridWidget *m_values;
    HeatmapWidget *m_heatmap;
    QFutureWatcher<std::shared_ptr<TensorReport>> m_loadWatcher, m_statsWatcher;
    std::shared_ptr<std::atomic<bool>> m_cancelLoad, m_cancelStats;
    std::shared_ptr<const DumpIndex> m_index;
    DumpIndex::TensorRef m_ref;
    std::shared_ptr<const TensorReport> m_loaded, m_report;
    QElapsedTimer m_selectedAt;
    double m_firstPageMs = -1;
    int m_rowsRequest = 0;      ///< the graph node rows read last asked for (older answers are dropped)
    bool m_rowsPending = false;
};

} // namespace ds
