#pragma once

#include "addederror.h"
#include "comparematch.h"
#include "comparethresholds.h"
#include "comparetypes.h"
#include "pairmetrics.h"

#include <array>
#include <memory>

namespace ds {

/// The metric cells of a tensor-mode row: msprobe's six (§3.3), then msaccucmp's (§9).
enum class Metric : std::uint8_t {
    Cosine, EucDist, MaxAbsErr, MaxRelativeErr, OneThousandthErrRatio, FiveThousandthsErrRatio,
    RelativeEuclideanDistance, KullbackLeiblerDivergence, MeanAbsoluteError, RootMeanSquareError,
    AccumulatedRelativeError, MsaccucmpMaxRelativeError, MeanRelativeError,
};
inline constexpr size_t kMetricCount = 13;
/// Report column: "Cosine", ..., "RelativeEuclideanDistance", ... (§10).
QString metricColumn(Metric m);
/// JSON key: "cosine", "euc_dist", ..., "kl_divergence", ...
QString metricKey(Metric m);

/// Max, Min, Mean, L2norm (msprobe statistics order).
inline constexpr size_t kStatCount = 4;

/// The metric cells of a tensor-mode row and the raw results of its pass, kept out of line:
/// only rows given a cell allocate them, so that statistics, md5 and value rows stay small.
/// Reads like a std::array of the cells; a row without them reads as default cells (N/A).
class TensorCells
{
public:
    struct Block
    {
        std::array<MetricValue, kMetricCount> cells{};
        PairMetrics raw; ///< the unformatted pass results
    };
    TensorCells() = default;
    TensorCells(const TensorCells &o) : m_d(o.m_d ? std::make_unique<Block>(*o.m_d) : nullptr) {}
    TensorCells(TensorCells &&) noexcept = default;
    TensorCells &operator=(const TensorCells &o)
    {
        if (this != &o)
            m_d = o.m_d ? std::make_unique<Block>(*o.m_d) : nullptr;
        return *this;
    }
    TensorCells &operator=(TensorCells &&) noexcept = default;
    const MetricValue &operator[](size_t m) const { return (m_d ? *m_d : empty()).cells[m]; }
    MetricValue &operator[](size_t m) { return block().cells[m]; }
    void fill(const MetricValue &v) { block().cells.fill(v); }
    static constexpr size_t size() { return kMetricCount; }
    const PairMetrics &raw() const { return (m_d ? *m_d : empty()).raw; }
    PairMetrics &raw() { return block().raw; }

private:
    static const Block &empty();
    Block &block()
    {
        if (!m_d)
            m_d = std::make_unique<Block>();
        return *m_d;
    }
    std::unique_ptr<Block> m_d;
};

struct CompareRow
{
    DumpIndex::TensorRef npu;
    DumpIndex::TensorRef bench; ///< op == -1: no bench row
    QString npuName, benchName;
    IoKind io = IoKind::Input;  ///< of the NPU tensor
    MatchSource source = MatchSource::None;
    CompareMode mode = CompareMode::None;
    /// Paired by an msprobe data_mapping entry (also one derived from a layer_mapping): msprobe's
    /// gen_dtype_condition checks no dtypes then, so --style msprobe keeps the bench side.
    bool dataMapped = false;

    TensorCells metrics; ///< tensor mode; metrics.raw(): the unformatted pass results
    /// NPU / bench max, min, mean, l2norm: computed from the data (finite values), else recorded.
    std::array<MetricValue, kStatCount> npuStats{}, benchStats{};
    /// Summary mode (§5): N − B and |diff / B| in percent per statistic.
    std::array<MetricValue, kStatCount> statDiff{}, statRelErr{};
    QString npuChecksum, benchChecksum;
    std::uint64_t npuSaturated = 0; ///< NPU elements at the dtype's finite ±max

    QString accuracyReached; ///< msprobe Gen B "Yes", "No", "None", "Unmatched" (tensor mode; JSON only)
    QString result;          ///< msprobe 26 (Gen C) Result: "pass", "warning", "error" (msprobecells.h)
    QStringList resultMessages; ///< msprobe 26 Err_message items ("error: The dtype of NPU and Bench are inconsistent.")
    bool identical = false;     ///< compared values exactly equal (data, statistics, checksum or value) with equal dtypes
    bool dtypeDiffers = false;  ///< NPU and bench dtypes differ (bench matched)
    /// md5 row whose two CRC-32s were computed over different bytes (a bfloat16/float8 tensor
    /// hashed by MindSpore after a float32 cast and by PyTorch as it is): not compared
    bool checksumsIncomparable = false;
    Verdict verdict = Verdict::None;
    std::vector<ReasonCode> reasons; ///< most important first
    QStringList messages;            ///< Err_message parts: the spec's texts and matching notes
    QStringList highlights;          ///< why the verdict is not pass (thresholds and §7 rules)

