#include "getextfastparser.h"

#include "formats/ge/geconvert.h"

#include <cctype>
#include <charconv>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

namespace ds::ge::detail {

namespace pb = dumpscope::ge;

namespace {

/// Same limit as the TextFormat path's nesting check (gegraphreader.cpp, kMaxNesting).
constexpr int kMaxDepth = 100;
/// From this size the direct reader gives the second half of the ops to a second thread.
constexpr qsizetype kSplitBytes = 4 << 20;
/// Bytes per op for the second thread's reservation: GE writes 250 bytes to a few KB per op, so it is
/// rarely outgrown, and the pages it does not fill are never touched.
constexpr qsizetype kMinOpBytes = 128;

bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }

/// Recursive-descent reader over the mapped text. Every `return stop(...)` is a fall-back to
/// TextFormat, not an error shown to the user.
class Reader
{
public:
    Reader(const char *begin, const char *end, QHash<int, QString> *unknownEnums)
        : m_begin(begin), m_p(begin), m_end(end), m_unknownEnums(unknownEnums)
    {
    }

    /// The direct path: the ops of top-level graphs are converted as they are read (one scratch
    /// OpDef reused) and appended to `(*nodes)[graph]`; the message keeps the rest.
    void convertOps(OpConverter *converter, std::vector<std::vector<GraphNode>> *nodes)
    {
        m_converter = converter;
        m_graphNodes = nodes;
        m_scratch = std::make_unique<pb::OpDef>();
    }

    /// The second thread's half of a top-level graph: the ops from m_p (the 'o' of an `op`
    /// field) to the graph's closing '}', left at `*end`. False (and nothing to adopt) on anything
    /// else: another field, an unknown dtype, or where m_p did not start an op.
    bool opsToGraphEnd(std::vector<GraphNode> *nodes, const char **end)
    {
        m_depth = 1;
        const bool ok = body(false, [&](std::string_view f) { return f == "op" ? convertedOp(nodes) : unknown(f); });
        if (ok)
            *end = m_p - 1;
        return ok;
    }

    /// Where a second thread reads the rest of a top-level graph's ops (nullptr: nowhere), and
    /// what it found; adopted when this reader reaches exactly that `op` field.
    struct Split
    {
        const char *at = nullptr;
        std::thread thread;
        bool ok = false;
        const char *end = nullptr;
        std::vector<GraphNode> nodes;
        bool adopted = false;
    };
    Split *m_split = nullptr;

    bool model(pb::ModelDef *m)
    {
        unsigned seen = 0;
        return body(true, [&](std::string_view f) {
            if (f == "graph") {
                if (m_graphNodes)
                    m_graphNodes->emplace_back();
                return open() && graph(m->add_graph(), m_graphNodes != nullptr);
            }
            if (f == "attr")
                return open() && mapEntry(m->mutable_attr());
            if (f == "name")
                return once(&seen, 1) && colon() && string(m->mutable_name());
            if (f == "version") {
                std::int64_t v = 0;
                if (!once(&seen, 2) || !colon() || !integer(&v))
                    return false;
                if (v < 0 || v > std::int64_t(UINT32_MAX))
                    return stop("uint32 out of range");
                m->set_version(std::uint32_t(v));
                return true;
            }
            if (f == "custom_version")
                return once(&seen, 4) && colon() && string(m->mutable_custom_version());
            return unknown(f);
        });
    }

    const char *m_begin;
    const char *m_p;
    const char *m_end;
    const char *m_why = nullptr;
    const char *m_stopAt = nullptr;

private:
    int m_depth = 0;
    QHash<int, QString> *m_unknownEnums;
    QHash<QByteArray, int> m_unknownDtypes;
    OpConverter *m_converter = nullptr;
    std::vector<std::vector<GraphNode>> *m_graphNodes = nullptr;
    std::unique_ptr<pb::OpDef> m_scratch;

    /// One `op { ... }` read into the scratch message and converted.
    bool convertedOp(std::vector<GraphNode> *nodes)
    {
        m_scratch->Clear();
        if (!open() || !op(m_scratch.get()))
            return false;
        nodes->push_back(m_converter->convert(*m_scratch));
        return true;
    }

