#include "leafbuilder.h"

#include "msprobereader.h"
#include "tensor/dtype.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace ds::msprobe {

QString StringPool::get(std::string_view s)
{
    if (s.empty())
        return {};
    if (s.size() > kMaxLength)
        return QString::fromUtf8(s.data(), qsizetype(s.size()));
    auto it = m_map.find(s);
    if (it != m_map.end())
        return it->second;
    QString q = QString::fromUtf8(s.data(), qsizetype(s.size()));
    if (m_map.size() < kMaxEntries)
        m_map.emplace(std::string(s), q);
    return q;
}

QString StringPool::get(const QString &s)
{
    const QByteArray u = s.toUtf8();
    return get(std::string_view(u.constData(), size_t(u.size())));
}

int StringPool::dataType(std::string_view dtypeText)
{
    auto it = m_dtypes.find(dtypeText);
    if (it != m_dtypes.end())
        return it->second;
    const int t = dataTypeFromText(QString::fromUtf8(dtypeText.data(), qsizetype(dtypeText.size())));
    if (m_dtypes.size() < 4096)
        m_dtypes.emplace(std::string(dtypeText), t);
    return t;
}

bool isTensorType(std::string_view type)
{
    return type.ends_with("Tensor") || type == "numpy.ndarray" || type == "mindspore.Parameter"
        || type == "torch.nn.parameter.Parameter";
}

namespace {
void appendIndex(std::string &path, std::string_view part)
{
    if (!path.empty())
        path += '.';
    path += part;
}
} // namespace

QString LeafBuilder::checksumText(std::uint8_t kind, std::string_view text)
{
    if (kind == JsonNode::String)
        return QString::fromUtf8(text.data(), qsizetype(text.size()));
    if (kind != JsonNode::Number || numberFromText(text, text.find_first_of(".eEIN") == std::string_view::npos) == 0)
        return {};
    return QString::fromLatin1(text.data(), qsizetype(text.size()));
}

bool LeafBuilder::statValue(const JsonTree &t, std::uint32_t n, double &v, bool *pending)
{
    if (!n)
        return false;
    const JsonNode &node = t.node(n);
    switch (node.kind) {
    case JsonNode::Number: v = node.number; return true;
    case JsonNode::True: v = 1; return true;
    case JsonNode::False: v = 0; return true;
    case JsonNode::String: {
        std::string_view s = t.text(node);
        while (!s.empty() && (s.back() == '\t' || s.back() == ' '))
            s.remove_suffix(1);
        auto eq = [](std::string_view a, std::string_view b) {
            if (a.size() != b.size())
                return false;
            for (size_t i = 0; i < a.size(); ++i)
                if (std::tolower(static_cast<unsigned char>(a[i])) != b[i])
                    return false;
            return true;
        };
        if (eq(s, "nan") || eq(s, "-nan")) {
            v = std::numeric_limits<double>::quiet_NaN();
            return true;
        }
        if (eq(s, "inf") || eq(s, "infinity") || eq(s, "+inf")) {
            v = std::numeric_limits<double>::infinity();
            return true;
        }
        if (eq(s, "-inf") || eq(s, "-infinity")) {
            v = -std::numeric_limits<double>::infinity();
            return true;
        }
        bool ok = false;
        const double d = QString::fromUtf8(s.data(), qsizetype(s.size())).toDouble(&ok);
        if (ok) {
            v = d;
            return true;
        }
        if (pending && s.ends_with("_index"))
            *pending = true;
        return false;
    }
    default: return false;
    }
}

TensorRecord LeafBuilder::record(std::string_view name, std::string_view typeName, std::string_view value,
                                 const Shape &shape, IoKind io, TensorStorage storage, int dataType,
                                 const RecordedStats &stats, const QString &checksum, const QString &location)
{
    const std::uint32_t index = nextIndex(io);
    if (m_leaves)
        return TensorRecord(m_leaves->leaf(name, typeName, value, shape, index, dataType, io, storage), stats, checksum,
                            location);
    TensorFields f;
    f.name = m_pool.get(name);
    f.typeName = m_pool.get(typeName);
    f.value = m_pool.get(value);
    f.shape = shape;
    f.index = index;
    f.dataType = dataType;
    f.io = io;
    f.storage = storage;
    f.recorded = stats;
    f.checksum = checksum;
    f.location = location;
    return TensorRecord(f);
}

void LeafBuilder::addValue(OpRecord &, IoKind io, std::string_view name, std::string_view typeName,
                           std::string_view value)
{
    static const Shape kNoShape;
    m_records.push_back(record(name, typeName, value, kNoShape, io, TensorStorage::Value, 0));
}

