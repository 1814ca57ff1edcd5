#include "documentcontext.h"

#include <QPointer>
#include <QtConcurrent>

namespace ds {

struct DocumentContext::Job
{
    int dump = -1;
    QString path;
    std::atomic<bool> cancel{false};
    std::atomic<int> progress{0};
    QFutureWatcher<Result<std::shared_ptr<DumpIndex>>> watcher;
};

DocumentContext::DocumentContext(QObject *parent) : QObject(parent), m_tree(new DumpTreeModel(this)) {}

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
    const int dump = job->dump;
    job->watcher.setFuture(QtConcurrent::run([job, self, dump, path]() {
        JobControl control;
        control.cancelFlag = &job->cancel;
        control.progress = [job, self](int permille) {
            // Throttle: one queued update per 1% step.
            if (permille / 10 != job->progress.exchange(permille) / 10 && self)
                QMetaObject::invokeMethod(self, [self, permille] { if (self) emit self->indexingProgress(permille); },
                                          Qt::QueuedConnection);
        };
        return buildIndex(path, &control, [self, dump](std::vector<OpRecord> ops, std::vector<FileError> errors) {
            if (self)
                QMetaObject::invokeMethod(self, [self, dump, ops = std::move(ops), errors = std::move(errors)]() mutable {
                    if (self)
                        self->onBatch(dump, std::move(ops), std::move(errors));
                }, Qt::QueuedConnection);
        });
    }));
}

void DocumentContext::onBatch(int dump, std::vector<OpRecord> ops, std::vector<FileError> errors)
{
    // Batches that arrive after the final index was committed are already part of it.
    if (m_job && m_job->dump == dump && !m_tree->index(dump))
        m_tree->addBatch(dump, ops, errors);
}

void DocumentContext::onFinished()
{
    auto result = m_job->watcher.result();
    const int dump = m_job->dump;
    if (!result) {
        m_tree->removeDump(dump);
        m_job.reset();
        emit openFailed(result.error());
    } else {
        std::shared_ptr<const DumpIndex> index = *result;
        m_tree->finishDump(dump, index);
        m_job.reset();
        emit indexingFinished(dump, index->cancelled, int(index->ops.size()), int(index->errors.size()));
    }
    if (!m_queue.isEmpty())
        openDump(m_queue.takeFirst());
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

void DocumentContext::selectTensor(int dump, const QString &tensorId)
{
    if (dump == m_selDump && tensorId == m_selTensor)
        return;
    m_selDump = dump;
    m_selTensor = tensorId;
    emit selectionChanged(dump, tensorId);
}

} // namespace ds
