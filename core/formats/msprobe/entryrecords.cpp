#include "entryrecords.h"

#include "fastjsonsax.h"
#include "leafbuilder.h"
#include "simdwalk.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>

namespace ds::msprobe {

namespace {

/// The member names a leaf object is read by (LeafBuilder::walk, tensorLeaf, valueLeaf).
enum class Field : std::uint8_t {
    // tensorLeaf's own keys, in the order of its `at` slots
    Dtype, Shape, Max, Min, Mean, Norm, MaxOrigin, MinOrigin, Md5, DataName, DataPath,
    // the others
    Type, ClassType, Value, RequiresGrad, Other
};
constexpr size_t kTensorKeys = size_t(Field::DataPath) + 1;

Field fieldOf(const char *s, size_t n)
{
    auto is = [&](const char *name) { return std::memcmp(s, name, n) == 0; };
    switch (n) {
    case 3:
        if (is("Max"))
            return Field::Max;
        if (is("Min"))
            return Field::Min;
        if (is("md5"))
            return Field::Md5;
        break;
    case 4:
        if (is("type"))
            return Field::Type;
        if (is("Mean"))
            return Field::Mean;
        if (is("Norm"))
            return Field::Norm;
        break;
    case 5:
        if (is("dtype"))
            return Field::Dtype;
        if (is("shape"))
            return Field::Shape;
        if (is("value"))
            return Field::Value;
        break;
    case 8:
        if (is("datapath"))
            return Field::DataPath;
        break;
    case 9:
        if (is("data_name"))
            return Field::DataName;
        break;
    case 13:
        if (is("requires_grad"))
            return Field::RequiresGrad;
        break;
    case 10:
        if (is("class_type"))
            return Field::ClassType;
        if (is("Max_origin"))
            return Field::MaxOrigin;
        if (is("Min_origin"))
            return Field::MinOrigin;
        break;
    default: break;
    }
    return Field::Other;
}

void appendIndex(std::string &path, std::string_view part)
{
    if (!path.empty())
        path += '.';
    path += part;
}

void appendIndex(std::string &path, std::uint32_t i)
{
    char buf[16];
    const auto end = std::to_chars(buf, buf + sizeof buf, i).ptr;
    appendIndex(path, std::string_view(buf, size_t(end - buf)));
}

/// A member value of a leaf object that has no value yet (its key was the last event).
constexpr std::uint8_t kPending = 0xFF;

} // namespace

/// The RapidJSON handler. Frames are the containers walked as they stream (the entry, the
/// category containers, lists); a leaf candidate (an object below a category) is kept as
/// member spans (`m_members`, `m_elems`: pointers into the in-situ buffer, valid for the whole
/// parse) until it closes; anything the direct path does not cover is "captured": replayed
/// into a TreeBuilder and, once complete, walked by LeafBuilder.
class EntryRecords::Sax : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Sax>
{
public:
    explicit Sax(LeafBuilder &lb) : m_lb(lb)
    {
        m_members.reserve(32);
        m_elems.reserve(64);
    }

    void start(bool parametersGrad, OpRecord &op, JsonTree &entryTree)
    {
        m_parametersGrad = parametersGrad;
        m_op = &op;
        m_entryTree = &entryTree;
    }
    /// Before every attempt (parseSax): nothing of an earlier attempt stays.
    void reset()
    {
        m_lb.begin();
        *m_op = OpRecord();
        m_frames.clear();
        m_path.clear();
        m_depth = 0;
        m_capture = Capture::None;
        m_wholeEntry = false;
        m_inArray = false;
    }
    bool wholeEntry() const { return m_wholeEntry; }

