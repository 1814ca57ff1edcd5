#pragma once

#include "dump/tensorid.h"
#include "tensor/shape.h"
#include "util/error.h"

#include <QString>
#include <QStringList>
#include <cstdint>
#include <memory>
#include <vector>

namespace ds {

/// Which reader indexed an operator record: its position in the reader list
/// (formats/readers.cpp). sourceFormatName() and formatReader() tell more.
enum class FormatId : std::uint8_t {};

/// Where the bytes of a tensor are.
enum class TensorStorage : std::uint8_t {
    DumpPayload, ///< `size` bytes at `offset` in the operator's file (CANN)
    NpyFile,     ///< `location` is a .npy file (relative to the index root)
    PtFile,      ///< `location` is a torch.save .pt file (relative to the index root)
    H5Dataset,   ///< `location` is a dataset path inside the operator's .h5 file
    Absent,      ///< no data saved; only the recorded statistics are known
    Value,       ///< not a tensor: `value` holds the leaf's text (int, slice, dtype, ...)
};

/// Statistics a producer recorded next to a tensor (msprobe Max/Min/Mean/Norm, ptdbg summary).
struct RecordedStats
{
    enum Field : std::uint8_t { Max = 1, Min = 2, Mean = 4, Norm = 8 };
    double max = 0, min = 0, mean = 0, norm = 0;
    std::uint8_t present = 0; ///< Field bits; a null statistic is absent
    bool has(Field f) const { return present & f; }
};

/// One tensor of an operator file: where its bytes are and how to read them.
/// Members are ordered by alignment (8-byte members first, small ones last): an index of
/// millions of framework-dump leaves pays for every byte of padding.
struct TensorRecord
{
    Shape shape, originalShape;
    std::uint64_t offset = 0;  ///< absolute byte offset of the payload in the file
    std::uint64_t size = 0;    ///< payload bytes
    std::uint64_t address = 0;
    QString originalOpName;

    // Framework dumps (msprobe, ptdbg, h5, npy). Share repeated strings (implicit sharing):
    // an index of 10^6 entries must stay small.
    QString name;      ///< leaf path shown to users: "input_args.0", "input_kwargs.dim", "output.0.1", "weight"
    QString location;  ///< tensor file (relative to the index root) or HDF5 dataset path; see storage
    QString typeName;  ///< recorded type: "torch.Tensor", "int", "slice", ...; recorded dtype text for tensors
    QString value;     ///< non-tensor leaves: the value as text
    QString checksum;  ///< recorded md5/CRC-32 (8 hex digits) or XOR checksum
    RecordedStats recorded;

    std::uint32_t index = 0;   ///< position among the tensors of the same IoKind
    int dataType = 0;          ///< DataType value (proto numbering)
    int format = 2;            ///< raw ge::Format value
    int subFormat = 0;
    int originalOutputIndex = -1;
    IoKind io = IoKind::Input;
    TensorStorage storage = TensorStorage::DumpPayload;
    bool complete = true;      ///< payload lies completely inside the file
    bool isTensor() const { return storage != TensorStorage::Value; }
    /// Payload bytes: `size`, or for framework tensors whose size is not recorded, what the
    /// data type and shape need (0 for values and unknown types).
    std::uint64_t dataBytes() const;
};

enum class ContainerKind : std::uint8_t { BigDump, Legacy };

/// The directory levels of cann-dump.md §2 and msprobe.md §2 (empty when a level is absent),
/// outermost first: part (format root inside a mixed folder), run (the run's folder relative
/// to the opened one, set only when the opened folder holds several runs: core/run), time,
/// step, rank, device, model_name, model_id, data_index.
struct DumpLevels
{
    QString part, run, time, step, rank, device, modelName, modelId, dataIndex;
};

/// DumpLevels shared by the operators of one directory or file: an operator holds a pointer,
/// not eight strings (a million msprobe entries would spend 180 MiB on copies). Read a level
/// as `op.levels->device`; a default-constructed one reads as empty levels.
class SharedLevels
{
public:
    SharedLevels() = default;
    explicit SharedLevels(DumpLevels levels) : m_d(std::make_shared<const DumpLevels>(std::move(levels))) {}
    explicit SharedLevels(std::shared_ptr<const DumpLevels> d) : m_d(std::move(d)) {}

    const DumpLevels &operator*() const { return m_d ? *m_d : empty(); }
    const DumpLevels *operator->() const { return &**this; }

private:
    static const DumpLevels &empty();
    std::shared_ptr<const DumpLevels> m_d;
};

/// One operator: a CANN dump file, or an entry of a framework dump (msprobe dump.json entry,
/// ptdbg API, h5 `/{op}/{seqid}` group, group of .npy files).
struct OpRecord
{
    QString relPath;          ///< relative to the index root, '/' separated (tensor id prefix); for
                              ///< framework dumps a virtual path `<dir>/<entry name>`
    QString dataFile;         ///< file holding the record when it is not relPath (dump.json, .h5)
    SharedLevels levels;
    QString opType, opName;   ///< from the (possibly mapped) file name, sanitised
    QString headerOpName;     ///< DumpData.op_name: the full, unsanitised name
    QString mappedFrom;       ///< original file name from mapping.csv for numeric names
    std::int64_t taskId = -1, streamId = -1;
    std::uint64_t timestamp = 0; ///< CANN file timestamp; framework dumps: execution sequence number
    QString version;
    std::uint64_t dumpTime = 0, fileSize = 0, headerLen = 0;
    std::vector<TensorRecord> tensors; ///< inputs, outputs, buffers, workspaces (parameters, values)
    QStringList warnings;
    QString parent;           ///< construct.json parent entry (module), empty for top level
    int stack = -1;           ///< index into DumpIndex::stacks (msprobe stack.json), -1 none
    FormatId source{};        // small members last: no padding between members
    bool opDebug = false;
    ContainerKind container = ContainerKind::BigDump;

    int count(IoKind k) const;
    const TensorRecord *tensor(IoKind k, std::uint32_t index) const;
};

} // namespace ds
