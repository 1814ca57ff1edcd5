#include "trend.h"

#include "dump/levels.h"
#include "index/tensorloader.h"
#include "tensor/stats.h"
#include "runtree.h"

#include <QCoreApplication>
#include <QHash>

#include <cmath>
#include <limits>
#include <map>

namespace ds {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Collects (row, step, rank, value) and lays them out as a table (max per cell).
class Builder
{
public:
    Builder(TrendMetric m, TrendGroup g)
    {
        m_table.metric = m;
        m_table.group = g;
    }

    void add(const QString &row, const DumpLevels &levels, double v)
    {
        auto it = m_rows.find(row);
        if (it == m_rows.end()) {
            it = m_rows.insert(row, int(m_table.rows.size()));
            m_table.rows << row;
        }
        const QString step = scopeStepLabel(levels), rank = scopeRankLabel(levels);
        m_steps.try_emplace({levelNumber(step), step}, 0);
        m_ranks.try_emplace({levelNumber(rank, true), rank}, 0);
        m_entries.push_back({*it, {levelNumber(step), step}, {levelNumber(rank, true), rank}, v});
    }

    TrendTable take()
    {
        int i = 0;
        for (auto &[key, index] : m_steps) {
            index = i++;
            m_table.steps.push_back(key.first);
            m_table.stepLabels << key.second;
        }
        i = 0;
        for (auto &[key, index] : m_ranks) {
            index = i++;
            m_table.ranks.push_back(key.first);
            m_table.rankLabels << key.second;
        }
        const size_t nSteps = m_table.steps.size(), nRanks = m_table.ranks.size();
        m_table.values.assign(size_t(m_table.rows.size()) * nSteps * nRanks, kNaN);
        for (const Entry &e : m_entries) {
            if (std::isnan(e.value))
                continue;
            double &cell = m_table.values[(size_t(e.row) * nSteps + size_t(m_steps[e.step])) * nRanks + size_t(m_ranks[e.rank])];
            cell = std::isnan(cell) ? e.value : std::max(cell, e.value);
        }
        m_table.cacheRankMax();
        return std::move(m_table);
    }

private:
    using Key = std::pair<qint64, QString>;
    struct Entry
    {
        int row;
        Key step, rank;
        double value;
    };
    TrendTable m_table;
    QHash<QString, int> m_rows;
    std::map<Key, int> m_steps, m_ranks;
    std::vector<Entry> m_entries;
};

/// `name`: opMatchKey(op).
QString rowOf(const OpRecord &op, const QString &name, TrendGroup g)
{
    if (g == TrendGroup::Operator || name.startsWith(QLatin1String("Module.")) || name.startsWith(QLatin1String("Cell.")))
        return name;
    return op.parent.isEmpty() ? name : op.parent.toString();
}

/// The rows of the parameters of a parameters_grad entry: "<entry without its counter>.<name>".
/// msprobe names these entries "Module.fc1.Linear.parameters_grad" or, since 2025-12,
/// "….parameters_grad.<k>" with k the trigger count, which is not the same in every step (it
/// counts micro-steps, and restarts only where the dumper resets it): a row per counter split
/// one parameter over as many rows.
QString gradientRow(const QString &base, const OpRecord &op, const TensorRecord &t)
{
    return base + QLatin1Char('.') + (t.name().isEmpty() ? tensorMatchKey(op, t) : t.name());
}

/// Is a tensor one the trend of an operator looks at: its outputs, and for a parameters_grad
/// entry (which has no outputs) its gradients.
bool trendTensor(const TensorRecord &t, bool gradients)
{
    return t.isTensor() && (t.io() == IoKind::Output || (gradients && t.io() == IoKind::Parameter));
}

double num(const MetricValue &v) { return v.isNumber() ? v.value : kNaN; }

double maxOf(double a, double b) { return std::isnan(a) ? b : std::isnan(b) ? a : std::max(a, b); }

/// One compare row's value of a metric (NaN: the row says nothing about it). `gradients`: the
/// row is of a parameters_grad entry, whose gradients count as outputs.
double rowValue(const CompareRow &row, TrendMetric m, bool gradients)
{
    if (!row.compared())
        return kNaN;
    if (m == TrendMetric::Verdict)
        return row.verdict == Verdict::Error ? 2 : row.verdict == Verdict::Warning ? 1 : 0;
    if (m == TrendMetric::Result) // msprobe's Result column ("pass", "warning", "error"; empty: not judged)
        return row.result == QLatin1String("error") ? 2 : row.result == QLatin1String("warning") ? 1
             : row.result == QLatin1String("pass")  ? 0 : kNaN;
    if (row.io != IoKind::Output && !(gradients && row.io == IoKind::Parameter))
        return kNaN;
    switch (m) {
    case TrendMetric::NormRelativeError: {
        const double n = num(row.npuStats[3]), b = num(row.benchStats[3]);
        if (std::isnan(n) || std::isnan(b))
            return kNaN;
        if (n == b)
            return 0;
        return std::fabs(n - b) / std::max(std::fabs(b), 1e-30);
    }
    case TrendMetric::MaxAbsError:
        if (row.mode == CompareMode::Tensor)
            return num(row.metrics[size_t(Metric::MaxAbsErr)]);
        return row.mode == CompareMode::Summary ? std::fabs(num(row.statDiff[0])) : kNaN;
    case TrendMetric::CosineDistance:
        return row.mode == CompareMode::Tensor ? 1.0 - num(row.metrics[size_t(Metric::Cosine)]) : kNaN;
    default: return kNaN;
    }
}

} // namespace