    bool Null() { return scalar(JsonNode::Null, nullptr, 0); }
    bool Bool(bool b) { return scalar(b ? JsonNode::True : JsonNode::False, nullptr, 0); }
    bool RawNumber(const char *s, rapidjson::SizeType n, bool)
    {
        const std::string_view t(s, n);
        return pythonNumberToken(t) && scalar(JsonNode::Number, s, n, integerToken(t));
    }
    /// A number token already checked (EntryWindow: plainNumber), `integer` as integerToken.
    bool PlainNumber(const char *s, rapidjson::SizeType n, bool integer) { return scalar(JsonNode::Number, s, n, integer); }
    bool String(const char *s, rapidjson::SizeType n, bool) { return scalar(JsonNode::String, s, n); }
    bool Key(const char *s, rapidjson::SizeType n, bool)
    {
        if (m_capture != Capture::None)
            return m_tb.Key(s, n, false);
        if (!m_frames.empty() && m_frames.back().type == FrameType::Leaf)
            m_members.push_back({s, n, kPending, fieldOf(s, n), false, nullptr, 0, 0, 0});
        else
            m_key = std::string_view(s, n);
        return true;
    }
    bool StartObject() { return open(JsonNode::Object); }
    bool StartArray() { return open(JsonNode::Array); }
    bool EndObject(rapidjson::SizeType count) { return close(count); }
    bool EndArray(rapidjson::SizeType count) { return close(count); }

private:
    enum class FrameType : std::uint8_t {
        Entry,     ///< the entry body: members are categories (or parameters)
        Container, ///< a category object: every member is walked
        Array,     ///< a list: every element is walked
        Leaf,      ///< an object below a category: a tensor, a value, or a container
    };
    struct Frame
    {
        FrameType type;
        IoKind io;
        std::uint32_t next;      ///< Array: index of the next element
        size_t pathLen;          ///< m_path of this frame
        size_t depthBase;        ///< open containers around this one
    };
    struct Member
    {
        const char *key;
        std::uint32_t keyLen;
        std::uint8_t kind; ///< JsonNode::Kind, or kPending
        Field field;
        bool integer; ///< a number without fraction or exponent
        const char *text;
        std::uint32_t len;
        std::uint32_t elemBegin, elemEnd; ///< Array: its elements in m_elems
    };
    struct Elem
    {
        std::uint8_t kind;
        bool integer; ///< a number without fraction or exponent
        const char *text;
        std::uint32_t len;
    };
    enum class Capture : std::uint8_t { None, WholeEntry, ParametersGrad, Leaf };

    std::string_view text(const Member &m) const { return {m.text, m.len}; }

    // --- records of scalars (LeafBuilder::walk on a scalar node) -------------------------

    void scalarRecord(std::uint8_t kind, const char *s, size_t n, bool integer, IoKind io)
    {
        switch (kind) {
        case JsonNode::Null: m_lb.addValue(*m_op, io, m_path, "None", "null"); return;
        case JsonNode::True: m_lb.addValue(*m_op, io, m_path, "bool", "true"); return;
        case JsonNode::False: m_lb.addValue(*m_op, io, m_path, "bool", "false"); return;
        case JsonNode::Number: {
            const std::string_view t(s, n);
            m_lb.addValue(*m_op, io, m_path, integer ? "int" : "float", t);
            return;
        }
        default: m_lb.addValue(*m_op, io, m_path, "str", std::string_view(s, n)); return;
        }
    }

