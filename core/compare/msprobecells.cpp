#include "msprobecells.h"

#include "msprobenames.h"
#include "crossframework.h"
#include "tensor/dtype.h"

#include <QRegularExpression>
#include <algorithm>
#include <unordered_map>
#include <cmath>

namespace ds {

namespace {

using State = MetricValue::State;

const QString kNA = QStringLiteral("N/A");

bool hasDataFile(const TensorRecord &t)
{
    return t.storage() != TensorStorage::Absent && t.storage() != TensorStorage::Value;
}

QString dtypeText(const TensorRecord &t)
{
    return t.storage() == TensorStorage::DumpPayload || t.typeName().isEmpty() ? dataTypeName(t.dataType()) : t.typeName();
}

enum class NumKind { Float, Int, Bool };

bool isAscii(QStringView s)
{
    for (QChar c : s)
        if (c.unicode() > 0x7f)
            return false;
    return true;
}

NumKind numKindOf(const TensorRecord &t)
{
    const QString text = dtypeText(t);
    if (isAscii(text)) { // lower-cased comparisons without the copy
        if (text.endsWith(QLatin1String("bool"), Qt::CaseInsensitive))
            return NumKind::Bool;
        if (text.contains(QLatin1String("int"), Qt::CaseInsensitive) && !text.contains(QLatin1String("float"), Qt::CaseInsensitive))
            return NumKind::Int;
        return NumKind::Float;
    }
    const QString d = text.toLower();
    if (d.endsWith(QLatin1String("bool")))
        return NumKind::Bool;
    if (d.contains(QLatin1String("int")) && !d.contains(QLatin1String("float")))
        return NumKind::Int;
    return NumKind::Float;
}

/// A statistic as msprobe's table holds it: NaN becomes the string "Nan" (set_summary).
/// Computed statistics take the dtype's kind (integers of an integer tensor).
MsCell statCell(double v, NumKind kind)
{
    if (std::isnan(v))
        return MsCell::str(QStringLiteral("Nan"));
    if (kind == NumKind::Bool)
        return MsCell::boolean(v != 0);
    if (kind == NumKind::Int && std::isfinite(v) && v == std::floor(v))
        return MsCell::integer(v);
    return MsCell::real(v);
}

/// A recorded statistic: what json.load made of it. msprobe keeps the JSON literal's type: a
/// `967` is an int, a `967.0` a float (torch 2 writes an int64 tensor's Max as a float); bool
/// tensors record true/false.
MsCell recordedCell(double v, NumKind kind, bool integral)
{
    if (std::isnan(v))
        return MsCell::str(QStringLiteral("Nan"));
    if (kind == NumKind::Bool)
        return MsCell::boolean(v != 0);
    if (integral && std::isfinite(v))
        return MsCell::integer(v);
    return MsCell::real(v);
}

/// What msprobe makes of a non-tensor leaf (compare/utils.py gen_op_item).
struct ValueInfo
{
    QString dtype, shape;
    MsCell stat;
    QString md5;
};

QString pythonKind(const TensorRecord &t)
{
    static const QStringList builtin{QStringLiteral("int"), QStringLiteral("float"), QStringLiteral("bool"),
                                     QStringLiteral("str")};
    if (builtin.contains(t.typeName()))
        return t.typeName();
    const QString v = t.value().trimmed();
    if (v == QLatin1String("true") || v == QLatin1String("false"))
        return QStringLiteral("bool");
    if (v == QLatin1String("null"))
        return QStringLiteral("NoneType");
    if (v.startsWith(QLatin1Char('[')))
        return QStringLiteral("list");
    if (v.startsWith(QLatin1Char('{')))
        return QStringLiteral("dict");
    static const QRegularExpression integer(QStringLiteral("^-?\\d+$"));
    if (integer.match(v).hasMatch())
        return QStringLiteral("int");
    bool ok = false;
    v.toDouble(&ok);
    return ok ? QStringLiteral("float") : QStringLiteral("str");
}

ValueInfo valueInfo(const TensorRecord &t)
{
    const QString none = QStringLiteral("None");
    if (t.typeName() == none && t.value() == QLatin1String("null")) // a JSON null leaf
        return {none, none, MsCell::str(none), kNA};
    const QString last = t.name().mid(t.name().lastIndexOf(QLatin1Char('.')) + 1);
    if (last == QLatin1String("src") || last == QLatin1String("dst") || last == QLatin1String("group_src")
        || last == QLatin1String("group_dst")) {
        const QString s = pythonStrOfJson(t.value());
        return {t.typeName(), QStringLiteral("[]"), MsCell::str(s), s};
    }
    if (t.typeName() == QLatin1String("torch.ProcessGroup")) {
        static const QRegularExpression ranks(QStringLiteral("\"group_ranks\"\\s*:\\s*(\\[[^\\]]*\\])"));
        const auto m = ranks.match(t.value());
        const QString s = m.hasMatch() ? pythonStrOfJson(m.captured(1)) : none;
        return {t.typeName(), QStringLiteral("[]"), MsCell::str(s), s};
    }
    if (t.typeName() == QLatin1String("torch.Size")) {
        const QString s = pythonStrOfJson(t.value());
        return {t.typeName(), s, MsCell::str(none), crc32Hex(s)};
    }
    if (t.typeName() == QLatin1String("slice")) {
        const QString s = pythonStrOfJson(t.value());
        const qsizetype n = t.value().trimmed().startsWith(QLatin1Char('[')) ? t.value().count(QLatin1Char(',')) + 1 : 0;
        return {t.typeName(), QStringLiteral("(%1,)").arg(n), MsCell::str(none), crc32Hex(s)};
    }
    const QString kind = pythonKind(t);
    const QString text = t.value().trimmed();
    ValueInfo v;
    v.dtype = t.typeName() == QLatin1String("ellipsis") ? t.typeName() : QStringLiteral("<class '%1'>").arg(kind);
    v.shape = QStringLiteral("[]");
    if (kind == QLatin1String("int")) {
        v.stat = MsCell::integer(text.toDouble());
    } else if (kind == QLatin1String("float")) {
        const QString l = text.toLower();
        v.stat = MsCell::real(l == QLatin1String("nan") ? std::nan("")
                              : l == QLatin1String("infinity") || l == QLatin1String("inf") ? HUGE_VAL
                              : l == QLatin1String("-infinity") || l == QLatin1String("-inf") ? -HUGE_VAL
                                                                                              : text.toDouble());
    } else if (kind == QLatin1String("bool")) {
        v.stat = MsCell::boolean(text == QLatin1String("true") || text == QLatin1String("True"));
    } else if (kind == QLatin1String("str")) {
        v.stat = MsCell::str(t.value());
    } else {
        v.stat = MsCell::str(pythonStrOfJson(t.value()));
    }
    v.md5 = crc32Hex(v.stat.pyStr());
    return v;
}

/// One side of a row: the basic cells, the statistics, the md5 and the data file.
struct Side
{
    QString name, dtype, shape, reqGrad, md5, dataName;
    bool md5IsInt = false; ///< the md5 was a JSON number: an int in msprobe's table
    std::array<MsCell, 4> stats;
    bool data = false;
};

Side sideOf(const DumpIndex &index, const DumpIndex::TensorRef &ref, const std::array<MetricValue, kStatCount> &computed)
{
    const TensorRecord &t = index.tensor(ref);
    Side s;
    s.reqGrad = msprobeRequiresGrad(t);
    s.dataName = msprobeDataName(t);
    s.data = hasDataFile(t);
    if (s.data && s.dataName == QLatin1String("-1")) { // a CANN dump file or an .h5 dataset: its file's name
        const OpRecord &op = index.op(ref);
        const QString &file = op.dataFile.isEmpty() ? op.relPath : op.dataFile;
        s.dataName = file.mid(file.lastIndexOf(QLatin1Char('/')) + 1);
    }
    if (!t.isTensor()) {
        const ValueInfo v = valueInfo(t);
        s.dtype = v.dtype;
        s.shape = v.shape;
        s.stats.fill(v.stat);
        s.md5 = v.md5;
        return s;
    }
    s.dtype = dtypeText(t);
    s.shape = shapeToString(t.shape());
    static const QString emptyCrc = crc32Hex(QString());
    const QString sum = t.checksum();
    s.md5 = sum.isEmpty() ? emptyCrc : sum.toLower();
    s.md5IsInt = !sum.isEmpty() && t.recorded().numericChecksum;
    const NumKind kind = numKindOf(t);
    const RecordedStats &r = t.recorded();
    const std::pair<RecordedStats::Field, double> fields[] = {
        {RecordedStats::Max, r.max}, {RecordedStats::Min, r.min}, {RecordedStats::Mean, r.mean}, {RecordedStats::Norm, r.norm}};
    for (size_t i = 0; i < kStatCount; ++i) {
        if (r.present)
            s.stats[i] = r.has(fields[i].first) ? recordedCell(fields[i].second, kind, r.isIntegral(fields[i].first))
                                                : MsCell::str(QStringLiteral("None"));
        else
            s.stats[i] = computed[i].state == State::Value ? statCell(computed[i].value, kind)
                         : computed[i].state == State::Nan ? MsCell::str(QStringLiteral("Nan"))
                                                           : MsCell::str(QStringLiteral("None"));
    }
    return s;
}

double roundTo(double v, int decimals) { return QString::number(v, 'f', decimals).toDouble(); }

MsCell metricCell(const MetricValue &v, Metric m)
{
    switch (v.state) {
    case State::Value:
        if (m == Metric::EucDist || !std::isfinite(v.value))
            return MsCell::real(v.value);
        if (m == Metric::Cosine) { // format_value, then values above 0.9999 rounded to 6 decimals
            const double c = roundTo(v.value, 12);
            return MsCell::real(c > 0.9999 ? roundTo(c, 6) : c);
        }
        return MsCell::real(roundTo(v.value, 12));
    case State::Nan: return MsCell::str(QStringLiteral("Nan"));
    case State::Unsupported: return MsCell::str(QStringLiteral("unsupported"));
    case State::NotAvailable: return MsCell::str(kNA);
    case State::ShapeUnmatched: return MsCell::str(QStringLiteral("shape unmatched"));
    }
    return MsCell::str(kNA);
}

// ---- statistics differences (msprobe's CalcStatsDiff) ---------------------------------------

enum class VT { Num, Nan, Inf, NegInf, Device, Na, Other };

VT classify(const MsCell &c)
{
    if (c.kind == MsCell::Kind::Float && std::isnan(c.number))
        return VT::Nan;
    const QString s = c.pyStr(), low = s.toLower();
    if (low == QLatin1String("nan"))
        return VT::Nan;
    if ((c.kind == MsCell::Kind::Float && c.number == HUGE_VAL) || low == QLatin1String("inf"))
        return VT::Inf;
    if ((c.kind == MsCell::Kind::Float && c.number == -HUGE_VAL) || low == QLatin1String("-inf"))
        return VT::NegInf;
    if (c.isNumber())
        return VT::Num;
    if (c.kind == MsCell::Kind::Text && low != QLatin1String("true") && low != QLatin1String("false")
        && pandasToNumeric(s.toStdString()))
        return VT::Num;
    static const QRegularExpression device(QStringLiteral("npu|cpu|cuda"), QRegularExpression::CaseInsensitiveOption);
    if (device.match(s).hasMatch())
        return VT::Device;
    if (s == kNA)
        return VT::Na;
    return VT::Other;
}

/// Int or Float cells whose number needs no text: pyStr() of an Int is its digits (exact
/// below 2^63), of a Float its shortest repr.
bool plainNumber(const MsCell &c)
{
    return c.kind == MsCell::Kind::Float || (c.kind == MsCell::Kind::Int && std::fabs(c.number) < 9.0e18);
}

/// The number pandas' to_numeric reads from a plain number's text (CalcStatsDiff.get_number):
/// an int's digits exactly (below 2^53), a float's repr through pandas' parser.
double pandasNumber(const MsCell &c)
{
    if (c.kind == MsCell::Kind::Float)
        return pandasReparse(c.number);
    if (std::fabs(c.number) < 0x1p53)
        return c.number;
    return pandasToNumeric(QString::number(qlonglong(c.number)).toStdString()).value_or(c.number);
}

/// statDiff of two plain numbers as numbers: the texts are "0" (Same), "Nan", "inf", "-inf",
/// else str(diff) and repr(rel) + "%" (or "inf" when the bench is 0).
struct NumberDiff
{
    enum class Kind : std::uint8_t { Same, Nan, Inf, NegInf, Value };
    Kind kind = Kind::Same;
    double diff = 0, rel = 0; ///< Kind::Value
    bool benchZero = false;   ///< Kind::Value: the relative error's text is "inf"
};

NumberDiff numberDiffOf(const MsCell &n, const MsCell &b)
{
    using Kind = NumberDiff::Kind;
    bool sameText;
    if (n.kind != b.kind) // an int's digits never equal a float's repr ("1" vs "1.0")
        sameText = false;
    else if (n.kind == MsCell::Kind::Int)
        sameText = qlonglong(n.number) == qlonglong(b.number);
    else
        sameText = (std::isnan(n.number) && std::isnan(b.number)) || (n.number == b.number && std::signbit(n.number) == std::signbit(b.number));
    if (sameText)
        return {Kind::Same};
    const double x = pandasNumber(n), y = pandasNumber(b);
    if (std::isnan(x) || std::isnan(y))
        return {Kind::Nan};
    const bool xInf = std::isinf(x), yInf = std::isinf(y);
    if ((xInf && x > 0) || (!xInf && yInf && y < 0))
        return {Kind::Inf};
    if ((xInf && x < 0) || (!xInf && yInf && y > 0))
        return {Kind::NegInf};
    const double d = x - y;
    return {Kind::Value, d, y != 0 ? std::fabs(d / y * 100) : 0.0, y == 0};
}

/// statDiff of two plain numbers, without their texts: the same answers (see plainNumber).
/// `intDiff`: both columns hold ints only (pandas subtracts int64 columns: "5", not "5.0").
std::pair<QString, QString> numberDiff(const MsCell &n, const MsCell &b, bool intDiff)
{
    using Kind = NumberDiff::Kind;
    const NumberDiff d = numberDiffOf(n, b);
    auto both = [](const QString &t) { return std::pair<QString, QString>{t, t}; };
    switch (d.kind) {
    case Kind::Same: return {QStringLiteral("0"), QStringLiteral("0")};
    case Kind::Nan: return both(QStringLiteral("Nan"));
    case Kind::Inf: return both(QStringLiteral("inf"));
    case Kind::NegInf: return both(QStringLiteral("-inf"));
    case Kind::Value: break;
    }
    const QString diff = intDiff && n.kind == MsCell::Kind::Int && b.kind == MsCell::Kind::Int
                             ? QString::number(qlonglong(n.number) - qlonglong(b.number))
                             : pythonFloatRepr(d.diff);
    return {diff, d.benchZero ? QStringLiteral("inf") : pythonFloatRepr(d.rel) + QLatin1Char('%')};
}

std::pair<QString, QString> statDiff(const MsCell &n, const MsCell &b, bool intDiff = false)
{
    if (plainNumber(n) && plainNumber(b))
        return numberDiff(n, b, intDiff);
    if (n.pyStr() == b.pyStr())
        return {QStringLiteral("0"), QStringLiteral("0")};
    const VT a = classify(n), c = classify(b);
    auto both = [](const QString &x) { return std::pair<QString, QString>{x, x}; };
    if (a == VT::Na || c == VT::Na)
        return both(kNA);
    const bool numeric[] = {a == VT::Num || a == VT::Nan || a == VT::Inf || a == VT::NegInf,
                            c == VT::Num || c == VT::Nan || c == VT::Inf || c == VT::NegInf};
    if (a == VT::Device && c == VT::Device)
        return both(kNA);
    if (a == VT::Device || c == VT::Device || a == VT::Other || c == VT::Other)
        return both(QStringLiteral("Diff"));
    if (!numeric[0] || !numeric[1])
        return both(kNA);
    if (a == VT::Nan || c == VT::Nan)
        return both(QStringLiteral("Nan"));
    if (a == VT::Inf || (a == VT::Num && c == VT::NegInf))
        return both(QStringLiteral("inf"));
    if (a == VT::NegInf || (a == VT::Num && c == VT::Inf))
        return both(QStringLiteral("-inf"));
    // a number and a number's text (a str argument "1.5"): both through pandas' parser
    auto number = [](const MsCell &m) {
        return plainNumber(m) ? pandasNumber(m) : pandasToNumeric(m.pyStr().toStdString()).value_or(std::nan(""));
    };
    const double x = number(n), y = number(b);
    const double d = x - y;
    return {pythonFloatRepr(d), y != 0 ? pythonFloatRepr(std::fabs(d / y * 100)) + QLatin1Char('%') : QStringLiteral("inf")};
}

} // namespace

QString MsCell::pyStr() const
{
    switch (kind) {
    case Kind::Text: return text;
    case Kind::Int: return text.isEmpty() ? QString::number(qlonglong(number)) : text;
    case Kind::Float: return pythonFloatRepr(number);
    case Kind::Bool: return number != 0 ? QStringLiteral("True") : QStringLiteral("False");
    }
    return text;
}

QString MsCell::csv() const
{
    if (kind == Kind::Float) {
        if (std::isnan(number))
            return {};
        if (std::isinf(number))
            return number > 0 ? QStringLiteral(" inf") : QStringLiteral(" -inf");
    }
    return pyStr();
}

bool MsCell::operator==(const MsCell &o) const
{
    if (kind == Kind::Text || o.kind == Kind::Text)
        return kind == o.kind && text == o.text;
    if (kind == Kind::Int && o.kind == Kind::Int && (!text.isEmpty() || !o.text.isEmpty()))
        return pyStr() == o.pyStr(); // ints given by their digits
    return number == o.number;
}

bool msprobeDtypesMatch(const QString &npu, const QString &bench)
{
    if (npu == bench)
        return true;
    // a MindSpore dump against a PyTorch one (only there one side spells torch.* and the other
    // not): msprobe maps both through cross_dtype_mapping first ("Int32" and "torch.int64" are
    // both "int")
    if (npu.startsWith(QLatin1String("torch.")) != bench.startsWith(QLatin1String("torch."))) {
        const QString n = crossDtypeKind(npu), b = crossDtypeKind(bench);
        if (n == b)
            return true;
    }
    static const QStringList groups[] = {
        {QStringLiteral("torch.float16"), QStringLiteral("torch.float32"), QStringLiteral("torch.bfloat16")},
        {QStringLiteral("Float16"), QStringLiteral("Float32"), QStringLiteral("BFloat16")},
        {QStringLiteral("float16"), QStringLiteral("float32"), QStringLiteral("bfloat16")},
    };
    for (const QStringList &g : groups)
        if (g.contains(npu) && g.contains(bench))
            return true;
    return false;
}

namespace {

/// The kind of a statistics cell for pandas' type inference: a number (int or float), or not.
enum class CellKind : std::uint8_t { Int, Float, Other };

CellKind cellKind(const MsCell &c)
{
    return c.kind == MsCell::Kind::Int ? CellKind::Int : c.kind == MsCell::Kind::Float ? CellKind::Float : CellKind::Other;
}

} // namespace

MsprobeColumns msprobeColumns(const DumpIndex &npu, const DumpIndex &bench, const std::vector<CompareRow> &rows)
{
    // per column: seen an int, a float, something else
    std::array<bool, 8> anyInt{}, anyFloat{}, anyOther{};
    std::unordered_map<const LeafInfo *, ValueInfo> values; // non-tensor leaves repeat
    auto side = [&](const DumpIndex &index, const DumpIndex::TensorRef &ref, const std::array<MetricValue, kStatCount> &computed,
                    QString &dtype, std::array<MsCell, kStatCount> &stats) {
        const TensorRecord &t = index.tensor(ref);
        if (!t.isTensor()) {
            const LeafInfo *key = t.leafInfo();
            auto it = key ? values.find(key) : values.end();
            if (it == values.end())
                it = values.emplace(key, valueInfo(t)).first;
            if (!key) {
                const ValueInfo v = it->second;
                values.erase(it);
                dtype = v.dtype;
                stats.fill(v.stat);
                return;
            }
            dtype = it->second.dtype;
            stats.fill(it->second.stat);
            return;
        }
        dtype = dtypeText(t);
        const NumKind kind = numKindOf(t);
        const RecordedStats &r = t.recorded();
        const std::pair<RecordedStats::Field, double> fields[] = {
            {RecordedStats::Max, r.max}, {RecordedStats::Min, r.min}, {RecordedStats::Mean, r.mean}, {RecordedStats::Norm, r.norm}};
        for (size_t i = 0; i < kStatCount; ++i)
            stats[i] = r.present ? (r.has(fields[i].first) ? recordedCell(fields[i].second, kind, r.isIntegral(fields[i].first))
                                                           : MsCell::str(QStringLiteral("None")))
                       : computed[i].state == State::Value ? statCell(computed[i].value, kind)
                                                           : MsCell::str(QStringLiteral("None"));
    };
    QString nd, bd;
    std::array<MsCell, kStatCount> ns, bs;
    auto note = [&](size_t column, const MsCell &c) {
        switch (cellKind(c)) {
        case CellKind::Int: anyInt[column] = true; break;
        case CellKind::Float: anyFloat[column] = true; break;
        case CellKind::Other: anyOther[column] = true; break;
        }
    };
    for (const CompareRow &row : rows) {
        side(npu, row.npu, row.npuStats, nd, ns);
        bool matched = row.bench.op >= 0;
        if (matched) {
            side(bench, row.bench, row.benchStats, bd, bs);
            matched = row.dataMapped || msprobeDtypesMatch(nd, bd);
        }
        for (size_t i = 0; i < kStatCount; ++i) {
            note(i, ns[i]);
            if (matched)
                note(kStatCount + i, bs[i]);
            else
                anyOther[kStatCount + i] = true; // "N/A"
        }
    }
    MsprobeColumns c;
    for (size_t s = 0; s < 2; ++s) { // NPU, Bench: one DataFrame(lists).values each
        bool allNumeric = true, someFloat = false;
        for (size_t i = s * kStatCount; i < (s + 1) * kStatCount; ++i) {
            allNumeric = allNumeric && !anyOther[i];
            someFloat = someFloat || anyFloat[i];
        }
        for (size_t i = s * kStatCount; i < (s + 1) * kStatCount; ++i) {
            const bool numeric = !anyOther[i] && (anyInt[i] || anyFloat[i]);
            c.intsAsFloat[i] = numeric && (anyFloat[i] || (allNumeric && someFloat));
            c.allInt[i] = !rows.empty() && numeric && !c.intsAsFloat[i];
        }
    }
    return c;
}

MsprobeRow msprobeRow(const DumpIndex &npu, const DumpIndex &bench, const CompareRow &row, CompareMode mode,
                      const MsprobeColumns *columns)
{
    Side n = sideOf(npu, row.npu, row.npuStats);
    Side b;
    bool matched = row.bench.op >= 0;
    if (matched) {
        b = sideOf(bench, row.bench, row.benchStats);
        matched = row.dataMapped || msprobeDtypesMatch(n.dtype, b.dtype);
    }
    if (!matched) {
        b = Side{};
        b.dtype = b.shape = b.reqGrad = b.md5 = b.dataName = kNA;
        b.stats.fill(MsCell::str(kNA));
    }
    if (columns)
        for (size_t i = 0; i < kStatCount; ++i) {
            if (columns->intsAsFloat[i] && n.stats[i].kind == MsCell::Kind::Int)
                n.stats[i] = MsCell::real(n.stats[i].number);
            if (columns->intsAsFloat[kStatCount + i] && b.stats[i].kind == MsCell::Kind::Int)
                b.stats[i] = MsCell::real(b.stats[i].number);
        }
    MsprobeRow r;
    r.matched = matched;
    r.npuName = row.npuName;
    r.benchName = matched ? row.benchName : kNA;
    r.npuDtype = n.dtype;
    r.benchDtype = b.dtype;
    r.npuShape = n.shape;
    r.benchShape = b.shape;
    r.npuReqGrad = n.reqGrad;
    r.benchReqGrad = b.reqGrad;
    for (size_t i = 0; i < kStatCount; ++i) {
        r.stats[i] = n.stats[i];
        r.stats[kStatCount + i] = b.stats[i];
    }
    switch (mode) {
    case CompareMode::Summary: {
        r.compare.resize(2 * kStatCount);
        for (size_t i = 0; i < kStatCount; ++i) {
            const auto [d, rel] = statDiff(n.stats[i], b.stats[i],
                                           columns && columns->allInt[i] && columns->allInt[kStatCount + i]);
            r.compare[i] = MsCell::str(d);
            r.compare[kStatCount + i] = MsCell::str(rel);
        }
        break;
    }
    case CompareMode::Md5:
        r.compare = {n.md5IsInt ? MsCell::digits(n.md5) : MsCell::str(n.md5), b.md5IsInt ? MsCell::digits(b.md5) : MsCell::str(b.md5)};
        break;
    default: {
        // msprobe compares data files only: a leaf without one (values, None, unmatched) is
        // "unsupported" in every metric cell
        const bool data = matched && n.data && b.data;
        for (size_t m = 0; m <= size_t(Metric::FiveThousandthsErrRatio); ++m)
            r.compare.push_back(data ? metricCell(row.metrics[m], Metric(m)) : MsCell::str(QStringLiteral("unsupported")));
        r.dataName = QStringLiteral("[%1, %2]").arg(pythonStrRepr(n.dataName), pythonStrRepr(b.dataName));
        break;
    }
    }
    return r;
}

// ---- statistics-mode check facts from the records (msproberesult.cpp) -----------------------

struct MsprobeSummaryFacts::Impl
{
    const DumpIndex &npu, &bench;
    /// What a row's checks read of one side that depends on the shared leaf alone.
    struct Leaf
    {
        QString dtype, reqGrad;
        NumKind kind = NumKind::Float;
        bool usable = false; ///< a tensor whose dtype has no "class" and whose shape prints exactly
    };
    std::unordered_map<const LeafInfo *, Leaf> leaves;
    Leaf scratch[2];
    /// Rows of values: the cells of the first row of each (NPU leaf, bench leaf or none).
    struct PairHash
    {
        size_t operator()(const std::pair<const LeafInfo *, const LeafInfo *> &p) const
        {
            return std::hash<const void *>()(p.first) * 31 ^ std::hash<const void *>()(p.second);
        }
    };
    std::unordered_map<std::pair<const LeafInfo *, const LeafInfo *>, MsprobeRow, PairHash> values;