QString trendMetricName(TrendMetric m)
{
    switch (m) {
    case TrendMetric::Verdict: return QCoreApplication::translate("Trend", "Verdict (0 pass, 1 warning, 2 error)");
    case TrendMetric::Result: return QCoreApplication::translate("Trend", "msprobe Result (0 pass, 1 warning, 2 error)");
    case TrendMetric::NormRelativeError: return QCoreApplication::translate("Trend", "Norm relative error");
    case TrendMetric::MaxAbsError: return QCoreApplication::translate("Trend", "Max absolute error");
    case TrendMetric::CosineDistance: return QCoreApplication::translate("Trend", "1 \u2212 cosine");
    case TrendMetric::Norm: return QCoreApplication::translate("Trend", "Norm (recorded)");
    case TrendMetric::Max: return QCoreApplication::translate("Trend", "Max (recorded)");
    case TrendMetric::NonFinite: return QCoreApplication::translate("Trend", "Outputs with NaN/Inf (recorded)");
    case TrendMetric::UnderflowFloat16:
    case TrendMetric::UnderflowBFloat16:
    case TrendMetric::UnderflowFloat8E4M3FN:
    case TrendMetric::UnderflowFloat8E5M2:
    case TrendMetric::UnderflowHiFloat8:
        return QCoreApplication::translate("Trend", "Fraction that underflows in %1 (values read)")
            .arg(QString::fromLatin1(headroomLimits(*underflowTarget(m)).name));
    }
    return {};
}

bool isCompareMetric(TrendMetric m) { return m <= TrendMetric::CosineDistance; }

TrendMetric underflowMetric(HeadroomTarget t) { return TrendMetric(int(TrendMetric::UnderflowFloat16) + int(t)); }

std::optional<HeadroomTarget> underflowTarget(TrendMetric m)
{
    if (m < TrendMetric::UnderflowFloat16 || m > TrendMetric::UnderflowHiFloat8)
        return std::nullopt;
    return HeadroomTarget(int(m) - int(TrendMetric::UnderflowFloat16));
}

QString parametersGradBase(const QString &entry)
{
    static const QLatin1String kGrad(".parameters_grad");
    const qsizetype at = entry.lastIndexOf(kGrad);
    if (at <= 0)
        return {};
    const qsizetype end = at + kGrad.size();
    if (end == entry.size())
        return entry;
    if (entry[end] != QLatin1Char('.') || end + 1 == entry.size())
        return {};
    for (qsizetype i = end + 1; i < entry.size(); ++i)
        if (!entry[i].isDigit())
            return {};
    return entry.left(end);
}

double TrendTable::value(int row, int step, int rank) const
{
    const size_t i = (size_t(row) * steps.size() + size_t(step)) * ranks.size() + size_t(rank);
    return i < values.size() ? values[i] : kNaN;
}

double TrendTable::maxOverRanks(int row, int step) const
{
    const size_t cell = size_t(row) * steps.size() + size_t(step);
    if (rankMax.size() == size_t(rows.size()) * steps.size())
        return cell < rankMax.size() ? rankMax[cell] : kNaN;
    double v = kNaN;
    for (size_t r = 0; r < ranks.size(); ++r)
        v = maxOf(v, value(row, step, int(r)));
    return v;
}