    bool scalar(std::uint8_t kind, const char *s, size_t n, bool integer = false)
    {
        if (m_capture != Capture::None)
            return replayScalar(kind, s, n) && (!m_tb.done() || finishCapture());
        // A value nested deeper than the tokenizer allows: its error.
        if (m_depth > size_t(JsonStreamReader::kMaxDepth))
            return false;
        if (m_frames.empty()) { // the body is a scalar
            startCapture(Capture::WholeEntry, 0);
            return scalar(kind, s, n, integer);
        }
        Frame &f = m_frames.back();
        switch (f.type) {
        case FrameType::Entry: {
            m_path.assign(m_key);
            if (m_parametersGrad) {
                scalarRecord(kind, s, n, integer, IoKind::Parameter);
                return true;
            }
            bool known = false;
            const IoKind io = categoryIo(m_key, known);
            if (known)
                scalarRecord(kind, s, n, integer, io);
            else if (m_key == "is_nan") // nan_check's result; other flags (is_recompute) are not kept
                m_op->nanCheck = nanCheckOf(kind, std::string_view(s, n));
            return true;
        }
        case FrameType::Container:
            appendIndex(m_path, m_key);
            scalarRecord(kind, s, n, integer, f.io);
            m_path.resize(f.pathLen);
            return true;
        case FrameType::Array:
            appendIndex(m_path, f.next++);
            scalarRecord(kind, s, n, integer, f.io);
            m_path.resize(f.pathLen);
            return true;
        case FrameType::Leaf:
            if (m_inArray) {
                m_elems.push_back({kind, integer, s, std::uint32_t(n)});
            } else {
                Member &m = m_members.back();
                m.kind = kind;
                m.integer = integer;
                m.text = s;
                m.len = std::uint32_t(n);
            }
            return true;
        }
        return true;
    }

    // --- containers ---------------------------------------------------------------------

    void push(FrameType type, IoKind io)
    {
        m_frames.push_back({type, io, 0, m_path.size(), m_depth});
        ++m_depth;
        if (type == FrameType::Leaf) {
            m_members.clear();
            m_elems.clear();
            m_inArray = false;
        }
    }
    void pop()
    {
        m_depth = m_frames.back().depthBase;
        m_frames.pop_back();
        if (!m_frames.empty())
            m_path.resize(m_frames.back().pathLen);
    }

    bool open(JsonNode::Kind kind)
    {
        const bool object = kind == JsonNode::Object;
        if (m_capture != Capture::None)
            return object ? m_tb.StartObject() : m_tb.StartArray();
        if (m_depth > size_t(JsonStreamReader::kMaxDepth))
            return false;
        if (m_frames.empty()) {
            if (object) {
                push(FrameType::Entry, IoKind::Input);
                return true;
            }
            startCapture(Capture::WholeEntry, 0); // the body is a list
            return m_tb.StartArray();
        }
        Frame &f = m_frames.back();
        switch (f.type) {
        case FrameType::Entry: {
            m_path.assign(m_key);
            if (m_parametersGrad) {
                // {"weight": [leaf]} unwraps the one-element list: known at its end only.
                startCapture(Capture::ParametersGrad, m_depth);
                return object ? m_tb.StartObject() : m_tb.StartArray();
            }
            bool known = false;
            const IoKind io = categoryIo(m_key, known);
            push(object ? FrameType::Container : FrameType::Array, io);
            return true;
        }
        case FrameType::Container:
        case FrameType::Array: {
            if (f.type == FrameType::Container)
                appendIndex(m_path, m_key);
            else
                appendIndex(m_path, f.next++);
            push(object ? FrameType::Leaf : FrameType::Array, f.io);
            return true;
        }
        case FrameType::Leaf:
            if (!object && !m_inArray) {
                // A flat list inside a leaf (shape, a list value): kept as spans.
                Member &m = m_members.back();
                m.kind = JsonNode::Array;
                m.elemBegin = m.elemEnd = std::uint32_t(m_elems.size());
                m_inArray = true;
                ++m_depth;
                return true;
            }
            // Anything nested deeper: this leaf goes through a tree.
            return promote() && (object ? m_tb.StartObject() : m_tb.StartArray());
        }
        return true;
    }

    bool close(rapidjson::SizeType count)
    {
        if (m_capture != Capture::None) {
            const bool ok = m_tb.EndObject(count); // EndArray does the same
            return ok && (!m_tb.done() || finishCapture());
        }
        Frame &f = m_frames.back();
        if (f.type == FrameType::Leaf) {
            if (m_inArray) {
                m_members.back().elemEnd = std::uint32_t(m_elems.size());
                m_inArray = false;
                --m_depth;
                return true;
            }
            return finishLeaf(count);
        }
        pop();
        return true;
    }