    /// At the split point: wait for the second thread and take its ops and position.
    bool adoptSplit(std::vector<GraphNode> *nodes)
    {
        if (m_split->thread.joinable())
            m_split->thread.join();
        if (!m_split->ok)
            return false;
        nodes->reserve(nodes->size() + m_split->nodes.size());
        std::move(m_split->nodes.begin(), m_split->nodes.end(), std::back_inserter(*nodes));
        m_split->nodes = {};
        m_split->adopted = true;
        m_p = m_split->end;
        return true;
    }

    bool stop(const char *why)
    {
        if (!m_why) {
            m_why = why;
            m_stopAt = m_p;
        }
        return false;
    }
    bool unknown(std::string_view) { return stop("field outside the fast subset"); }

    void skipSpace()
    {
        while (m_p < m_end) {
            const char c = *m_p;
            if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
                ++m_p;
            } else if (c == '#') {
                while (m_p < m_end && *m_p != '\n')
                    ++m_p;
            } else {
                break;
            }
        }
    }

    /// A singular field seen twice is TextFormat's error (or oneof clash): fall back.
    bool once(unsigned *seen, unsigned bit)
    {
        if (*seen & bit)
            return stop("singular field repeated");
        *seen |= bit;
        return true;
    }

    bool colon()
    {
        skipSpace();
        if (m_p >= m_end || *m_p != ':')
            return stop("expected ':'");
        ++m_p;
        skipSpace();
        return true;
    }

    /// `field {` or `field: {`; entering one more level.
    bool open()
    {
        skipSpace();
        if (m_p < m_end && *m_p == ':') {
            ++m_p;
            skipSpace();
        }
        if (m_p >= m_end || *m_p != '{')
            return stop("expected '{'");
        ++m_p;
        if (++m_depth > kMaxDepth)
            return stop("nested too deep");
        return true;
    }

    /// Fields until `}` (or the end of the text at the top level), each handled by `field`.
    template<typename Field>
    bool body(bool topLevel, Field &&field)
    {
        for (;;) {
            skipSpace();
            if (m_p >= m_end) {
                if (topLevel)
                    return true;
                return stop("unterminated message");
            }
            if (*m_p == '}') {
                if (topLevel)
                    return stop("unbalanced '}'");
                ++m_p;
                --m_depth;
                return true;
            }
            if (!isIdentStart(*m_p))
                return stop("expected a field name");
            const char *start = m_p;
            while (m_p < m_end && isIdentChar(*m_p))
                ++m_p;
            if (!field(std::string_view(start, size_t(m_p - start))))
                return false;
            skipSpace();
            if (m_p < m_end && (*m_p == ';' || *m_p == ','))
                ++m_p;
        }
    }

    bool string(std::string *out)
    {
        out->clear();
        bool any = false;
        for (;;) { // adjacent literals concatenate
            if (m_p >= m_end || (*m_p != '"' && *m_p != '\''))
                return any ? true : stop("expected a string");
            any = true;
            const char quote = *m_p++;
            const char *run = m_p;
            for (;;) {
                if (m_p >= m_end || *m_p == '\n')
                    return stop("unterminated string");
                const char c = *m_p;
                if (c == quote) {
                    out->append(run, size_t(m_p - run));
                    ++m_p;
                    break;
                }
                if (c != '\\') {
                    ++m_p;
                    continue;
                }
                out->append(run, size_t(m_p - run));
                if (!escape(out))
                    return false;
                run = m_p;
            }
            skipSpace();
        }
    }