void TrendTable::cacheRankMax()
{
    rankMax.clear(); // maxOverRanks reads the values
    std::vector<double> cache(size_t(rows.size()) * steps.size());
    for (int row = 0; row < rows.size(); ++row)
        for (size_t s = 0; s < steps.size(); ++s)
            cache[size_t(row) * steps.size() + s] = maxOverRanks(row, int(s));
    rankMax = std::move(cache);
}

TrendBands trendBands(const TrendTable &t, int maxBands)
{
    TrendBands b;
    b.rows = int(t.rows.size());
    b.rowsPerBand = std::max(1, (b.rows + std::max(1, maxBands) - 1) / std::max(1, maxBands));
    b.count = (b.rows + b.rowsPerBand - 1) / b.rowsPerBand;
    return b;
}

double bandValue(const TrendTable &t, const TrendBands &b, int band, int step, int rank)
{
    double v = kNaN;
    for (int row = b.firstRow(band); row < b.endRow(band); ++row)
        v = maxOf(v, rank < 0 ? t.maxOverRanks(row, step) : t.value(row, step, rank));
    return v;
}

int worstRowOfBand(const TrendTable &t, const TrendBands &b, int band, int rank)
{
    int worst = b.firstRow(band);
    double worstValue = kNaN;
    for (int row = b.firstRow(band); row < b.endRow(band); ++row)
        for (size_t s = 0; s < t.steps.size(); ++s) {
            const double v = rank < 0 ? t.maxOverRanks(row, int(s)) : t.value(row, int(s), rank);
            if (!std::isnan(v) && (std::isnan(worstValue) || v > worstValue)) {
                worstValue = v;
                worst = row;
            }
        }
    return worst;
}

int TrendTable::stepIndex(qint64 step) const
{
    for (size_t i = 0; i < steps.size(); ++i)
        if (steps[i] == step)
            return int(i);
    return -1;
}

TrendTable compareTrend(const DumpIndex &npu, const CompareResult &result, TrendMetric metric, TrendGroup group,
                        std::optional<qint64> agreeUpTo)
{
    Builder b(metric, group);
    for (size_t i = 0; i < result.rows.size();) {
        const int op = result.rows[i].npu.op;
        const size_t first = i;
        while (i < result.rows.size() && result.rows[i].npu.op == op)
            ++i;
        if (op < 0 || size_t(op) >= npu.ops.size())
            continue;
        const OpRecord &record = npu.ops[size_t(op)];
        const QString name = opMatchKey(record);
        if (const QString grad = parametersGradBase(name); !grad.isEmpty()) {
            // one row per parameter (the order of first appearance is the entry's)
            for (size_t k = first; k < i; ++k) {
                const int t = result.rows[k].npu.tensor;
                if (t >= 0 && size_t(t) < record.tensors.size() && trendTensor(record.tensors[size_t(t)], true))
                    b.add(gradientRow(grad, record, record.tensors[size_t(t)]), *record.levels, rowValue(result.rows[k], metric, true));
            }
            continue;
        }
        double v = kNaN;
        for (size_t k = first; k < i; ++k)
            v = maxOf(v, rowValue(result.rows[k], metric, false));
        b.add(rowOf(record, name, group), *record.levels, v);
    }
    TrendTable t = b.take();
    t.agreeUpTo = agreeUpTo;
    return t;
}