    bool compared() const { return verdict != Verdict::None; }
    bool hasReason(ReasonCode r) const { return std::find(reasons.begin(), reasons.end(), r) != reasons.end(); }
};

/// Why the origin of a divergence disagrees (docs/COMPARE.md "First divergence").
enum class DivergenceCause : std::uint8_t {
    Output,    ///< its inputs and parameters agree, an output does not: the operator itself
    Parameter, ///< a parameter (weight, bias, buffer) differs at its first use
    Input,     ///< a data input already differs (model input, or a producer that was not dumped)
};
QString divergenceCauseName(DivergenceCause c); ///< "output", "parameter", "input"

/// Where a scope (step/rank/device/iteration) first diverges: the first operator (innermost:
/// an API call before the module entry around it) with a disagreeing row, why, and the
/// operators after it that disagree too.
struct Divergence
{
    QString scope;          ///< scopeKey() of the NPU operators ("step/rank/device/data_index")
    DumpLevels levels;
    int originOp = -1;      ///< NPU operator index
    int originRow = -1;     ///< the row that starts the divergence (first disagreeing row of the origin)
    bool inputsAgree = true; ///< the origin's data inputs agree (cause Output or Parameter)
    DivergenceCause cause = DivergenceCause::Output;
    QString parameter;      ///< cause Parameter: "fc1.weight" (module path + parameter), or empty if unknown
    int parameterModule = -1; ///< the module entry (NPU op) holding the parameter, -1 when not dumped
    bool parameterFromStack = false; ///< the name was read from the call stack (no module entry in the dump)
    std::vector<int> modules; ///< module entries enclosing the origin, innermost first (construct.json)
    std::vector<int> chain; ///< NPU operators after the origin with a disagreeing row, in order (not its modules)
};

struct CompareOptions
{
    bool fuzzy = false;
    /// Rule 4 aligns op streams that do not line up by name (comparematch.h); false: exact names
    /// only, as msprobe pairs (--style msprobe).
    bool align = true;
    UserMapping mapping;
    /// None: per row (tensor, else summary, else md5), the report's columns from msprobe's task
    /// (msprobeTaskMode) or else the rows
    CompareMode mode = CompareMode::None;
    CompareThresholds thresholds;
    bool genBCompat = false;              ///< msprobe Gen B float16 relative-error quirk (§3.2)
    /// Tensor rows at or above this verdict "disagree"; statistics, md5 and value rows at
    /// min(this, Warning) (the levels those modes can give).
    Verdict divergenceLevel = Verdict::Error;
    /// The rows given msprobe's Result and Err_message (its checkers run per operator): all, or
    /// only those of operators holding a row that is not a pass, the rows the CLI's text report
    /// lists. The checkers cost about a tenth of a statistics compare of a large run.
    enum class MsprobeResults : std::uint8_t { All, NotPassOps };
    MsprobeResults msprobeResults = MsprobeResults::All;
};

/// A structure region of an aligned compare (comparematch.h rule 4) with what its result says.
struct StructureFinding
{
    QString scope;               ///< scopeKey() of the region's operators
    QString module;              ///< the enclosing module entry, empty: top level
    QStringList npuOps, benchOps; ///< entry names, in order
    /// Equal: the region's result rows (its last operators' outputs, else the enclosing module's
    /// outputs) were compared and none disagrees; Differs: one does; NotCompared: none compared.
    enum class Outcome : std::uint8_t { Equal, Differs, NotCompared };
    Outcome outcome = Outcome::NotCompared;
    /// "blocks.0.mlp.fc1: bench Functional.linear.1.forward vs NPU Tensor.t.0.forward + ..."
    QString text() const;
    /// The enclosing module's path ("blocks.0.mlp.fc1" of "Module.blocks.0.mlp.fc1.Linear.forward.0"),
    /// empty at the top level.
    QString where() const;
};
QString structureOutcomeName(StructureFinding::Outcome o); ///< "equal", "differs", "not_compared"

struct CompareResult
{
    std::vector<CompareRow> rows;        ///< NPU index (execution) order
    std::vector<BenchOnlyRow> benchOnly;
    std::vector<Divergence> divergences; ///< one per scope that holds a disagreeing row
    std::vector<AddedError> addedErrors; ///< per operator with output rows (addederror.h), set with the divergences
    CompareMode mode = CompareMode::Tensor; ///< the report's column set
    /// The table the producers' task asks for (msprobeTaskMode), None when the rows decided:
    /// a run's report keeps it even when no row of a scope was compared.
    CompareMode taskMode = CompareMode::None;
    CompareThresholds thresholds;
    QStringList warnings;
    /// MindSpore/MindTorch NPU against a PyTorch bench: names were paired through msprobe's
    /// built-in MindSpore -> PyTorch table (isCrossFramework, comparematch.h rule 3).
    bool crossFramework = false;
    /// The op streams did not line up by name and were aligned by structure (rule 4); the
    /// regions where they differ.
    bool aligned = false;
    std::vector<StructureFinding> structure;
    bool cancelled = false;
    /// The msprobe compare table (CSV or xlsx) the rows were read from (resulttable.h); empty
    /// when DumpScope compared the dumps. A table's row verdicts are its Result.
    QString tablePath;
    /// A table: the dumps its rows link to and how they were found (given, a compare JSON, beside
    /// the table), or that none was found and how to give them (tabledumps.h).
    QString tableDumps;

