#include "tensorjob.h"

#include <QElapsedTimer>
#include <QtConcurrent>

namespace ds {

QFuture<std::shared_ptr<TensorReport>> runLoadJob(std::shared_ptr<const DumpIndex> index, DumpIndex::TensorRef ref,
                                                  LayoutChoice layout, std::shared_ptr<std::atomic<bool>> cancel)
{
    return QtConcurrent::run([=]() {
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
        if (loaded)
            r->tensor = *loaded;
        else
            r->error = loaded.error();
        return r;
    });
}

QFuture<std::shared_ptr<TensorReport>> runStatsJob(std::shared_ptr<const TensorReport> loaded, int bins, double lo, double hi,
                                                   std::shared_ptr<std::atomic<bool>> cancel)
{
    return QtConcurrent::run([=]() {
        auto r = std::make_shared<TensorReport>(*loaded);
        JobControl job;
        job.cancelFlag = cancel.get();
        QElapsedTimer timer;
        timer.start();
        const TensorView &v = r->tensor->view;
        const bool ok = lo <= hi ? computeStats(v, r->stats, &job) && computeHistogram(v, bins, lo, hi, r->histogram, &job)
                                 : computeStatsAndHistogram(v, bins, r->stats, r->histogram, &job);
        r->statsMs = double(timer.nsecsElapsed()) / 1e6;
        r->statsDone = ok;
        if (!ok)
            r->error = QStringLiteral("cancelled");
        return r;
    });
}

} // namespace ds
