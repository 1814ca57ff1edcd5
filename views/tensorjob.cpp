#include "tensorjob.h"

#include <QElapsedTimer>
#include <QtConcurrent>

namespace ds {

QFuture<std::shared_ptr<const TensorReport>> runTensorJob(std::shared_ptr<const DumpIndex> index, DumpIndex::TensorRef ref,
                                                          LayoutChoice layout, int bins, double lo, double hi,
                                                          std::shared_ptr<std::atomic<bool>> cancel)
{
    return QtConcurrent::run([=]() -> std::shared_ptr<const TensorReport> {
        auto r = std::make_shared<TensorReport>();
        r->index = index;
        r->ref = ref;
        r->id = index->tensorId(ref);
        JobControl job;
        job.cancelFlag = cancel.get();
        QElapsedTimer timer;
        timer.start();
        auto loaded = loadTensor(*index, ref, layout, &job);
        r->loadMs = double(timer.nsecsElapsed()) / 1e6;
        if (!loaded) {
            r->error = loaded.error();
            return r;
        }
        r->tensor = *loaded;
        timer.restart();
        bool ok = lo <= hi ? computeStats(r->tensor->view, r->stats, &job)
                                 && computeHistogram(r->tensor->view, bins, lo, hi, r->histogram, &job)
                           : computeStatsAndHistogram(r->tensor->view, bins, r->stats, r->histogram, &job);
        r->statsMs = double(timer.nsecsElapsed()) / 1e6;
        if (!ok)
            r->error = QStringLiteral("cancelled");
        return r;
    });
}

} // namespace ds