    /// One escape sequence at m_p (the backslash), as protobuf's CUnescape reads it.
    bool escape(std::string *out)
    {
        ++m_p;
        if (m_p >= m_end)
            return stop("unterminated string");
        const char c = *m_p++;
        switch (c) {
        case 'a': out->push_back('\a'); return true;
        case 'b': out->push_back('\b'); return true;
        case 'f': out->push_back('\f'); return true;
        case 'n': out->push_back('\n'); return true;
        case 'r': out->push_back('\r'); return true;
        case 't': out->push_back('\t'); return true;
        case 'v': out->push_back('\v'); return true;
        case '\\': case '?': case '\'': case '"': out->push_back(c); return true;
        default: break;
        }
        if (c >= '0' && c <= '7') {
            int v = c - '0';
            for (int k = 0; k < 2 && m_p < m_end && *m_p >= '0' && *m_p <= '7'; ++k)
                v = v * 8 + (*m_p++ - '0');
            if (v > 255)
                return stop("octal escape over 255");
            out->push_back(char(v));
            return true;
        }
        if (c == 'x' || c == 'X') {
            int v = 0, n = 0;
            for (; n < 2 && m_p < m_end && std::isxdigit(static_cast<unsigned char>(*m_p)); ++n, ++m_p)
                v = v * 16 + (isDigit(*m_p) ? *m_p - '0' : (*m_p | 0x20) - 'a' + 10);
            if (n == 0)
                return stop("empty hex escape");
            out->push_back(char(v));
            return true;
        }
        return stop("escape outside the fast subset");
    }

    /// A decimal integer (optionally negative) fitting int64; hex, octal and floats fall back.
    bool integer(std::int64_t *out)
    {
        const bool negative = m_p < m_end && *m_p == '-';
        if (negative)
            ++m_p;
        if (m_p >= m_end || !isDigit(*m_p))
            return stop("expected an integer");
        if (*m_p == '0' && m_p + 1 < m_end && (isIdentChar(m_p[1]) || m_p[1] == '.'))
            return stop("integer outside the fast subset");
        const std::uint64_t limit = negative ? std::uint64_t(INT64_MAX) + 1 : std::uint64_t(INT64_MAX);
        std::uint64_t v = 0;
        while (m_p < m_end && isDigit(*m_p)) {
            const unsigned d = unsigned(*m_p - '0');
            if (v > (limit - d) / 10)
                return stop("integer out of range");
            v = v * 10 + d;
            ++m_p;
        }
        if (m_p < m_end && (isIdentChar(*m_p) || *m_p == '.'))
            return stop("integer outside the fast subset");
        *out = negative ? std::int64_t(0 - v) : std::int64_t(v);
        return true;
    }

    /// A decimal float as TextFormat reads it into a `float` field (double, then narrowed).
    bool real(float *out)
    {
        const char *start = m_p;
        if (m_p < m_end && *m_p == '-')
            ++m_p;
        const char *digits = m_p;
        if (m_p < m_end && *m_p == '0' && m_p + 1 < m_end && (isDigit(m_p[1]) || m_p[1] == 'x' || m_p[1] == 'X'))
            return stop("number outside the fast subset");
        int count = 0;
        while (m_p < m_end && isDigit(*m_p))
            ++m_p, ++count;
        const bool integral = !(m_p < m_end && (*m_p == '.' || *m_p == 'e' || *m_p == 'E'));
        if (m_p < m_end && *m_p == '.') {
            ++m_p;
            while (m_p < m_end && isDigit(*m_p))
                ++m_p, ++count;
        }
        if (count == 0)
            return stop("expected a number");
        if (m_p < m_end && (*m_p == 'e' || *m_p == 'E')) {
            const char *e = m_p + 1;
            if (e < m_end && (*e == '+' || *e == '-'))
                ++e;
            if (e < m_end && isDigit(*e)) {
                m_p = e;
                while (m_p < m_end && isDigit(*m_p))
                    ++m_p;
            }
        }
        if (m_p < m_end && (isIdentChar(*m_p) || *m_p == '.'))
            return stop("number outside the fast subset");
        if (integral && m_p - digits > 19)
            return stop("integer out of range");
        double v = 0;
        const auto r = std::from_chars(start, m_p, v);
        if (r.ec != std::errc() || r.ptr != m_p || !std::isfinite(v) || std::fabs(v) > double(FLT_MAX))
            return stop("number outside the fast subset");
        *out = float(v);
        return true;
    }

