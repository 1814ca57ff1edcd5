#include "compare.h"
#include "pairsaturation.h"

#include "crossframework.h"
#include "formats/msprobe/msprobereader.h"
#include "msprobecells.h"
#include "msprobenames.h"
#include "index/tensorloader.h"
#include "io/pagerelease.h"
#include "overflow/overflowreport.h"
#include "tensor/format.h"
#include "util/parallel.h"

#include <QHash>
#include <algorithm>
#include <atomic>
#include <optional>
#include <utility>
#include <cmath>

namespace ds {

namespace {

using State = MetricValue::State;
using Ref = DumpIndex::TensorRef;

MetricValue cell(State s) { return MetricValue::of(s); }

bool hasData(const TensorRecord &t) { return t.storage() != TensorStorage::Absent && t.storage() != TensorStorage::Value; }

/// The dtype as recorded (framework dumps) or decoded (CANN): what the dtype columns show.
QString dtypeText(const TensorRecord &t)
{
    return t.storage() == TensorStorage::DumpPayload || t.typeName().isEmpty() ? dataTypeName(t.dataType()) : t.typeName();
}

bool floatFamily(int dt)
{
    return dt == int(DataType::Float16) || dt == int(DataType::Float32) || dt == int(DataType::BFloat16);
}

void fillAll(TensorCells &m, State s) { m.fill(cell(s)); }

void addReason(CompareRow &row, ReasonCode r)
{
    if (!row.hasReason(r))
        row.reasons.push_back(r);
}

std::array<MetricValue, kStatCount> recordedStats(const TensorRecord &t)
{
    const RecordedStats r = t.recorded();
    auto f = [&](RecordedStats::Field f, double v) { return r.has(f) ? MetricValue::of(v) : cell(State::NotAvailable); };
    return {f(RecordedStats::Max, r.max), f(RecordedStats::Min, r.min), f(RecordedStats::Mean, r.mean), f(RecordedStats::Norm, r.norm)};
}

std::array<MetricValue, kStatCount> sideStats(double max, double min, double mean, double norm)
{
    return {MetricValue::of(max), MetricValue::of(min), MetricValue::of(mean), MetricValue::of(norm)};
}

/// Statistics of one side for the NPU/Bench columns: recorded ones, else computed from the data.
std::array<MetricValue, kStatCount> statsOf(const DumpIndex &index, const Ref &ref, const LoadedTensor *loaded,
                                            const JobControl *job)
{
    const TensorRecord &t = index.tensor(ref);
    if (t.recorded().present || !hasData(t))
        return recordedStats(t);
    std::shared_ptr<const LoadedTensor> keep;
    if (!loaded) {
        auto l = loadTensor(index, ref, LayoutChoice::Logical, job);
        if (!l)
            return recordedStats(t);
        keep = *l;
        loaded = keep.get();
    }
    TensorStats s;
    if (loaded->view.elem == Elem::None || !computeStats(loaded->view, s, job))
        return recordedStats(t);
    return sideStats(s.max, s.min, s.mean, s.l2norm);
}

struct Work
{
    const DumpIndex &npu, &bench;
    const CompareOptions &options;
    const JobControl *job;
    /// one side hashed bfloat16/float8 tensors after a float32 cast, the other as they are
    bool castHashesDiffer = false;
};

void tensorCells(CompareRow &row, const LoadedTensor &a, const LoadedTensor &b, const CompareOptions &options,
                 unsigned threads, const JobControl *job)
{
    PairMetricOptions po;
    po.genBCompat = options.genBCompat;
    po.threads = threads;
    // the NPU saturation count comes from the metrics' first pass as it reads the NPU tensor
    const bool ok = computePairMetrics(a.view, b.view, row.metrics.raw(), po, row.npuSaturated, job);
    // The metrics read both tensors whole: hand their mapped pages back (io/pagerelease.h).
    for (const LoadedTensor *t : {&a, &b})
        releaseMappedPages(t->view.data, t->view.count * elemBytes(t->view.elem));
    if (!ok)
        return;
    const PairMetrics &r = row.metrics.raw();
    row.npuStats = sideStats(r.npu.max, r.npu.min, r.npu.mean, r.npu.l2norm);
    row.benchStats = sideStats(r.bench.max, r.bench.min, r.bench.mean, r.bench.l2norm);
    auto &m = row.metrics;
    if (r.infNanMismatch) {
        addReason(row, ReasonCode::InfNanPos);
        row.messages << QStringLiteral("The position of inf or nan in NPU and bench Tensor do not match.");
        fillAll(m, State::NotAvailable);
        return;
    }
    const bool scalar = a.shape.empty();
    // Cosine (§3.3)
    if (scalar) {
        m[size_t(Metric::Cosine)] = cell(State::Unsupported);
    } else if (r.count == 1) {
        addReason(row, ReasonCode::Len1);
        m[size_t(Metric::Cosine)] = cell(State::Unsupported);
        row.messages << QStringLiteral("This is a 1-d tensor of length 1.");
    } else if (r.npuNorm <= kEps64 && r.benchNorm <= kEps64) {
        m[size_t(Metric::Cosine)] = MetricValue::of(1.0);
    } else if (r.npuNorm <= kEps64 || r.benchNorm <= kEps64) {
        addReason(row, ReasonCode::AllZero);
        m[size_t(Metric::Cosine)] = cell(State::Nan);
        row.messages << QStringLiteral("Cannot compare by Cosine Similarity, All the data is Zero in %1 dump data.")
                            .arg(r.npuNorm <= kEps64 ? QStringLiteral("npu") : QStringLiteral("Bench"));
    } else {
        const double c = r.dot / (r.npuNorm * r.benchNorm);
        m[size_t(Metric::Cosine)] = MetricValue::of(c);
        if (std::isnan(c))
            row.messages << QStringLiteral("Cannot compare by Cosine Similarity, the dump data has NaN.");
    }
    m[size_t(Metric::EucDist)] = scalar ? cell(State::Unsupported) : MetricValue::of(r.eucDist);
    m[size_t(Metric::MaxAbsErr)] = MetricValue::of(r.maxAbsErr);
    if (std::isnan(r.maxAbsErr))
        row.messages << QStringLiteral("Cannot compare by MaxAbsError, the data contains nan/inf/-inf in dump data.");
    m[size_t(Metric::MaxRelativeErr)] = MetricValue::of(r.maxRelErr);
    if (std::isnan(r.maxRelErr))
        row.messages << QStringLiteral("Cannot compare by MaxRelativeError, the data contains nan/inf/-inf in dump data.");
    m[size_t(Metric::OneThousandthErrRatio)] = scalar ? cell(State::Unsupported) : MetricValue::of(r.oneThousandthRatio);
    m[size_t(Metric::FiveThousandthsErrRatio)] = scalar ? cell(State::Unsupported) : MetricValue::of(r.fiveThousandthsRatio);
    m[size_t(Metric::RelativeEuclideanDistance)] = MetricValue::of(r.relEuclid);
    m[size_t(Metric::KullbackLeiblerDivergence)] = MetricValue::of(r.kl);
    m[size_t(Metric::MeanAbsoluteError)] = MetricValue::of(r.meanAbsErr);
    m[size_t(Metric::RootMeanSquareError)] = MetricValue::of(r.rmse);
    m[size_t(Metric::AccumulatedRelativeError)] = MetricValue::of(r.accRelErr);
    m[size_t(Metric::MsaccucmpMaxRelativeError)] = MetricValue::of(r.maxRelErrAcc);
    m[size_t(Metric::MeanRelativeError)] = MetricValue::of(r.meanRelErr);
    if (a.view.elem == Elem::Bool && b.view.elem == Elem::Bool) { // §9: only cosine and RelEuclid
        addReason(row, ReasonCode::NotSupportedBool);
        for (Metric k : {Metric::KullbackLeiblerDivergence, Metric::MeanAbsoluteError, Metric::RootMeanSquareError,
                         Metric::AccumulatedRelativeError, Metric::MsaccucmpMaxRelativeError, Metric::MeanRelativeError})
            m[size_t(k)] = cell(State::Nan);
    }
}

void compareTensors(CompareRow &row, const Work &w, unsigned threads)
{
    auto readFailed = [&](const DumpIndex &index, const Ref &ref, const Error &error) {
        addReason(row, ReasonCode::ReadError);
        row.messages << QStringLiteral("Dump file: %1 not found or read failed. (%2)").arg(index.absolutePath(index.op(ref)), error.text());
        fillAll(row.metrics, State::Unsupported);
        row.mode = CompareMode::None;
    };
    auto a = loadTensor(w.npu, row.npu, LayoutChoice::Logical, w.job);
    if (!a)
        return readFailed(w.npu, row.npu, a.error());
    auto b = loadTensor(w.bench, row.bench, LayoutChoice::Logical, w.job);
    if (!b)
        return readFailed(w.bench, row.bench, b.error());
    const bool npuSide[] = {true, false};
    for (bool isNpu : npuSide) {
        const LoadedTensor &l = isNpu ? **a : **b;
        const DumpIndex &index = isNpu ? w.npu : w.bench;
        const Ref &ref = isNpu ? row.npu : row.bench;
        const TensorRecord &t = index.tensor(ref);
        if (l.view.elem == Elem::None)
            return readFailed(index, ref, Error(ErrorKind::Unsupported, QString(), QStringLiteral("data type %1 cannot be decoded").arg(dataTypeName(t.dataType()))));
        if (isPrivateFormat(t.format()) && !l.converted) {
            addReason(row, ReasonCode::FormatUnconverted);
            row.messages << (l.notes.isEmpty() ? QStringLiteral("Device format %1 not converted.").arg(formatName(t.format()))
                                               : l.notes.join(QStringLiteral("; ")));
            fillAll(row.metrics, State::NotAvailable);
            row.mode = CompareMode::None;
            return;
        }
    }
    compareLoadedTensors(row, **a, **b, w.options, threads, w.job);
}

void compareSummary(CompareRow &row, const Work &w)
{
    row.npuStats = statsOf(w.npu, row.npu, nullptr, w.job);
    row.benchStats = statsOf(w.bench, row.bench, nullptr, w.job);
    for (size_t i = 0; i < kStatCount; ++i) {
        const MetricValue &n = row.npuStats[i], &b = row.benchStats[i];
        if (n.state == State::NotAvailable || b.state == State::NotAvailable) {
            row.statDiff[i] = row.statRelErr[i] = cell(State::NotAvailable);
            continue;
        }
        const double d = n.value - b.value;
        row.statDiff[i] = MetricValue::of(d);
        row.statRelErr[i] = std::isnan(d) ? cell(State::Nan)
                            : b.value == 0 ? cell(State::NotAvailable)
                                           : MetricValue::of(std::fabs(d / b.value * 100.0));
    }
}

void compareRow(CompareRow &row, const Work &w, unsigned threads)
{
    const TensorRecord &nt = w.npu.tensor(row.npu);
    if (row.bench.op < 0) {
        fillAll(row.metrics, State::Unsupported);
        row.npuStats = statsOf(w.npu, row.npu, nullptr, w.job);
        row.messages << (row.hasReason(ReasonCode::FusedAway) ? QStringLiteral("Fused away; intermediate result not available.")
                                                             : QStringLiteral("Bench api/module unmatched."));
        return;
    }
    const TensorRecord &bt = w.bench.tensor(row.bench);
    // one vocabulary for both frameworks: "Float32" and "torch.float32" are the same dtype
    if (nt.isTensor() != bt.isTensor()) {
        row.dtypeDiffers = true;
    } else if (dtypeText(nt) != dtypeText(bt)) { // the rare case: spelled differently, maybe the same type
        const int n = msprobe::dataTypeFromText(dtypeText(nt)), b = msprobe::dataTypeFromText(dtypeText(bt));
        row.dtypeDiffers = n == 0 || b == 0 || n != b;
    }
    if (!nt.isTensor() || !bt.isTensor()) { // non-tensor leaves: the recorded values must be equal
        row.mode = CompareMode::Value;
        row.identical = !nt.isTensor() && !bt.isTensor() && nt.value() == bt.value() && nt.typeName() == bt.typeName();
        if (!row.identical)
            row.messages << QStringLiteral("Values differ: %1 vs %2.").arg(nt.isTensor() ? nt.typeName() : nt.value(),
                                                                          bt.isTensor() ? bt.typeName() : bt.value());
        return;
    }
    const bool data = hasData(nt) && hasData(bt);
    const bool stats = (hasData(nt) || nt.recorded().present) && (hasData(bt) || bt.recorded().present);
    const bool sums = !nt.checksum().isEmpty() && !bt.checksum().isEmpty();
    CompareMode mode = w.options.mode;
    // data, else checksums (an md5 dump also records statistics; msprobe compares its CRCs), else statistics
    if (mode == CompareMode::None || mode == CompareMode::Value)
        mode = data ? CompareMode::Tensor : sums ? CompareMode::Md5 : stats ? CompareMode::Summary : CompareMode::None;
    if ((mode == CompareMode::Tensor && !data) || (mode == CompareMode::Summary && !stats) || (mode == CompareMode::Md5 && !sums)
        || mode == CompareMode::None) {
        addReason(row, ReasonCode::MissingFile);
        row.messages << (hasData(nt) ? QStringLiteral("Bench does not have data file.") : QStringLiteral("NPU does not have data file."));
        fillAll(row.metrics, State::Unsupported);
        row.mode = CompareMode::None;
        return;
    }
    row.mode = mode;
    row.npuChecksum = nt.checksum();
    row.benchChecksum = bt.checksum();
    const bool sameShape = nt.shape() == bt.shape() && !row.dtypeDiffers;
    if (mode == CompareMode::Tensor) {
        compareTensors(row, w, threads);
        const PairMetrics &raw = std::as_const(row.metrics).raw();
        row.identical = sameShape && row.mode == CompareMode::Tensor && raw.count > 0 && !raw.infNanMismatch && raw.maxAbsErr == 0;
    } else if (mode == CompareMode::Summary) {
        compareSummary(row, w);
        const RecordedStats &a = nt.recorded(), &b = bt.recorded();
        auto same = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
        row.identical = sameShape && a.present && a.present == b.present && same(a.max, b.max) && same(a.min, b.min)
                        && same(a.mean, b.mean) && same(a.norm, b.norm);
    } else if (mode == CompareMode::Md5) {
        row.identical = sameShape && nt.checksum().compare(bt.checksum(), Qt::CaseInsensitive) == 0;
        if (w.castHashesDiffer && (castBeforeHash(nt.dataType()) || castBeforeHash(bt.dataType()))) {
            row.checksumsIncomparable = true;
            row.messages << QStringLiteral("CRC-32 values not comparable: MindSpore hashes a %1 tensor after casting it "
                                           "to float32, PyTorch hashes its own bytes.")
                                .arg(dataTypeName(castBeforeHash(nt.dataType()) ? nt.dataType() : bt.dataType()));
        }
    }
}

/// Bytes a row reads (at least 1, so that every row advances the progress).
std::uint64_t rowCost(const CompareRow &row, const Work &w)
{
    std::uint64_t c = 1 + w.npu.tensor(row.npu).size();
    if (row.bench.op >= 0)
        c += w.bench.tensor(row.bench).size();
    return c;
}

} // namespace

void compareLoadedTensors(CompareRow &row, const LoadedTensor &a, const LoadedTensor &b, const CompareOptions &options,
                          unsigned threads, const JobControl *job)
{
    row.mode = CompareMode::Tensor;
    if (a.view.count == 0 || b.view.count == 0) {
        row.npuSaturated = countSaturated(a.view);
        addReason(row, ReasonCode::Empty);
        row.messages << QStringLiteral("This is empty data, can not compare.");
        fillAll(row.metrics, State::Unsupported);
        row.mode = CompareMode::None;
        return;
    }
    if (a.shape != b.shape) {
        addReason(row, ReasonCode::ShapeMismatch);
        row.messages << QStringLiteral("Shape of NPU and bench tensor do not match. Skipped.");
        fillAll(row.metrics, State::ShapeUnmatched);
        row.npuSaturated = countSaturated(a.view);
        TensorStats s;
        if (computeStats(a.view, s, job))
            row.npuStats = sideStats(s.max, s.min, s.mean, s.l2norm);
        if (computeStats(b.view, s, job))
            row.benchStats = sideStats(s.max, s.min, s.mean, s.l2norm);
        return;
    }
    if (a.shape.empty()) {
        addReason(row, ReasonCode::Scalar0d);
        row.messages << QStringLiteral("This is type of 0-d tensor, can not calculate 'Cosine', 'EucDist', "
                                       "'One Thousandth Err Ratio' and 'Five Thousandths Err Ratio'. ");
    }
    if (a.dataType != b.dataType) {
        row.messages << QStringLiteral("Dtype of NPU and bench tensor do not match.");
        if (!floatFamily(a.dataType) || !floatFamily(b.dataType))
            addReason(row, ReasonCode::DtypeMismatch);
    }
    tensorCells(row, a, b, options, threads, job);
}

const TensorCells::Block &TensorCells::empty()
{
    static const Block none;
    return none;
}

QString metricColumn(Metric m)
{
    static const char *names[kMetricCount] = {
        "Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr", "One Thousandth Err Ratio", "Five Thousandths Err Ratio",
        "RelativeEuclideanDistance", "KullbackLeiblerDivergence", "MeanAbsoluteError", "RootMeanSquareError",
        "AccumulatedRelativeError", "MaxRelativeError", "MeanRelativeError",
    };
    return QLatin1String(names[size_t(m)]);
}

QString metricKey(Metric m)
{
    static const char *names[kMetricCount] = {
        "cosine", "euc_dist", "max_abs_err", "max_relative_err", "one_thousandth_err_ratio",
        "five_thousandths_err_ratio", "relative_euclidean_distance", "kl_divergence", "mean_abs_err", "rmse",
        "accumulated_relative_err", "msaccucmp_max_relative_err", "mean_relative_err",
    };
    return QLatin1String(names[size_t(m)]);
}

size_t CompareResult::count(Verdict v) const
{
    return size_t(std::count_if(rows.begin(), rows.end(), [&](const CompareRow &r) { return r.verdict == v; }));
}

bool CompareResult::any(Verdict atLeast) const
{
    return std::any_of(rows.begin(), rows.end(), [&](const CompareRow &r) { return r.verdict >= atLeast && r.compared(); });
}

namespace {

/// True when `old` (a row of an earlier comparison) was paired as `m` is now, so that its
/// cells still hold: same bench tensor, match source, unmatched reason and matching notes.
bool samePairing(const CompareRow &old, const MatchedRow &m)
{
    if (!(old.npu == m.npu) || !(old.bench == m.bench) || old.source != m.source || old.dataMapped != m.dataMapped)
        return false;
    if (m.hasReason && (old.reasons.empty() || old.reasons.front() != m.reason))
        return false;
    return old.messages.mid(0, m.notes.size()) == m.notes;
}

/// recycleRows(): storage for the rows of the next comparison on this thread.
thread_local std::vector<CompareRow> t_rowStorage;

/// compareIndexes after matching; rows paired as in `previous` are copied from it.
/// What the md5 rows of bfloat16/float8 tensors of a MindSpore side mean (crossframework.h).
QString castHashNote(const DumpIndex &npu, const DumpIndex &bench, const CompareResult &result)
{
    const bool npuCast = hashesAfterFloat32Cast(npu), benchCast = hashesAfterFloat32Cast(bench);
    if (!npuCast && !benchCast)
        return {};
    if (std::any_of(result.rows.begin(), result.rows.end(), [](const CompareRow &r) { return r.checksumsIncomparable; }))
        return QStringLiteral("md5: rows of bfloat16 and float8 tensors are not compared: MindSpore hashes them after "
                              "casting to float32, PyTorch hashes their own bytes, so their CRC-32 values differ even "
                              "where the values are equal (msprobe marks them error); compare statistics or tensors "
                              "to check them");
    const bool castRows = std::any_of(result.rows.begin(), result.rows.end(), [&](const CompareRow &r) {
        return r.mode == CompareMode::Md5 && castBeforeHash(npu.tensor(r.npu).dataType());
    });
    return castRows ? QStringLiteral("md5: MindSpore computed the CRC-32 of bfloat16 and float8 tensors after casting "
                                     "them to float32 (exact: equal values still give equal CRC-32 values)")
                    : QString();
}

CompareResult compareMatched(const DumpIndex &npu, const DumpIndex &bench, MatchResult matched,
                             const CompareOptions &requested, const JobControl *job, const CompareResult *previous,
                             std::vector<size_t> *recompared)
{
    // msprobe's table follows the producers' task (get_dump_mode); under a statistics task the
    // rows are compared by their statistics or CRCs, as msprobe compares them
    const CompareMode task = requested.mode == CompareMode::None ? msprobeTaskMode(npu, bench) : CompareMode::None;
    std::optional<CompareOptions> taskOptions;
    if (task == CompareMode::Summary || task == CompareMode::Md5) {
        taskOptions = requested;
        taskOptions->mode = task;
    }
    const CompareOptions &options = taskOptions ? *taskOptions : requested;
    CompareResult result;
    result.taskMode = task;
    result.thresholds = options.thresholds;
    result.benchOnly = std::move(matched.benchOnly);
    result.warnings = std::move(matched.warnings);
    result.crossFramework = isCrossFramework(npu, bench);
    if (t_rowStorage.capacity() >= matched.rows.size())
        result.rows.swap(t_rowStorage);
    // Each row is made where its fields are set (not by a resize first): a scope has millions
    // of 544-byte rows, and a separate pass constructing them cost as much as the loop below.
    result.rows.reserve(matched.rows.size());
    std::vector<size_t> todo;
    RowNamer npuNames(npu), benchNames(bench);
    for (size_t i = 0; i < matched.rows.size(); ++i) {
        const MatchedRow &m = matched.rows[i];
        if (previous && previous->rows.size() == matched.rows.size() && samePairing(previous->rows[i], m)) {
            result.rows.push_back(previous->rows[i]);
            continue;
        }
        CompareRow &row = result.rows.emplace_back();
        todo.push_back(i);
        row.npu = m.npu;
        row.bench = m.bench;
        row.source = m.source;
        row.dataMapped = m.dataMapped;
        row.io = npu.tensor(m.npu).io();
        row.npuName = npuNames.name(m.npu);
        if (m.source == MatchSource::Exact) // equal operator and tensor keys: the same name (shared text)
            row.benchName = row.npuName;
        else if (m.bench.op >= 0)
            row.benchName = benchNames.name(m.bench);
        if (m.hasReason)
            row.reasons.push_back(m.reason);
        row.messages = m.notes;
    }

    const Work w{npu, bench, options, job, hashesAfterFloat32Cast(npu) != hashesAfterFloat32Cast(bench)};
    std::uint64_t total = 0;
    std::vector<size_t> small, big;
    for (size_t i : todo) {
        const std::uint64_t c = rowCost(result.rows[i], w);
        total += c;
        (c >= (std::uint64_t(8) << 20) ? big : small).push_back(i);
    }
    std::atomic<std::uint64_t> done{0};
    std::atomic<int> reported{-1};
    auto advance = [&](std::uint64_t cost) {
        const std::uint64_t d = done += cost;
        const int permille = total ? int(d * 1000 / total) : 1000;
        int prev = reported.load();
        while (permille > prev && !reported.compare_exchange_weak(prev, permille)) {}
        if (job && permille > prev)
            job->report(permille);
    };
    // Rows that read no tensor data (statistics, checksums) take a few hundred nanoseconds:
    // they go out in blocks, since handing them out and counting progress one at a time (shared
    // atomics on both cores) cost more than the rows. Rows reading data go one at a time.
    const bool dataFree = options.mode == CompareMode::Summary || options.mode == CompareMode::Md5;
    bool ok = parallelChunks(small.size(), dataFree ? 512 : 1, [&](size_t, size_t b, size_t e) {
        std::uint64_t cost = 0;
        for (size_t k = b; k < e; ++k) {
            compareRow(result.rows[small[k]], w, 1);
            cost += rowCost(result.rows[small[k]], w);
        }
        advance(cost);
        return !(job && job->cancelled());
    });
    for (size_t k = 0; ok && k < big.size(); ++k) {
        compareRow(result.rows[big[k]], w, 0);
        advance(rowCost(result.rows[big[k]], w));
        ok = !(job && job->cancelled());
    }
    result.cancelled = !ok || (job && job->cancelled());

    CompareMode mode = CompareMode::None;
    for (CompareMode m : {CompareMode::Tensor, CompareMode::Summary, CompareMode::Md5})
        if (mode == CompareMode::None
            && std::any_of(result.rows.begin(), result.rows.end(), [&](const CompareRow &r) { return r.mode == m; }))
            mode = m;
    if (options.mode == CompareMode::Tensor || options.mode == CompareMode::Summary || options.mode == CompareMode::Md5)
        mode = options.mode; // a forced mode keeps its columns even when no row could use it
    else if (task != CompareMode::None)
        mode = task; // msprobe's table: a tensor task's even when no row had data
    result.mode = mode == CompareMode::None ? CompareMode::Tensor : mode;
    applyVerdicts(npu, result, options.thresholds, options.divergenceLevel);
    if (const QString note = castHashNote(npu, bench, result); !note.isEmpty())
        result.warnings << note;
    result.aligned = matched.aligned;
    result.structure = structureFindings(npu, bench, matched.structure, result, options.divergenceLevel);
    // after the verdicts: msprobe's checkers can be limited to the operators that are not a pass
    applyMsprobeResults(npu, bench, result, true, options.msprobeResults == CompareOptions::MsprobeResults::NotPassOps);
    if (recompared)
        *recompared = std::move(todo);
    return result;
}

MatchResult match(const DumpIndex &npu, const DumpIndex &bench, const CompareOptions &options)
{
    MatchOptions mo;
    mo.fuzzy = options.fuzzy;
    mo.align = options.align;
    mo.mapping = options.mapping.isEmpty() ? nullptr : &options.mapping;
    mo.crossFramework = isCrossFramework(npu, bench);
    return matchIndexes(npu, bench, mo);
}

} // namespace

void recycleRows(std::vector<CompareRow> &&rows)
{
    rows.clear();
    if (rows.capacity() > t_rowStorage.capacity())
        t_rowStorage = std::move(rows);
}

void releaseRowStorage() { t_rowStorage = {}; }

CompareMode msprobeTaskMode(const DumpIndex &npu, const DumpIndex &bench)
{
    if (npu.producerTasks.size() != 1 || npu.producerTasks != bench.producerTasks || npu.ops.empty() || bench.ops.empty())
        return CompareMode::None;
    auto msprobeOnly = [](const DumpIndex &d) { return std::all_of(d.ops.begin(), d.ops.end(), isMsprobeOp); };
    if (!msprobeOnly(npu) || !msprobeOnly(bench))
        return CompareMode::None;
    const QString &task = npu.producerTasks.front();
    if (task == QLatin1String("tensor"))
        return CompareMode::Tensor;
    if (task != QLatin1String("statistics"))
        return CompareMode::None;
    // md5_find: some leaf records an md5 (summary_mode md5)
    auto md5 = [](const DumpIndex &d) {
        return std::any_of(d.ops.begin(), d.ops.end(), [](const OpRecord &op) {
            return std::any_of(op.tensors.begin(), op.tensors.end(), [](const TensorRecord &t) { return !t.checksum().isEmpty(); });
        });
    };
    return md5(npu) && md5(bench) ? CompareMode::Md5 : CompareMode::Summary;
}

CompareResult compareIndexes(const DumpIndex &npu, const DumpIndex &bench, const CompareOptions &options, const JobControl *job)
{
    return compareMatched(npu, bench, match(npu, bench, options), options, job, nullptr, nullptr);
}

CompareResult recompareIndexes(const DumpIndex &npu, const DumpIndex &bench, const CompareResult &previous,
                               const CompareOptions &options, const JobControl *job, std::vector<size_t> *recompared)
{
    return compareMatched(npu, bench, match(npu, bench, options), options, job, &previous, recompared);
}

} // namespace ds
