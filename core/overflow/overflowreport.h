#pragma once

#include "dump/dumpindex.h"
#include "opdebug.h"
#include "tensor/stats.h"

#include <map>

namespace ds {

/// Statistics of one tensor of an operator, with the saturation count the overflow rules need.
struct TensorCheck
{
    IoKind io = IoKind::Input;
    std::uint32_t index = 0;
    TensorStats stats;
    std::uint64_t saturated = 0; ///< elements equal to the dtype's finite ±max (float16, bfloat16, fp8, hif8)
    QString error;
    bool anomalous() const { return stats.nan || stats.posinf || stats.neginf || saturated; }
};

/// Per-operator tensor checks, loaded once and shared by linking and the software scan.
struct OpCheck
{
    std::vector<TensorCheck> tensors;
    bool anyInputAnomalous() const;
    bool anyOutputAnomalous() const;
};

/// An OpDebug file, decoded and linked to the operators its triggered blocks name.
struct OverflowEntry
{
    int op = -1; ///< the OpDebug file in DumpIndex::ops
    OpDebugRecord record;
    QString error; ///< payload could not be decoded
    struct Link
    {
        const OverflowBlock *block = nullptr;
        int op = -1;  ///< linked operator, -1 if none
        QString note; ///< why it is unmatched, or how it was matched
    };
    std::vector<Link> links; ///< one per triggered block
    bool firstOnDevice = false, firstOverall = false;
};

enum class OverflowLevel { None, Medium, High, Critical };
QString overflowLevelName(OverflowLevel l); ///< "critical", "high", "medium", ""

struct SoftwareFinding
{
    int op = -1;
    OverflowLevel level = OverflowLevel::None;
    QString reason;
};

struct OverflowReport
{
    std::vector<OverflowEntry> records;      ///< sorted: device, data_index, timestamp, file name
    std::vector<SoftwareFinding> findings;   ///< execution order
    int firstProducer = -1;                  ///< op of the first "critical" finding
    std::map<int, OpCheck> checks;           ///< op -> tensor checks (linked and scanned ops)
    bool scanned = false, cancelled = false;
};

struct OverflowOptions
{
    bool softwareScan = true;
};

/// Decodes every OpDebug record of the index, links it to its operator by the payload's
/// stream and task ids (never the file name's), orders the records and marks the first
/// overflow; then (optionally) scans every operator's tensors for NaN/Inf/saturation and
/// classifies it critical / high / medium (overflow.md §7, §8, §14).
OverflowReport analyzeOverflow(const DumpIndex &index, const OverflowOptions &options = {}, const JobControl *job = nullptr);

/// True for OpDebug files: by name, or by header (op_name Node_OpDebug, one 2048-byte uint8 output).
bool isOpDebug(const OpRecord &op);

/// The JSON of `dumpscope-cli overflow --json` (README).
QByteArray overflowJson(const DumpIndex &index, const OverflowReport &report);
/// The plain-text report of `dumpscope-cli overflow`.
QString overflowText(const DumpIndex &index, const OverflowReport &report);

} // namespace ds
