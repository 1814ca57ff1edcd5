#pragma once

#include "comparealign.h"
#include "comparetypes.h"
#include "dump/dumpindex.h"
#include "usermapping.h"

#include <array>
#include <optional>
#include <unordered_map>
#include <utility>

namespace ds {

/// The name an operator is matched by: the entry name (last '/' component of relPath) for
/// framework dumps, the full op name (header op_name, else the file name's) for CANN dumps.
QString opMatchKey(const OpRecord &op);
/// The name a tensor is matched by within its operator: msprobe 26's row suffix for msprobe
/// entries ("input.0" for positional and keyword arguments alike, "input.dim", "output.0",
/// "parameters.weight"; msprobenames.h), the reader's `name` for other framework dumps, else
/// "<input|output|parameter>.<index>".
QString tensorMatchKey(const OpRecord &op, const TensorRecord &t);
/// The parameter named by tensorMatchKey(op, t) = "parameters.<name>": `name` ("weight"), or
/// nothing for any other key. Builds the key only when it can be a parameter's (a leaf named
/// "parameters.…" or a leaf with a file), not for every row.
std::optional<QString> parameterOfKey(const OpRecord &op, const TensorRecord &t);
/// Without the operator: the reader's name ("input_args.0"), else "<io>.<index>". Kept for
/// callers written before msprobe 26's names; reports use the two-argument form.
QString tensorMatchKey(const TensorRecord &t);
/// `<opMatchKey>.<tensorMatchKey>`: the row name shown in reports.
QString rowName(const OpRecord &op, const TensorRecord &t);
/// rowName() of many rows of one index, faster: the operator key once per run of rows of the
/// same operator, the tensor key once per shared leaf. Not thread-safe.
class RowNamer
{
public:
    explicit RowNamer(const DumpIndex &index);
    ~RowNamer();
    RowNamer(const RowNamer &) = delete;
    RowNamer &operator=(const RowNamer &) = delete;
    QString name(const DumpIndex::TensorRef &ref);

private:
    struct KeyHash
    {
        size_t operator()(const std::pair<const LeafInfo *, bool> &k) const
        {
            return std::hash<const void *>()(k.first) ^ size_t(k.second);
        }
    };
    const DumpIndex &m_index;
    int m_op = -1;
    QString m_opKey;
    bool m_opMsprobe = false;
    std::array<std::int8_t, 256> m_msprobe = filledMinusOne();
    std::unordered_map<std::pair<const LeafInfo *, bool>, QString, KeyHash> m_keys;
    static std::array<std::int8_t, 256> filledMinusOne()
    {
        std::array<std::int8_t, 256> a;
        a.fill(-1);
        return a;
    }
};
/// The row tensors of an operator (inputs, outputs, parameters) in report order: msprobe's for
/// msprobe entries (inputs, kwargs, parameters, outputs), the record order otherwise.
std::vector<int> rowTensors(const OpRecord &op);
/// The operator name without call counters (compare.md §2.3): msprobe API entries drop the
/// token before "forward"/"backward", Module/Cell entries drop the class-name token; other
/// names lose `.<digits>` tokens and `_rank<digits>`.
QString fuzzyOpName(const QString &name);
/// Compiler-inserted NPU operators (TransData, Cast, AtomicAddrClean, ...).
bool isNpuOnlyOpType(const QString &type);
/// Directory levels that must agree between matched rows when the bench has several:
/// step, rank, device and data_index.
QString scopeKey(const DumpLevels &levels);

struct MatchOptions
{
    bool fuzzy = false;
    bool align = true; ///< rule 4 may align by structure; false: exact names only (msprobe's pairing)
    const UserMapping *mapping = nullptr;
    /// MindSpore/MindTorch NPU against a PyTorch bench (isCrossFramework): NPU entry names are
    /// translated by msprobe's built-in table and prefix rules (msToPtEntryName) before the
    /// bench is looked up, as msprobe's `-am` does.
    bool crossFramework = false;
};

struct MatchedRow
{
    DumpIndex::TensorRef npu;
    DumpIndex::TensorRef bench; ///< op == -1: no bench row
    MatchSource source = MatchSource::None;
    bool hasReason = false;
    ReasonCode reason = ReasonCode::UnmatchedBench; ///< when hasReason (unmatched rows)
    QStringList notes;
    bool dataMapped = false; ///< paired by an msprobe data_mapping entry (msprobe then checks no dtypes)
};

struct BenchOnlyRow
{
    DumpIndex::TensorRef bench;
    ReasonCode reason = ReasonCode::UnmatchedBench; ///< UNMATCHED_BENCH or FUSED_AWAY
};

struct MatchResult
{
    std::vector<MatchedRow> rows;       ///< one per NPU input/output/parameter, NPU index order (rowTensors within an op)
    std::vector<BenchOnlyRow> benchOnly; ///< bench rows nothing matched, in bench index order
    QStringList warnings;               ///< e.g. mapping names found in neither index
    /// Rule 4 when the op streams do not line up by name: the regions where they differ in
    /// structure (empty when exact names decided).
    std::vector<StructureRegion> structure;
    bool aligned = false; ///< rule 4 paired by structure (alignOpStreams), not by exact names
};

/// Pairs NPU rows with bench rows. The rules, in order (each row takes the first that pairs it;
/// docs/COMPARE.md "Matching rules"):
///   1. a user mapping group (N NPU operators -> M bench operators)
///   2. a user mapping name: a row name, then an operator name (flat file, msprobe data_mapping)
///   3. translated names: a user api_mapping entry (argument indexes remapped; rows it does not
///      list pair nothing), else msprobe's built-in MindSpore -> PyTorch table when
///      options.crossFramework, then a user cell_mapping (Cell -> Module, cell names)
///   4. exact names (the k-th NPU occurrence of a name with the k-th bench occurrence, within
///      the same scope when the bench has several) when the two framework op streams line up
///      (the same entry names in the same order per scope: the fast path); else the operators
///      aligned by structure (alignOpStreams: name without counter, row shapes, order, module
///      entries as anchors), their rows by tensor name, and at each structure region whose two
///      sides both hold operators, the first operators' inputs and the last operators' outputs
///      of equal name and shape ("aligned")
///   5. the CANN OriginalOp of fused outputs
///   6. with fuzzy: names without call counters and with equal shapes
MatchResult matchIndexes(const DumpIndex &npu, const DumpIndex &bench, const MatchOptions &options = {});

} // namespace ds
