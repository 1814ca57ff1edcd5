#pragma once

// MindSpore kernel-level dumps (msprobe L2, static graph O0/O1, exception dump; written by
// MindSpore's own E2E dump, not by CANN): the statistic.csv of one iteration folder, kernel
// file names and scopes. Layout and sources: ../shared/specs/msprobe-outputs.md §4 and
// docs/COMPARE-TABLES.md "MindSpore kernel dumps".

#include "dump/records.h"
#include "util/error.h"

#include <QByteArrayView>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace ds::mindspore {

/// One row of statistic.csv: one tensor of one kernel execution.
struct StatRow
{
    QString opType, opName;
    std::int64_t taskId = 0, streamId = 0;
    std::uint64_t timestamp = 0;
    IoKind io = IoKind::Input;
    std::uint32_t slot = 0;
    std::uint64_t dataSize = 0;
    QString dataType;        ///< as written: "float32", "bfloat16", "bool"
    Shape shape;
    RecordedStats stats;     ///< Max/Min/Avg/L2Norm Value columns that hold a number
    QString md5;             ///< MD5 column (statistic_category md5), empty when absent
    int line = 0;            ///< 1-based line of the row in the file
};

/// What statistic.csv holds. `errors` name the file (as given), the line and the column of
/// every cell that could not be read; a bad row is left out, the others are kept.
struct StatisticCsv
{
    QStringList header;
    std::vector<StatRow> rows;
    std::vector<FileError> errors;
};

/// Parses the bytes of a statistic.csv: header `Op Type,Op Name,Task ID,Stream ID,Timestamp,IO,
/// Slot,Data Size,Data Type,Shape` followed by the configured statistics (`Max Value`, `Min
/// Value`, `Avg Value`, `L2Norm Value`, `MD5`, counts ...), in any order; shapes quoted
/// `"(2,3)"`; a trailing comma after the last cell tolerated. `True`/`False` statistics (bool
/// tensors) read as 1/0, `null` as absent; `nan`, `inf`, `-inf` as such.
StatisticCsv parseStatisticCsv(QByteArrayView bytes, const QString &file);

/// True when `bytes` (the first bytes of a file) start like a statistic.csv header.
bool looksLikeStatisticCsv(QByteArrayView bytes);

/// A kernel tensor file name `{op_type}.{op_name}.{task_id}.{stream_id}.{timestamp}.{input|output}
/// .{slot}.{format}[.{dtype}].npy` split into its fields.
struct KernelFileName
{
    QString opType, opName, format, dtype;
    std::int64_t taskId = 0, streamId = 0;
    std::uint64_t timestamp = 0;
    IoKind io = IoKind::Input;
    std::uint32_t slot = 0;
};
std::optional<KernelFileName> parseKernelFileName(const QString &fileName);

/// The scope of a kernel: `Default/network-WithLossCell/_backbone-Net/fc1-Dense` for the kernel
/// `Default_network-WithLossCell__backbone-Net_fc1-Dense_MatMul-op12` (file names carry the full
/// name with '/' replaced by '_'). `fullNames` are the execution order's full names
/// (NodeExecutionOrder-FullNameWithScope); without a match the name is split where MindSpore's
/// `{instance}-{Class}` segments end. Empty for a kernel without scope.
QString kernelScope(const QString &opName, const QString &fullName = {});

/// Reads ms_execution_order_graph_{id}.csv: the full names in execution order (header left out).
QStringList parseExecutionOrder(QByteArrayView bytes);

} // namespace ds::mindspore