void LeafBuilder::walk(const JsonTree &t, std::uint32_t node, IoKind io, std::string &path, OpRecord &op,
                       bool topLevel, int depth)
{
    const JsonNode &n = t.node(node);
    const size_t mark = path.size();
    switch (n.kind) {
    case JsonNode::Null: addValue(op, io, path, "None", "null"); return;
    case JsonNode::True:
    case JsonNode::False: addValue(op, io, path, "bool", n.kind == JsonNode::True ? "true" : "false"); return;
    case JsonNode::Number: addValue(op, io, path, n.integer ? "int" : "float", t.text(n)); return;
    case JsonNode::String: addValue(op, io, path, "str", t.text(n)); return;
    case JsonNode::Array: {
        std::uint32_t i = 0;
        char buf[16];
        for (std::uint32_t c = n.first; c; c = t.node(c).next, ++i) {
            const auto end = std::to_chars(buf, buf + sizeof buf, i).ptr;
            appendIndex(path, std::string_view(buf, size_t(end - buf)));
            walk(t, c, io, path, op, false, depth + 1);
            path.resize(mark);
        }
        return;
    }
    case JsonNode::Object: break;
    }
    if (!topLevel) {
        std::uint32_t type = 0, classType = 0;
        bool dtype = false, shape = false;
        for (std::uint32_t c = n.first; c; c = t.node(c).next) {
            const std::string_view k = t.key(t.node(c));
            if (k == "type")
                type = c;
            else if (k == "class_type")
                classType = c;
            else if (k == "dtype")
                dtype = true;
            else if (k == "shape")
                shape = true;
        }
        if (classType && t.node(classType).kind == JsonNode::String) {
            // P2POp: the op description as a value, its tensor as a leaf below it.
            valueLeaf(t, node, io, path, op, t.text(t.node(classType)), "class_type", "tensor");
            if (const std::uint32_t tensor = t.find(node, "tensor")) {
                appendIndex(path, "tensor");
                walk(t, tensor, io, path, op, false, depth + 1);
                path.resize(mark);
            }
            return;
        }
        if (type && t.node(type).kind == JsonNode::String) {
            const std::string_view typeName = t.text(t.node(type));
            if (isTensorType(typeName) || (dtype && shape))
                tensorLeaf(t, node, io, path, op);
            else
                valueLeaf(t, node, io, path, op, typeName, "type", {});
            return;
        }
        if (n.count == 0) {
            addValue(op, io, path, "opaque", "{}");
            return;
        }
    }
    for (std::uint32_t c = n.first; c; c = t.node(c).next) {
        appendIndex(path, t.key(t.node(c)));
        walk(t, c, io, path, op, false, depth + 1);
        path.resize(mark);
    }
}

void LeafBuilder::valueLeaf(const JsonTree &t, std::uint32_t node, IoKind io, const std::string &path, OpRecord &op,
                            std::string_view typeName, std::string_view skipKey1, std::string_view skipKey2)
{
    m_scratch.clear();
    const JsonNode &n = t.node(node);
    std::uint32_t rest = 0, last = 0;
    for (std::uint32_t c = n.first; c; c = t.node(c).next) {
        const std::string_view k = t.key(t.node(c));
        if (k == skipKey1 || (!skipKey2.empty() && k == skipKey2))
            continue;
        ++rest;
        last = c;
    }
    const std::uint32_t value = t.find(node, "value");
    const std::uint32_t single = value ? value : (rest == 1 ? last : 0);
    if (single) {
        const JsonNode &v = t.node(single);
        if (v.kind == JsonNode::String)
            m_scratch.assign(t.text(v));
        else
            t.serialize(single, m_scratch);
    } else if (rest > 1) {
        m_scratch += '{';
        bool first = true;
        for (std::uint32_t c = n.first; c; c = t.node(c).next) {
            const std::string_view k = t.key(t.node(c));
            if (k == skipKey1 || (!skipKey2.empty() && k == skipKey2))
                continue;
            if (!first)
                m_scratch += ", ";
            first = false;
            appendPythonJsonString(k, m_scratch);
            m_scratch += ": ";
            t.serialize(c, m_scratch);
        }
        m_scratch += '}';
    }
    addValue(op, io, path, typeName, m_scratch);
}

