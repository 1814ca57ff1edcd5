#pragma once

#include "dump/tensorid.h"
#include "tensor/shape.h"
#include "util/error.h"
#include "util/packedtext.h"

#include <QString>
#include <QStringList>
#include <atomic>
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
    std::uint8_t present = 0;  ///< Field bits; a null statistic is absent
    /// Field bits of the statistics written as integer literals (JSON `967`, not `967.0`):
    /// msprobe's table prints what json.load made of them, an int or a float.
    std::uint8_t integral = 0;
    /// The checksum next to them was written as a JSON number (an all-digit md5): msprobe's
    /// table holds an int there, which equals no string.
    bool numericChecksum = false;
    bool has(Field f) const { return present & f; }
    bool isIntegral(Field f) const { return integral & f; }
};

/// Every field of a tensor record as plain data: what readers fill before they turn it into
/// a TensorRecord, and what TensorRecord::fields() gives back. (The member list TensorRecord
/// had before records became compact; the accessors of TensorRecord have the same names.)
struct TensorFields
{
    Shape shape, originalShape;
    std::uint64_t offset = 0;  ///< absolute byte offset of the payload in the file
    std::uint64_t size = 0;    ///< payload bytes
    std::uint64_t address = 0;
    QString originalOpName;
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
};

/// What many tensor records have in common: a dump.json of a million entries holds a few
/// hundred distinct (name, type, value, shape, dtype, io, index, storage) combinations.
/// Shared, immutable, reference-counted (LeafPool interns them).
struct LeafInfo
{
    QString name, typeName, value;
    Shape shape;
    std::uint32_t index = 0;
    int dataType = 0;
    IoKind io = IoKind::Input;
    TensorStorage storage = TensorStorage::DumpPayload;
    mutable std::atomic<std::uint32_t> refs{0};
};

/// Owning handle of a LeafInfo (8 bytes).
class LeafRef
{
public:
    LeafRef() = default;
    explicit LeafRef(const LeafInfo *p) : m_p(p) { retain(); }
    LeafRef(const LeafRef &o) : m_p(o.m_p) { retain(); }
    LeafRef(LeafRef &&o) noexcept : m_p(o.m_p) { o.m_p = nullptr; }
    LeafRef &operator=(LeafRef o) noexcept
    {
        std::swap(m_p, o.m_p);
        return *this;
    }
    ~LeafRef();
    const LeafInfo *get() const { return m_p; }
    const LeafInfo &operator*() const { return m_p ? *m_p : empty(); } // inline: read per tensor field
    const LeafInfo *operator->() const { return &**this; }

private:
    static const LeafInfo &empty();
    void retain() const
    {
        if (m_p)
            m_p->refs.fetch_add(1, std::memory_order_relaxed);
    }
    const LeafInfo *m_p = nullptr;
};

/// One tensor (or non-tensor leaf) of an operator: where its bytes are and how to read them.
///
/// Compact (40 bytes): the fields many records share are one LeafInfo; the recorded
/// statistics are kept as floats when they are exactly floats (msprobe computes them in the
/// tensor's own type, so nearly always), an 8-hex-digit checksum as a number, and whatever is
/// rare or unique (tensor file, other checksums, CANN payload offsets and formats, double
/// statistics) in a side block that most records do not have. Read through accessors named
/// like the fields of TensorFields; build with TensorRecord(fields) or LeafPool::make().
class TensorRecord
{
public:
    TensorRecord();
    explicit TensorRecord(const TensorFields &f);
    TensorRecord(LeafRef leaf, const TensorFields &rest);
    /// A framework record from its shared part, recorded statistics, checksum and tensor file
    /// (the rest as in a default TensorFields).
    TensorRecord(LeafRef leaf, const RecordedStats &stats, const QString &checksum, const QString &location);
    TensorRecord(const TensorRecord &o);
    TensorRecord(TensorRecord &&o) noexcept;
    TensorRecord &operator=(const TensorRecord &o);
    TensorRecord &operator=(TensorRecord &&o) noexcept;
    ~TensorRecord();

    /// Every field as plain data (to modify a record: change the copy, build a new record).
    TensorFields fields() const;

    const QString &name() const { return leaf().name; }
    const QString &typeName() const { return leaf().typeName; }
    const QString &value() const { return leaf().value; }
    const Shape &shape() const { return leaf().shape; }
    std::uint32_t index() const { return leaf().index; }
    int dataType() const { return leaf().dataType; }
    IoKind io() const { return leaf().io; }
    TensorStorage storage() const { return leaf().storage; }
    RecordedStats recorded() const;
    QString checksum() const;
    const QString &location() const;
    // CANN payloads (zero / defaults for framework records)
    std::uint64_t offset() const;
    std::uint64_t size() const;
    std::uint64_t address() const;
    const Shape &originalShape() const;
    const QString &originalOpName() const;
    int format() const;
    int subFormat() const;
    int originalOutputIndex() const;
    bool complete() const;

    bool isTensor() const { return storage() != TensorStorage::Value; }
    /// Payload bytes: `size`, or for framework tensors whose size is not recorded, what the
    /// data type and shape need (0 for values and unknown types).
    std::uint64_t dataBytes() const;
    /// The shared part (tests, memory accounting).
    const LeafInfo *leafInfo() const { return m_leaf.get(); }

private:
    struct Extra;
    const LeafInfo &leaf() const;
    void setRest(const TensorFields &f);
    void setStats(const RecordedStats &s);
    void setChecksum(const QString &sum);
    struct Extra &extra();

