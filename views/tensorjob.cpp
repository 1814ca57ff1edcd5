#include "tensorjob.h"

#include "background.h"

#include <QtConcurrent>

namespace ds {

QFuture<std::shared_ptr<TensorReport>> runLoadJob(std::shared_ptr<const DumpIndex> index, DumpIndex::TensorRef ref,
                                                  LayoutChoice layout, std::shared_ptr<std::atomic<bool>> cancel)
{
    return QtConcurrent::run(backgroundPool(), [=]() {
        const BackgroundPriority background;
        JobControl job;
        job.cancelFlag = cancel.get();
        MeasureOptions options;
        options.layout = layout;
        options.keepTensor = true;
        auto r = std::make_shared<TensorReport>();
        static_cast<TensorMeasure &>(*r) = loadForMeasure(*index, ref, options, &job);
        r->index = index;
        return r;
    });
}

QFuture<std::shared_ptr<TensorReport>> runStatsJob(std::shared_ptr<const TensorReport> loaded, int bins, double lo, double hi,
                                                   std::shared_ptr<std::atomic<bool>> cancel)
{
    return QtConcurrent::run(backgroundPool(), [=]() {
        const BackgroundPriority background;
        auto r = std::make_shared<TensorReport>(*loaded);
        JobControl job;
        job.cancelFlag = cancel.get();
        MeasureOptions options;
        options.bins = bins;
        options.lo = lo;
        options.hi = hi;
        options.keepTensor = true;
        measureLoaded(*r, options, &job);
        return r;
    });
}

} // namespace ds
