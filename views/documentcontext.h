#pragma once

#include "dump/dumpindex.h"
#include "index/problems.h"
#include "models/dumptreemodel.h"

#include <QFutureWatcher>
#include <QObject>
#include <QTimer>
#include <atomic>
#include <functional>
#include <memory>

namespace ds {

/// What the panels observe: the open dumps (as a tree model), indexing progress and the
/// current selection. Panels connect to its signals instead of being pushed into by the
/// main window.
class DocumentContext : public QObject
{
    Q_OBJECT
public:
    explicit DocumentContext(QObject *parent = nullptr);
    ~DocumentContext() override;

    DumpTreeModel *treeModel() const { return m_tree; }
    std::shared_ptr<const DumpIndex> index(int dump) const { return m_tree->index(dump); }
    /// The index that holds `tensorId` (DumpTreeModel::indexFor): the final index, or while the
    /// dump indexes the batch of operators shown that holds it.
    std::shared_ptr<const DumpIndex> indexFor(int dump, const TensorId &tensorId) const { return m_tree->indexFor(dump, tensorId); }
    bool isIndexing() const { return m_job != nullptr; }
    /// Paths opened while another was indexing, not started yet.
    bool hasQueued() const { return !m_queue.isEmpty(); }

    /// Indexes `path` in the background; the tree fills as batches arrive.
    void openDump(const QString &path);
    /// Closes an open dump (RenderDoc's OnCaptureClosed): its indexing stops, its tree item goes,
    /// the selection leaves it, then dumpClosed tells the panels, which forget what they keep of
    /// it. The other dumps keep their numbers (DumpTreeModel::beginDump).
    void closeDump(int dump);
    /// The dump being indexed, -1 none.
    int indexingDump() const;
    void cancelIndexing();
    /// Blocks until the current indexing job is done (tests, screenshot mode).
    void waitForIndexing();
    /// Operators read so far by the current indexing job (0 when none runs).
    qint64 opsReadSoFar() const;
    /// At most this many operators of a dump are shown as rows while it indexes (each is a copy
    /// until the final index replaces them); the rest are counted.
    static constexpr int kLiveRowLimit = 100'000;
    /// Called on the indexing thread after each batch of operators is queued for the tree
    /// (tests hold the indexing there to look at the tree while it is in progress). Applies to
    /// the jobs opened after it is set.
    void setBatchQueuedHook(std::function<void()> hook) { m_batchHook = std::move(hook); }

    /// The problems (indexProblems) of the dump whose indexingFinished is being emitted,
    /// found by the indexing worker: a million operators' warnings are not walked on the
    /// GUI thread.
    const std::vector<Problem> &finishedProblems() const { return m_finishedProblems; }

    int selectedDump() const { return m_selDump; }
    TensorId selectedTensor() const { return m_selTensor; }
    void selectTensor(int dump, const TensorId &tensorId);

signals:
    void indexingStarted(const QString &path);
    void indexingProgress(int permille);
    /// The count of operators read so far changed (at most once per batch drain).
    void indexingCount(qint64 ops);
    void indexingFinished(int dump, bool cancelled, int ops, int errors);
    void openFailed(const QString &message);
    /// A dump was closed (closeDump): its number names nothing any more.
    void dumpClosed(int dump);
    void selectionChanged(int dump, const TensorId &tensorId);

private:
    struct Job;
    void drainBatches();
    void onFinished();

    DumpTreeModel *m_tree;
    std::unique_ptr<Job> m_job;
    QTimer *m_drain;
    QStringList m_queue; ///< paths waiting for the current job
    std::vector<Problem> m_finishedProblems;
    std::function<void()> m_batchHook;
    qint64 m_countShown = 0;
    int m_selDump = -1;
    TensorId m_selTensor;
};

} // namespace ds
