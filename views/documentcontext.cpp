#include "documentcontext.h"

#include "background.h"
#include "index/buildindex.h"

#include <QElapsedTimer>
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
    std::deque<DumpTreeModel::Batch> batches; ///< totals per directory, not the operators
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
        auto result = buildIndex(path, &control, [job](const std::vector<OpRecord> &ops, const std::vector<FileError> &errors) {
            auto batch = DumpTreeModel::summarizeBatch(ops, errors);
            std::lock_guard lock(job->mutex);
            job->batches.push_back(std::move(batch));
        });
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
    // A batch is a few directories' totals: cheap, but still pulled in a bounded time slice.
    constexpr qint64 kBudgetMs = 12;
    QElapsedTimer budget;
    budget.start();
    while (budget.elapsed() < kBudgetMs) {
        DumpTreeModel::Batch batch;
        {
            std::lock_guard lock(m_job->mutex);
            if (m_job->batches.empty())
                return;
            batch = std::move(m_job->batches.front());
            m_job->batches.pop_front();
        }
        m_tree->addBatch(m_job->dump, batch);
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