void LeafBuilder::tensorLeaf(const JsonTree &t, std::uint32_t node, IoKind io, const std::string &path, OpRecord &op)
{
    RecordedStats stats;
    QString checksum, location;
    TensorStorage storage = TensorStorage::Absent;
    auto name = [&] { return QString::fromUtf8(path.data(), qsizetype(path.size())); };
    // One pass over the members; the ones that are not statistics or file names are kept
    // as JSON text in `value` (type, requires_grad, DTensor device_mesh/placements, is_nan).
    enum { Dtype, ShapeKey, Max, Min, Mean, Norm, MaxOrigin, MinOrigin, Md5, DataName, DataPath, KeyCount };
    static constexpr std::array<std::string_view, KeyCount> kKeys = {
        "dtype", "shape", "Max", "Min", "Mean", "Norm", "Max_origin", "Min_origin", "md5", "data_name", "datapath"};
    std::array<std::uint32_t, KeyCount> at{};
    m_scratch.clear();
    const JsonNode &n = t.node(node);
    for (std::uint32_t c = n.first; c; c = t.node(c).next) {
        const std::string_view k = t.key(t.node(c));
        size_t i = 0;
        while (i < KeyCount && kKeys[i] != k)
            ++i;
        if (i < KeyCount) {
            at[i] = c;
            continue;
        }
        m_scratch += m_scratch.empty() ? "{" : ", ";
        appendPythonJsonString(k, m_scratch);
        m_scratch += ": ";
        t.serialize(c, m_scratch);
    }
    if (!m_scratch.empty())
        m_scratch += '}';

    std::string_view dtypeText;
    int dataType = 0;
    if (at[Dtype] && t.node(at[Dtype]).kind == JsonNode::String) {
        dtypeText = t.text(t.node(at[Dtype]));
        dataType = m_pool.dataType(dtypeText);
    }
    m_shape.clear();
    if (const std::uint32_t s = at[ShapeKey]) {
        const JsonNode &sn = t.node(s);
        if (sn.kind == JsonNode::Array && sn.count <= 64) {
            for (std::uint32_t c = sn.first; c; c = t.node(c).next) {
                const JsonNode &dim = t.node(c);
                if (dim.kind != JsonNode::Number || !dim.integer) {
                    op.addWarning(QStringLiteral("%1: shape has a non-integer dimension").arg(name()));
                    m_shape.clear();
                    break;
                }
                // Converting a double outside [-2^63, 2^64) to an integer is undefined.
                if (!(dim.number >= -0x1p63 && dim.number < 0x1p64)) {
                    op.addWarning(QStringLiteral("%1: shape has a dimension out of range (%2)")
                                      .arg(name(), QString::fromUtf8(t.text(dim).data(), qsizetype(t.text(dim).size()))));
                    m_shape.clear();
                    break;
                }
                m_shape.push_back(dim.number < 0 ? static_cast<std::uint64_t>(static_cast<std::int64_t>(dim.number))
                                                 : static_cast<std::uint64_t>(dim.number));
            }
        } else if (sn.kind == JsonNode::Array) {
            op.addWarning(QStringLiteral("%1: shape has %2 dimensions (more than 64), ignored").arg(name()).arg(sn.count));
        }
    }
    bool pending = false;
    struct Stat { int key, origin; RecordedStats::Field field; double RecordedStats::*member; };
    static constexpr Stat kStats[] = {{Max, MaxOrigin, RecordedStats::Max, &RecordedStats::max},
                                      {Min, MinOrigin, RecordedStats::Min, &RecordedStats::min},
                                      {Mean, -1, RecordedStats::Mean, &RecordedStats::mean},
                                      {Norm, -1, RecordedStats::Norm, &RecordedStats::norm}};
    for (const Stat &s : kStats) {
        double v = 0;
        // api_accuracy_checker replaces inf/nan extremes in Max/Min; the originals win.
        const std::uint32_t origin = s.origin >= 0 ? at[size_t(s.origin)] : 0;
        std::uint32_t used = 0;
        if (origin && statValue(t, origin, v, &pending))
            used = origin;
        else if (statValue(t, at[size_t(s.key)], v, &pending))
            used = at[size_t(s.key)];
        if (used) {
            stats.*(s.member) = v;
            stats.present |= s.field;
            if (t.node(used).kind == JsonNode::Number && t.node(used).integer)
                stats.integral |= s.field;
        }
    }
    if (pending)
        op.addWarning(QStringLiteral("%1: statistics pending (placeholder written by a crashed dump)").arg(name()));
    if (const std::uint32_t m = at[Md5]) {
        checksum = checksumText(t.node(m).kind, t.text(t.node(m)));
        stats.numericChecksum = t.node(m).kind == JsonNode::Number && !checksum.isEmpty();
    }
    if (const std::uint32_t dn = at[DataName]; dn && t.node(dn).kind == JsonNode::String) {
        const std::string_view file = t.text(t.node(dn));
        location = tensorDirPrefix + QString::fromUtf8(file.data(), qsizetype(file.size()));
        storage = file.ends_with(".npy") ? TensorStorage::NpyFile : TensorStorage::PtFile;
    } else if (const std::uint32_t dp = at[DataPath]; dp && t.node(dp).kind == JsonNode::String) {
        const std::string_view p = t.text(t.node(dp));
        QString loc = QString::fromUtf8(p.data(), qsizetype(p.size()));
        const qsizetype real = loc.indexOf(QLatin1String("forward_real_data_"));
        if (real >= 0)
            loc = datapathBase + loc.mid(real);
        else if (!loc.startsWith(QLatin1Char('/')))
            loc = datapathBase + loc;
        location = loc;
        storage = loc.endsWith(QLatin1String(".pt")) ? TensorStorage::PtFile : TensorStorage::NpyFile;
    }
    m_records.push_back(record(path, dtypeText, m_scratch, m_shape, io, storage, dataType, stats, checksum, location));
}

} // namespace ds::msprobe