    bool word(std::string_view *out)
    {
        const char *start = m_p;
        while (m_p < m_end && isIdentChar(*m_p))
            ++m_p;
        if (m_p == start || !isIdentStart(*start))
            return stop("expected a name");
        *out = std::string_view(start, size_t(m_p - start));
        return true;
    }

    bool boolean(bool *out)
    {
        std::string_view w;
        if (!word(&w))
            return false;
        if (w == "true")
            *out = true;
        else if (w == "false")
            *out = false;
        else
            return stop("boolean outside the fast subset");
        return true;
    }

    template<typename Enum, typename ParseFn>
    bool enumeration(Enum *out, ParseFn parse)
    {
        std::string_view w;
        if (!word(&w))
            return false;
        if (!parse(std::string(w), out))
            return stop("unknown enumeration value");
        return true;
    }

    // Scalar field helpers: `name: value`.
    bool intField(std::int64_t *out) { return colon() && integer(out); }
    template<typename Setter>
    bool intTo(Setter set)
    {
        std::int64_t v = 0;
        if (!intField(&v))
            return false;
        set(v);
        return true;
    }
    template<typename Setter>
    bool boolTo(Setter set)
    {
        bool v = false;
        if (!colon() || !boolean(&v))
            return false;
        set(v);
        return true;
    }
    template<typename Setter>
    bool floatTo(Setter set)
    {
        float v = 0;
        if (!colon() || !real(&v))
            return false;
        set(v);
        return true;
    }

    bool mapEntry(google::protobuf::Map<std::string, pb::AttrDef> *map)
    {
        // GE writes `key` before `value`; anything else falls back.
        std::string key;
        pb::AttrDef *value = nullptr;
        unsigned seen = 0;
        return body(false, [&](std::string_view f) {
            if (f == "key") {
                if (!once(&seen, 1) || !colon() || !string(&key))
                    return false;
                if (map->count(key))
                    return stop("map key repeated");
                value = &(*map)[key];
                return true;
            }
            if (f == "value") {
                if (!value)
                    return stop("map value before its key");
                return once(&seen, 2) && open() && attrDef(value);
            }
            return unknown(f);
        }) && (value || stop("map entry without a key"));
    }

    bool graph(pb::GraphDef *g, bool topLevel = false)
    {
        unsigned seen = 0;
        std::vector<GraphNode> *nodes = topLevel ? &m_graphNodes->back() : nullptr;
        return body(false, [&](std::string_view f) {
            if (f == "op" && nodes) {
                if (m_split && f.data() == m_split->at && adoptSplit(nodes))
                    return true;
                return convertedOp(nodes);
            }
            if (f == "op")
                return open() && op(g->add_op());
            if (f == "name")
                return once(&seen, 1) && colon() && string(g->mutable_name());
            if (f == "input")
                return colon() && string(g->add_input());
            if (f == "output")
                return colon() && string(g->add_output());
            if (f == "attr")
                return open() && mapEntry(g->mutable_attr());
            return unknown(f);
        });
    }

