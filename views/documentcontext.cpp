#include "documentcontext.h"

#include "background.h"
#include "index/buildindex.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QPointer>

#include <deque>
#include <mutex>
#include <QtConcurrent>
#include <QHash>

namespace ds {

struct DocumentContext::Job
{
    int dump = -1;
    bool closed = false; ///< closeDump while it indexed: its result is dropped
    QString path;
    std::atomic<bool> cancel{false};
    std::atomic<int> progress{0};
    std::shared_ptr<DumpTreeModel::BuiltTree> tree; ///< built by the worker with the index
    std::vector<Problem> problems;                  ///< found by the worker in the index
    std::mutex mutex; ///< guards batches (filled by workers, drained by the GUI thread)
    std::deque<DumpTreeModel::Batch> batches; ///< totals per directory, the first operators as rows
    std::atomic<qint64> opsRead{0};
    std::atomic<qint64> rowsLeft{kLiveRowLimit}; ///< operators still to copy as rows
    std::function<void()> batchHook;
    int scopeByScopeAbove = 0;
    /// Opened scope by scope (more scopes than scopeByScopeAbove): the runs of the walk, and
    /// the levels of each scope's node (made by the worker)
    std::shared_ptr<Lazy> lazy;
    std::vector<std::shared_ptr<const DumpLevels>> unread;
    QFutureWatcher<Result<std::shared_ptr<DumpIndex>>> watcher;
};

/// A dump opened scope by scope: its runs, and each scope's tree nodes by run + '\n' + id.
struct DocumentContext::Lazy
{
    std::shared_ptr<const RunTree> tree;
    QHash<QString, std::pair<const RunScope *, std::vector<std::shared_ptr<const DumpLevels>>>> scopes;
    bool severalRuns = false;
};

namespace {

QString lazyKey(const QString &run, const QString &scope) { return run + QLatin1Char('\n') + scope; }

/// The run a tree node's levels name: DumpLevels::run when the folder holds several runs ("."
/// is the opened folder), else the only run.
QString runOfLevels(const RunTree &tree, const DumpLevels &levels, bool severalRuns)
{
    if (!severalRuns)
        return tree.runs.empty() ? QString() : tree.runs.front().relPath;
    return levels.run == QLatin1String(".") ? QString() : levels.run;
}

/// The levels of each scope's tree node(s): those of its claims (one per directory), with the
/// run named as indexClaims names it when the folder holds several runs.
std::vector<std::shared_ptr<const DumpLevels>> scopeNodes(const RunTree &tree, const RunScope &scope, bool severalRuns,
                                                          const QString &run)
{
    std::vector<std::shared_ptr<const DumpLevels>> nodes;
    QStringList dirs;
    for (const size_t c : scope.claims) {
        const Claim &claim = tree.walk.claims[c];
        if (dirs.contains(claim.relPath))
            continue;
        dirs << claim.relPath;
        DumpLevels levels = claim.levels;
        if (severalRuns)
            levels.run = run.isEmpty() ? QStringLiteral(".") : run;
        nodes.push_back(std::make_shared<const DumpLevels>(std::move(levels)));
    }
    return nodes;
}

size_t scopeCount(const RunTree &tree)
{
    size_t n = 0;
    for (const RunInfo &r : tree.runs)
        n += r.scopes.size();
    return n;
}

int defaultScopeByScopeAbove()
{
    bool ok = false;
    const int env = qEnvironmentVariableIntValue("DS_SCOPE_BY_SCOPE_ABOVE", &ok);
    return ok ? env : DocumentContext::kScopeByScopeAbove;
}

} // namespace

DocumentContext::DocumentContext(QObject *parent)
    : QObject(parent), m_tree(new DumpTreeModel(this)), m_drain(new QTimer(this)), m_scopeByScopeAbove(defaultScopeByScopeAbove())
{
    connect(m_tree, &DumpTreeModel::scopeWanted, this, &DocumentContext::readScope);
    // Partial results are pulled in small time slices so the event loop never stalls.
    m_drain->setInterval(25);
    connect(m_drain, &QTimer::timeout, this, &DocumentContext::drainBatches);
}

DocumentContext::~DocumentContext()
{
    if (m_job) {
        m_job->cancel = true;
        m_job->watcher.waitForFinished();
    }
}

void DocumentContext::openDump(const QString &path)
{
    if (m_job) {
        m_queue << path;
        return;
    }
    m_job = std::make_unique<Job>();
    Job *job = m_job.get();
    job->path = path;
    job->dump = m_tree->beginDump(path);
    job->batchHook = m_batchHook;
    job->scopeByScopeAbove = m_scopeByScopeAbove;
    m_countShown = 0;
    emit indexingStarted(path);
    connect(&job->watcher, &QFutureWatcherBase::finished, this, &DocumentContext::onFinished);
    QPointer<DocumentContext> self(this);
    m_drain->start();
    job->watcher.setFuture(QtConcurrent::run(backgroundPool(), [job, self, path]() {
        const BackgroundPriority background; // inherited by the indexing threads
        JobControl control;
        control.cancelFlag = &job->cancel;
        control.progress = [job, self](int permille) {
            // Throttle: one queued update per 1% step.
            if (permille / 10 != job->progress.exchange(permille) / 10 && self)
                QMetaObject::invokeMethod(self, [self, permille] { if (self) emit self->indexingProgress(permille); },
                                          Qt::QueuedConnection);
        };
        const QFileInfo opened(path); // the root of the batches' operators, as buildIndex's (walkTree)
        const QString openedPath = opened.absoluteFilePath();
        const QString rootDir = opened.isDir() ? QDir::cleanPath(openedPath) : opened.absolutePath();
        // Errors with their parts; every operator as soon as it is read: its directory's totals,
        // and a copy of the first kLiveRowLimit as rows of the tree.
        auto errors = [job](const std::vector<OpRecord> &, const std::vector<FileError> &errors) {
            if (errors.empty())
                return;
            auto batch = DumpTreeModel::summarizeBatch(nullptr, 0, errors);
            std::lock_guard lock(job->mutex);
            job->batches.push_back(std::move(batch));
        };
        auto live = [job, openedPath, rootDir](FormatId format, const OpRecord *ops, size_t count) {
            auto batch = DumpTreeModel::summarizeBatch(ops, count, {});
            job->opsRead += qint64(count);
            const qint64 left = job->rowsLeft.fetch_sub(qint64(count));
            if (const size_t rows = size_t(std::clamp<qint64>(left, 0, qint64(count)))) {
                auto shown = std::make_shared<DumpIndex>();
                shown->openedPath = openedPath;
                shown->rootDir = rootDir;
                shown->ops.assign(ops, ops + rows);
                for (OpRecord &op : shown->ops) {
                    op.source = format;
                    op.stack = -1; // stacks join the final index
                }
                batch.ops = std::move(shown);
            }
            {
                std::lock_guard lock(job->mutex);
                job->batches.push_back(std::move(batch));
            }
            if (job->batchHook)
                job->batchHook();
        };
        auto walk = walkTree(path, &control);
        // The runs of the walk go to the panels (the Runs overview) at once: the tree is walked
        // once, not once more by the overview (307,200 files at 1,024 x 100).
        auto tree = walk ? std::make_shared<RunTree>(runsOfWalk(std::move(*walk))) : std::make_shared<RunTree>();
        QMetaObject::invokeMethod(self, [self, dump = job->dump, runs = std::shared_ptr<const RunTree>(tree)] {
            if (self)
                emit self->runsWalked(dump, runs);
        }, Qt::QueuedConnection);
        if (!walk)
            return Result<std::shared_ptr<DumpIndex>>(walk.error());
        // A run of thousands of scopes opens scope by scope: its folders and scopes now, a
        // scope's operators when it is opened.
        if (job->scopeByScopeAbove > 0 && !tree->walk.singleFile && tree->walk.claims.size() > size_t(job->scopeByScopeAbove)) {
            if (scopeCount(*tree) > size_t(job->scopeByScopeAbove) && !tree->walk.cancelled) {
                // The scopes' nodes and their lookup, made here, not on the GUI thread.
                auto lazy = std::make_shared<Lazy>();
                lazy->tree = tree;
                lazy->severalRuns = tree->runs.size() > 1;
                lazy->scopes.reserve(qsizetype(scopeCount(*tree)));
                for (const RunInfo &run : tree->runs)
                    for (const RunScope &scope : run.scopes) {
                        auto nodes = scopeNodes(*tree, scope, lazy->severalRuns, run.relPath);
                        job->unread.insert(job->unread.end(), nodes.begin(), nodes.end());
                        lazy->scopes.insert(lazyKey(run.relPath, scope.id), {&scope, std::move(nodes)});
                    }
                if (!tree->walk.errors.empty()) {
                    std::lock_guard lock(job->mutex);
                    job->batches.push_back(DumpTreeModel::summarizeBatch(nullptr, 0, tree->walk.errors));
                }
                job->lazy = std::move(lazy);
                auto none = std::make_shared<DumpIndex>(); // stands for the index no one builds
                none->openedPath = tree->walk.openedPath;
                none->rootDir = tree->walk.rootDir;
                return Result<std::shared_ptr<DumpIndex>>(std::move(none));
            }
        }
        auto result = Result<std::shared_ptr<DumpIndex>>(indexClaims(tree->walk, {}, &control, errors, IndexLabels::Auto, live));
        if (result) { // the final tree, the problems and the path lookup: made here, not on the GUI thread
            (*result)->buildPathIndex();
            job->tree = DumpTreeModel::buildTree(**result, job->dump);
            job->problems = indexProblems(**result);
        }
        return result;
    }));
}

void DocumentContext::drainBatches()
{
    if (!m_job)
        return;
    // A batch is a few directories' totals and up to 1,024 operator rows (well under a
    // millisecond): pulled in a bounded time slice, the rest on the next tick.
    constexpr qint64 kBudgetMs = 8;
    QElapsedTimer budget;
    budget.start();
    while (budget.elapsed() < kBudgetMs) {
        DumpTreeModel::Batch batch;
        {
            std::lock_guard lock(m_job->mutex);
            if (m_job->batches.empty())
                break;
            batch = std::move(m_job->batches.front());
            m_job->batches.pop_front();
        }
        m_tree->addBatch(m_job->dump, batch);
    }
    if (const qint64 count = m_job->opsRead.load(); count != m_countShown) {
        m_countShown = count;
        emit indexingCount(count);
    }
}

void DocumentContext::onFinished()
{
    m_drain->stop(); // the final index supersedes the batches still queued
    auto result = m_job->watcher.result();
    const int dump = m_job->dump;
    if (m_job->closed) { // closed while it indexed: the tree item and the panels' state are gone already
        m_job.reset();
    } else if (!result) {
        m_tree->removeDump(dump);
        m_job.reset();
        emit openFailed(result.errorText());
    } else if (m_job->lazy) { // opened scope by scope: the tree shows the scopes, unread
        std::shared_ptr<Lazy> lazy = m_job->lazy;
        while (!m_job->batches.empty()) { // the walk's errors
            m_tree->addBatch(dump, m_job->batches.front());
            m_job->batches.pop_front();
        }
        m_lazy[dump] = lazy;
        // The scopes' nodes join the tree in time slices (100,000 insertions at once would
        // stall the GUI thread); the opening is finished when the last is in.
        const int errors = int(lazy->tree->walk.errors.size());
        auto unread = std::make_shared<std::vector<std::shared_ptr<const DumpLevels>>>(std::move(m_job->unread));
        m_job.reset();
        auto *slices = new QTimer(this);
        slices->setInterval(0);
        connect(slices, &QTimer::timeout, this, [this, slices, unread, dump, errors, next = size_t(0)]() mutable {
            if (!m_lazy.count(dump)) { // closed meanwhile
                --m_slicing;
                slices->deleteLater();
                return;
            }
            QElapsedTimer budget;
            budget.start();
            while (next < unread->size() && budget.elapsed() < 8) {
                const size_t end = std::min(unread->size(), next + 256);
                m_tree->addUnreadScopes(dump, std::vector<std::shared_ptr<const DumpLevels>>(unread->begin() + qsizetype(next),
                                                                                  unread->begin() + qsizetype(end)));
                next = end;
            }
            if (next < unread->size())
                return;
            slices->deleteLater();
            slices->stop();
            --m_slicing;
            emit indexingFinished(dump, false, 0, errors);
            if (!m_job && !m_queue.isEmpty())
                openDump(m_queue.takeFirst());
        });
        ++m_slicing;
        slices->start();
        return;
    } else {
        std::shared_ptr<const DumpIndex> index = *result;
        m_tree->finishDump(dump, index, m_job->tree);
        m_finishedProblems = std::move(m_job->problems);
        m_job.reset();
        emit indexingFinished(dump, index->cancelled, int(index->ops.size()), int(index->errors.size()));
        m_finishedProblems = {};
    }
    if (!m_queue.isEmpty())
        openDump(m_queue.takeFirst());
}

qint64 DocumentContext::opsReadSoFar() const { return m_job ? m_job->opsRead.load() : 0; }

int DocumentContext::indexingDump() const { return m_job && !m_job->closed ? m_job->dump : -1; }

void DocumentContext::closeDump(int dump)
{
    if (!m_tree->dumpIds().contains(dump))
        return;
    if (m_job && m_job->dump == dump) { // stop it; onFinished drops what it made
        m_job->cancel = true;
        m_job->closed = true;
        m_drain->stop();
    }
    if (m_selDump == dump)
        selectTensor(-1, {});
    m_lazy.erase(dump);
    m_tree->removeDump(dump);
    emit dumpClosed(dump);
}

void DocumentContext::cancelIndexing()
{
    m_queue.clear();
    if (m_job)
        m_job->cancel = true;
}

void DocumentContext::waitForIndexing()
{
    while (m_job || m_slicing) {
        if (m_job)
            m_job->watcher.waitForFinished();
        QCoreApplication::processEvents(); // delivers finished (and queued batches, the scopes' nodes)
    }
}

std::shared_ptr<const RunTree> DocumentContext::scopeByScopeRuns(int dump) const
{
    const auto it = m_lazy.find(dump);
    return it == m_lazy.end() ? nullptr : it->second->tree;
}

void DocumentContext::readScope(int dump, std::shared_ptr<const DumpLevels> levels)
{
    const auto it = m_lazy.find(dump);
    if (it == m_lazy.end())
        return;
    std::shared_ptr<const Lazy> lazy = it->second;
    const QString run = runOfLevels(*lazy->tree, *levels, lazy->severalRuns);
    const auto found = lazy->scopes.constFind(lazyKey(run, scopeIdOf(*levels)));
    if (found == lazy->scopes.cend())
        return;
    const RunScope *scope = found->first;
    auto nodes = found->second;
    QPointer<DocumentContext> self(this);
    // The scope's own index (tensor ids and paths those of the whole tree): its operators
    // become the node's rows; with several runs their levels name the run, as the whole index's.
    (void)QtConcurrent::run(backgroundPool(), [self, dump, lazy, scope, run, nodes = std::move(nodes)] {
        const BackgroundPriority background;
        std::shared_ptr<DumpIndex> index = indexScope(*lazy->tree, *scope);
        if (lazy->severalRuns) {
            const QString label = run.isEmpty() ? QStringLiteral(".") : run;
            std::map<const DumpLevels *, SharedLevels> relabelled;
            for (OpRecord &op : index->ops) {
                const auto [at, added] = relabelled.try_emplace(&*op.levels);
                if (added) {
                    DumpLevels l = *op.levels;
                    l.run = label;
                    at->second = SharedLevels(std::move(l));
                }
                op.levels = at->second;
            }
        }
        auto batch = std::make_shared<DumpTreeModel::Batch>(DumpTreeModel::summarizeBatch(index->ops, index->errors));
        batch->ops = std::move(index);
        if (self)
            QMetaObject::invokeMethod(self, [self, dump, lazy, nodes, batch] {
                if (!self)
                    return;
                const auto at = self->m_lazy.find(dump);
                if (at == self->m_lazy.end() || at->second != lazy)
                    return; // closed meanwhile
                self->m_tree->scopeRead(dump, nodes, *batch);
                emit self->scopeRead(dump, batch->errors);
            }, Qt::QueuedConnection);
    });
}

void DocumentContext::selectTensor(int dump, const TensorId &tensorId)
{
    if (dump == m_selDump && tensorId == m_selTensor)
        return;
    m_selDump = dump;
    m_selTensor = tensorId;
    emit selectionChanged(dump, tensorId);
}

} // namespace ds