    // --- capture: a value through a JsonTree and LeafBuilder::walk -------------------------

    void startCapture(Capture why, size_t depthBase)
    {
        m_capture = why;
        m_tb.reset(why == Capture::WholeEntry ? *m_entryTree : m_tree, depthBase);
    }

    bool replayScalar(std::uint8_t kind, const char *s, size_t n)
    {
        switch (kind) {
        case JsonNode::Null: return m_tb.Null();
        case JsonNode::True: return m_tb.Bool(true);
        case JsonNode::False: return m_tb.Bool(false);
        case JsonNode::Number: return m_tb.RawNumber(s, rapidjson::SizeType(n), false);
        default: return m_tb.String(s, rapidjson::SizeType(n), false);
        }
    }

    /// Turns the open leaf (members so far) into a capture of its tree.
    bool promote()
    {
        startCapture(Capture::Leaf, m_frames.back().depthBase);
        bool ok = m_tb.StartObject();
        for (size_t i = 0; ok && i < m_members.size(); ++i) {
            const Member &m = m_members[i];
            ok = m_tb.Key(m.key, m.keyLen, false);
            if (!ok || m.kind == kPending)
                continue;
            if (m.kind != JsonNode::Array) {
                ok = replayScalar(m.kind, m.text, m.len);
                continue;
            }
            const bool open = m_inArray && i + 1 == m_members.size();
            const std::uint32_t end = open ? std::uint32_t(m_elems.size()) : m.elemEnd;
            ok = m_tb.StartArray();
            for (std::uint32_t e = m.elemBegin; ok && e < end; ++e)
                ok = replayScalar(m_elems[e].kind, m_elems[e].text, m_elems[e].len);
            if (ok && !open)
                ok = m_tb.EndArray(end - m.elemBegin);
        }
        m_inArray = false;
        return ok;
    }

    bool finishCapture()
    {
        const Capture why = m_capture;
        m_capture = Capture::None;
        switch (why) {
        case Capture::WholeEntry: m_wholeEntry = true; return true;
        case Capture::ParametersGrad: {
            const JsonNode &root = m_tree.root();
            if (root.kind == JsonNode::Array && root.count == 1)
                m_lb.walk(m_tree, root.first, IoKind::Parameter, m_path, *m_op, false, 1);
            else
                m_lb.walk(m_tree, 0, IoKind::Parameter, m_path, *m_op, true);
            return true;
        }
        case Capture::Leaf:
            m_lb.walk(m_tree, 0, m_frames.back().io, m_path, *m_op, false, int(m_frames.back().depthBase));
            pop();
            return true;
        case Capture::None: break;
        }
        return true;
    }

    /// The closed leaf through LeafBuilder::walk (cases the direct path leaves to it).
    bool viaTree(rapidjson::SizeType count)
    {
        return promote() && m_tb.EndObject(count) && finishCapture();
    }

    // --- leaves directly (LeafBuilder::walk, tensorLeaf, valueLeaf on the spans) ------------

    void serialize(const Member &m, std::string &out) const
    {
        auto one = [&out](std::uint8_t kind, std::string_view t) {
            switch (kind) {
            case JsonNode::Null: out += "null"; return;
            case JsonNode::False: out += "false"; return;
            case JsonNode::True: out += "true"; return;
            case JsonNode::Number: out += t; return;
            default: appendPythonJsonString(t, out); return;
            }
        };
        if (m.kind != JsonNode::Array) {
            one(m.kind, text(m));
            return;
        }
        out += '[';
        for (std::uint32_t e = m.elemBegin; e < m.elemEnd; ++e) {
            if (e != m.elemBegin)
                out += ", ";
            one(m_elems[e].kind, std::string_view(m_elems[e].text, m_elems[e].len));
        }
        out += ']';
    }