    bool op(pb::OpDef *o)
    {
        unsigned seen = 0;
        return body(false, [&](std::string_view f) {
            switch (f.size()) {
            case 2:
                if (f == "id")
                    return once(&seen, 1) && intTo([&](std::int64_t v) { o->set_id(v); });
                break;
            case 4:
                if (f == "name")
                    return once(&seen, 2) && colon() && string(o->mutable_name());
                if (f == "type")
                    return once(&seen, 4) && colon() && string(o->mutable_type());
                if (f == "attr")
                    return open() && mapEntry(o->mutable_attr());
                break;
            case 5:
                if (f == "input")
                    return colon() && string(o->add_input());
                break;
            case 7:
                if (f == "input_i")
                    return intTo([&](std::int64_t v) { o->add_input_i(v); });
                break;
            case 8:
                if (f == "src_name")
                    return colon() && string(o->add_src_name());
                if (f == "dst_name")
                    return colon() && string(o->add_dst_name());
                if (f == "output_i")
                    return intTo([&](std::int64_t v) { o->add_output_i(v); });
                break;
            case 9:
                if (f == "stream_id")
                    return once(&seen, 8) && intTo([&](std::int64_t v) { o->set_stream_id(v); });
                if (f == "src_index")
                    return intTo([&](std::int64_t v) { o->add_src_index(v); });
                if (f == "dst_index")
                    return intTo([&](std::int64_t v) { o->add_dst_index(v); });
                if (f == "workspace")
                    return intTo([&](std::int64_t v) { o->add_workspace(v); });
                break;
            case 10:
                if (f == "input_desc")
                    return open() && tensorDesc(o->add_input_desc());
                if (f == "input_name")
                    return colon() && string(o->add_input_name());
                break;
            case 11:
                if (f == "output_desc")
                    return open() && tensorDesc(o->add_output_desc());
                break;
            case 12:
                if (f == "has_out_attr")
                    return once(&seen, 16) && boolTo([&](bool v) { o->set_has_out_attr(v); });
                break;
            case 13:
                if (f == "subgraph_name")
                    return colon() && string(o->add_subgraph_name());
                break;
            case 14:
                if (f == "is_input_const")
                    return boolTo([&](bool v) { o->add_is_input_const(v); });
                break;
            case 15:
                if (f == "workspace_bytes")
                    return intTo([&](std::int64_t v) { o->add_workspace_bytes(v); });
                break;
            case 18:
                if (f == "attached_stream_id")
                    return once(&seen, 32) && intTo([&](std::int64_t v) { o->set_attached_stream_id(v); });
                break;
            default: break;
            }
            return unknown(f);
        });
    }

    bool shape(pb::ShapeDef *s)
    {
        return body(false, [&](std::string_view f) {
            if (f == "dim")
                return intTo([&](std::int64_t v) { s->add_dim(v); });
            return unknown(f);
        });
    }

    bool tensorDesc(pb::TensorDescriptor *d)
    {
        unsigned seen = 0;
        return body(false, [&](std::string_view f) {
            if (f == "dtype")
                return once(&seen, 1) && colon() && dtype(d);
            if (f == "shape")
                return once(&seen, 2) && open() && shape(d->mutable_shape());
            if (f == "layout")
                return once(&seen, 4) && colon() && string(d->mutable_layout());
            if (f == "attr")
                return open() && mapEntry(d->mutable_attr());
            if (f == "name")
                return once(&seen, 8) && colon() && string(d->mutable_name());
            if (f == "size")
                return once(&seen, 16) && intTo([&](std::int64_t v) { d->set_size(v); });
            if (f == "device_type")
                return once(&seen, 32) && colon() && string(d->mutable_device_type());
            if (f == "cmps_tab")
                return once(&seen, 64) && colon() && string(d->mutable_cmps_tab());
            struct IntField { std::string_view name; unsigned bit; void (pb::TensorDescriptor::*set)(std::int64_t); };
            static const IntField ints[] = {
                {"weight_size", 1u << 8, &pb::TensorDescriptor::set_weight_size},
                {"real_dim_cnt", 1u << 9, &pb::TensorDescriptor::set_real_dim_cnt},
                {"reuse_input_index", 1u << 10, &pb::TensorDescriptor::set_reuse_input_index},
                {"data_offset", 1u << 11, &pb::TensorDescriptor::set_data_offset},
                {"cmps_size", 1u << 12, &pb::TensorDescriptor::set_cmps_size},
                {"cmps_tab_offset", 1u << 13, &pb::TensorDescriptor::set_cmps_tab_offset},
            };
            for (const auto &i : ints)
                if (f == i.name)
                    return once(&seen, i.bit) && intTo([&](std::int64_t v) { (d->*i.set)(v); });
            struct BoolField { std::string_view name; unsigned bit; void (pb::TensorDescriptor::*set)(bool); };
            static const BoolField bools[] = {
                {"has_out_attr", 1u << 14, &pb::TensorDescriptor::set_has_out_attr},
                {"reuse_input", 1u << 15, &pb::TensorDescriptor::set_reuse_input},
                {"output_tensor", 1u << 16, &pb::TensorDescriptor::set_output_tensor},
                {"input_tensor", 1u << 17, &pb::TensorDescriptor::set_input_tensor},
            };
            for (const auto &b : bools)
                if (f == b.name)
                    return once(&seen, b.bit) && boolTo([&](bool v) { (d->*b.set)(v); });
            return unknown(f);
        });
    }

