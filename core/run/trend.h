#pragma once

// Trend data: one value per operator (or module), step and rank, for the Trends view's step x
// operator heatmap and its line chart of one operator over steps and ranks. From a comparison
// (how far NPU and bench are apart) or, for one run alone, from the statistics the producer
// recorded (msprobe's own trend view: norm, max, NaN/Inf per step).

#include "compare/compare.h"
#include "tensor/headroom.h"

#include <algorithm>
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
    // from one run's tensors, read (issue 34): the fraction of the outputs' finite values that
    // underflows (becomes zero) in the target, as the graph's "Underflows in <dtype>" colour;
    // no value where no output's values were saved (statistics cannot tell underflow)
    UnderflowFloat16,
    UnderflowBFloat16,
    UnderflowFloat8E4M3FN,
    UnderflowFloat8E5M2,
    UnderflowHiFloat8,
};
inline constexpr TrendMetric kCompareMetrics[] = {TrendMetric::Verdict, TrendMetric::Result, TrendMetric::NormRelativeError,
                                                  TrendMetric::MaxAbsError, TrendMetric::CosineDistance};
inline constexpr TrendMetric kStatisticsMetrics[] = {TrendMetric::Norm, TrendMetric::Max, TrendMetric::NonFinite};
QString trendMetricName(TrendMetric m); ///< for people ("Norm relative error")
bool isCompareMetric(TrendMetric m);
/// The "fraction that underflows in <target>" metric, and back (empty for other metrics).
TrendMetric underflowMetric(HeadroomTarget t);
std::optional<HeadroomTarget> underflowTarget(TrendMetric m);
/// "Module.fc1.Linear.parameters_grad" for the msprobe entries "Module.fc1.Linear.parameters_grad"
/// and "Module.fc1.Linear.parameters_grad.<k>" (k: the trigger count); empty for other names.
QString parametersGradBase(const QString &entry);

/// Rows of the heatmap: operators, or the modules they run in (msprobe construct.json parents;
/// a module's own entries count for it). Either way a parameters_grad entry gives one row per
/// parameter, "Module.fc1.Linear.parameters_grad.weight", the same in every step whatever the
/// entry's trigger counter, valued by the gradient's statistics (it has no outputs).
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
    std::vector<double> rankMax; ///< rows x steps: maxOverRanks, when cacheRankMax filled it

    bool empty() const { return rows.isEmpty() || steps.empty(); }
    double value(int row, int step, int rank) const;
    /// The largest value over the ranks (NaN when no rank has one).
    double maxOverRanks(int row, int step) const;
    /// Fills rankMax, from which maxOverRanks then reads one value instead of every rank's:
    /// the views ask for it per cell on the GUI thread, and a run has up to 1,024 ranks. The
    /// builders below call it; call it again after changing `values`.
    void cacheRankMax();
    int stepIndex(qint64 step) const;
};

/// The rows of a table as bands of consecutive rows, for drawing: a rank of 175,000
/// operators has more rows than a heatmap has pixels, and drawing every one stalled the GUI
/// for seconds. Band b holds rows [firstRow(b), firstRow(b + 1)); with `maxBands` or fewer
/// rows, every band is one row.
struct TrendBands
{
    int rowsPerBand = 1;
    int count = 0; ///< bands
    int rows = 0;  ///< rows of the table
    int firstRow(int band) const { return band * rowsPerBand; }
    int endRow(int band) const { return std::min(rows, (band + 1) * rowsPerBand); }
    int bandOf(int row) const { return row / rowsPerBand; }
};
TrendBands trendBands(const TrendTable &t, int maxBands);
/// A band's value at a step: the largest of its rows' (every metric grows with the problem),
/// each row's the largest over the ranks (`rank` < 0) or the value of rank index `rank`; NaN
/// when no row has one.
double bandValue(const TrendTable &t, const TrendBands &b, int band, int step, int rank);
/// The row of a band with the largest value at any step (the one a click on the band
/// charts): the band's first row when none has a value.
int worstRowOfBand(const TrendTable &t, const TrendBands &b, int band, int rank);

/// Trend of a comparison. `agreeUpTo` is copied into the table.
TrendTable compareTrend(const DumpIndex &npu, const CompareResult &result, TrendMetric metric, TrendGroup group,
                        std::optional<qint64> agreeUpTo = {});
/// Trend of one run's recorded statistics (rows without recorded statistics have no value).
TrendTable statisticsTrend(const DumpIndex &index, TrendMetric metric, TrendGroup group);
/// Trends of the fraction of the outputs' finite values that underflows in each target (table
/// k: HeadroomTarget k), from one pass over the run's output tensors (parameters_grad entries:
/// their gradients), read and counted as the graph's colour counts them (tensor/headroom.h).
/// A cell without a read output (statistics-only, md5, unreadable) has no value: cannot tell,
/// not zero. A module's cell is the largest fraction of its operators. Empty when cancelled.
std::optional<std::array<TrendTable, kHeadroomTargets>> underflowTrends(const DumpIndex &index, TrendGroup group,
                                                                        const JobControl *job = nullptr);

} // namespace ds
