#pragma once

// Trend data: one value per operator (or module), step and rank, for the Trends view's step x
// operator heatmap and its line chart of one operator over steps and ranks. From a comparison
// (how far NPU and bench are apart) or, for one run alone, from the statistics the producer
// recorded (msprobe's own trend view: norm, max, NaN/Inf per step).

#include "compare/compare.h"

#include <optional>

namespace ds {

enum class TrendMetric : std::uint8_t {
    // from a comparison
    Verdict,           ///< worst verdict of the operator's rows: 0 pass, 1 warning, 2 error
    Result,            ///< worst msprobe Result of the operator's rows: 0 pass, 1 warning, 2 error
    NormRelativeError, ///< max over the output rows of |NPU norm - bench norm| / |bench norm|
    MaxAbsError,       ///< max over the output rows of MaxAbsErr (tensor) or |Max diff| (statistics)
    CosineDistance,    ///< max over the output rows of 1 - cosine (tensor rows only)
    // from one run's recorded statistics
    Norm,              ///< max Norm of the operator's outputs (a NaN statistic counts as +Inf)
    Max,               ///< max Max of the operator's outputs (a NaN statistic counts as +Inf)
    NonFinite,         ///< outputs whose recorded statistics hold NaN or Inf
};
inline constexpr TrendMetric kCompareMetrics[] = {TrendMetric::Verdict, TrendMetric::Result, TrendMetric::NormRelativeError,
                                                  TrendMetric::MaxAbsError, TrendMetric::CosineDistance};
inline constexpr TrendMetric kStatisticsMetrics[] = {TrendMetric::Norm, TrendMetric::Max, TrendMetric::NonFinite};
QString trendMetricName(TrendMetric m); ///< for people ("Norm relative error")
bool isCompareMetric(TrendMetric m);

/// Rows of the heatmap: operators, or the modules they run in (msprobe construct.json parents;
/// a module's own entries count for it).
enum class TrendGroup : std::uint8_t { Operator, Module };

struct TrendTable
{
    TrendMetric metric = TrendMetric::Verdict;
    TrendGroup group = TrendGroup::Operator;
    std::vector<qint64> steps;  ///< columns, ascending (-1: no step level)
    QStringList stepLabels;
    std::vector<qint64> ranks;  ///< ascending (-1: no rank level)
    QStringList rankLabels;
    QStringList rows;           ///< operator or module names, in execution order of first appearance
    std::vector<double> values; ///< rows x steps x ranks; NaN where there is no value
    std::optional<qint64> agreeUpTo; ///< marked in the views ("agrees until step N")

    bool empty() const { return rows.isEmpty() || steps.empty(); }
    double value(int row, int step, int rank) const;
    /// The largest value over the ranks (NaN when no rank has one).
    double maxOverRanks(int row, int step) const;
    int stepIndex(qint64 step) const;
};

/// Trend of a comparison. `agreeUpTo` is copied into the table.
TrendTable compareTrend(const DumpIndex &npu, const CompareResult &result, TrendMetric metric, TrendGroup group,
                        std::optional<qint64> agreeUpTo = {});
/// Trend of one run's recorded statistics (rows without recorded statistics have no value).
TrendTable statisticsTrend(const DumpIndex &index, TrendMetric metric, TrendGroup group);

} // namespace ds
