#include "tensormeasure.h"

#include "tensorloader.h"

#include <QElapsedTimer>

namespace ds {

TensorMeasure loadForMeasure(const DumpIndex &index, const DumpIndex::TensorRef &ref, const MeasureOptions &options,
                             const JobControl *job)
{
    TensorMeasure m;
    m.ref = ref;
    m.id = index.tensorId(ref);
    QElapsedTimer timer;
    timer.start();
    auto loaded = loadTensor(index, ref, options.layout, job);
    m.loadMs = double(timer.nsecsElapsed()) / 1e6;
    if (!loaded) {
        m.error = loaded.error();
        return m;
    }
    m.tensor = *loaded;
    m.shape = m.tensor->shape;
    m.notes = m.tensor->notes;
    return m;
}

void measureLoaded(TensorMeasure &m, const MeasureOptions &options, const JobControl *job)
{
    if (m.error || !m.tensor)
        return;
    QElapsedTimer timer;
    timer.start();
    const TensorView &v = m.tensor->view;
    bool ok;
    if (options.bins > 0) {
        Histogram h;
        ok = options.lo <= options.hi
                 ? computeStats(v, m.stats, job) && computeHistogram(v, options.bins, options.lo, options.hi, h, job)
                 : computeStatsAndHistogram(v, options.bins, m.stats, h, job);
        m.histogram = std::move(h);
    } else {
        ok = computeStats(v, m.stats, job);
    }
    if (ok && options.saturation)
        m.saturated = countSaturated(v);
    m.statsMs = double(timer.nsecsElapsed()) / 1e6;
    m.measured = ok;
    if (!ok)
        m.error = Error(Cancelled{});
    if (!options.keepTensor)
        m.tensor.reset();
}

TensorMeasure measureTensor(const DumpIndex &index, const DumpIndex::TensorRef &ref, const MeasureOptions &options,
                            const JobControl *job)
{
    TensorMeasure m = loadForMeasure(index, ref, options, job);
    measureLoaded(m, options, job);
    if (!options.keepTensor)
        m.tensor.reset();
    return m;
}

} // namespace ds