    bool namedAttrs(pb::NamedAttrs *na)
    {
        unsigned seen = 0;
        return body(false, [&](std::string_view f) {
            if (f == "name")
                return once(&seen, 1) && colon() && string(na->mutable_name());
            if (f == "attr")
                return open() && mapEntry(na->mutable_attr());
            return unknown(f);
        });
    }

    bool listValue(pb::AttrDef::ListValue *l)
    {
        unsigned seen = 0;
        return body(false, [&](std::string_view f) {
            if (f == "s")
                return colon() && string(l->add_s());
            if (f == "i")
                return intTo([&](std::int64_t v) { l->add_i(v); });
            if (f == "f")
                return floatTo([&](float v) { l->add_f(v); });
            if (f == "b")
                return boolTo([&](bool v) { l->add_b(v); });
            if (f == "bt")
                return colon() && string(l->add_bt());
            if (f == "dt")
                return intTo([&](std::int64_t v) { l->add_dt(v); });
            if (f == "td")
                return open() && tensorDesc(l->add_td());
            if (f == "t")
                return open() && tensorDef(l->add_t());
            if (f == "g")
                return open() && graph(l->add_g());
            if (f == "na")
                return open() && namedAttrs(l->add_na());
            if (f == "val_type") {
                pb::AttrDef::ListValue::ListValueType t{};
                return once(&seen, 1) && colon() && enumeration(&t, pb::AttrDef::ListValue::ListValueType_Parse)
                    && (l->set_val_type(t), true);
            }
            return unknown(f);
        });
    }

    bool listListInt(pb::AttrDef::ListListInt *l)
    {
        return body(false, [&](std::string_view f) {
            if (f == "list_list_i")
                return open() && body(false, [&, row = l->add_list_list_i()](std::string_view g) {
                           if (g == "list_i")
                               return intTo([&](std::int64_t v) { row->add_list_i(v); });
                           return unknown(g);
                       });
            return unknown(f);
        });
    }

    bool dtype(pb::TensorDescriptor *d)
    {
        std::string_view w;
        if (!word(&w))
            return false;
        pb::DataType t{};
        if (pb::DataType_Parse(std::string(w), &t)) {
            d->set_dtype(t);
            return true;
        }
        if (!m_unknownEnums)
            return stop("unknown enumeration value");
        const QByteArray name(w.data(), qsizetype(w.size()));
        auto it = m_unknownDtypes.constFind(name);
        if (it == m_unknownDtypes.cend()) {
            const int value = 100000 + int(m_unknownEnums->size());
            m_unknownEnums->insert(value, QString::fromLatin1(name));
            it = m_unknownDtypes.insert(name, value);
        }
        d->set_dtype(pb::DataType(*it));
        return true;
    }

    bool listListFloat(pb::AttrDef::ListListFloat *l)
    {
        return body(false, [&](std::string_view f) {
            if (f == "list_list_f")
                return open() && body(false, [&, row = l->add_list_list_f()](std::string_view g) {
                           if (g == "list_f")
                               return floatTo([&](float v) { row->add_list_f(v); });
                           return unknown(g);
                       });
            return unknown(f);
        });
    }

    bool tensorDef(pb::TensorDef *t)
    {
        unsigned seen = 0;
        return body(false, [&](std::string_view f) {
            if (f == "desc")
                return once(&seen, 1) && open() && tensorDesc(t->mutable_desc());
            if (f == "data")
                return once(&seen, 2) && colon() && string(t->mutable_data());
            return unknown(f);
        });
    }

