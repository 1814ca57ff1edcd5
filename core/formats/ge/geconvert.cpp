#include "geconvert.h"

#include "formats/ge/gegraphreader.h"

#include <QStringList>

#include <algorithm>
#include <iterator>
#include <string>
#include <thread>
#include <unordered_map>

namespace ds::ge::detail {

namespace pb = dumpscope::ge;

QString qs(const std::string &s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

QString num(double v) { return QString::number(v, 'g', 9); }

namespace {

QString bytesText(const std::string &b)
{
    QString s = QStringLiteral("<%1 bytes>").arg(b.size());
    if (!b.empty())
        s += QLatin1Char(' ') + QString::fromLatin1(QByteArray(b.data(), qsizetype(std::min<size_t>(b.size(), 16))).toHex());
    return s;
}

QString shapeText(const std::vector<std::int64_t> &dims)
{
    QStringList parts;
    for (auto d : dims)
        parts << QString::number(d);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

/// One QString per distinct type, layout, dtype name and attribute key of a graph (a million
/// ops share a few hundred), so that converting allocates them once and the nodes share them.
/// Keys are owned: the direct reader converts each op from one scratch message that the next op
/// overwrites.
using Interner = std::unordered_map<std::string, QString>;

struct Ctx
{
    const QHash<int, QString> *unknownEnums = nullptr;
    Interner *interner = nullptr; ///< per thread
    QString dtypeName(int v) const
    {
        if (unknownEnums && unknownEnums->contains(v))
            return unknownEnums->value(v);
        if (pb::DataType_IsValid(v))
            return intern(pb::DataType_Name(pb::DataType(v)));
        return QString::number(v);
    }
    QString intern(const std::string &s) const
    {
        if (!interner)
            return qs(s);
        auto it = interner->find(s);
        if (it == interner->end())
            it = interner->emplace(s, qs(s)).first;
        return it->second;
    }
};

GraphTensorDesc convertDesc(const pb::TensorDescriptor &d, const Ctx &ctx);
QString tensorDescText(const pb::TensorDescriptor &d, const Ctx &ctx);

std::pair<QString, QString> attrText(const pb::AttrDef &a, const Ctx &ctx);

QString namedAttrsText(const pb::NamedAttrs &na, const Ctx &ctx)
{
    std::vector<std::pair<std::string, const pb::AttrDef *>> sorted;
    for (const auto &[k, v] : na.attr())
        sorted.emplace_back(k, &v);
    std::sort(sorted.begin(), sorted.end(), [](const auto &x, const auto &y) { return x.first < y.first; });
    QStringList parts;
    for (const auto &[k, v] : sorted)
        parts << qs(k) + QLatin1Char('=') + attrText(*v, ctx).second;
    return qs(na.name()) + QLatin1Char('{') + parts.join(QStringLiteral(", ")) + QLatin1Char('}');
}

QString listText(const pb::AttrDef::ListValue &l, const Ctx &ctx)
{
    QStringList parts;
    for (const auto &s : l.s())
        parts << QLatin1Char('"') + qs(s) + QLatin1Char('"');
    for (auto i : l.i())
        parts << QString::number(i);
    for (auto f : l.f())
        parts << num(f);
    for (bool b : l.b())
        parts << (b ? QStringLiteral("true") : QStringLiteral("false"));
    for (const auto &bt : l.bt())
        parts << bytesText(bt);
    for (const auto &td : l.td())
        parts << tensorDescText(td, ctx);
    for (const auto &t : l.t())
        parts << tensorDescText(t.desc(), ctx) + QLatin1Char(' ') + bytesText(t.data());
    for (const auto &g : l.g())
        parts << QStringLiteral("graph %1 (%2 ops)").arg(qs(g.name())).arg(g.op_size());
    for (const auto &na : l.na())
        parts << namedAttrsText(na, ctx);
    for (auto dt : l.dt())
        parts << cppDataTypeName(dt);
    QString text = QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
    if (parts.isEmpty() && l.val_type() != pb::AttrDef::ListValue::VT_LIST_NONE)
        text += QStringLiteral(" (%1)").arg(qs(pb::AttrDef::ListValue::ListValueType_Name(l.val_type())));
    return text;
}

std::pair<QString, QString> attrText(const pb::AttrDef &a, const Ctx &ctx)
{
    switch (a.value_case()) {
    case pb::AttrDef::kList: return {QStringLiteral("list"), listText(a.list(), ctx)};
    case pb::AttrDef::kS: return {QStringLiteral("s"), qs(a.s())};
    case pb::AttrDef::kI: return {QStringLiteral("i"), QString::number(a.i())};
    case pb::AttrDef::kF: return {QStringLiteral("f"), num(a.f())};
    case pb::AttrDef::kB: return {QStringLiteral("b"), a.b() ? QStringLiteral("true") : QStringLiteral("false")};
    case pb::AttrDef::kBt: return {QStringLiteral("bt"), bytesText(a.bt())};
    case pb::AttrDef::kFunc: return {QStringLiteral("func"), namedAttrsText(a.func(), ctx)};
    case pb::AttrDef::kTd: return {QStringLiteral("td"), tensorDescText(a.td(), ctx)};
    case pb::AttrDef::kT: return {QStringLiteral("t"), tensorDescText(a.t().desc(), ctx) + QLatin1Char(' ') + bytesText(a.t().data())};
    case pb::AttrDef::kG: return {QStringLiteral("g"), QStringLiteral("graph %1 (%2 ops)").arg(qs(a.g().name())).arg(a.g().op_size())};
    case pb::AttrDef::kListListInt: {
        QStringList rows;
        for (const auto &row : a.list_list_int().list_list_i())
            rows << shapeText({row.list_i().begin(), row.list_i().end()});
        return {QStringLiteral("list_list_int"), QLatin1Char('[') + rows.join(QStringLiteral(", ")) + QLatin1Char(']')};
    }
    case pb::AttrDef::kDt: return {QStringLiteral("dt"), cppDataTypeName(a.dt())};
    case pb::AttrDef::kListListFloat: {
        QStringList rows;
        for (const auto &row : a.list_list_float().list_list_f()) {
            QStringList vals;
            for (float f : row.list_f())
                vals << num(f);
            rows << QLatin1Char('[') + vals.join(QStringLiteral(", ")) + QLatin1Char(']');
        }
        return {QStringLiteral("list_list_float"), QLatin1Char('[') + rows.join(QStringLiteral(", ")) + QLatin1Char(']')};
    }
    case pb::AttrDef::VALUE_NOT_SET: break;
    }
    return {QString(), QString()};
}

template<typename Map>
std::vector<GraphAttr> convertAttrs(const Map &map, const Ctx &ctx)
{
    std::vector<GraphAttr> out;
    out.reserve(size_t(map.size()));
    for (const auto &[k, v] : map) {
        auto [kind, text] = attrText(v, ctx);
        out.push_back({ctx.intern(k), kind, text});
    }
    std::sort(out.begin(), out.end(), [](const GraphAttr &a, const GraphAttr &b) { return a.key < b.key; });
    return out;
}

QString tensorDescText(const pb::TensorDescriptor &d, const Ctx &ctx)
{
    return QStringLiteral("%1 %2 %3").arg(ctx.dtypeName(d.dtype()), qs(d.layout()), shapeText({d.shape().dim().begin(), d.shape().dim().end()}));
}

GraphTensorDesc convertDesc(const pb::TensorDescriptor &d, const Ctx &ctx)
{
    GraphTensorDesc t;
    t.name = ctx.intern(d.name());
    t.dtype = int(d.dtype());
    t.dtypeName = ctx.dtypeName(d.dtype());
    t.layout = ctx.intern(d.layout());
    t.shape.assign(d.shape().dim().begin(), d.shape().dim().end());
    t.size = d.size();
    t.attrs = convertAttrs(d.attr(), ctx);
    const auto &attr = d.attr();
    if (auto it = attr.find("origin_format"); it != attr.end() && it->second.value_case() == pb::AttrDef::kS)
        t.originFormat = ctx.intern(it->second.s());
    if (auto it = attr.find("origin_shape"); it != attr.end() && it->second.value_case() == pb::AttrDef::kList) {
        t.originShape.assign(it->second.list().i().begin(), it->second.list().i().end());
        t.hasOriginShape = true;
    }
    if (auto it = attr.find("_datadump_origin_name"); it != attr.end() && it->second.value_case() == pb::AttrDef::kS)
        t.datadumpOriginName = qs(it->second.s());
    if (auto it = attr.find("_datadump_origin_output_index"); it != attr.end() && it->second.value_case() == pb::AttrDef::kI)
        t.datadumpOriginOutputIndex = int(it->second.i());
    return t;
}

GraphNode convertOp(const pb::OpDef &op, const Ctx &ctx)
{
    GraphNode n;
    n.name = qs(op.name());
    n.type = ctx.intern(op.type());
    n.id = op.id();
    n.streamId = op.stream_id();
    n.inputs.reserve(op.input_size());
    for (const auto &s : op.input())
        n.inputs << qs(s);
    for (const auto &d : op.input_desc())
        n.inputDescs.push_back(convertDesc(d, ctx));
    for (const auto &d : op.output_desc())
        n.outputDescs.push_back(convertDesc(d, ctx));
    for (const auto &s : op.subgraph_name())
        n.subgraphNames << qs(s);
    n.attrs = convertAttrs(op.attr(), ctx);
    const auto &attr = op.attr();
    if (auto it = attr.find("_datadump_original_op_names"); it != attr.end())
        for (const auto &s : it->second.list().s())
            if (!s.empty())
                n.originalOpNames << qs(s);
    if (auto it = attr.find("_no_task"); it != attr.end())
        n.noTask = it->second.b() || it->second.i() != 0;
    if (auto it = attr.find("_L1_fusion_sub_graph_no"); it != attr.end()) {
        const auto [kind, text] = attrText(it->second, ctx);
        n.l1FusionGroup = text;
    }
    return n;
}

} // namespace

OpConverter::OpConverter(const QHash<int, QString> *unknownEnums)
    : m_interner(std::make_unique<Interner>()), m_unknownEnums(unknownEnums)
{
}

OpConverter::~OpConverter() = default;

GraphNode OpConverter::convert(const pb::OpDef &op)
{
    Ctx ctx{m_unknownEnums};
    ctx.interner = m_interner.get();
    return convertOp(op, ctx);
}

namespace {

/// Ops per graph from which the conversion is split over two threads (ops are independent
/// until Graph::build links them).
constexpr int kParallelOps = 20000;

} // namespace

Graph convertGraph(const pb::GraphDef &g, const QHash<int, QString> *unknownEnums, std::vector<GraphNode> &&more)
{
    const Ctx ctx{unknownEnums};
    Graph graph;
    graph.name = qs(g.name());
    for (const auto &s : g.input())
        graph.inputs << qs(s);
    for (const auto &s : g.output())
        graph.outputs << qs(s);
    graph.attrs = convertAttrs(g.attr(), ctx);
    const int count = g.op_size();
    if (count == 0)
        graph.nodes = std::move(more);
    else
        graph.nodes.resize(size_t(count));
    auto convertRange = [&](int from, int to) {
        Interner interner;
        Ctx local = ctx;
        local.interner = &interner;
        for (int i = from; i < to; ++i)
            graph.nodes[size_t(i)] = convertOp(g.op(i), local);
    };
    if (count >= kParallelOps) {
        std::thread second(convertRange, count / 2, count);
        convertRange(0, count / 2);
        second.join();
    } else {
        convertRange(0, count);
    }
    if (count > 0)
        std::move(more.begin(), more.end(), std::back_inserter(graph.nodes));
    graph.build();
    return graph;
}
} // namespace ds::ge::detail