    size_t count(Verdict v) const;
    /// True when some row's verdict is v or worse (Warning includes Error).
    bool any(Verdict atLeast) const;
};

/// The table msprobe writes for two msprobe dumps (get_dump_mode, from dump.json's "task"):
/// tensor -> Tensor; statistics -> Md5 when both dumps record an md5, else Summary. None when
/// either index is not msprobe's or holds several tasks (then the rows decide). With a
/// statistics task the rows are compared by their statistics or CRCs, as msprobe does, even
/// where a leaf names a data file (which msprobe does not read in that mode).
CompareMode msprobeTaskMode(const DumpIndex &npu, const DumpIndex &bench);

/// Matches the bench index to the NPU index and compares every row: tensors through one
/// streaming pass per pair (rows in parallel, big tensors on all cores), statistics or
/// checksums where there is no data. Progress is reported as the share of bytes done.
CompareResult compareIndexes(const DumpIndex &npu, const DumpIndex &bench, const CompareOptions &options = {},
                             const JobControl *job = nullptr);

/// Takes the rows of a result that is no longer needed and keeps their storage (the rows
/// themselves are destroyed) for the next comparison on this thread: comparing scope after
/// scope, the rows of the next reuse memory already faulted in. releaseRowStorage() frees it.
void recycleRows(std::vector<CompareRow> &&rows);
void releaseRowStorage();

/// compareIndexes after an edit of options.mapping (or another matching option): matches
/// again, compares only the rows whose pairing changed (bench tensor, match source, unmatched
/// reason, matching notes) and copies every other row from `previous` (a result of the same
/// two indexes with the same comparison options); verdicts and divergences are recomputed for
/// the whole result. `recompared` receives the indexes of the rows compared anew.
CompareResult recompareIndexes(const DumpIndex &npu, const DumpIndex &bench, const CompareResult &previous,
                               const CompareOptions &options, const JobControl *job = nullptr,
                               std::vector<size_t> *recompared = nullptr);

struct LoadedTensor;
/// The tensor-mode part of one row for two loaded tensors: the empty, shape, 0-d and dtype
/// checks of §3.1, then the metrics pass and the cells (threads 0 = all cores).
void compareLoadedTensors(CompareRow &row, const LoadedTensor &npu, const LoadedTensor &bench,
                          const CompareOptions &options, unsigned threads = 0, const JobControl *job = nullptr);

/// msprobe "Accuracy Reached or Not" from the cosine and MaxAbsErr cells (§4). With
/// strictNan, a NaN cosine (all-zero side) gives "No" (DumpScope's own verdict).
QString accuracyReached(const MetricValue &cosine, const MetricValue &maxAbs, const CompareThresholds &t,
                        bool strictNan = false);

/// The first divergence of every scope from the rows' verdicts (docs/COMPARE.md "First
/// divergence"): parameters and model inputs recognised from the NPU records, the origin,
/// its cause and enclosing modules, and the chain. Called by applyVerdicts.
void findDivergences(const DumpIndex &npu, CompareResult &result, Verdict level = Verdict::Error);

/// Recomputes the verdicts (e.g. after the GUI changed the thresholds), the highlight
/// messages and the divergences of a result.
void applyVerdicts(const DumpIndex &npu, CompareResult &result, const CompareThresholds &t,
                   Verdict divergenceLevel = Verdict::Error);

/// The findings of the structure regions of an aligned match (rule 4) from the rows' verdicts
/// (a row disagrees as in findDivergences at `level`).
std::vector<StructureFinding> structureFindings(const DumpIndex &npu, const DumpIndex &bench,
                                                const std::vector<StructureRegion> &regions, const CompareResult &result,
                                                Verdict level = Verdict::Error);

} // namespace ds
