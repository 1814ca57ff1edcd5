#include "diffanalyze.h"

#include "formats/msprobe/jsonstream.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

namespace ds {

namespace {

using msprobe::JsonNode;
using msprobe::JsonTree;

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

/// The strings of array node `i` (other values skipped).
QStringList strings(const JsonTree &t, std::uint32_t i)
{
    QStringList out;
    if (!i || t.node(i).kind != JsonNode::Array)
        return out;
    for (std::uint32_t c = t.node(i).first; c; c = t.node(c).next)
        if (t.node(c).kind == JsonNode::String)
            out << qs(t.text(t.node(c)));
    return out;
}

/// The keys of object node `i`, in order.
QStringList keys(const JsonTree &t, std::uint32_t i)
{
    QStringList out;
    if (!i || t.node(i).kind != JsonNode::Object)
        return out;
    for (std::uint32_t c = t.node(i).first; c; c = t.node(c).next)
        out << qs(t.key(t.node(c)));
    return out;
}

/// Python's repr of a str (single quotes unless the text holds one and no double quote).
QString pythonStrRepr(const QString &s)
{
    const QChar q = s.contains(QLatin1Char('\'')) && !s.contains(QLatin1Char('"')) ? QLatin1Char('"') : QLatin1Char('\'');
    QString out(q);
    for (QChar c : s) {
        if (c == QLatin1Char('\\'))
            out += QStringLiteral("\\\\");
        else if (c == QLatin1Char('\n'))
            out += QStringLiteral("\\n");
        else if (c == QLatin1Char('\t'))
            out += QStringLiteral("\\t");
        else if (c == QLatin1Char('\r'))
            out += QStringLiteral("\\r");
        else if (c == q)
            out += QLatin1Char('\\') + c;
        else
            out += c;
    }
    return out + q;
}

/// A value of an op_items row as msprobe's CSV writes the same cell (pandas to_csv of the
/// Python value): strings as they are, numbers as written (Python's repr), NaN/Infinity as
/// pandas spells them, booleans True/False, null None, a list as Python's repr of it.
QString cellText(const JsonTree &t, std::uint32_t i)
{
    const JsonNode &n = t.node(i);
    switch (n.kind) {
    case JsonNode::Null: return QStringLiteral("None");
    case JsonNode::False: return QStringLiteral("False");
    case JsonNode::True: return QStringLiteral("True");
    case JsonNode::String: return qs(t.text(n));
    case JsonNode::Number: {
        const QString text = qs(t.text(n));
        if (text == QLatin1String("NaN"))
            return QStringLiteral("nan");
        if (text.endsWith(QLatin1String("Infinity")))
            return text.startsWith(QLatin1Char('-')) ? QStringLiteral("-inf") : QStringLiteral("inf");
        return text;
    }
    case JsonNode::Array: {
        QStringList items;
        for (std::uint32_t c = n.first; c; c = t.node(c).next)
            items << (t.node(c).kind == JsonNode::String ? pythonStrRepr(qs(t.text(t.node(c)))) : cellText(t, c));
        return QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']');
    }
    case JsonNode::Object: {
        std::string out;
        t.serialize(i, out);
        return QString::fromStdString(out);
    }
    }
    return {};
}

/// msprobe's find_first is_ignore_op (find_first/utils.py:121-127).
bool isIgnoredOp(const QString &op)
{
    for (const char *k : {"Torch.empty", "Torch.fill", "Tensor.__setitem__"})
        if (op.contains(QLatin1String(k)))
            return true;
    return false;
}

bool parse(const QByteArray &text, const QString &shown, JsonTree &t, QString &error)
{
    QString why;
    if (!msprobe::parseJsonText(text.toStdString(), t, &why)) {
        error = QStringLiteral("%1: not JSON (%2)").arg(shown, why);
        return false;
    }
    return true;
}

} // namespace

bool isDiffAnalyzeName(const QString &fileName)
{
    static const QRegularExpression re(QStringLiteral("^diff_analyze_.*\\.json$"), QRegularExpression::CaseInsensitiveOption);
    return re.match(fileName).hasMatch();
}

bool isCompareResultJsonName(const QString &fileName)
{
    static const QRegularExpression re(QStringLiteral("^compare_result_rank.*\\.json$"), QRegularExpression::CaseInsensitiveOption);
    return re.match(fileName).hasMatch();
}

