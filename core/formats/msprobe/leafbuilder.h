#pragma once
// Internal to the msprobe/ptdbg readers: string interning and the conversion of dump.json
// leaves (msprobe.md §3.4, §3.5) into TensorRecords.

#include "dump/records.h"
#include "jsonstream.h"

#include <QString>
#include <array>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ds::msprobe {

/// Interns short repeated strings (dtype text, leaf names, value texts) so that millions of
/// records share one QString payload each. Long strings and strings past the cap are not
/// interned (they are unlikely to repeat).
class StringPool
{
public:
    QString get(std::string_view s);
    QString get(const QString &s);
    int dataType(std::string_view dtypeText);
    size_t size() const { return m_map.size(); }

    static constexpr size_t kMaxLength = 96;
    static constexpr size_t kMaxEntries = size_t(1) << 18;

private:
    struct Hash
    {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    std::unordered_map<std::string, QString, Hash, std::equal_to<>> m_map;
    std::unordered_map<std::string, int, Hash, std::equal_to<>> m_dtypes;
};

/// Appends the records of one value (a leaf or a container of leaves) to an op.
class LeafBuilder
{
public:
    explicit LeafBuilder(StringPool &pool) : m_pool(pool) {}
    LeafBuilder(StringPool &pool, LeafPool &leaves) : m_pool(pool), m_leaves(&leaves) {}

    /// Where `data_name` files are: "<relDir>/dump_tensor_data/" (relative to the root).
    QString tensorDirPrefix;
    /// forward_info files: `datapath` keys are resolved against this directory.
    QString datapathBase;

    /// Starts an op: clears the per-IoKind counters and the record buffer.
    void begin()
    {
        m_counters.fill(0);
        m_records.clear();
    }
    /// Moves the records of the op into `op.tensors`, allocated to the exact size.
    void finish(OpRecord &op)
    {
        op.tensors.reserve(op.tensors.size() + m_records.size());
        for (TensorRecord &r : m_records)
            op.tensors.push_back(std::move(r));
        m_records.clear();
    }
    /// Walks value `node`: leaves become records named `path` (+ ".key" / ".i" inside
    /// containers). `topLevel` means the node is a category container (input_args, ...):
    /// an empty object there is not a leaf.
    void walk(const JsonTree &t, std::uint32_t node, IoKind io, std::string &path, OpRecord &op, bool topLevel,
              int depth = 0);
    /// Adds one non-tensor record.
    void addValue(OpRecord &op, IoKind io, std::string_view name, std::string_view typeName, std::string_view value);
    /// The md5 member of a tensor leaf (kind JsonNode::Kind, text the string or the number
    /// token): a string as written; a number (a writer that stored an all-digit CRC as a JSON
    /// number) as the digits msprobe prints for what json.load gives, the token as written;
    /// 0 and anything else empty (msprobe replaces a falsy md5 by the CRC-32 of "", 00000000).
    static QString checksumText(std::uint8_t kind, std::string_view text);
    /// Parses a statistic (number, bool, "nan"/"inf" strings); false if absent or null.
    static bool statValue(const JsonTree &t, std::uint32_t n, double &v, bool *pending = nullptr);
    std::uint32_t nextIndex(IoKind io) { return m_counters[size_t(io)]++; }
    /// Adds one record (the next index of its IoKind), as the walk does for a leaf: the
    /// streaming reader (entryrecords.cpp) builds leaves without a JsonTree through this.
    void addRecord(std::string_view name, std::string_view typeName, std::string_view value, const Shape &shape,
                   IoKind io, TensorStorage storage, int dataType, const RecordedStats &stats = {},
                   const QString &checksum = {}, const QString &location = {})
    {
        m_records.push_back(record(name, typeName, value, shape, io, storage, dataType, stats, checksum, location));
    }

    StringPool &pool() { return m_pool; }

private:
    void tensorLeaf(const JsonTree &t, std::uint32_t node, IoKind io, const std::string &path, OpRecord &op);
    TensorRecord record(std::string_view name, std::string_view typeName, std::string_view value, const Shape &shape,
                        IoKind io, TensorStorage storage, int dataType, const RecordedStats &stats = {},
                        const QString &checksum = {}, const QString &location = {});
    void valueLeaf(const JsonTree &t, std::uint32_t node, IoKind io, const std::string &path, OpRecord &op,
                   std::string_view typeName, std::string_view skipKey1, std::string_view skipKey2);

    StringPool &m_pool;
    LeafPool *m_leaves = nullptr; ///< interns the shared part of records (none: one per record)
    std::array<std::uint32_t, 5> m_counters{};
    std::string m_scratch;
    Shape m_shape;
    std::vector<TensorRecord> m_records; // the op being built (reused)
};

bool isTensorType(std::string_view type);

/// The IoKind of a dump.json category ("input_args", "output", "parameters", ...); `known`
/// false for other member names (per-entry flags, unknown containers: Input).
inline IoKind categoryIo(std::string_view key, bool &known)
{
    known = true;
    if (key == "input_args" || key == "input_kwargs" || key == "input")
        return IoKind::Input;
    if (key == "output")
        return IoKind::Output;
    if (key == "parameters")
        return IoKind::Parameter;
    known = false;
    return IoKind::Input;
}

/// nan_check's entry-level `is_nan` from its JSON kind (JsonNode::Kind) and text: 0 Clear,
/// another number Overflow (msprobe writes 1), null Unknown; anything else NotChecked.
inline NanCheck nanCheckOf(std::uint8_t kind, std::string_view text)
{
    if (kind == JsonNode::Null)
        return NanCheck::Unknown;
    if (kind != JsonNode::Number)
        return NanCheck::NotChecked;
    return text == "0" || text == "0.0" || text == "-0" ? NanCheck::Clear : NanCheck::Overflow;
}

} // namespace ds::msprobe
