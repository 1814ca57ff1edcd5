// msprobe 26's Result column (pass / warning / error) and its Err_message, per API or module
// entry from the cells of its rows (compare.md §8; the checkers msprobe runs after a compare:
// tensor mode InfNan, OneThousandth, RequiresGrad, Parameters, DType, Shape, Cosine; statistics
// mode InfNan, RelativeErr, RequiresGrad, Parameters, DType, Shape, RelativeWarn; md5 CRC-32).
#include "msprobecells.h"

#include <charconv>
#include <cmath>
#include <optional>
#include <memory>

namespace ds {

namespace {

enum class Level : std::uint8_t { Pass, Warning, Error };

const QString kNA = QStringLiteral("N/A");

struct Item
{
    MsprobeCheckFacts facts;
    Level level = Level::Pass;
    QStringList messages;
    void raise(Level l, const QString &message)
    {
        level = std::max(level, l);
        messages << message;
    }
};

bool isInfOrNan(const MsCell &c)
{
    if (c.kind == MsCell::Kind::Float)
        return !std::isfinite(c.number);
    if (c.kind != MsCell::Kind::Text)
        return false;
    const QString s = c.text.trimmed().toLower();
    return s == QLatin1String("inf") || s == QLatin1String("-inf") || s == QLatin1String("nan");
}

/// QString::toDouble of a plain decimal number ("0", "-1.5e-05", "12.0"), without its
/// copies; nullopt for any other text (the caller parses it the slow way).
std::optional<double> plainDecimal(QStringView s)
{
    char buf[40];
    if (s.isEmpty() || s.size() >= qsizetype(sizeof buf))
        return std::nullopt;
    size_t n = 0;
    for (QChar c : s) {
        const char16_t u = c.unicode();
        if (!((u >= '0' && u <= '9') || u == '.' || u == 'e' || u == 'E' || u == '-' || u == '+'))
            return std::nullopt;
        buf[n++] = char(u);
    }
    double v = 0;
    const auto r = std::from_chars(buf, buf + n, v);
    if (r.ec != std::errc() || r.ptr != buf + n)
        return std::nullopt;
    return v;
}

/// A cell as get_min_or_max_value reads it: numbers, "x%" as x / 100; other text is skipped.
std::optional<double> indicator(const MsCell &c)
{
    if (c.kind == MsCell::Kind::Text) {
        if (c.text.endsWith(QLatin1Char('%'))) {
            if (const auto v = plainDecimal(QStringView(c.text).chopped(1)))
                return *v / 100;
            bool ok = false;
            const double v = c.text.chopped(1).toDouble(&ok);
            return ok ? v / 100 : 0.0;
        }
        return std::nullopt;
    }
    return c.number;
}

/// str2float: "x%" or any text as a float / 100, 0 when it is not a number.
double percentValue(const MsCell &c)
{
    if (c.kind != MsCell::Kind::Text)
        return c.number / 100;
    {
        QStringView v(c.text);
        while (v.endsWith(QLatin1Char('%')))
            v.chop(1);
        if (const auto x = plainDecimal(v); x && !v.startsWith(QLatin1Char('%')))
            return *x / 100;
    }
    QString s = c.text;
    while (s.endsWith(QLatin1Char('%')))
        s.chop(1);
    while (s.startsWith(QLatin1Char('%')))
        s.remove(0, 1);
    const QString l = s.trimmed().toLower();
    if (l == QLatin1String("nan"))
        return std::nan("");
    if (l == QLatin1String("inf") || l == QLatin1String("infinity"))
        return HUGE_VAL;
    if (l == QLatin1String("-inf") || l == QLatin1String("-infinity"))
        return -HUGE_VAL;
    bool ok = false;
    const double v = l.toDouble(&ok);
    return ok ? v / 100 : 0.0;
}

/// min (or max) of an indicator over the input or the output rows, starting from 1.0 (or 0.0).
double extreme(const std::vector<Item *> &rows, size_t indicator, bool isMin)
{
    double v = isMin ? 1.0 : 0.0;
    for (const Item *r : rows)
        if (const auto &x = r->facts.indicator[indicator])
            v = isMin ? std::min(v, *x) : std::max(v, *x);
    return v;
}

enum class Ignore { None, All, Input };

/// Which checks an operator skips, from its first input row's name: the token after the
/// first '.' (the API name of "Torch.empty.0.forward.input.0").
Ignore ignoreOf(const QString *firstInputName)
{
    if (!firstInputName)
        return Ignore::None;
    const QStringView name(*firstInputName);
    const qsizetype dot = name.indexOf(QLatin1Char('.'));
    if (dot < 0)
        return Ignore::None;
    const qsizetype next = name.indexOf(QLatin1Char('.'), dot + 1);
    const QStringView api = name.mid(dot + 1, next < 0 ? -1 : next - dot - 1);
    static const char *const all[] = {"empty", "empty_like", "numpy", "to", "__setitem__", "empty_with_format",
                                      "new_empty_strided", "new_empty", "empty_strided"};
    static const char *const input[] = {"_reduce_scatter_base", "_all_gather_base", "all_to_all_single",
                                        "batch_isend_irecv"};
    for (const char *a : all)
        if (api == QLatin1String(a))
            return Ignore::All;
    for (const char *a : input)
        if (api == QLatin1String(a))
            return Ignore::Input;
    return Ignore::None;
}

void runCheckers(std::vector<Item> &items, const QString *firstInputName, CompareMode mode)
{
    std::vector<Item *> in, out, both;
    for (Item &i : items)
        (i.facts.output ? out : in).push_back(&i);
    both = in;
    both.insert(both.end(), out.begin(), out.end());
    const Ignore ignore = ignoreOf(firstInputName);
    const std::vector<Item *> &checked = ignore == Ignore::All ? std::vector<Item *>{} : ignore == Ignore::Input ? out : both;
    const bool inputRules = ignore == Ignore::None;
    const QString err = QStringLiteral("error: "), warn = QStringLiteral("warning: ");

    if (mode == CompareMode::Md5) {
        for (Item *r : checked) {
            if (r->facts.md5 == MsprobeCheckFacts::Md5::Missing)
                r->raise(Level::Warning, warn + QStringLiteral("The parameter of NPU does not match the bench."));
            else if (r->facts.md5 == MsprobeCheckFacts::Md5::Differ)
                r->raise(Level::Error, err + QStringLiteral("The CRC-32 value of NPU differs from that of the bench."));
        }
        return;
    }
    const bool tensor = mode != CompareMode::Summary;
    const size_t oneThousandth = 0, cosine = 1, normRel = 0; // MsprobeCheckFacts::indicator

    // InfNanErrChecker
    for (Item *r : checked)
        if (r->facts.infNanError)
            r->raise(Level::Error, err + QStringLiteral("There is nan/inf/-inf in the maximum or minimum value of NPU."));
    if (tensor) { // OneThousandthErrChecker
        if (inputRules && !out.empty() && extreme(in, oneThousandth, true) > 0.9 && extreme(out, oneThousandth, true) < 0.1)
            out.front()->raise(Level::Error, err + QStringLiteral("The input/parameters of One Thousandth Err Ratio > 0.9 "
                                                                  "while the output < 0.6."));
    } else if (inputRules && std::fabs(extreme(in, normRel, false)) < 0.1) { // RelativeErrChecker
        for (Item *r : out)
            if (std::fabs(r->facts.percent) > 0.5)
                r->raise(Level::Error, err + QStringLiteral("The NormRelativeErr of output is greater than 0.5."));
    }
    // RequiresGradErrChecker
    for (Item *r : checked)
        if (r->facts.reqGradError)
            r->raise(Level::Error, err + QStringLiteral("The Required_Grad of NPU and Bench are inconsistent"));
    // ParametersErrChecker: scalar (non-tensor) arguments
    if (inputRules)
        for (Item *r : in)
            if (r->facts.scalarError)
                r->raise(Level::Error, err + QStringLiteral("The scalar parameters of NPU and Bench are inconsistent."));
    // DTypeErrChecker
    for (Item *r : checked)
        if (r->facts.dtypeError)
            r->raise(Level::Error, err + QStringLiteral("The dtype of NPU and Bench are inconsistent."));
    // ShapeErrChecker
    for (Item *r : checked)
        if (r->facts.shapeError)
            r->raise(Level::Error, err + QStringLiteral("The shape of NPU and Bench are inconsistent."));
    if (!inputRules || out.empty())
        return;
    if (tensor) { // CosineWarnChecker
        const double inCos = extreme(in, cosine, true), outCos = extreme(out, cosine, true);
        if (inCos > 0.9 && inCos - outCos > 0.1)
            out.front()->raise(Level::Warning, warn + QStringLiteral("The input/parameters of Cosine > 0.9, and "
                                                                     "input/parameters - output > 0.1"));
    } else { // RelativeWarnChecker
        const double inRel = std::fabs(extreme(in, normRel, false)), outRel = std::fabs(extreme(out, normRel, false));
        if (inRel == 0 ? outRel > 0.1 : outRel / inRel > 10)
            out.front()->raise(Level::Warning, warn + QStringLiteral("The norm relative error of output is 10 times that of input."));
    }
}

} // namespace

bool MsprobeCheckFacts::operator==(const MsprobeCheckFacts &o) const
{
    auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
    return output == o.output && infNanError == o.infNanError && reqGradError == o.reqGradError
           && scalarError == o.scalarError && dtypeError == o.dtypeError && shapeError == o.shapeError
           && indicator[0] == o.indicator[0] && indicator[1] == o.indicator[1] && same(percent, o.percent) && md5 == o.md5;
}

MsprobeCheckFacts msprobeCheckFacts(const MsprobeRow &c, CompareMode mode)
{
    return msprobeCheckFacts(c, mode, c.npuName, c.benchName);
}

MsprobeCheckFacts msprobeCheckFacts(const MsprobeRow &c, CompareMode mode, const QString &npuName, const QString &benchName)
{
    MsprobeCheckFacts f;
    f.output = npuName.contains(QLatin1String(".output.")); // MsprobeRow::isOutput
    if (mode == CompareMode::Md5) {
        // Python's !=: an md5 written as a number (an int) differs from the same digits as text
        const QString n = c.compare[0].pyStr(), b = c.compare[1].pyStr();
        const auto null = [](const QString &s) { return s == kNA || s == QLatin1String("Nan") || s.isEmpty(); };
        f.md5 = c.compare[0] == c.compare[1] ? MsprobeCheckFacts::Md5::Equal
                : null(n) || null(b) ? MsprobeCheckFacts::Md5::Missing
                                     : MsprobeCheckFacts::Md5::Differ;
        return f;
    }
    const auto &s = c.stats;
    f.infNanError = !isInfOrNan(s[4]) && !isInfOrNan(s[5]) && (isInfOrNan(s[0]) || isInfOrNan(s[1]));
    if (mode == CompareMode::Summary) {
        const MsCell &normRel = c.compare[2 * kStatCount - 1];
        f.indicator[0] = indicator(normRel);
        f.percent = percentValue(normRel);
    } else {
        f.indicator[0] = indicator(c.compare[size_t(Metric::OneThousandthErrRatio)]);
        f.indicator[1] = indicator(c.compare[size_t(Metric::Cosine)]);
    }
    const bool named = !benchName.isEmpty() && benchName != kNA;
    f.reqGradError = named && !c.npuReqGrad.isEmpty() && !c.benchReqGrad.isEmpty() && c.npuReqGrad != c.benchReqGrad;
    f.scalarError = named && c.npuShape == QLatin1String("[]") && c.npuDtype.contains(QLatin1String("class"))
                    && c.benchDtype.contains(QLatin1String("class")) && !(c.stats[0] == c.stats[4]);
    // The rare dtype difference first: the name searches then run only for the rows it concerns.
    f.dtypeError = named && c.npuDtype != c.benchDtype && !c.npuDtype.isEmpty() && !c.benchDtype.isEmpty()
                   && npuName != kNA && !benchName.contains(QLatin1String("qkv")) && !benchName.contains(QLatin1String("gate_up"));
    f.shapeError = named && c.npuShape != c.benchShape;
    return f;
}

size_t applyMsprobeResults(const DumpIndex &npu, const DumpIndex &bench, CompareResult &result, bool fastPath,
                           bool notPassOps)
{
    static const QString names[] = {QStringLiteral("pass"), QStringLiteral("warning"), QStringLiteral("error")};
    std::unique_ptr<MsprobeSummaryFacts> fast;
    if (fastPath && result.mode == CompareMode::Summary)
        fast = std::make_unique<MsprobeSummaryFacts>(npu, bench);
    size_t fastRows = 0;
    std::vector<Item> items;
    for (size_t i = 0; i < result.rows.size();) {
        const int op = result.rows[i].npu.op;
        const size_t begin = i;
        if (notPassOps) {
            size_t end = i;
            bool allPass = true;
            for (; end < result.rows.size() && result.rows[end].npu.op == op; ++end)
                allPass = allPass && result.rows[end].verdict == Verdict::Pass;
            if (allPass) {
                i = end;
                continue;
            }
        }
        items.clear();
        const QString *firstInput = nullptr;
        for (; i < result.rows.size() && result.rows[i].npu.op == op; ++i) {
            const CompareRow &row = result.rows[i];
            std::optional<MsprobeCheckFacts> f;
            if (fast && (f = fast->facts(row)))
                ++fastRows;
            else
                f = msprobeCheckFacts(msprobeRow(npu, bench, row, result.mode), result.mode);
            if (!f->output && !firstInput)
                firstInput = &row.npuName;
            items.push_back({*f, Level::Pass, {}});
        }
        runCheckers(items, firstInput, result.mode);
        for (size_t k = 0; k < items.size(); ++k) {
            CompareRow &row = result.rows[begin + k];
            row.result = names[size_t(items[k].level)];
            row.resultMessages = std::move(items[k].messages);
        }
    }
    return fastRows;
}

} // namespace ds