    LeafRef m_leaf;
    std::unique_ptr<Extra> m_extra;
    float m_stats[4] = {0, 0, 0, 0};
    std::uint32_t m_crc = 0;
    std::uint8_t m_present = 0; ///< RecordedStats::present in bits 0-3, its integral bits in 4-7
    std::uint8_t m_flags = 0;
};

/// Interns LeafInfos: records built through one pool share them. Not thread-safe (one per
/// reader thread); what it handed out outlives it.
class LeafPool
{
public:
    LeafPool();
    ~LeafPool();
    LeafPool(const LeafPool &) = delete;
    LeafPool &operator=(const LeafPool &) = delete;

    /// A record for `f`, its shared part interned.
    TensorRecord make(const TensorFields &f);
    /// The interned LeafInfo of these values (UTF-8 texts): the msprobe reader's path, which
    /// only converts texts it has not seen yet.
    LeafRef leaf(std::string_view name, std::string_view typeName, std::string_view value, const Shape &shape,
                 std::uint32_t index, int dataType, IoKind io, TensorStorage storage);
    LeafRef leaf(const TensorFields &f);
    size_t size() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

enum class ContainerKind : std::uint8_t { BigDump, Legacy };

/// msprobe nan_check's per-entry `is_nan` (msprobe.md, overflow.md Gen C): the NPU's float
/// overflow register after the call (cleared before it). Other dumps: NotChecked.
enum class NanCheck : std::uint8_t {
    NotChecked, ///< no `is_nan` in the entry
    Clear,      ///< `is_nan: 0`
    Overflow,   ///< `is_nan: 1` (any non-zero value): NaN/Inf arose in the call, or a process overflow
    Unknown,    ///< `is_nan: null`: msprobe could not read the register
};

/// The directory levels of cann-dump.md §2 and msprobe.md §2 (empty when a level is absent),
/// outermost first: part (format root inside a mixed folder), run (the run's folder relative
/// to the opened one, set only when the opened folder holds several runs: core/run), time,
/// step, rank, device, model_name, model_id, data_index.
struct DumpLevels
{
    QString part, run, time, step, rank, device, modelName, modelId, dataIndex;
    /// Not a directory level: the producer's framework of the part these operators came from
    /// (IndexPart::framework: "pytorch", "mindspore", "mindtorch"), set by the index builder;
    /// empty for formats that record none. See producerLabel() (formats/readers.h).
    QString framework;
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

/// What few operators have (CANN dump headers, mapping.csv names, OpDebug files, warnings).
struct OpExtra
{
    QString headerOpName;     ///< DumpData.op_name: the full, unsanitised name
    QString mappedFrom;       ///< original file name from mapping.csv for numeric names
    QString version;
    std::int64_t taskId = -1, streamId = -1;
    std::uint64_t dumpTime = 0, fileSize = 0, headerLen = 0;
    QStringList warnings;
};

/// One operator: a CANN dump file, or an entry of a framework dump (msprobe dump.json entry,
/// ptdbg API, h5 `/{op}/{seqid}` group, group of .npy files).
///
/// Compact (104 bytes plus the text of its path): the strings are PackedText (UTF-8, 8 bytes,
/// read like a const QString; an msprobe entry's opName and opType are substrings of its
/// relPath and its parent shares the parent's text), and the fields only CANN dumps and a few
/// others fill are in an OpExtra read through accessors of the same names
/// (`op.headerOpName()`, `op.warnings()`, `op.taskId()`, ...) and written through extra().
struct OpRecord
{
    PackedText relPath;       ///< relative to the index root, '/' separated (tensor id prefix); for
                              ///< framework dumps a virtual path `<dir>/<entry name>`
    PackedText dataFile;      ///< file holding the record when it is not relPath (dump.json, .h5)
    SharedLevels levels;
    PackedText opType, opName; ///< from the (possibly mapped) file name, sanitised
    PackedText parent;        ///< construct.json parent entry (module), empty for top level
    std::vector<TensorRecord> tensors; ///< inputs, outputs, buffers, workspaces (parameters, values)
    std::uint64_t timestamp = 0; ///< CANN file timestamp; framework dumps: execution sequence number
    int stack = -1;           ///< index into DumpIndex::stacks (msprobe stack.json), -1 none
    FormatId source{};        // small members last: no padding between members
    bool opDebug = false;
    ContainerKind container = ContainerKind::BigDump;
    NanCheck nanCheck = NanCheck::NotChecked;

    OpRecord() = default;
    OpRecord(const OpRecord &o);
    OpRecord(OpRecord &&) noexcept = default;
    OpRecord &operator=(const OpRecord &o);
    OpRecord &operator=(OpRecord &&) noexcept = default;
    ~OpRecord();

    const QString &headerOpName() const;
    const QString &mappedFrom() const;
    const QString &version() const;
    std::int64_t taskId() const { return m_extra ? m_extra->taskId : -1; }
    std::int64_t streamId() const { return m_extra ? m_extra->streamId : -1; }
    std::uint64_t dumpTime() const { return m_extra ? m_extra->dumpTime : 0; }
    std::uint64_t fileSize() const { return m_extra ? m_extra->fileSize : 0; }
    std::uint64_t headerLen() const { return m_extra ? m_extra->headerLen : 0; }
    const QStringList &warnings() const;
    /// The rare fields, created on first use.
    OpExtra &extra();
    bool hasExtra() const { return bool(m_extra); }
    void addWarning(const QString &w) { extra().warnings << w; }

    int count(IoKind k) const;
    const TensorRecord *tensor(IoKind k, std::uint32_t index) const;

private:
    std::unique_ptr<OpExtra> m_extra;
};

} // namespace ds
