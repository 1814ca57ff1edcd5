// msprobe 26's Result column (pass / warning / error) and its Err_message, per API or module
// entry from the cells of its rows (compare.md §8; the checkers msprobe runs after a compare:
// tensor mode InfNan, OneThousandth, RequiresGrad, Parameters, DType, Shape, Cosine; statistics
// mode InfNan, RelativeErr, RequiresGrad, Parameters, DType, Shape, RelativeWarn; md5 CRC-32).
#include "msprobecells.h"

#include <charconv>
#include <cmath>
#include <optional>

namespace ds {

namespace {

enum class Level : std::uint8_t { Pass, Warning, Error };

const QString kNA = QStringLiteral("N/A");

struct Item
{
    MsprobeRow cells;
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

/// min (or max) of a column over the input or the output rows, starting from 1.0 (or 0.0).
double extreme(const std::vector<Item *> &rows, size_t column, bool isMin)
{
    double v = isMin ? 1.0 : 0.0;
    for (const Item *r : rows)
        if (const auto x = indicator(r->cells.compare[column]))
            v = isMin ? std::min(v, *x) : std::max(v, *x);
    return v;
}

enum class Ignore { None, All, Input };

Ignore ignoreOf(const std::vector<Item *> &inputs)
{
    if (inputs.empty())
        return Ignore::None;
    const QStringList parts = inputs.front()->cells.npuName.split(QLatin1Char('.'));
    if (parts.size() < 2)
        return Ignore::None;
    static const QStringList all{QStringLiteral("empty"), QStringLiteral("empty_like"), QStringLiteral("numpy"),
                                 QStringLiteral("to"), QStringLiteral("__setitem__"), QStringLiteral("empty_with_format"),
                                 QStringLiteral("new_empty_strided"), QStringLiteral("new_empty"), QStringLiteral("empty_strided")};
    static const QStringList input{QStringLiteral("_reduce_scatter_base"), QStringLiteral("_all_gather_base"),
                                   QStringLiteral("all_to_all_single"), QStringLiteral("batch_isend_irecv")};
    if (all.contains(parts[1]))
        return Ignore::All;
    if (input.contains(parts[1]))
        return Ignore::Input;
    return Ignore::None;
}

void runCheckers(std::vector<Item> &items, CompareMode mode)
{
    std::vector<Item *> in, out, both;
    for (Item &i : items)
        (i.cells.isOutput() ? out : in).push_back(&i);
    both = in;
    both.insert(both.end(), out.begin(), out.end());
    const Ignore ignore = ignoreOf(in);
    const std::vector<Item *> &checked = ignore == Ignore::All ? std::vector<Item *>{} : ignore == Ignore::Input ? out : both;
    const bool inputRules = ignore == Ignore::None;
    const QString err = QStringLiteral("error: "), warn = QStringLiteral("warning: ");

    if (mode == CompareMode::Md5) {
        for (Item *r : checked) {
            const QString n = r->cells.compare[0].pyStr(), b = r->cells.compare[1].pyStr();
            if (n == b)
                continue;
            const auto null = [](const QString &s) { return s == kNA || s == QLatin1String("Nan") || s.isEmpty(); };
            if (null(n) || null(b))
                r->raise(Level::Warning, warn + QStringLiteral("The parameter of NPU does not match the bench."));
            else
                r->raise(Level::Error, err + QStringLiteral("The CRC-32 value of NPU differs from that of the bench."));
        }
        return;
    }
    const bool tensor = mode != CompareMode::Summary;
    const size_t oneThousandth = size_t(Metric::OneThousandthErrRatio), cosine = size_t(Metric::Cosine);
    const size_t normRel = 2 * kStatCount - 1; // NormRelativeErr

    // InfNanErrChecker
    for (Item *r : checked) {
        const auto &s = r->cells.stats;
        if (isInfOrNan(s[4]) || isInfOrNan(s[5]))
            continue;
        if (isInfOrNan(s[0]) || isInfOrNan(s[1]))
            r->raise(Level::Error, err + QStringLiteral("There is nan/inf/-inf in the maximum or minimum value of NPU."));
    }
    if (tensor) { // OneThousandthErrChecker
        if (inputRules && !out.empty() && extreme(in, oneThousandth, true) > 0.9 && extreme(out, oneThousandth, true) < 0.1)
            out.front()->raise(Level::Error, err + QStringLiteral("The input/parameters of One Thousandth Err Ratio > 0.9 "
                                                                  "while the output < 0.6."));
    } else if (inputRules && std::fabs(extreme(in, normRel, false)) < 0.1) { // RelativeErrChecker
        for (Item *r : out)
            if (std::fabs(percentValue(r->cells.compare[normRel])) > 0.5)
                r->raise(Level::Error, err + QStringLiteral("The NormRelativeErr of output is greater than 0.5."));
    }
    // RequiresGradErrChecker
    for (Item *r : checked) {
        const MsprobeRow &c = r->cells;
        if (c.benchName.isEmpty() || c.benchName == kNA || c.npuReqGrad.isEmpty() || c.benchReqGrad.isEmpty())
            continue;
        if (c.npuReqGrad != c.benchReqGrad)
            r->raise(Level::Error, err + QStringLiteral("The Required_Grad of NPU and Bench are inconsistent"));
    }
    // ParametersErrChecker: scalar (non-tensor) arguments
    if (inputRules)
        for (Item *r : in) {
            const MsprobeRow &c = r->cells;
            if (c.benchName.isEmpty() || c.benchName == kNA || !c.npuDtype.contains(QLatin1String("class"))
                || !c.benchDtype.contains(QLatin1String("class")) || c.npuShape != QLatin1String("[]"))
                continue;
            if (!(c.stats[0] == c.stats[4]))
                r->raise(Level::Error, err + QStringLiteral("The scalar parameters of NPU and Bench are inconsistent."));
        }
    // DTypeErrChecker
    for (Item *r : checked) {
        const MsprobeRow &c = r->cells;
        if (c.benchName.isEmpty() || c.benchName == kNA || c.npuName == kNA || c.benchName.contains(QLatin1String("qkv"))
            || c.benchName.contains(QLatin1String("gate_up")) || c.npuDtype.isEmpty() || c.benchDtype.isEmpty())
            continue;
        if (c.npuDtype != c.benchDtype)
            r->raise(Level::Error, err + QStringLiteral("The dtype of NPU and Bench are inconsistent."));
    }
    // ShapeErrChecker
    for (Item *r : checked) {
        const MsprobeRow &c = r->cells;
        if (c.benchName.isEmpty() || c.benchName == kNA)
            continue;
        if (c.npuShape != c.benchShape)
            r->raise(Level::Error, err + QStringLiteral("The shape of NPU and Bench are inconsistent."));
    }
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

void applyMsprobeResults(const DumpIndex &npu, const DumpIndex &bench, CompareResult &result)
{
    static const QString names[] = {QStringLiteral("pass"), QStringLiteral("warning"), QStringLiteral("error")};
    std::vector<Item> items;
    for (size_t i = 0; i < result.rows.size();) {
        const int op = result.rows[i].npu.op;
        const size_t begin = i;
        items.clear();
        for (; i < result.rows.size() && result.rows[i].npu.op == op; ++i)
            items.push_back({msprobeRow(npu, bench, result.rows[i], result.mode), Level::Pass, {}});
        runCheckers(items, result.mode);
        for (size_t k = 0; k < items.size(); ++k) {
            CompareRow &row = result.rows[begin + k];
            row.result = names[size_t(items[k].level)];
            row.resultMessages = items[k].messages;
        }
    }
}

} // namespace ds
