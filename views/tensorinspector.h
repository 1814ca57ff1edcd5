#pragma once

#include "tensorjob.h"

#include <QFutureWatcher>
#include <QWidget>

class QCheckBox;
class QLabel;
class QTabWidget;
class QTreeWidget;

namespace ds {

class DocumentContext;
class HistogramWidget;

/// Shows the selected tensor: metadata, statistics, histogram (and more in tabs). All loading
/// and maths run in a background job; a newer selection drops the stale job's result.
class TensorInspector : public QWidget
{
    Q_OBJECT
public:
    explicit TensorInspector(DocumentContext *context, QWidget *parent = nullptr);
    ~TensorInspector() override;

    /// The last finished report (tests, copy statistics); null while a job runs.
    std::shared_ptr<const TensorReport> report() const { return m_report; }
    HistogramWidget *histogram() const { return m_hist; }
    QTabWidget *tabs() const { return m_tabs; }
    bool isBusy() const { return m_watcher.isRunning(); }

signals:
    void reportReady();

private:
    void onSelectionChanged(int dump, const QString &tensorId);
    void start();
    void onFinished();
    void showMetadata();
    void showStats();

    DocumentContext *m_context;
    QLabel *m_title, *m_status;
    QCheckBox *m_raw;
    QTabWidget *m_tabs;
    QTreeWidget *m_meta, *m_stats;
    HistogramWidget *m_hist;
    QFutureWatcher<std::shared_ptr<const TensorReport>> m_watcher;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    std::shared_ptr<const DumpIndex> m_index;
    DumpIndex::TensorRef m_ref;
    std::shared_ptr<const TensorReport> m_report;
    bool m_pending = false;
};

} // namespace ds