    bool finishLeaf(rapidjson::SizeType count)
    {
        int type = -1, classType = -1;
        bool dtype = false, shape = false;
        for (size_t i = 0; i < m_members.size(); ++i) {
            switch (m_members[i].field) {
            case Field::Type: type = int(i); break;
            case Field::ClassType: classType = int(i); break;
            case Field::Dtype: dtype = true; break;
            case Field::Shape: shape = true; break;
            default: break;
            }
        }
        if (classType >= 0 && m_members[size_t(classType)].kind == JsonNode::String)
            return viaTree(count); // P2POp: a value and its tensor below it
        if (type >= 0 && m_members[size_t(type)].kind == JsonNode::String) {
            const std::string_view typeName = text(m_members[size_t(type)]);
            if (isTensorType(typeName) || (dtype && shape))
                return tensorLeaf(count);
            valueLeaf(typeName);
            pop();
            return true;
        }
        if (count == 0) {
            m_lb.addValue(*m_op, m_frames.back().io, m_path, "opaque", "{}");
            pop();
            return true;
        }
        return viaTree(count); // a dict: its members are walked
    }

    void valueLeaf(std::string_view typeName)
    {
        int rest = 0, last = -1, value = -1;
        for (size_t i = 0; i < m_members.size(); ++i) {
            const Field f = m_members[i].field;
            if (f == Field::Value && value < 0)
                value = int(i);
            if (f == Field::Type)
                continue;
            ++rest;
            last = int(i);
        }
        const int single = value >= 0 ? value : (rest == 1 ? last : -1);
        m_scratch.clear();
        if (single >= 0) {
            const Member &m = m_members[size_t(single)];
            if (m.kind == JsonNode::String)
                m_scratch.assign(text(m));
            else
                serialize(m, m_scratch);
        } else if (rest > 1) {
            m_scratch += '{';
            bool first = true;
            for (const Member &m : m_members) {
                if (m.field == Field::Type)
                    continue;
                if (!first)
                    m_scratch += ", ";
                first = false;
                appendPythonJsonString(std::string_view(m.key, m.keyLen), m_scratch);
                m_scratch += ": ";
                serialize(m, m_scratch);
            }
            m_scratch += '}';
        }
        m_lb.addValue(*m_op, m_frames.back().io, m_path, typeName, m_scratch);
    }

    /// A statistic: 1 = `v` set, 0 = absent (null, a list), -1 = a string (LeafBuilder's
    /// statValue reads those: "nan", "inf", numbers as text, pending placeholders).
    int stat(int i, double &v) const
    {
        if (i < 0)
            return 0;
        const Member &m = m_members[size_t(i)];
        switch (m.kind) {
        case JsonNode::Number: v = numberFromText(text(m), m.integer); return 1;
        case JsonNode::True: v = 1; return 1;
        case JsonNode::False: v = 0; return 1;
        case JsonNode::String: return -1;
        default: return 0;
        }
    }

