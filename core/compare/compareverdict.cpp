// Verdicts (DumpScope's pass/warning/error), msprobe's "Accuracy Reached or Not" and the
// highlight rules between an operator's inputs and outputs. The first divergence is in
// comparediverge.cpp.
#include "compare.h"

#include <QHash>
#include <cmath>

namespace ds {

namespace {

using State = MetricValue::State;

double num(const MetricValue &v) { return v.isNumber() ? v.value : std::numeric_limits<double>::quiet_NaN(); }
double metric(const CompareRow &r, Metric m) { return num(r.metrics[size_t(m)]); }

void raise(CompareRow &row, Verdict v, const QString &why)
{
    row.verdict = std::max(row.verdict, v);
    row.highlights << why;
}

QString fmt(double v) { return QString::number(v, 'g', 6); }

void tensorVerdict(CompareRow &row, const CompareThresholds &t)
{
    const MetricValue &cos = row.metrics[size_t(Metric::Cosine)], &maxAbs = row.metrics[size_t(Metric::MaxAbsErr)];
    row.accuracyReached = accuracyReached(cos, maxAbs, t);
    row.verdict = Verdict::Pass;
    if (row.hasReason(ReasonCode::ShapeMismatch))
        return raise(row, Verdict::Error, QStringLiteral("shape mismatch"));
    if (row.hasReason(ReasonCode::InfNanPos))
        return raise(row, Verdict::Error, QStringLiteral("Inf/NaN positions differ"));
    const double a = num(maxAbs);
    const QString own = accuracyReached(cos, maxAbs, t, true);
    if (own == QLatin1String("No"))
        raise(row, Verdict::Error, cos.state == State::Nan ? QStringLiteral("accuracy not reached (cosine NaN: all-zero side)")
                                                           : QStringLiteral("accuracy not reached (cosine %1, MaxAbsErr %2)")
                                                                 .arg(fmt(num(cos)), fmt(a)));
    if (own == QLatin1String("None")) { // 0-d and length-1 tensors: the absolute and relative error decide
        if (a > t.accMaxAbsHard)
            raise(row, Verdict::Error, QStringLiteral("MaxAbsErr %1 > %2").arg(fmt(a), fmt(t.accMaxAbsHard)));
        else if (a > t.accMaxAbs && metric(row, Metric::MaxRelativeErr) > t.accMaxAbs)
            raise(row, Verdict::Warning, QStringLiteral("MaxAbsErr %1 > %2").arg(fmt(a), fmt(t.accMaxAbs)));
    }
    if (a > t.redMaxAbs)
        raise(row, Verdict::Error, QStringLiteral("MaxAbsErr %1 > %2").arg(fmt(a), fmt(t.redMaxAbs)));
    QStringList crossed; // msaccucmp "normal"
    auto check = [&](Metric m, bool above, double limit) {
        const double v = metric(row, m);
        if (above ? v > limit : v < limit)
            crossed << QStringLiteral("%1 %2 %3 %4").arg(metricColumn(m), fmt(v), above ? QStringLiteral(">") : QStringLiteral("<"), fmt(limit));
    };
    check(Metric::Cosine, false, t.cosineMin);
    check(Metric::RelativeEuclideanDistance, true, t.relEuclidMax);
    check(Metric::KullbackLeiblerDivergence, true, t.klMax);
    check(Metric::RootMeanSquareError, true, t.rmseMax);
    check(Metric::MeanRelativeError, true, t.meanRelErrMax);
    if (!crossed.isEmpty())
        raise(row, Verdict::Warning, crossed.join(QStringLiteral(", ")));
    if (row.hasReason(ReasonCode::DtypeMismatch))
        raise(row, Verdict::Warning, QStringLiteral("dtypes are not comparable"));
}

void summaryVerdict(CompareRow &row, const CompareThresholds &t)
{
    row.verdict = Verdict::Pass;
    bool warn = false;
    for (size_t i = 0; i < kStatCount; ++i) {
        const double n = num(row.npuStats[i]), b = num(row.benchStats[i]), d = num(row.statDiff[i]);
        if (std::fabs(d) / (std::fabs(std::max(n, b)) + 1e-10) > t.summaryWarning)
            warn = true;
    }
    if (warn)
        raise(row, Verdict::Warning, QStringLiteral("Need double check api accuracy."));
    const double nmax = row.npuStats[0].value, nmin = row.npuStats[1].value;
    if (row.npuStats[0].state != State::NotAvailable && (!std::isfinite(nmax) || !std::isfinite(nmin)))
        raise(row, Verdict::Error, QStringLiteral("NPU max/min is NaN or Inf"));
    if (std::fabs(num(row.statDiff[0])) > t.redMaxAbs)
        raise(row, Verdict::Error, QStringLiteral("|Max diff| > %1").arg(fmt(t.redMaxAbs)));
    if (row.io == IoKind::Output && num(row.statRelErr[0]) / 100.0 > t.summaryRedRelErr)
        raise(row, Verdict::Error, QStringLiteral("MaxRelativeErr %1% > %2%").arg(fmt(num(row.statRelErr[0])), fmt(t.summaryRedRelErr * 100)));
}

/// Summary rows: an operator whose compared inputs (and parameters) are all identical while an
/// output's statistics differ by more than summaryNewDiff makes the difference itself.
void summaryNewDifference(std::vector<CompareRow> &rows, const std::vector<size_t> &opRows, const CompareThresholds &t)
{
    bool inputs = false;
    for (size_t r : opRows) {
        const CompareRow &row = rows[r];
        if (row.io == IoKind::Output || !row.compared())
            continue;
        if (!row.identical)
            return;
        inputs = true;
    }
    if (!inputs)
        return;
    for (size_t r : opRows) {
        CompareRow &row = rows[r];
        if (row.io != IoKind::Output || row.mode != CompareMode::Summary || row.identical || row.verdict != Verdict::Pass)
            continue;
        double worst = 0;
        for (size_t i = 0; i < kStatCount; ++i) {
            const double n = num(row.npuStats[i]), b = num(row.benchStats[i]);
            const double scale = std::max(std::fabs(n), std::fabs(b));
            if (scale > 0)
                worst = std::max(worst, std::fabs(n - b) / scale);
        }
        if (worst > t.summaryNewDiff)
            raise(row, Verdict::Warning, QStringLiteral("inputs identical, output statistics differ by %1% (> %2%)")
                                             .arg(fmt(worst * 100), fmt(t.summaryNewDiff * 100)));
    }
}

/// §7 rules between the inputs (inputs and parameters) and the outputs of one operator.
void pairwiseRules(std::vector<CompareRow> &rows, const std::vector<size_t> &opRows, const CompareThresholds &t)
{
    summaryNewDifference(rows, opRows, t);
    double inRatio = -1, inCos = -2, inMaxAbs = -1;
    for (size_t r : opRows) {
        const CompareRow &row = rows[r];
        if (row.io == IoKind::Output || row.mode != CompareMode::Tensor || !row.compared())
            continue;
        inRatio = std::max(inRatio, metric(row, Metric::OneThousandthErrRatio));
        inCos = std::max(inCos, metric(row, Metric::Cosine));
        inMaxAbs = std::max(inMaxAbs, metric(row, Metric::MaxAbsErr));
    }
    for (size_t r : opRows) {
        CompareRow &row = rows[r];
        if (row.io != IoKind::Output || row.mode != CompareMode::Tensor || row.verdict != Verdict::Pass)
            continue;
        const double ratio = metric(row, Metric::OneThousandthErrRatio), cos = metric(row, Metric::Cosine),
                     maxAbs = metric(row, Metric::MaxAbsErr);
        if (inRatio > t.redInputRatio && ratio < t.redOutputRatio)
            raise(row, Verdict::Error, QStringLiteral("input One Thousandth Err Ratio %1 > %2 but output %3 < %4")
                                           .arg(fmt(inRatio), fmt(t.redInputRatio), fmt(ratio), fmt(t.redOutputRatio)));
        else if (inMaxAbs > 1 && maxAbs > 1 && inMaxAbs <= maxAbs && std::log10(maxAbs) - std::log10(inMaxAbs) >= std::log10(t.yellowGrowth))
            raise(row, Verdict::Warning, QStringLiteral("MaxAbsErr grows from %1 (input) to %2").arg(fmt(inMaxAbs), fmt(maxAbs)));
        else if (inRatio - ratio > t.yellowRatioDrop)
            raise(row, Verdict::Warning, QStringLiteral("One Thousandth Err Ratio drops from %1 (input) to %2").arg(fmt(inRatio), fmt(ratio)));
        else if (inCos - cos > t.yellowCosineDrop)
            raise(row, Verdict::Warning, QStringLiteral("Cosine drops from %1 (input) to %2").arg(fmt(inCos), fmt(cos)));
    }
}

} // namespace

QString accuracyReached(const MetricValue &cosine, const MetricValue &maxAbs, const CompareThresholds &t, bool strictNan)
{
    if (cosine.state == State::ShapeUnmatched)
        return QStringLiteral("Unmatched");
    if (cosine.state == State::NotAvailable || maxAbs.state == State::NotAvailable)
        return QStringLiteral("No");
    if (cosine.state == State::Unsupported || maxAbs.state == State::Unsupported)
        return QStringLiteral("None");
    if (strictNan && cosine.state == State::Nan)
        return QStringLiteral("No");
    const double c = cosine.value, a = maxAbs.value; // NaN compares false, as in msprobe
    if (c < t.accCosine && a > t.accMaxAbs)
        return QStringLiteral("No");
    if (c < t.accCosineHard || a > t.accMaxAbsHard)
        return QStringLiteral("No");
    return QStringLiteral("Yes");
}

void applyVerdicts(const DumpIndex &npu, CompareResult &result, const CompareThresholds &t, Verdict divergenceLevel)
{
    result.thresholds = t;
    std::vector<size_t> opRows;
    for (size_t i = 0; i < result.rows.size(); ++i) {
        CompareRow &row = result.rows[i];
        row.highlights.clear();
        row.verdict = Verdict::None;
        row.accuracyReached = row.bench.op < 0 ? QStringLiteral("None") : QString();
        switch (row.mode) {
        case CompareMode::Tensor: tensorVerdict(row, t); break;
        case CompareMode::Summary: summaryVerdict(row, t); break;
        case CompareMode::Md5: {
            if (row.checksumsIncomparable) // hashed over different bytes (crossframework.h)
                break;
            const bool same = row.npuChecksum.compare(row.benchChecksum, Qt::CaseInsensitive) == 0;
            row.verdict = same ? Verdict::Pass : Verdict::Error;
            if (!same)
                row.highlights << QStringLiteral("checksums differ");
            break;
        }
        case CompareMode::Value:
            row.verdict = row.identical ? Verdict::Pass : Verdict::Error;
            if (row.verdict == Verdict::Error)
                row.highlights << QStringLiteral("values differ");
            break;
        case CompareMode::None:
            if (row.accuracyReached.isEmpty())
                row.accuracyReached = QStringLiteral("None");
            break;
        }
    }
    for (size_t i = 0; i < result.rows.size();) {
        opRows.clear();
        const int op = result.rows[i].npu.op;
        for (; i < result.rows.size() && result.rows[i].npu.op == op; ++i)
            opRows.push_back(i);
        pairwiseRules(result.rows, opRows, t);
    }
    findDivergences(npu, result, divergenceLevel);
}

} // namespace ds
