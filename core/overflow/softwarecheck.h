#pragma once

#include "dump/dumpindex.h"
#include "tensor/stats.h"
#include "util/cancel.h"

#include <map>

namespace ds {

/// Where the numbers of a tensor check come from.
enum class CheckSource : std::uint8_t {
    Data,     ///< the tensor was loaded and measured
    Recorded, ///< no data saved (msprobe statistics mode): the producer's recorded Max/Min/Mean/Norm
    None,     ///< neither data nor recorded statistics (nothing to judge)
};

/// One tensor of an operator judged for NaN/Inf/saturation (overflow.md §9, §14).
struct TensorCheck
{
    IoKind io = IoKind::Input;
    std::uint32_t index = 0;
    QString name;                ///< framework leaf name ("input_args.0"); empty for CANN tensors
    int dataType = 0;            ///< DataType of the tensor record
    CheckSource source = CheckSource::Data;
    TensorStats stats;           ///< Data: measured. Recorded: min/max/mean/l2norm only (counts unknown)
    RecordedStats recorded;      ///< Recorded: what the producer wrote
    std::uint64_t saturated = 0; ///< Data: elements at the dtype's finite ±max; Recorded: 1 when Max or Min is ±max
    /// The values are finite (and not saturated) but a statistic of them is not: the recorded Mean/Norm (or, for
    /// loaded data, the L2 norm in the tensor's dtype) overflowed. A precursor, not an overflow.
    bool statisticOverflow = false;
    bool ignored = false;        ///< an ignore rule (msprobe ignore_rules.yaml) says NaN/Inf here is expected
    QString error;               ///< loading failed and nothing was recorded
    QString label() const;       ///< name, or "<io>.<index>"
    /// NaN or ±Inf among the values (Data: counts; Recorded: Max or Min), or saturated values.
    bool anomalous() const;
};

/// Per-operator tensor checks: inputs (with parameters) and outputs.
struct OpCheck
{
    std::vector<TensorCheck> tensors;
    bool anyInputAnomalous() const;  ///< inputs and parameters
    bool anyOutputAnomalous() const;
    bool anyOutputStatisticOverflow() const;
};

/// msprobe's overflow levels (overflow.md §14).
enum class OverflowLevel { None, Medium, High, Critical };
QString overflowLevelName(OverflowLevel l); ///< "critical", "high", "medium", ""

/// Where an abnormal input of a scope's first anomaly came from (inputorigin.h).
struct InputOrigin
{
    QString tensor;          ///< its label at the first anomaly ("input_args.1", "parameters.weight")
    QString parameter;       ///< the parameter it is ("fc1.weight"), "" unknown
    QString module;          ///< the module entry holding that parameter ("Module.fc1.Linear.forward.0")
    QString previousScope;   ///< the rank's previous step ("step0/rank0"), "" none in the dump
    QString writer, writerTensor;         ///< the previous step's operator that wrote it, "" none found
    QString lastNormal, lastNormalTensor; ///< else: where it was last seen with finite values
    QString text;            ///< all of it in one sentence
};

struct SoftwareFinding
{
    int op = -1;
    OverflowLevel level = OverflowLevel::None;
    QString reason;
    bool valueAnomaly = false;      ///< NaN/Inf/saturation among inputs or outputs (not only a numerical mutation)
    bool statisticOverflow = false; ///< outputs finite but their Mean/Norm overflowed (see TensorCheck)
    bool nanCheck = false;          ///< judged from msprobe nan_check's `is_nan` register flag (no values recorded)
    /// A scope's first anomaly with abnormal inputs: where they came from (also in `reason`).
    std::vector<InputOrigin> origins;
};

/// Loads and measures every input, parameter and output of an operator; tensors saved
/// without data (msprobe statistics mode, storage Absent) are judged from their recorded
/// statistics, as are tensors whose file cannot be loaded when statistics were recorded.
OpCheck checkOp(const DumpIndex &index, int op, const JobControl *job = nullptr);
/// The check of one tensor from its recorded statistics alone.
TensorCheck checkRecorded(const TensorRecord &t);

/// Classifies an operator with msprobe's scenes in order (§14): inputs normal / outputs
/// anomalous = critical; both anomalous = high; inputs anomalous / outputs normal = medium;
/// numerical mutation (max output Norm / max input Norm > 100) = high. Parameters count as
/// inputs; an entry holding only parameters (parameters_grad) is not classified.
SoftwareFinding classify(int op, const OpCheck &check);

/// An operator whose msprobe nan_check `is_nan` is 1 (NanCheck::Overflow): critical when it is
/// the first of its scope to set the NPU overflow register, high after one did.
SoftwareFinding registerFinding(int op, bool firstInScope);

/// True for OpDebug files: by name, or by header (op_name Node_OpDebug, one 2048-byte uint8 output).
bool isOpDebug(const OpRecord &op);

/// msprobe's communication APIs (overflow.md §11): `Distributed.<api>...` with a collective
/// or point-to-point api name.
bool isCommunicationOp(const OpRecord &op);

/// One scope of a dump: the operators of one step of one rank (msprobe `step{N}/rank{R}`),
/// or of one directory of a CANN dump (time / device / model / data_index): operators with
/// the same directory levels, which DumpIndex::finalize keeps together in execution order.
struct OverflowScope
{
    int begin = 0, end = 0; ///< ops [begin, end) of the index
    SharedLevels levels;
    QString label() const;  ///< "step1/rank1", "20240401120000/0/net/1/0", "" for a flat folder
};

/// The scopes of an index in index order.
std::vector<OverflowScope> overflowScopes(const DumpIndex &index);

/// The software scan of one scope (one step of one rank).
struct ScopeScan
{
    OverflowScope scope;
    std::vector<SoftwareFinding> findings; ///< execution order
    int first = -1;     ///< findings[first]: the first operator with NaN/Inf/saturated values (any level)
    int producer = -1;  ///< findings[producer]: the first critical operator (normal inputs, abnormal outputs)
    int precursor = -1; ///< findings[precursor]: an operator before `first` whose outputs' Mean/Norm overflowed
    bool cancelled = false;
    const SoftwareFinding *firstAnomaly() const { return first >= 0 ? &findings[size_t(first)] : nullptr; }
    /// The first anomaly is a communication op: its NaN/Inf may come from another rank.
    bool firstIsCommunication(const DumpIndex &index) const;
};

/// Scans the operators of one scope in execution order. The checks of operators with a
/// finding are stored in `checks` when given (the others are dropped: a statistics dump of
/// millions of entries would otherwise keep them all).
ScopeScan scanScope(const DumpIndex &index, const OverflowScope &scope, std::map<int, OpCheck> *checks = nullptr,
                    const JobControl *job = nullptr);

} // namespace ds