Result<DiffAnalyzeFile> parseDiffAnalyze(const QByteArray &text, const QString &shown)
{
    using R = Result<DiffAnalyzeFile>;
    JsonTree t;
    QString error;
    if (!parse(text, shown, t, error))
        return R::failure(error);
    if (t.empty() || t.root().kind != JsonNode::Object)
        return R::failure(QStringLiteral("%1: not msprobe's compare -da answer: expected an object of rank_N lists").arg(shown));
    DiffAnalyzeFile file;
    file.path = shown;
    for (std::uint32_t r = t.root().first; r; r = t.node(r).next) {
        const JsonNode &rank = t.node(r);
        const QString rankKey = qs(t.key(rank));
        if (rank.kind != JsonNode::Array)
            return R::failure(QStringLiteral("%1: %2 is not a list of differing ops").arg(shown, rankKey));
        for (std::uint32_t e = rank.first; e; e = t.node(e).next) {
            const std::uint32_t name = t.find(e, "op_name");
            if (!name || t.node(name).kind != JsonNode::String)
                return R::failure(QStringLiteral("%1: %2: an entry without op_name").arg(shown, rankKey));
            MsprobeFirstDiff d{rankKey, qs(t.text(t.node(name))), {}, strings(t, t.find(e, "stack_info"))};
            const std::uint32_t info = t.find(e, "data_info");
            for (const char *side : {"input", "output"})
                d.rows << keys(t, info ? t.find(info, side) : 0);
            file.diffs.push_back(std::move(d));
        }
    }
    return file;
}

Result<DiffAnalyzeFile> parseCompareResultJson(const QByteArray &text, const QString &shown)
{
    using R = Result<DiffAnalyzeFile>;
    JsonTree t;
    QString error;
    if (!parse(text, shown, t, error))
        return R::failure(error);
    if (t.empty() || t.root().kind != JsonNode::Object)
        return R::failure(QStringLiteral("%1: not msprobe's compare -da result: expected an object of entries with is_same and op_items").arg(shown));
    DiffAnalyzeFile file;
    file.kind = DiffAnalyzeFile::Kind::CompareResult;
    file.path = shown;
    file.table.path = shown;
    static const QRegularExpression rankRe(QStringLiteral("compare_result_rank_?(\\d*)"));
    const QRegularExpressionMatch m = rankRe.match(QFileInfo(shown).fileName());
    const QString rank = QStringLiteral("rank_") + (m.hasMatch() && !m.captured(1).isEmpty() ? m.captured(1) : QStringLiteral("0"));
    for (std::uint32_t e = t.root().first; e; e = t.node(e).next) {
        const JsonNode &entry = t.node(e);
        const QString op = qs(t.key(entry));
        const std::uint32_t same = t.find(e, "is_same"), items = t.find(e, "op_items");
        if (entry.kind != JsonNode::Object || !same || (t.node(same).kind != JsonNode::True && t.node(same).kind != JsonNode::False)
            || !items || t.node(items).kind != JsonNode::Array)
            return R::failure(QStringLiteral("%1: entry %2: expected {\"is_same\": true|false, \"op_items\": [...]}").arg(shown, op));
        ++file.entries;
        QStringList rows, stack;
        int row = 0;
        for (std::uint32_t i = t.node(items).first; i; i = t.node(i).next, ++row) {
            if (t.node(i).kind != JsonNode::Object)
                return R::failure(QStringLiteral("%1: entry %2: op_items[%3] is not an object of columns").arg(shown, op).arg(row));
            QStringList cells(file.table.header.size());
            for (std::uint32_t c = t.node(i).first; c; c = t.node(c).next) {
                const QString column = qs(t.key(t.node(c)));
                qsizetype at = file.table.header.indexOf(column);
                if (at < 0) {
                    file.table.header << column;
                    for (QStringList &r : file.table.rows)
                        r << QString();
                    cells << QString();
                    at = file.table.header.size() - 1;
                }
                cells[at] = cellText(t, c);
                if (column == QLatin1String("NPU Name"))
                    rows << cells[at];
                else if (column == QLatin1String("NPU_Stack_Info") && stack.isEmpty())
                    stack = strings(t, c);
            }
            file.table.rows.push_back(std::move(cells));
            file.table.lines.push_back(int(file.table.rows.size()) + 1);
        }
        if (t.node(same).kind == JsonNode::False) {
            ++file.differing;
            if (file.diffs.empty() && !isIgnoredOp(op))
                file.diffs.push_back({rank, op, rows, stack});
        }
    }
    return file;
}

Result<DiffAnalyzeFile> readFirstDiffFile(const QString &path)
{
    using R = Result<DiffAnalyzeFile>;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return R::failure(QStringLiteral("%1: cannot open (%2)").arg(path, f.errorString()));
    constexpr qint64 kMax = qint64(1) << 30;
    if (f.size() > kMax)
        return R::failure(QStringLiteral("%1: %2 bytes, more than the %3 read for a compare -da answer").arg(path).arg(f.size()).arg(kMax));
    const QByteArray text = f.readAll();
    const QString name = QFileInfo(path).fileName();
    if (isCompareResultJsonName(name))
        return parseCompareResultJson(text, path);
    if (isDiffAnalyzeName(name))
        return parseDiffAnalyze(text, path);
    // Renamed: by the shape of its first entry (a list: diff_analyze; an object: compare_result).
    JsonTree t;
    QString error;
    if (!parse(text, path, t, error))
        return R::failure(error);
    if (!t.empty() && t.root().kind == JsonNode::Object && t.root().first && t.node(t.root().first).kind == JsonNode::Object)
        return parseCompareResultJson(text, path);
    return parseDiffAnalyze(text, path);
}

} // namespace ds
