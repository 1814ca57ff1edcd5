#pragma once

#include "dump/dumpindex.h"
#include "index/problems.h"
#include "models/dumptreemodel.h"
#include "run/runtree.h"

#include <QFutureWatcher>
#include <QObject>
#include <QTimer>
#include <atomic>
#include <functional>
#include <map>
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
    bool isIndexing() const { return m_job != nullptr || m_slicing > 0; }
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

    /// A folder whose runs hold more scopes than this opens scope by scope: the walk's folders
    /// and scopes at once, a scope's operators read when its tree node is expanded (on a
    /// worker); no operator index of the whole dump is made (index() stays null). Below it,
    /// the whole dump is indexed as before. The default, kScopeByScopeAbove, is replaced by
    /// DS_SCOPE_BY_SCOPE_ABOVE when set; tests set their own. Applies to the dumps opened after.
    /// 16,384 scopes: the whole index then costs about 1.0-1.3 GB (63-81 KB a scope), which a
    /// workstation holds; below it the overflow scan, the graph, the operator table and Compare,
    /// which need the whole index, keep working.
    static constexpr int kScopeByScopeAbove = 16'384;
    void setScopeByScopeAbove(int scopes) { m_scopeByScopeAbove = scopes; }
    int scopeByScopeAbove() const { return m_scopeByScopeAbove; }
    /// True when `dump` was opened scope by scope.
    bool isScopeByScope(int dump) const { return m_lazy.count(dump) > 0; }
    /// The runs found by the walk of a dump opened scope by scope (null otherwise).
    std::shared_ptr<const RunTree> scopeByScopeRuns(int dump) const;

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
    /// A scope of a dump opened scope by scope was read (DumpTreeModel::scopesRead counts them);
    /// `errors`: its unreadable files.
    void scopeRead(int dump, const std::vector<FileError> &errors);
    /// The runs of a dump's walk (every dump, as soon as its folder is walked, before any
    /// operator is read; an empty tree when the walk failed): the Runs overview takes them
    /// instead of walking the folder again (RunsPanel::setRuns).
    void runsWalked(int dump, std::shared_ptr<const RunTree> runs);

private:
    struct Job;
    void drainBatches();
    void onFinished();
    /// Reads the scope whose tree node asked for it (DumpTreeModel::scopeWanted) on a worker.
    void readScope(int dump, std::shared_ptr<const DumpLevels> levels);
    struct Lazy;

    DumpTreeModel *m_tree;
    std::unique_ptr<Job> m_job;
    QTimer *m_drain;
    QStringList m_queue; ///< paths waiting for the current job
    std::vector<Problem> m_finishedProblems;
    std::function<void()> m_batchHook;
    qint64 m_countShown = 0;
    int m_scopeByScopeAbove;
    int m_slicing = 0; ///< dumps opened scope by scope whose scopes' nodes are still being added
    std::map<int, std::shared_ptr<Lazy>> m_lazy; ///< dumps opened scope by scope
    int m_selDump = -1;
    TensorId m_selTensor;
};

} // namespace ds
