#include "comparereport.h"

#include "addederrorjson.h"
#include "msprobenames.h"
#include "tensor/dtype.h"

#include <QJsonDocument>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

namespace ds {

namespace {

using State = MetricValue::State;
using json = nlohmann::ordered_json;

std::string s(const QString &q) { return q.toStdString(); }

QString csvField(const QString &v)
{
    // one pass over the text for the four characters that need quotes
    if (std::none_of(v.cbegin(), v.cend(), [](QChar c) {
            const char16_t u = c.unicode();
            return u == u',' || u == u'"' || u == u'\n' || u == u'\r';
        }))
        return v;
    return QLatin1Char('"') + QString(v).replace(QLatin1Char('"'), QLatin1String("\"\"")) + QLatin1Char('"');
}

QString shortest(double v)
{
    if (std::isnan(v))
        return QStringLiteral("nan");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QString::number(v, 'g', QLocale::FloatingPointShortest);
}

QString msaccucmpText(const MetricValue &v)
{
    return v.isNumber() ? QString::asprintf("%.6f", v.value) : v.state == State::Nan ? QStringLiteral("NaN") : formatMetric(v);
}

QString stdText(const PairSide &n, const PairSide &b)
{
    auto f = [](double v) { return QString::asprintf("%.3f", std::fabs(v) < 0.001 ? 0.0 : v); };
    return QStringLiteral("(%1;%2),(%3;%4)").arg(f(n.comparedMean), f(n.comparedStd), f(b.comparedMean), f(b.comparedStd));
}

QString dtypeOf(const TensorRecord *t)
{
    if (!t)
        return QStringLiteral("N/A");
    return t->storage() == TensorStorage::DumpPayload || t->typeName().isEmpty() ? dataTypeName(t->dataType()) : t->typeName();
}

QString reasons(const CompareRow &row)
{
    QStringList r;
    for (ReasonCode c : row.reasons)
        r << reasonCodeName(c);
    return r.join(QLatin1Char(','));
}

QString verdictCell(const CompareRow &row) { return row.compared() ? verdictName(row.verdict) : QString(); }

struct Sides
{
    const OpRecord *nOp, *bOp;
    const TensorRecord *n, *b;
};

Sides sides(const DumpIndex &npu, const DumpIndex &bench, const CompareRow &row)
{
    const bool matched = row.bench.op >= 0;
    return {&npu.op(row.npu), matched ? &bench.op(row.bench) : nullptr, &npu.tensor(row.npu),
            matched ? &bench.tensor(row.bench) : nullptr};
}

} // namespace

QString formatMetric(const MetricValue &v, int decimals)
{
    switch (v.state) {
    case State::Value:
        if (!std::isfinite(v.value) || decimals < 0)
            return shortest(v.value);
        return QString::number(v.value, 'f', decimals);
    case State::Nan: return QStringLiteral("Nan");
    case State::Unsupported: return QStringLiteral("unsupported");
    case State::NotAvailable: return QStringLiteral("N/A");
    case State::ShapeUnmatched: return QStringLiteral("shape unmatched");
    }
    return {};
}

QStringList compareCsvHeader(CompareMode mode, ReportStyle style, bool stack)
{
    QStringList h = msprobeHeader(mode, stack);
    if (style == ReportStyle::Msprobe)
        return h;
    if (mode != CompareMode::Summary && mode != CompareMode::Md5)
        for (size_t m = size_t(Metric::RelativeEuclideanDistance); m < kMetricCount; ++m) {
            h << metricColumn(Metric(m));
            if (Metric(m) == Metric::KullbackLeiblerDivergence)
                h << QStringLiteral("StandardDeviation");
        }
    h << QStringLiteral("Verdict") << QStringLiteral("ReasonCode") << QStringLiteral("MatchSource")
      << QStringLiteral("NPU Saturated Count") << QStringLiteral("Notes");
    return h;
}

bool reportHasStack(const DumpIndex &npu) { return !npu.stacks.empty(); }

void forEachReportRow(const DumpIndex &npu, const DumpIndex &bench, const CompareResult &result, ReportStyle style,
                      const std::function<void(const std::vector<MsCell> &)> &fn)
{
    const bool stack = reportHasStack(npu);
    const CompareMode mode = result.mode;
    std::vector<MsCell> c;
    int lastOp = -1;
    const MsprobeColumns columns = msprobeColumns(npu, bench, result.rows);
    for (const CompareRow &row : result.rows) {
        const MsprobeRow m = msprobeRow(npu, bench, row, mode, &columns);
        c.clear();
        for (const QString &t : {m.npuName, m.benchName, m.npuDtype, m.benchDtype, m.npuShape, m.benchShape, m.npuReqGrad,
                                 m.benchReqGrad})
            c.push_back(MsCell::str(t));
        c.insert(c.end(), m.compare.begin(), m.compare.end());
        if (mode != CompareMode::Md5)
            c.insert(c.end(), m.stats.begin(), m.stats.end());
        c.push_back(MsCell::boolean(m.reqGradConsistent()));
        c.push_back(MsCell::str(row.result));
        c.push_back(MsCell::str(msprobeErrMessage(row.resultMessages)));
        if (stack) // on the first row of each entry
            c.push_back(MsCell::str(row.npu.op != lastOp ? msprobeStackText(npu, npu.op(row.npu)) : QStringLiteral("N/A")));
        lastOp = row.npu.op;
        if (mode != CompareMode::Summary && mode != CompareMode::Md5)
            c.push_back(MsCell::str(m.dataName));
        if (style == ReportStyle::DumpScope) {
            if (mode != CompareMode::Summary && mode != CompareMode::Md5) {
                const bool computed = row.mode == CompareMode::Tensor && row.metrics.raw().count > 0 && !row.hasReason(ReasonCode::InfNanPos);
                for (size_t k = size_t(Metric::RelativeEuclideanDistance); k < kMetricCount; ++k) {
                    c.push_back(MsCell::str(msaccucmpText(row.metrics[k])));
                    if (Metric(k) == Metric::KullbackLeiblerDivergence)
                        c.push_back(MsCell::str(computed ? stdText(row.metrics.raw().npu, row.metrics.raw().bench) : QStringLiteral("NaN")));
                }
            }
            c.push_back(MsCell::str(verdictCell(row)));
            c.push_back(MsCell::str(reasons(row)));
            c.push_back(MsCell::str(matchSourceName(row.source)));
            c.push_back(MsCell::integer(double(row.npuSaturated)));
            c.push_back(MsCell::str((row.messages + row.highlights).join(QStringLiteral("; "))));
        }
        fn(c);
    }
}

QByteArray csvLine(const QStringList &cells)
{
    QStringList escaped;
    for (const QString &c : cells)
        escaped << csvField(c);
    return escaped.join(QLatin1Char(',')).toUtf8() + '\n';
}

QByteArray compareCsv(const DumpIndex &npu, const DumpIndex &bench, const CompareResult &result, ReportStyle style)
{
    QByteArray out;
    auto line = [&](const QStringList &cells) { out += csvLine(cells); };
    line(compareCsvHeader(result.mode, style, reportHasStack(npu)));
    QStringList texts;
    forEachReportRow(npu, bench, result, style, [&](const std::vector<MsCell> &cells) {
        texts.clear();
        for (const MsCell &c : cells)
            texts << c.csv();
        line(texts);
    });
    return out;
}

namespace {

/// Appends `element` as nlohmann prints an element of the top-level "rows" array with dump(2).
void appendJsonElement(std::string &out, const nlohmann::ordered_json &element)
{
    const std::string text = element.dump(2);
    out.reserve(out.size() + text.size() + text.size() / 8 + 8);
    out += "    ";
    for (char c : text) {
        out += c;
        if (c == '\n')
            out += "    ";
    }
}

/// `document` (dump(2) of a report whose "rows" is empty) with `count` rows in that array, each
/// appended to the text by row(i, out): the text dump(2) gives with the rows in the tree.
QByteArray spliceJsonRows(const std::string &document, size_t count, const std::function<void(size_t, std::string &)> &row)
{
    static const std::string_view placeholder = "\n  \"rows\": []";
    const size_t at = document.find(placeholder);
    if (at == std::string::npos || count == 0)
        return QByteArray::fromStdString(document) + '\n';
    const size_t open = at + placeholder.size() - 1; // the ']' of "[]"
    QByteArray out;
    out.reserve(qsizetype(document.size() + 1));
    out.append(document.data(), qsizetype(open));
    out += '\n';
    std::string text;
    for (size_t i = 0; i < count; ++i) {
        text.clear();
        if (i > 0)
            text += ",\n";
        row(i, text);
        out.append(text.data(), qsizetype(text.size()));
    }
    out += "\n  ";
    out.append(document.data() + open, qsizetype(document.size() - open));
    out += '\n';
    return out;
}

} // namespace

namespace {

json metricJson(const MetricValue &v)
{
    if (v.isNumber() && std::isfinite(v.value))
        return v.value;
    return s(formatMetric(v));
}

json shapeJson(const Shape &shape)
{
    json a = json::array();
    for (auto d : shape)
        a.push_back(d);
    return a;
}

json statsJson(const std::array<MetricValue, kStatCount> &v)
{
    return {{"max", metricJson(v[0])}, {"min", metricJson(v[1])}, {"mean", metricJson(v[2])}, {"l2norm", metricJson(v[3])}};
}

json opJson(const DumpIndex &npu, int op)
{
    const OpRecord &r = npu.ops[size_t(op)];
    return {{"op", op}, {"path", s(r.relPath)}, {"name", s(opMatchKey(r))}, {"type", s(r.opType)}};
}

json levelsJson(const DumpLevels &l)
{
    return {{"step", s(l.step)}, {"rank", s(l.rank)}, {"device", s(l.device)}, {"data_index", s(l.dataIndex)},
            {"model_name", s(l.modelName)}};
}

json listJson(const QStringList &l)
{
    json a = json::array();
    for (const QString &x : l)
        a.push_back(s(x));
    return a;
}

} // namespace

namespace {

/// One element of the report's "rows".
json rowJson(const DumpIndex &npu, const DumpIndex &bench, const CompareRow &row)
{
    {
        const Sides x = sides(npu, bench, row);
        json metrics = json::object();
        if (row.mode == CompareMode::Tensor)
            for (size_t m = 0; m < kMetricCount; ++m)
                metrics[s(metricKey(Metric(m)))] = metricJson(row.metrics[m]);
        json r{{"npu_name", s(row.npuName)},
               {"npu_id", s(npu.tensorId(row.npu).toString())},
               {"bench_name", x.b ? json(s(row.benchName)) : json(nullptr)},
               {"bench_id", x.b ? json(s(bench.tensorId(row.bench).toString())) : json(nullptr)},
               {"io", s(ioKindName(row.io))},
               {"npu_dtype", s(dtypeOf(x.n))},
               {"bench_dtype", x.b ? json(s(dtypeOf(x.b))) : json(nullptr)},
               {"npu_shape", shapeJson(x.n->shape())},
               {"bench_shape", x.b ? shapeJson(x.b->shape()) : json(nullptr)},
               {"match_source", x.b ? json(s(matchSourceName(row.source))) : json(nullptr)},
               {"mode", s(compareModeName(row.mode))},
               {"metrics", metrics},
               {"npu_stats", statsJson(row.npuStats)},
               {"bench_stats", x.b ? statsJson(row.benchStats) : json(nullptr)}};
        if (row.mode == CompareMode::Tensor && row.metrics.raw().count > 0) {
            r["standard_deviation"] = {{"npu_mean", row.metrics.raw().npu.comparedMean}, {"npu_std", row.metrics.raw().npu.comparedStd},
                                       {"bench_mean", row.metrics.raw().bench.comparedMean}, {"bench_std", row.metrics.raw().bench.comparedStd}};
            r["nan_inf"] = {{"npu_nan", row.metrics.raw().npu.nan}, {"npu_posinf", row.metrics.raw().npu.posinf}, {"npu_neginf", row.metrics.raw().npu.neginf},
                            {"bench_nan", row.metrics.raw().bench.nan}, {"bench_posinf", row.metrics.raw().bench.posinf},
                            {"bench_neginf", row.metrics.raw().bench.neginf}, {"mismatched_positions", row.metrics.raw().infNanMismatch}};
        }
        if (row.mode == CompareMode::Summary) {
            r["stat_diff"] = statsJson(row.statDiff);
            r["stat_relative_err_percent"] = statsJson(row.statRelErr);
        }
        if (row.mode == CompareMode::Md5) {
            r["npu_md5"] = s(row.npuChecksum);
            r["bench_md5"] = s(row.benchChecksum);
        }
        json reasonList = json::array();
        for (ReasonCode c : row.reasons)
            reasonList.push_back(s(reasonCodeName(c)));
        r["npu_requires_grad"] = s(msprobeRequiresGrad(*x.n));
        r["bench_requires_grad"] = x.b ? json(s(msprobeRequiresGrad(*x.b))) : json(nullptr);
        r["npu_saturated"] = row.npuSaturated;
        r["accuracy_reached"] = s(row.accuracyReached);
        r["result"] = s(row.result);
        r["err_message"] = listJson(row.resultMessages);
        r["identical"] = row.identical;
        r["verdict"] = s(verdictName(row.verdict));
        r["reasons"] = reasonList;
        r["messages"] = listJson(row.messages);
        r["highlights"] = listJson(row.highlights);
        return r;
    }
}

} // namespace

QByteArray compareJson(const DumpIndex &npu, const DumpIndex &bench, const CompareResult &result)
{
    json divergences = json::array();
    for (const Divergence &d : result.divergences) {
        json chain = json::array();
        for (int op : d.chain)
            chain.push_back(opJson(npu, op));
        json origin = opJson(npu, d.originOp);
        origin["row"] = d.originRow;
        origin["row_name"] = s(result.rows[size_t(d.originRow)].npuName);
        json modules = json::array();
        for (int op : d.modules)
            modules.push_back(opJson(npu, op));
        json parameter = nullptr;
        if (d.cause == DivergenceCause::Parameter)
            parameter = {{"name", d.parameter.isEmpty() ? json(nullptr) : json(s(d.parameter))},
                         {"module", d.parameterModule >= 0 ? opJson(npu, d.parameterModule) : json(nullptr)},
                         {"consumer", s(opMatchKey(npu.ops[size_t(d.originOp)]))},
                         {"from_stack", d.parameterFromStack}};
        divergences.push_back({{"scope", s(d.scope)}, {"levels", levelsJson(d.levels)}, {"origin", origin},
                               {"cause", s(divergenceCauseName(d.cause))}, {"parameter", parameter},
                               {"modules", modules}, {"inputs_agree", d.inputsAgree}, {"chain", chain}});
    }
    json benchOnly = json::array();
    for (const BenchOnlyRow &b : result.benchOnly)
        benchOnly.push_back({{"bench_id", s(bench.tensorId(b.bench).toString())},
                             {"bench_name", s(rowName(bench.op(b.bench), bench.tensor(b.bench)))},
                             {"reason", s(reasonCodeName(b.reason))}});
    json structure = json::array();
    for (const StructureFinding &f : result.structure) {
        json npuOps = json::array(), benchOps = json::array();
        for (const QString &o : f.npuOps)
            npuOps.push_back(s(o));
        for (const QString &o : f.benchOps)
            benchOps.push_back(s(o));
        structure.push_back({{"scope", s(f.scope)}, {"module", f.module.isEmpty() ? json(nullptr) : json(s(f.module))},
                             {"npu_ops", npuOps}, {"bench_ops", benchOps},
                             {"numerically_equal", f.outcome == StructureFinding::Outcome::NotCompared
                                                       ? json(nullptr) : json(f.outcome == StructureFinding::Outcome::Equal)},
                             {"text", s(f.text())}});
    }
    json rules = json::array();
    if (result.crossFramework)
        rules.push_back("msprobe_ms_to_pt_api");
    rules.push_back(result.aligned ? "aligned" : "exact");
    json j{{"npu_path", s(npu.openedPath)},
           {"bench_path", s(bench.openedPath)},
           {"mode", s(compareModeName(result.mode))},
           {"cancelled", result.cancelled},
           {"summary", {{"rows", result.rows.size()}, {"pass", result.count(Verdict::Pass)},
                        {"warning", result.count(Verdict::Warning)}, {"error", result.count(Verdict::Error)},
                        {"none", result.count(Verdict::None)}, {"bench_only", result.benchOnly.size()}}},
           {"first_divergence", divergences},
           {"added_error_ranking", addedErrorRankingJson(npu, result)},
           {"added_error", addedErrorJson(npu, result)},
           {"thresholds", json::parse(QJsonDocument(result.thresholds.toJson()).toJson(QJsonDocument::Compact).toStdString())},
           {"warnings", listJson(result.warnings)},
           {"matching", {{"cross_framework", result.crossFramework},
                         {"rules", rules}}},
           {"structure", structure},
           {"rows", json::array()},
           {"bench_only", benchOnly}};
    if (!result.tablePath.isEmpty()) // read from msprobe's table, not computed (docs/COMPARE.md)
        j["table"] = s(result.tablePath);
    if (!result.tableDumps.isEmpty())
        j["table_dumps"] = s(result.tableDumps);
    // The rows are written one by one into the document (never one tree of all of them): the
    // same text as j.dump(2) with the rows in it (docs/PERFORMANCE.md, compare memory).
    return spliceJsonRows(j.dump(2), result.rows.size(), [&](size_t i, std::string &out) {
        appendJsonElement(out, rowJson(npu, bench, result.rows[i]));
    });
}

} // namespace ds