    bool tensorLeaf(rapidjson::SizeType count)
    {
        std::array<int, kTensorKeys> at;
        at.fill(-1);
        for (size_t i = 0; i < m_members.size(); ++i)
            if (size_t(m_members[i].field) < kTensorKeys)
                at[size_t(m_members[i].field)] = int(i);
        const std::string &value = otherMembers();
        auto member = [&](Field f) -> const Member * {
            const int i = at[size_t(f)];
            return i >= 0 ? &m_members[size_t(i)] : nullptr;
        };
        // Shapes: up to 64 integer dimensions of up to 15 digits (exact in the double the
        // tree path converts through); anything else, and its warnings, is the tree path's.
        m_shape.clear();
        if (const Member *s = member(Field::Shape); s && s->kind == JsonNode::Array) {
            if (s->elemEnd - s->elemBegin > 64)
                return viaTree(count);
            for (std::uint32_t e = s->elemBegin; e < s->elemEnd; ++e) {
                const Elem &d = m_elems[e];
                const std::string_view t(d.text, d.len);
                const bool neg = !t.empty() && t[0] == '-';
                if (d.kind != JsonNode::Number || !d.integer || t.size() - neg > 15)
                    return viaTree(count);
                std::uint64_t v = 0;
                for (size_t k = neg; k < t.size(); ++k)
                    v = v * 10 + std::uint64_t(t[k] - '0');
                m_shape.push_back(neg ? std::uint64_t(-std::int64_t(v)) : v);
            }
        }
        RecordedStats stats;
        struct Stat { Field key, origin; RecordedStats::Field field; double RecordedStats::*member; };
        static constexpr Stat kStats[] = {{Field::Max, Field::MaxOrigin, RecordedStats::Max, &RecordedStats::max},
                                          {Field::Min, Field::MinOrigin, RecordedStats::Min, &RecordedStats::min},
                                          {Field::Mean, Field::Other, RecordedStats::Mean, &RecordedStats::mean},
                                          {Field::Norm, Field::Other, RecordedStats::Norm, &RecordedStats::norm}};
        for (const Stat &s : kStats) {
            double v = 0;
            // api_accuracy_checker replaces inf/nan extremes in Max/Min; the originals win.
            int used = s.origin != Field::Other ? at[size_t(s.origin)] : -1;
            int got = stat(used, v);
            if (got == 0) {
                used = at[size_t(s.key)];
                got = stat(used, v);
            }
            if (got < 0)
                return viaTree(count);
            if (got > 0) {
                stats.*(s.member) = v;
                stats.present |= s.field;
                if (m_members[size_t(used)].kind == JsonNode::Number && m_members[size_t(used)].integer)
                    stats.integral |= s.field;
            }
        }
        QString checksum, location;
        TensorStorage storage = TensorStorage::Absent;
        if (const Member *m = member(Field::Md5)) {
            checksum = LeafBuilder::checksumText(m->kind, text(*m));
            stats.numericChecksum = m->kind == JsonNode::Number && !checksum.isEmpty();
        }
        if (const Member *dn = member(Field::DataName); dn && dn->kind == JsonNode::String) {
            const std::string_view file = text(*dn);
            location = m_lb.tensorDirPrefix + QString::fromUtf8(file.data(), qsizetype(file.size()));
            storage = file.ends_with(".npy") ? TensorStorage::NpyFile : TensorStorage::PtFile;
        } else if (const Member *dp = member(Field::DataPath); dp && dp->kind == JsonNode::String) {
            return viaTree(count); // forward_info paths
        }
        std::string_view dtypeText;
        int dataType = 0;
        if (const Member *dt = member(Field::Dtype); dt && dt->kind == JsonNode::String) {
            dtypeText = text(*dt);
            dataType = dataTypeOf(dtypeText);
        }
        m_lb.addRecord(m_path, dtypeText, value, m_shape, m_frames.back().io, storage, dataType, stats, checksum,
                       location);
        pop();
        return true;
    }