    bool attrDef(pb::AttrDef *a)
    {
        bool set = false; // the oneof `value`: a second member is TextFormat's error
        auto one = [&] { return set ? stop("oneof member repeated") : (set = true); };
        return body(false, [&](std::string_view f) {
            if (f == "s")
                return one() && colon() && string(a->mutable_s());
            if (f == "i")
                return one() && intTo([&](std::int64_t v) { a->set_i(v); });
            if (f == "list")
                return one() && open() && listValue(a->mutable_list());
            if (f == "b")
                return one() && boolTo([&](bool v) { a->set_b(v); });
            if (f == "f")
                return one() && floatTo([&](float v) { a->set_f(v); });
            if (f == "dt")
                return one() && intTo([&](std::int64_t v) { a->set_dt(v); });
            if (f == "bt")
                return one() && colon() && string(a->mutable_bt());
            if (f == "td")
                return one() && open() && tensorDesc(a->mutable_td());
            if (f == "func")
                return one() && open() && namedAttrs(a->mutable_func());
            if (f == "list_list_int")
                return one() && open() && listListInt(a->mutable_list_list_int());
            if (f == "list_list_float")
                return one() && open() && listListFloat(a->mutable_list_list_float());
            if (f == "t")
                return one() && open() && tensorDef(a->mutable_t());
            if (f == "g")
                return one() && open() && graph(a->mutable_g());
            return unknown(f);
        });
    }
};

} // namespace

namespace {

void describeStop(const Reader &reader, FastParseStop *stop)
{
    if (!stop)
        return;
    const char *at = reader.m_stopAt ? reader.m_stopAt : reader.m_p;
    int line = 1;
    const char *lineStart = reader.m_begin;
    for (const char *c = reader.m_begin; c < at; ++c)
        if (*c == '\n') {
            ++line;
            lineStart = c + 1;
        }
    stop->line = line;
    stop->column = int(at - lineStart) + 1;
    stop->reason = QString::fromLatin1(reader.m_why ? reader.m_why : "stopped");
}

/// The 'o' of the first `op` that starts a line after the middle of the text (GE writes one
/// field per line), or -1. Only a guess: the first thread checks that it reaches exactly there
/// at a top-level graph's op, and otherwise reads on alone.
qsizetype middleOp(const QByteArray &text)
{
    const char *begin = text.constData(), *end = begin + text.size();
    for (const char *p = begin + text.size() / 2; p < end; ++p) {
        p = static_cast<const char *>(std::memchr(p, '\n', size_t(end - p)));
        if (!p)
            return -1;
        const char *q = p + 1;
        while (q < end && (*q == ' ' || *q == '\t'))
            ++q;
        if (end - q >= 4 && q[0] == 'o' && q[1] == 'p' && (q[2] == ' ' || q[2] == '{' || q[2] == ':'))
            return q - begin;
    }
    return -1;
}

} // namespace

bool parseGeProtoTextDirect(const QByteArray &text, pb::ModelDef *model, std::vector<std::vector<GraphNode>> *nodes,
                            FastParseStop *stop, QHash<int, QString> *unknownEnums, qsizetype splitAt, bool *splitAdopted)
{
    model->Clear();
    nodes->clear();
    const char *begin = text.constData(), *end = begin + text.size();
    if (splitAt < 0)
        splitAt = text.size() >= kSplitBytes ? middleOp(text) : -1;
    Reader::Split split;
    OpConverter second(nullptr); // unknown dtypes stop the second thread: their numbers go in order
    if (splitAt > 0 && splitAt < text.size()) {
        split.at = begin + splitAt;
        split.nodes.reserve(size_t(text.size() - splitAt) / kMinOpBytes);
        split.thread = std::thread([&] {
            Reader tail(begin, end, nullptr);
            tail.m_p = split.at;
            tail.convertOps(&second, nullptr);
            split.ok = tail.opsToGraphEnd(&split.nodes, &split.end);
        });
    }
    OpConverter first(unknownEnums);
    Reader reader(begin, end, unknownEnums);
    reader.convertOps(&first, nodes);
    reader.m_split = split.at ? &split : nullptr;
    const bool ok = reader.model(model);
    if (split.thread.joinable())
        split.thread.join();
    if (!ok)
        describeStop(reader, stop);
    if (splitAdopted)
        *splitAdopted = ok && split.adopted;
    return ok;
}

} // namespace ds::ge::detail
