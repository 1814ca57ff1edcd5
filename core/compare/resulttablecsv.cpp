// CSV text of msprobe's compare tables (pandas to_csv) into cells, with the line and column
// of anything that is not CSV (resulttable.h).
#include "resulttable.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStringDecoder>

namespace ds {

namespace {

QString columnName(const QStringList &header, qsizetype column)
{
    return column < header.size() && !header[column].isEmpty() ? QStringLiteral(" (%1)").arg(header[column]) : QString();
}

} // namespace

Result<TextTable> parseCsvTable(QByteArrayView bytes, const QString &path)
{
    if (bytes.startsWith("\xEF\xBB\xBF"))
        bytes = bytes.sliced(3);
    QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    TextTable table;
    table.path = path;
    auto fail = [&](int line, qsizetype column, const QString &what) {
        const QString where = column >= 0 ? QStringLiteral("line %1, column %2%3: ").arg(line).arg(column + 1).arg(columnName(table.header, column))
                                          : QStringLiteral("line %1: ").arg(line);
        return Result<TextTable>::failure(ErrorKind::Corrupt, path, where + what);
    };
    QStringList row;
    QByteArray field;
    int line = 1, rowLine = 1;
    bool quoted = false, wasQuoted = false, any = false;
    auto endField = [&]() -> bool {
        QString text = utf8.decode(field);
        if (utf8.hasError())
            return false;
        row << std::move(text);
        field.clear();
        wasQuoted = false;
        return true;
    };
    auto endRow = [&]() -> std::optional<Result<TextTable>> {
        if (!endField())
            return fail(rowLine, row.size(), QStringLiteral("the text is not UTF-8"));
        if (table.header.isEmpty() && table.rows.empty() && !any) {
            table.header = std::move(row);
        } else if (row.size() == 1 && row.front().isEmpty()) {
            // a blank line (pandas writes none; a file ends with one newline)
        } else if (row.size() != table.header.size()) {
            return fail(rowLine, -1, QStringLiteral("%1 fields where the header has %2 (a truncated or garbled row)")
                                         .arg(row.size()).arg(table.header.size()));
        } else {
            table.rows.push_back(std::move(row));
            table.lines.push_back(rowLine);
        }
        any = true;
        row.clear();
        return std::nullopt;
    };
    const char *p = bytes.data(), *end = p + bytes.size();
    while (p < end) {
        const char c = *p++;
        if (quoted) {
            if (c == '"') {
                if (p < end && *p == '"') {
                    field += '"';
                    ++p;
                } else {
                    quoted = false;
                }
            } else {
                if (c == '\n')
                    ++line;
                field += c;
            }
            continue;
        }
        switch (c) {
        case '"':
            if (!field.isEmpty() || wasQuoted)
                return fail(line, row.size(), QStringLiteral("a quote inside an unquoted field"));
            quoted = wasQuoted = true;
            break;
        case ',':
            if (!endField())
                return fail(line, row.size(), QStringLiteral("the text is not UTF-8"));
            break;
        case '\r':
            if (p < end && *p == '\n')
                break;
            [[fallthrough]];
        case '\n':
            if (auto e = endRow())
                return *e;
            rowLine = ++line;
            break;
        default:
            if (wasQuoted)
                return fail(line, row.size(), QStringLiteral("text after the closing quote of a field"));
            field += c;
        }
    }
    if (quoted)
        return fail(rowLine, row.size(), QStringLiteral("a quoted field that never ends (the file is truncated)"));
    if (!field.isEmpty() || !row.isEmpty() || wasQuoted)
        if (auto e = endRow())
            return *e;
    if (table.header.isEmpty())
        return Result<TextTable>::failure(ErrorKind::Corrupt, path, QStringLiteral("the file is empty: no header row"));
    return table;
}

Result<TextTable> readCsvTable(const QString &path)
{
    QFile f(path);
    if (!f.exists())
        return Result<TextTable>::failure(ErrorKind::NotFound, path, QStringLiteral("no such file"));
    if (!f.open(QIODevice::ReadOnly))
        return Result<TextTable>::failure(ErrorKind::Access, path, f.errorString());
    const QByteArray bytes = f.readAll();
    if (f.error() != QFileDevice::NoError)
        return Result<TextTable>::failure(ErrorKind::Access, path, f.errorString());
    return parseCsvTable(bytes, path);
}

bool isCompareTableName(const QString &fileName)
{
    static const QRegularExpression name(QStringLiteral(R"(^(debug_)?compare_result.*\.(csv|xlsx)$)"),
                                         QRegularExpression::CaseInsensitiveOption);
    return name.match(QFileInfo(fileName).fileName()).hasMatch();
}

} // namespace ds