    /// The members of the tensor leaf that are not statistics or file names, as JSON text
    /// (`{"type": "torch.Tensor", "requires_grad": true}`). Consecutive tensors mostly have the
    /// same ones: the last text is kept with the scalar members it was made of and reused.
    const std::string &otherMembers()
    {
        size_t n = 0;
        bool same = m_lastOthersValid;
        for (const Member &m : m_members) {
            if (size_t(m.field) < kTensorKeys)
                continue;
            // Known names compare as their Field; texts of literals are empty.
            same = same && n < m_lastOthers.size() && m.kind != JsonNode::Array && m_lastOthers[n].kind == m.kind
                   && m_lastOthers[n].field == m.field
                   && (m.field != Field::Other || m_lastOthers[n].key == std::string_view(m.key, m.keyLen))
                   && (m.len == 0 ? m_lastOthers[n].text.empty() : m_lastOthers[n].text == text(m));
            ++n;
        }
        if (same && n == m_lastOthers.size())
            return m_lastValue;
        m_lastValue.clear();
        m_lastOthers.resize(n);
        m_lastOthersValid = true;
        n = 0;
        for (const Member &m : m_members) {
            if (size_t(m.field) < kTensorKeys)
                continue;
            m_lastValue += m_lastValue.empty() ? "{" : ", ";
            appendPythonJsonString(std::string_view(m.key, m.keyLen), m_lastValue);
            m_lastValue += ": ";
            serialize(m, m_lastValue);
            m_lastOthersValid = m_lastOthersValid && m.kind != JsonNode::Array;
            m_lastOthers[n].kind = m.kind;
            m_lastOthers[n].field = m.field;
            m_lastOthers[n].key.assign(m.key, m.keyLen);
            m_lastOthers[n++].text.assign(text(m));
        }
        if (!m_lastValue.empty())
            m_lastValue += '}';
        return m_lastValue;
    }

    /// StringPool::dataType behind a few most recent texts (a file uses a handful of dtypes).
    int dataTypeOf(std::string_view text)
    {
        for (const auto &[t, type] : m_dtypes)
            if (t == text)
                return type;
        const int type = m_lb.pool().dataType(text);
        m_dtypes[m_nextDtype] = {std::string(text), type};
        m_nextDtype = (m_nextDtype + 1) % m_dtypes.size();
        return type;
    }

    LeafBuilder &m_lb;
    std::array<std::pair<std::string, int>, 4> m_dtypes{};
    size_t m_nextDtype = 0;
    OpRecord *m_op = nullptr;
    JsonTree *m_entryTree = nullptr;
    bool m_parametersGrad = false;
    bool m_wholeEntry = false;
    bool m_inArray = false; ///< the open leaf's last member is a list still open
    Capture m_capture = Capture::None;
    size_t m_depth = 0; ///< containers open around the next value (the tokenizer's depth)
    std::vector<Frame> m_frames;
    std::string m_path;
    std::string_view m_key; ///< last member name of an Entry / Container frame
    std::vector<Member> m_members;
    std::vector<Elem> m_elems;
    std::string m_scratch;
    struct ScalarMember
    {
        std::uint8_t kind;
        Field field;
        std::string key, text;
    };
    std::vector<ScalarMember> m_lastOthers; ///< otherMembers(): what m_lastValue was made of
    bool m_lastOthersValid = false;         ///< all scalars (a list is not kept)
    std::string m_lastValue;
    Shape m_shape;
    TreeBuilder m_tb;
    JsonTree m_tree;
};

EntryRecords::EntryRecords(LeafBuilder &lb) : d(std::make_unique<Sax>(lb)) {}
EntryRecords::~EntryRecords() = default;

bool EntryRecords::parse(FastJsonReader &r, bool parametersGrad, OpRecord &op, JsonTree &tree, bool &inTree)
{
    d->start(parametersGrad, op, tree);
    bool viaTree = false;
    const bool ok = r.parseSax(*d, tree, viaTree);
    inTree = viaTree || d->wholeEntry();
    if (viaTree)
        d->reset(); // nothing of RapidJSON's attempt stays
    return ok;
}

// --- EntryWindow::parse: the window walk (simdwalk.h) into this handler ------------------

bool EntryWindow::parse(EntryRecords &records, bool parametersGrad, OpRecord &op, JsonTree &tree, bool &inTree)
{
    EntryRecords::Sax &sax = *records.d;
    sax.start(parametersGrad, op, tree);
    sax.reset();
    const bool ok = simdwalk::events(d->doc, d->member.value(), sax, '}');
    inTree = ok && sax.wholeEntry();
    if (!ok)
        sax.reset();
    return ok;
}

} // namespace ds::msprobe
