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
    QFutureWatcher<Result<std::shared_ptr<DumpIndex>>> watcher;
};

DocumentContext::DocumentContext(QObject *parent)
    : QObject(parent), m_tree(new DumpTreeModel(this)), m_drain(new QTimer(this))
{
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
        auto result = buildIndex(path, &control, errors, live);
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
    while (m_job) {
        m_job->watcher.waitForFinished();
        QCoreApplication::processEvents(); // delivers finished (and queued batches)
    }
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