    static Leaf make(const TensorRecord &t)
    {
        Leaf l;
        if (!t.isTensor())
            return l;
        l.dtype = dtypeText(t);
        l.reqGrad = msprobeRequiresGrad(t);
        l.kind = numKindOf(t);
        l.usable = !l.dtype.contains(QLatin1String("class"))
                   && std::all_of(t.shape().begin(), t.shape().end(), [](std::uint64_t d) {
                          return d <= std::uint64_t(std::numeric_limits<std::int64_t>::max());
                      });
        return l;
    }
    const Leaf &leaf(const TensorRecord &t, int side)
    {
        const LeafInfo *info = t.leafInfo();
        if (!info)
            return scratch[side] = make(t);
        const auto it = leaves.find(info);
        if (it != leaves.end())
            return it->second;
        return leaves.emplace(info, make(t)).first->second;
    }
};

namespace {

/// The four statistic cells of a side as sideOf makes them, when all are plain numbers.
bool plainStats(const TensorRecord &t, const std::array<MetricValue, kStatCount> &computed, NumKind kind,
                std::array<MsCell, kStatCount> &out)
{
    const RecordedStats r = t.recorded();
    const std::pair<RecordedStats::Field, double> fields[] = {
        {RecordedStats::Max, r.max}, {RecordedStats::Min, r.min}, {RecordedStats::Mean, r.mean}, {RecordedStats::Norm, r.norm}};
    for (size_t i = 0; i < kStatCount; ++i) {
        if (r.present) {
            if (!r.has(fields[i].first))
                return false; // "None"
            out[i] = recordedCell(fields[i].second, kind, r.isIntegral(fields[i].first));
        } else {
            if (computed[i].state != State::Value)
                return false; // "Nan" or "None"
            out[i] = statCell(computed[i].value, kind);
        }
        if (!plainNumber(out[i]))
            return false; // "Nan", a bool or a huge int
    }
    return true;
}

/// name.contains(".output."), without QString's general search.
bool hasOutputToken(QStringView name)
{
    static constexpr char16_t token[] = u".output.";
    constexpr qsizetype n = 8;
    const char16_t *d = name.utf16();
    for (qsizetype i = 0; i + n <= name.size(); ++i)
        if (d[i] == u'.' && d[i + 7] == u'.' && std::equal(token + 1, token + 7, d + i + 1))
            return true;
    return false;
}

bool infOrNan(const MsCell &plain) { return plain.kind == MsCell::Kind::Float && !std::isfinite(plain.number); }

} // namespace

MsprobeSummaryFacts::MsprobeSummaryFacts(const DumpIndex &npu, const DumpIndex &bench) : d(new Impl{npu, bench, {}, {}, {}}) {}

MsprobeSummaryFacts::~MsprobeSummaryFacts() = default;

std::optional<MsprobeCheckFacts> MsprobeSummaryFacts::facts(const CompareRow &row)
{
    using Kind = NumberDiff::Kind;
    const TensorRecord &nt = d->npu.tensor(row.npu);
    if (!nt.isTensor()) { // valueInfo reads the leaf alone
        const TensorRecord *bt = row.bench.op >= 0 ? &d->bench.tensor(row.bench) : nullptr;
        if (!nt.leafInfo() || (bt && (bt->isTensor() || !bt->leafInfo())))
            return std::nullopt;
        if (row.dataMapped) // cells of a pair no dtype check dropped: not those of the cached leaf pair
            return msprobeCheckFacts(msprobeRow(d->npu, d->bench, row, CompareMode::Summary), CompareMode::Summary, row.npuName,
                                     row.benchName);
        const auto key = std::make_pair(nt.leafInfo(), bt ? bt->leafInfo() : nullptr);
        auto it = d->values.find(key);
        if (it == d->values.end())
            it = d->values.emplace(key, msprobeRow(d->npu, d->bench, row, CompareMode::Summary)).first;
        const MsprobeRow &cells = it->second;
        return msprobeCheckFacts(cells, CompareMode::Summary, row.npuName, cells.matched ? row.benchName : kNA);
    }
    const Impl::Leaf &nl = d->leaf(nt, 0);
    std::array<MsCell, kStatCount> ns, bs;
    if (!nl.usable || !plainStats(nt, row.npuStats, nl.kind, ns))
        return std::nullopt;
    MsprobeCheckFacts f;
    f.output = hasOutputToken(row.npuName);
    const bool npuInfNan = infOrNan(ns[0]) || infOrNan(ns[1]);
    if (row.bench.op < 0) { // the bench cells are "N/A"
        f.infNanError = npuInfNan;
        return f;
    }
    const TensorRecord &bt = d->bench.tensor(row.bench);
    const Impl::Leaf &bl = d->leaf(bt, 1);
    if (!bl.usable)
        return std::nullopt;
    if (!row.dataMapped && !msprobeDtypesMatch(nl.dtype, bl.dtype)) { // msprobe drops the bench side
        f.infNanError = npuInfNan;
        return f;
    }
    if (!plainStats(bt, row.benchStats, bl.kind, bs))
        return std::nullopt;
    f.infNanError = npuInfNan && !infOrNan(bs[0]) && !infOrNan(bs[1]);
    // NormRelativeErr: its text read back by get_min_or_max_value and str2float
    const NumberDiff norm = numberDiffOf(ns[kStatCount - 1], bs[kStatCount - 1]);
    switch (norm.kind) {
    case Kind::Same: f.percent = 0; break;                      // "0"
    case Kind::Nan: f.percent = std::nan(""); break;            // "Nan"
    case Kind::Inf: f.percent = HUGE_VAL; break;                // "inf"
    case Kind::NegInf: f.percent = -HUGE_VAL; break;            // "-inf"
    case Kind::Value:
        if (norm.benchZero) { // "inf"
            f.percent = HUGE_VAL;
        } else { // "<repr>%": the shortest repr reads back as the same double
            if (!std::isfinite(norm.rel))
                return std::nullopt; // "inf%"
            f.indicator[0] = norm.rel / 100;
            f.percent = norm.rel / 100;
        }
        break;
    }
    const bool named = !row.benchName.isEmpty() && row.benchName != kNA;
    if (!named)
        return f;
    f.reqGradError = !nl.reqGrad.isEmpty() && !bl.reqGrad.isEmpty() && nl.reqGrad != bl.reqGrad;
    f.dtypeError = nl.dtype != bl.dtype && !nl.dtype.isEmpty() && !bl.dtype.isEmpty() && row.npuName != kNA
                   && !row.benchName.contains(QLatin1String("qkv")) && !row.benchName.contains(QLatin1String("gate_up"));
    f.shapeError = nt.shape() != bt.shape();
    return f;
}

QStringList msprobeHeader(CompareMode mode, bool stack)
{
    QStringList h{QStringLiteral("NPU Name"), QStringLiteral("Bench Name"), QStringLiteral("NPU Dtype"),
                  QStringLiteral("Bench Dtype"), QStringLiteral("NPU Tensor Shape"), QStringLiteral("Bench Tensor Shape"),
                  QStringLiteral("NPU Requires_grad"), QStringLiteral("Bench Requires_grad")};
    if (mode == CompareMode::Summary)
        h << QStringLiteral("Max diff") << QStringLiteral("Min diff") << QStringLiteral("Mean diff") << QStringLiteral("L2norm diff")
          << QStringLiteral("MaxRelativeErr") << QStringLiteral("MinRelativeErr") << QStringLiteral("MeanRelativeErr")
          << QStringLiteral("NormRelativeErr");
    else if (mode == CompareMode::Md5)
        h << QStringLiteral("NPU MD5") << QStringLiteral("BENCH MD5");
    else
        for (size_t m = 0; m <= size_t(Metric::FiveThousandthsErrRatio); ++m)
            h << metricColumn(Metric(m));
    if (mode != CompareMode::Md5)
        h << QStringLiteral("NPU max") << QStringLiteral("NPU min") << QStringLiteral("NPU mean") << QStringLiteral("NPU l2norm")
          << QStringLiteral("Bench max") << QStringLiteral("Bench min") << QStringLiteral("Bench mean")
          << QStringLiteral("Bench l2norm");
    h << QStringLiteral("Requires_grad Consistent") << QStringLiteral("Result") << QStringLiteral("Err_message");
    if (stack)
        h << QStringLiteral("NPU_Stack_Info");
    if (mode != CompareMode::Summary && mode != CompareMode::Md5)
        h << QStringLiteral("Data_name");
    return h;
}

QString msprobeStackText(const DumpIndex &index, const OpRecord &op)
{
    if (op.stack < 0 || size_t(op.stack) >= index.stacks.size())
        return kNA;
    // msprobe 26 collects stacks in forward hooks: its table has none for backward entries (the
    // reader lends them their forward twin's)
    if (isMsprobeOp(op) && !isForwardEntry(op.relPath.mid(op.relPath.lastIndexOf(QLatin1Char('/')) + 1)))
        return kNA;
    QStringList items;
    for (const QString &line : index.stacks[size_t(op.stack)])
        items << pythonStrRepr(line);
    return QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']');
}

QString msprobeErrMessage(const QStringList &messages)
{
    QStringList items;
    for (const QString &m : messages) {
        QString q = QStringLiteral("\"");
        for (QChar c : m) {
            const char16_t u = c.unicode();
            if (c == QLatin1Char('"') || c == QLatin1Char('\\'))
                q += QLatin1Char('\\') + c;
            else if (u == '\n')
                q += QLatin1String("\\n");
            else if (u < 0x20 || u > 0x7e)
                q += QStringLiteral("\\u%1").arg(int(u), 4, 16, QLatin1Char('0'));
            else
                q += c;
        }
        items << q + QLatin1Char('"');
    }
    return QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']');
}

} // namespace ds
