// The cells of an .xlsx compare table (resulttable.h). The zip container is read with libzip
// (Debian libzip-dev: a maintained reader of every zip variant Excel, openpyxl and
// libxlsxwriter write, deflate and zip64 included; the project's own zip reader,
// formats/torch/zipreader, only knows the stored members torch.save writes); the sheet XML
// (SpreadsheetML: workbook, relationships, shared strings, sheets) with Qt's QXmlStreamReader.
#include "resulttable.h"

#include "msprobenames.h"

#include <QFile>
#include <QHash>
#include <QXmlStreamReader>

#include <cmath>
#include <memory>
#include <zip.h>

namespace ds {

namespace {

constexpr zip_uint64_t kMaxMember = zip_uint64_t(1) << 31; // a sheet of 2 GiB of XML is no compare table

struct ZipCloser
{
    void operator()(zip_t *z) const { zip_discard(z); }
};

/// A member's bytes, or an error text.
Result<QByteArray> member(zip_t *zip, const QString &path, const QString &name, bool required = true)
{
    const QByteArray n = name.toUtf8();
    const zip_int64_t at = zip_name_locate(zip, n.constData(), 0);
    if (at < 0)
        return required ? Result<QByteArray>::failure(ErrorKind::Corrupt, path, QStringLiteral("not an .xlsx workbook: no %1").arg(name))
                        : Result<QByteArray>(QByteArray());
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(zip, zip_uint64_t(at), 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
        return Result<QByteArray>::failure(ErrorKind::Corrupt, path, QStringLiteral("%1: %2").arg(name, QString::fromUtf8(zip_strerror(zip))));
    if (st.size > kMaxMember)
        return Result<QByteArray>::failure(ErrorKind::Unsupported, path, QStringLiteral("%1 holds %2 bytes of XML").arg(name).arg(st.size));
    std::unique_ptr<zip_file_t, int (*)(zip_file_t *)> f(zip_fopen_index(zip, zip_uint64_t(at), 0), zip_fclose);
    if (!f)
        return Result<QByteArray>::failure(ErrorKind::Corrupt, path, QStringLiteral("%1: %2").arg(name, QString::fromUtf8(zip_strerror(zip))));
    QByteArray bytes(qsizetype(st.size), Qt::Uninitialized);
    zip_int64_t done = 0;
    while (done < zip_int64_t(st.size)) {
        const zip_int64_t n = zip_fread(f.get(), bytes.data() + done, st.size - zip_uint64_t(done));
        if (n <= 0)
            return Result<QByteArray>::failure(ErrorKind::Truncated, path,
                                               QStringLiteral("%1: %2").arg(name, n < 0 ? QString::fromUtf8(zip_file_strerror(f.get()))
                                                                                        : QStringLiteral("ends early")));
        done += n;
    }
    return bytes;
}

QString xmlError(const QXmlStreamReader &x, const QString &member)
{
    return QStringLiteral("%1, line %2: %3").arg(member).arg(x.lineNumber()).arg(x.errorString());
}

/// The text of a <si> or <is> element: its <t> runs joined (rich text <r><t> too; phonetic
/// <rPh> runs left out).
QString stringItem(QXmlStreamReader &x)
{
    const QString endName = x.name().toString();
    QString s;
    while (!x.atEnd()) {
        const auto token = x.readNext();
        if (token == QXmlStreamReader::StartElement && x.name() == QLatin1String("t"))
            s += x.readElementText();
        else if (token == QXmlStreamReader::StartElement && x.name() == QLatin1String("rPh"))
            x.skipCurrentElement();
        else if (token == QXmlStreamReader::EndElement && x.name() == endName)
            break;
    }
    return s;
}

/// "B12" -> column 1 (0-based); -1 when not a cell reference.
int columnOf(QStringView ref)
{
    int c = 0, letters = 0;
    for (QChar ch : ref) {
        if (ch >= QLatin1Char('A') && ch <= QLatin1Char('Z')) {
            c = c * 26 + (ch.unicode() - 'A' + 1);
            if (++letters > 3)
                return -1;
        } else {
            break;
        }
    }
    return letters ? c - 1 : -1;
}

/// A number cell as the CSV holds it: an int as digits, a float as Python's repr.
QString numberText(const QString &v)
{
    bool ok = false;
    const double d = v.toDouble(&ok);
    if (!ok)
        return v;
    const bool intText = !v.contains(QLatin1Char('.')) && !v.contains(QLatin1Char('e')) && !v.contains(QLatin1Char('E'));
    if (intText && std::fabs(d) < 9.007199254740992e15)
        return QString::number(qint64(d));
    return pythonFloatRepr(d);
}

} // namespace

Result<TextTable> readXlsxTable(const QString &path)
{
    if (!QFile::exists(path))
        return Result<TextTable>::failure(ErrorKind::NotFound, path, QStringLiteral("no such file"));
    int zerr = 0;
    const QByteArray name = QFile::encodeName(path);
    std::unique_ptr<zip_t, ZipCloser> zip(zip_open(name.constData(), ZIP_RDONLY, &zerr));
    if (!zip) {
        zip_error_t e;
        zip_error_init_with_code(&e, zerr);
        const QString text = QString::fromUtf8(zip_error_strerror(&e));
        zip_error_fini(&e);
        return Result<TextTable>::failure(ErrorKind::Corrupt, path, QStringLiteral("not a readable .xlsx (zip) file: %1").arg(text));
    }
    // sheets in workbook order, their files from the relationships
    auto workbook = member(zip.get(), path, QStringLiteral("xl/workbook.xml"));
    if (!workbook)
        return workbook.error();
    auto rels = member(zip.get(), path, QStringLiteral("xl/_rels/workbook.xml.rels"));
    if (!rels)
        return rels.error();
    QHash<QString, QString> targets;
    {
        QXmlStreamReader x(*rels);
        while (!x.atEnd())
            if (x.readNext() == QXmlStreamReader::StartElement && x.name() == QLatin1String("Relationship"))
                targets.insert(x.attributes().value(QLatin1String("Id")).toString(),
                               x.attributes().value(QLatin1String("Target")).toString());
        if (x.hasError())
            return Result<TextTable>::failure(ErrorKind::Corrupt, path, xmlError(x, QStringLiteral("xl/_rels/workbook.xml.rels")));
    }
    std::vector<std::pair<QString, QString>> sheets; // name, member
    {
        QXmlStreamReader x(*workbook);
        while (!x.atEnd())
            if (x.readNext() == QXmlStreamReader::StartElement && x.name() == QLatin1String("sheet")) {
                QString id;
                for (const QXmlStreamAttribute &a : x.attributes())
                    if (a.name() == QLatin1String("id"))
                        id = a.value().toString();
                QString target = targets.value(id);
                if (target.startsWith(QLatin1Char('/')))
                    target = target.mid(1);
                else
                    target = QStringLiteral("xl/") + target;
                sheets.emplace_back(x.attributes().value(QLatin1String("name")).toString(), target);
            }
        if (x.hasError())
            return Result<TextTable>::failure(ErrorKind::Corrupt, path, xmlError(x, QStringLiteral("xl/workbook.xml")));
    }
    if (sheets.empty())
        return Result<TextTable>::failure(ErrorKind::Corrupt, path, QStringLiteral("the workbook has no sheet"));
    QStringList shared;
    {
        auto sst = member(zip.get(), path, QStringLiteral("xl/sharedStrings.xml"), false);
        if (!sst)
            return sst.error();
        QXmlStreamReader x(*sst);
        while (!sst->isEmpty() && !x.atEnd())
            if (x.readNext() == QXmlStreamReader::StartElement && x.name() == QLatin1String("si"))
                shared << stringItem(x);
        if (!sst->isEmpty() && x.hasError())
            return Result<TextTable>::failure(ErrorKind::Corrupt, path, xmlError(x, QStringLiteral("xl/sharedStrings.xml")));
    }

    TextTable table;
    table.path = path;
    for (const auto &[sheetName, file] : sheets) {
        auto xml = member(zip.get(), path, file);
        if (!xml)
            return xml.error();
        QXmlStreamReader x(*xml);
        auto fail = [&](int row, const QString &ref, const QString &what) {
            return Result<TextTable>::failure(ErrorKind::Corrupt, path,
                                              QStringLiteral("sheet %1, row %2, cell %3: %4").arg(sheetName).arg(row).arg(ref, what));
        };
        QStringList header;
        while (!x.atEnd()) {
            if (x.readNext() != QXmlStreamReader::StartElement || x.name() != QLatin1String("row"))
                continue;
            const int rowNumber = x.attributes().value(QLatin1String("r")).toInt();
            QStringList cells;
            while (x.readNextStartElement()) {
                if (x.name() != QLatin1String("c")) {
                    x.skipCurrentElement();
                    continue;
                }
                const QString ref = x.attributes().value(QLatin1String("r")).toString();
                const QString type = x.attributes().value(QLatin1String("t")).toString();
                const int column = ref.isEmpty() ? int(cells.size()) : columnOf(ref);
                if (column < 0 || column > 16383)
                    return fail(rowNumber, ref, QStringLiteral("not a cell reference"));
                QString value, inlineText;
                bool hasValue = false;
                while (x.readNextStartElement()) {
                    if (x.name() == QLatin1String("v")) {
                        value = x.readElementText();
                        hasValue = true;
                    } else if (x.name() == QLatin1String("is")) {
                        inlineText = stringItem(x);
                        hasValue = true;
                    } else {
                        x.skipCurrentElement();
                    }
                }
                QString text;
                if (type == QLatin1String("s")) {
                    bool ok = false;
                    const int k = value.toInt(&ok);
                    if (!ok || k < 0 || k >= shared.size())
                        return fail(rowNumber, ref, QStringLiteral("shared string %1 does not exist (%2 strings)").arg(value).arg(shared.size()));
                    text = shared[k];
                } else if (type == QLatin1String("inlineStr")) {
                    text = inlineText;
                } else if (type == QLatin1String("b")) {
                    text = value == QLatin1String("1") ? QStringLiteral("True") : QStringLiteral("False");
                } else if (type == QLatin1String("str") || type == QLatin1String("e")) {
                    text = value;
                } else if (hasValue) {
                    text = numberText(value);
                }
                while (cells.size() < column)
                    cells << QString();
                if (cells.size() == column)
                    cells << text;
                else
                    cells[column] = text;
            }
            if (x.hasError())
                break;
            if (header.isEmpty()) {
                header = cells;
                if (table.header.isEmpty())
                    table.header = header;
                else if (header != table.header)
                    return fail(rowNumber, QStringLiteral("A%1").arg(rowNumber),
                                QStringLiteral("the header differs from the first sheet's (%1)").arg(sheets.front().first));
                continue;
            }
            if (cells.size() > header.size())
                return fail(rowNumber, QString(), QStringLiteral("%1 cells where the header has %2").arg(cells.size()).arg(header.size()));
            while (cells.size() < header.size())
                cells << QString(); // empty cells are not written
            table.rows.push_back(std::move(cells));
            table.lines.push_back(rowNumber);
        }
        if (x.hasError())
            return Result<TextTable>::failure(ErrorKind::Corrupt, path, xmlError(x, file));
        table.sheet = sheets.size() == 1 ? sheetName : QString();
    }
    if (table.header.isEmpty())
        return Result<TextTable>::failure(ErrorKind::Corrupt, path, QStringLiteral("the workbook has no header row"));
    if (sheets.size() == 1)
        table.sheet = sheets.front().first;
    return table;
}

} // namespace ds
