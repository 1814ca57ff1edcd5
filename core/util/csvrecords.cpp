// CSV records with line numbers (csvrecords.h).
#include "csvrecords.h"

#include <QFile>
#include <QStringDecoder>
#include <optional>

namespace ds {

QString csvFieldName(const QStringList &header, qsizetype column)
{
    return column >= 0 && column < header.size() && !header[column].isEmpty() ? QStringLiteral(" (%1)").arg(header[column]) : QString();
}

Result<CsvRecords> parseCsvRecords(QByteArrayView bytes, const QString &file)
{
    using R = Result<CsvRecords>;
    if (bytes.startsWith("\xEF\xBB\xBF"))
        bytes = bytes.sliced(3);
    QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    CsvRecords out;
    bool haveHeader = false;
    auto fail = [&](int line, qsizetype field, const QString &what) {
        return R::failure(ErrorKind::Corrupt, file,
                          QStringLiteral("line %1, column %2%3: %4").arg(line).arg(field + 1).arg(csvFieldName(out.header, field), what));
    };
    QStringList row;
    QByteArray field;
    int line = 1, rowLine = 1;
    bool quoted = false, wasQuoted = false;
    auto endField = [&]() {
        QString text = utf8.decode(field);
        if (utf8.hasError())
            return false;
        row << std::move(text);
        field.clear();
        wasQuoted = false;
        return true;
    };
    auto endRow = [&]() -> std::optional<R> {
        if (!endField())
            return fail(rowLine, row.size(), QStringLiteral("the text is not UTF-8"));
        if (row.size() == 1 && row.front().isEmpty()) {
            // a blank line
        } else if (!haveHeader) {
            out.header = std::move(row);
            haveHeader = true;
        } else {
            out.rows.push_back(std::move(row));
            out.lines.push_back(rowLine);
        }
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
    if (!haveHeader)
        return R::failure(ErrorKind::Corrupt, file, QStringLiteral("the file is empty: no header row"));
    return out;
}

Result<CsvRecords> readCsvRecords(const QString &path, const QString &shownName, qint64 maxBytes)
{
    using R = Result<CsvRecords>;
    QFile f(path);
    if (!f.exists())
        return R::failure(ErrorKind::NotFound, shownName, QStringLiteral("no such file"));
    if (!f.open(QIODevice::ReadOnly))
        return R::failure(ErrorKind::Access, shownName, f.errorString());
    if (f.size() > maxBytes)
        return R::failure(ErrorKind::Unsupported, shownName, QStringLiteral("%1 bytes: larger than the %2 bytes read of a table").arg(f.size()).arg(maxBytes));
    const QByteArray bytes = f.readAll();
    if (f.error() != QFileDevice::NoError)
        return R::failure(ErrorKind::Access, shownName, f.errorString());
    return parseCsvRecords(bytes, shownName);
}

} // namespace ds