TrendTable statisticsTrend(const DumpIndex &index, TrendMetric metric, TrendGroup group)
{
    Builder b(metric, group);
    /// The value of the recorded statistics of some tensors (NaN: none recorded).
    struct Value
    {
        TrendMetric metric;
        double v = kNaN;
        bool any = false;
        int nonFinite = 0;
        void add(const RecordedStats &r)
        {
            any = true;
            auto take = [&](double x) { v = maxOf(v, std::isnan(x) ? INFINITY : x); }; // a NaN statistic is not "no value"
            if (metric == TrendMetric::Norm && r.has(RecordedStats::Norm))
                take(r.norm);
            if (metric == TrendMetric::Max && r.has(RecordedStats::Max))
                take(r.max);
            const bool bad = (r.has(RecordedStats::Max) && !std::isfinite(r.max)) || (r.has(RecordedStats::Min) && !std::isfinite(r.min))
                             || (r.has(RecordedStats::Mean) && !std::isfinite(r.mean)) || (r.has(RecordedStats::Norm) && !std::isfinite(r.norm));
            nonFinite += bad;
        }
        double value() const { return metric == TrendMetric::NonFinite && any ? double(nonFinite) : v; }
    };
    for (const OpRecord &op : index.ops) {
        const QString name = opMatchKey(op);
        if (const QString grad = parametersGradBase(name); !grad.isEmpty()) {
            for (const TensorRecord &t : op.tensors) // one row per parameter
                if (trendTensor(t, true)) {
                    Value v{metric};
                    if (t.recorded().present)
                        v.add(t.recorded());
                    b.add(gradientRow(grad, op, t), *op.levels, v.value());
                }
            continue;
        }
        Value v{metric};
        for (const TensorRecord &t : op.tensors)
            if (trendTensor(t, false) && t.recorded().present)
                v.add(t.recorded());
        b.add(rowOf(op, name, group), *op.levels, v.value());
    }
    return b.take();
}

std::optional<std::array<TrendTable, kHeadroomTargets>> underflowTrends(const DumpIndex &index, TrendGroup group, const JobControl *job)
{
    /// The read tensors' finite values and, per target, how many of them underflow.
    struct Counts
    {
        std::uint64_t finite = 0;
        std::array<std::uint64_t, kHeadroomTargets> underflow{};
        bool read = false;
        void add(const TensorStats &s)
        {
            read = true;
            finite += s.finite;
            for (size_t k = 0; k < size_t(kHeadroomTargets); ++k)
                underflow[k] += s.headroom.targets[k].underflow;
        }
        double fraction(size_t k) const { return read && finite ? double(underflow[k]) / double(finite) : kNaN; }
    };
    std::array<Builder, kHeadroomTargets> builders{
        Builder(TrendMetric::UnderflowFloat16, group), Builder(TrendMetric::UnderflowBFloat16, group),
        Builder(TrendMetric::UnderflowFloat8E4M3FN, group), Builder(TrendMetric::UnderflowFloat8E5M2, group),
        Builder(TrendMetric::UnderflowHiFloat8, group)};
    // Adds a tensor's values when they were saved and are of a real floating type.
    auto count = [&](int op, int t, Counts &c) {
        const TensorRecord &record = index.ops[size_t(op)].tensors[size_t(t)];
        if (record.storage() == TensorStorage::Absent)
            return true;
        auto loaded = loadTensor(index, {op, t}, LayoutChoice::Logical, job);
        if (!loaded)
            return !(job && job->cancelled()); // unreadable: no value, as without data
        TensorStats s;
        if (!computeStats((*loaded)->view, s, job))
            return false;
        if (s.headroom.valid)
            c.add(s);
        return true;
    };
    auto add = [&](const QString &row, const OpRecord &op, const Counts &c) {
        for (size_t k = 0; k < size_t(kHeadroomTargets); ++k)
            builders[k].add(row, *op.levels, c.fraction(k));
    };
    const size_t n = index.ops.size();
    for (size_t i = 0; i < n; ++i) {
        if (job && job->cancelled())
            return std::nullopt;
        if (job && i % 16 == 0)
            job->report(int(i * 1000 / std::max<size_t>(n, 1)));
        const OpRecord &op = index.ops[i];
        const QString name = opMatchKey(op);
        if (const QString grad = parametersGradBase(name); !grad.isEmpty()) {
            for (size_t t = 0; t < op.tensors.size(); ++t) // one row per parameter
                if (trendTensor(op.tensors[t], true)) {
                    Counts c;
                    if (!count(int(i), int(t), c))
                        return std::nullopt;
                    add(gradientRow(grad, op, op.tensors[t]), op, c);
                }
            continue;
        }
        Counts c;
        for (size_t t = 0; t < op.tensors.size(); ++t)
            if (trendTensor(op.tensors[t], false) && !count(int(i), int(t), c))
                return std::nullopt;
        add(rowOf(op, name, group), op, c);
    }
    std::array<TrendTable, kHeadroomTargets> out;
    for (size_t k = 0; k < size_t(kHeadroomTargets); ++k)
        out[k] = builders[k].take();
    return out;
}

} // namespace ds
