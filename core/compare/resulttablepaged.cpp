// msprobe's compare tables paged: an index of row offsets over the mapped file (resulttablepaged.h).
// The state machine is parseCsvRecords' (util/csvrecords.cpp) byte for byte, so the errors and the
// cells are the same; tst_resulttablepaged checks both against it.
#include "resulttablepaged.h"

#include "util/cancel.h"
#include "util/csvrecords.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringDecoder>

#include <algorithm>

#include <sys/mman.h>

namespace ds {

namespace {

constexpr qint64 kDefaultPagedBytes = qint64(64) << 20;

bool validUtf8(const char *p, qint64 n)
{
    QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QString text = utf8.decode(QByteArrayView(p, n)); // decoded when converted
    return !utf8.hasError();
}

/// The text of a raw field (as in the file: quoted with "" for a quote, or not); `scratch`
/// holds it when it had to be unquoted.
QByteArrayView unquoted(const char *p, qint64 n, QByteArray &scratch)
{
    if (n < 1 || *p != '"')
        return QByteArrayView(p, n);
    QByteArray &out = scratch;
    out.clear();
    for (qint64 i = 1; i < n; ++i) {
        if (p[i] == '"') {
            if (i + 1 < n && p[i + 1] == '"')
                ++i;
            else
                continue;
        }
        out += p[i];
    }
    return out;
}

/// parseVerdict of a Result cell's trimmed text; `text` receives it when it is not one.
bool verdictOf(QByteArrayView cell, Verdict &v, QString &text)
{
    const QByteArrayView t = cell.trimmed();
    if (t.isEmpty())
        return true;
    static const std::array<QByteArray, 4> names = {verdictName(Verdict::None).toLatin1(), verdictName(Verdict::Pass).toLatin1(),
                                                    verdictName(Verdict::Warning).toLatin1(), verdictName(Verdict::Error).toLatin1()};
    for (size_t k = 0; k < names.size(); ++k)
        if (t == names[k]) {
            v = Verdict(k);
            return true;
        }
    text = QString::fromUtf8(cell).trimmed(); // QString trims Unicode spaces too
    return text.isEmpty() || parseVerdict(text, v);
}

/// Drops the mapped pages of [from, from + bytes) from this process (not from the page cache).
void releasePages(const char *from, qint64 bytes)
{
    const qint64 n = bytes - bytes % 65536; // whole pages (from is a multiple of 64 KiB into the mapping)
    if (n > 0)
        madvise(const_cast<char *>(from), size_t(n), MADV_DONTNEED);
}

bool utf8Empty(QByteArrayView bytes)
{
    QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    return QString(utf8.decode(bytes)).isEmpty();
}

} // namespace

qint64 pagedTableThreshold()
{
    bool ok = false;
    const qint64 v = qEnvironmentVariable("DS_PAGED_TABLE_BYTES").toLongLong(&ok);
    return ok && v >= 0 ? v : kDefaultPagedBytes;
}

PagedCsvTable::~PagedCsvTable() = default;

Result<std::shared_ptr<const PagedCsvTable>> PagedCsvTable::open(const QString &path, const JobControl *job, qint64 headRows)
{
    using R = Result<std::shared_ptr<const PagedCsvTable>>;
    std::shared_ptr<PagedCsvTable> t(new PagedCsvTable);
    t->m_path = path;
    t->m_file = std::make_unique<QFile>(path);
    if (!t->m_file->exists())
        return R::failure(ErrorKind::NotFound, path, QStringLiteral("no such file"));
    if (!t->m_file->open(QIODevice::ReadOnly))
        return R::failure(ErrorKind::Access, path, t->m_file->errorString());
    t->m_size = t->m_file->size();
    if (t->m_size > 0) {
        const uchar *map = t->m_file->map(0, t->m_size);
        if (!map) { // not mappable (a pipe, a special file): read it
            t->m_owned = t->m_file->readAll();
            if (t->m_file->error() != QFileDevice::NoError)
                return R::failure(ErrorKind::Access, path, t->m_file->errorString());
            t->m_data = t->m_owned.constData();
            t->m_size = t->m_owned.size();
        } else {
            t->m_data = reinterpret_cast<const char *>(map);
        }
    }
    auto indexed = t->index(job, headRows);
    if (!indexed)
        return indexed.error();
    return std::shared_ptr<const PagedCsvTable>(std::move(t));
}

Result<std::shared_ptr<const PagedCsvTable>> PagedCsvTable::fromBytes(QByteArray bytes, const QString &path)
{
    std::shared_ptr<PagedCsvTable> t(new PagedCsvTable);
    t->m_path = path;
    t->m_owned = std::move(bytes);
    t->m_data = t->m_owned.constData();
    t->m_size = t->m_owned.size();
    auto indexed = t->index(nullptr);
    if (!indexed)
        return indexed.error();
    return std::shared_ptr<const PagedCsvTable>(std::move(t));
}

Result<bool> PagedCsvTable::index(const JobControl *job, qint64 headRows)
{
    using R = Result<bool>;
    const char *const base = m_data;
    const char *p = base, *const end = base + m_size;
    if (QByteArrayView(p, end - p).startsWith("\xEF\xBB\xBF"))
        p += 3;
    m_begin = p - base;
    bool haveHeader = false;
    auto fail = [&](int line, qsizetype field, const QString &what) {
        return R::failure(ErrorKind::Corrupt, m_path,
                          QStringLiteral("line %1, column %2%3: %4").arg(line).arg(field + 1).arg(csvFieldName(m_header, field), what));
    };
    // the record being scanned
    const char *recordStart = p, *fieldStart = p;
    qsizetype fields = 0;      // fields ended in this record
    qint64 fieldLen = 0;       // content bytes of the current field
    bool ascii = true;         // the current field's bytes are all ASCII
    bool quoted = false, wasQuoted = false;
    int line = 1, rowLine = 1;
    // the summary cells of this record (raw ranges)
    const char *cellStart[3] = {nullptr, nullptr, nullptr};
    qint64 cellLen[3] = {0, 0, 0};
    int wanted[3] = {-1, -1, -1}; // Result, Accuracy Reached or Not, Bench Name
    // the first row with another number of fields than the header (parseCsvTable's error,
    // given only when the whole file is CSV, as there)
    int shortLine = 0;
    qsizetype shortFields = 0;
    QString resultError;
    qint64 nextCheck = 16 << 20, released = 0;
    static const std::array<bool, 256> special = [] {
        std::array<bool, 256> a{};
        for (const char c : {',', '"', '\r', '\n'})
            a[uchar(c)] = true;
        return a;
    }();

    auto endField = [&](const char *at) {
        if (!ascii && !validUtf8(fieldStart, at - fieldStart))
            return false;
        for (int k = 0; k < 3; ++k)
            if (wanted[k] == fields) {
                cellStart[k] = fieldStart;
                cellLen[k] = at - fieldStart;
            }
        ++fields;
        fieldLen = 0;
        ascii = true;
        wasQuoted = false;
        fieldStart = at + 1;
        return true;
    };
    QByteArray scratch;
    auto endRecord = [&](const char *at) -> bool {
        // a record of one empty field is a blank line (a lone BOM decodes to nothing too)
        const bool blank = fields == 0 && (fieldLen == 0 || (fieldLen <= 3 && utf8Empty(unquoted(recordStart, at - recordStart, scratch))));
        if (!endField(at))
            return false;
        if (blank) {
            // a blank line (or "")
        } else if (!haveHeader) {
            haveHeader = true;
            // the header's cells: the one record parsed here as rows are (row())
            m_offsets.push_back(quint64(recordStart - base));
            m_header = row(0);
            m_offsets.clear();
            m_resultCol = int(m_header.indexOf(QStringLiteral("Result")));
            m_accuracyCol = int(m_header.indexOf(QStringLiteral("Accuracy Reached or Not")));
            m_benchCol = int(m_header.indexOf(QStringLiteral("Bench Name")));
            wanted[0] = m_resultCol;
            wanted[1] = m_accuracyCol;
            wanted[2] = m_benchCol;
        } else {
            const qint64 r = qint64(m_offsets.size());
            m_offsets.push_back(quint64(recordStart - base));
            if (const int shift = rowLine - int(r) - 2; m_lineShift.empty() ? shift != 0 : m_lineShift.back().second != shift)
                m_lineShift.emplace_back(r, shift);
            if (fields != m_header.size() && !shortLine) {
                shortLine = rowLine;
                shortFields = fields;
            }
            // openedTableFrom's verdict: Result (or Accuracy Reached or Not), for a matched row
            const QByteArrayView bench = cellStart[2] ? unquoted(cellStart[2], cellLen[2], scratch) : QByteArrayView();
            const bool isMatched = !bench.isEmpty() && bench != "N/A";
            Verdict v = Verdict::None;
            if (m_resultCol >= 0) {
                QString text;
                if (cellStart[0] && !verdictOf(unquoted(cellStart[0], cellLen[0], scratch), v, text) && resultError.isEmpty())
                    resultError = QStringLiteral("line %1, column %2 (Result): \"%3\" is not a Result (pass, warning or error)")
                                      .arg(rowLine).arg(m_resultCol + 1).arg(text);
            } else if (m_accuracyCol >= 0 && cellStart[1]) {
                const QByteArray acc = QString::fromUtf8(unquoted(cellStart[1], cellLen[1], scratch)).trimmed().toUtf8();
                v = acc == "Yes" ? Verdict::Pass : acc == "No" ? Verdict::Error : Verdict::None;
            }
            if (!isMatched)
                v = Verdict::None;
            m_flags.push_back(quint8(quint8(v) | (isMatched ? 4 : 0)));
            ++m_counts[size_t(v)];
            if (headRows > 0 && r + 1 >= headRows)
                m_complete = false; // enough for a first screen
        }
        for (int k = 0; k < 3; ++k)
            cellStart[k] = nullptr;
        fields = 0;
        return true;
    };

    while (p < end) {
        if (p - base >= nextCheck) {
            nextCheck += 16 << 20;
            // the pages read so far leave this process (the page cache keeps them), so that the
            // resident set stays a window of the file, not the file (issue 35: RSS << file)
            if (m_owned.isEmpty() && recordStart - base > released + (32 << 20)) {
                const qint64 upTo = (recordStart - base) - (16 << 20);
                releasePages(base + released, upTo - released);
                released = upTo - upTo % 65536;
            }
            if (job) {
                if (job->cancelled())
                    return R::failure(ErrorKind::Cancelled, m_path, QStringLiteral("cancelled"));
                job->report(int(1000 * (p - base) / std::max<qint64>(m_size, 1)));
            }
        }
        if (quoted) { // a run of plain bytes of a quoted field
            const char *run = p;
            while (p < end && *p != '"' && *p != '\n') {
                ascii = ascii && uchar(*p) < 0x80;
                ++p;
            }
            fieldLen += p - run;
            if (p == end)
                break;
        } else if (!wasQuoted) { // a run of plain bytes of an unquoted field
            const char *run = p;
            while (p < end && !special[uchar(*p)]) {
                ascii = ascii && uchar(*p) < 0x80;
                ++p;
            }
            fieldLen += p - run;
            if (p == end)
                break;
        }
        const char c = *p++;
        if (quoted) {
            if (c == '"') {
                if (p < end && *p == '"') {
                    ++fieldLen;
                    ++p;
                } else {
                    quoted = false;
                }
            } else {
                if (c == '\n')
                    ++line;
                if (uchar(c) >= 0x80)
                    ascii = false;
                ++fieldLen;
            }
            continue;
        }
        switch (c) {
        case '"':
            if (fieldLen > 0 || wasQuoted)
                return fail(line, fields, QStringLiteral("a quote inside an unquoted field"));
            quoted = wasQuoted = true;
            break;
        case ',':
            if (!endField(p - 1))
                return fail(line, fields, QStringLiteral("the text is not UTF-8"));
            break;
        case '\r':
            if (p < end && *p == '\n')
                break;
            [[fallthrough]];
        case '\n': {
            const char *at = c == '\n' && p - 2 >= recordStart && p[-2] == '\r' ? p - 2 : p - 1;
            if (!endRecord(at))
                return fail(rowLine, fields, QStringLiteral("the text is not UTF-8"));
            rowLine = ++line;
            recordStart = fieldStart = p;
            if (!m_complete)
                return true;
            break;
        }
        default:
            if (wasQuoted)
                return fail(line, fields, QStringLiteral("text after the closing quote of a field"));
            if (uchar(c) >= 0x80)
                ascii = false;
            ++fieldLen;
        }
    }
    if (quoted)
        return fail(rowLine, fields, QStringLiteral("a quoted field that never ends (the file is truncated)"));
    if (fieldLen > 0 || fields > 0 || wasQuoted)
        if (!endRecord(end))
            return fail(rowLine, fields, QStringLiteral("the text is not UTF-8"));
    if (!haveHeader)
        return R::failure(ErrorKind::Corrupt, m_path, QStringLiteral("the file is empty: no header row"));
    if (shortLine)
        return R::failure(ErrorKind::Corrupt, m_path, QStringLiteral("line %1: %2 fields where the header has %3 (a truncated or garbled row)")
                                                         .arg(shortLine).arg(shortFields).arg(m_header.size()));
    if (!resultError.isEmpty())
        m_resultError = resultError;
    if (job)
        job->report(1000);
    return true;
}

int PagedCsvTable::line(qint64 r) const
{
    const auto it = std::upper_bound(m_lineShift.begin(), m_lineShift.end(), r,
                                     [](qint64 row, const std::pair<qint64, int> &s) { return row < s.first; });
    return int(r) + 2 + (it == m_lineShift.begin() ? 0 : std::prev(it)->second);
}

QStringList PagedCsvTable::row(qint64 r) const
{
    // parseCsvRecords' state machine over one record (the file was checked by index())
    QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    QStringList out;
    QByteArray field;
    const char *p = m_data + m_offsets[size_t(r)], *const end = m_data + m_size;
    bool quoted = false;
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
                field += c;
            }
            continue;
        }
        if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            out << utf8.decode(field);
            field.clear();
        } else if (c == '\r' || c == '\n') {
            break;
        } else {
            field += c;
        }
    }
    out << utf8.decode(field);
    return out;
}

TextTable PagedCsvTable::toTextTable() const
{
    TextTable t;
    t.path = m_path;
    t.header = m_header;
    t.rows.reserve(m_offsets.size());
    t.lines.reserve(m_offsets.size());
    for (qint64 r = 0; r < rowCount(); ++r) {
        t.rows.push_back(row(r));
        t.lines.push_back(line(r));
    }
    return t;
}

Result<PagedCompareTable> openPagedCompareTable(const QString &path, const JobControl *job)
{
    auto table = PagedCsvTable::open(path, job);
    if (!table)
        return table.error();
    // the header's checks (and the first row's cells) are openedTableFrom's, with its errors
    TextTable head;
    head.path = path;
    head.header = (*table)->header();
    if ((*table)->rowCount() > 0) {
        head.rows.push_back((*table)->row(0));
        head.lines.push_back((*table)->line(0));
    }
    auto opened = openedTableFrom(head);
    if (!opened)
        return opened.error();
    if (!(*table)->resultError().isEmpty())
        return Result<PagedCompareTable>::failure(ErrorKind::Unsupported, path, (*table)->resultError());
    PagedCompareTable out;
    out.table = *table;
    out.mode = opened->result->mode;
    return out;
}

namespace {

struct NotPassRow
{
    qint64 row;
    int line;
    QString npuName, benchName, result, message;
};

/// The first rows that are not a pass (verdict warning or error), in the table's order.
std::vector<NotPassRow> notPassRows(const PagedCsvTable &t, qint64 limit)
{
    std::vector<NotPassRow> out;
    const QStringList &h = t.header();
    const int npuCol = int(h.indexOf(QStringLiteral("NPU Name"))), benchCol = int(h.indexOf(QStringLiteral("Bench Name")));
    const int errCol = int(h.indexOf(QStringLiteral("Err_message")));
    for (qint64 r = 0; r < t.rowCount() && qint64(out.size()) < limit; ++r) {
        const Verdict v = t.verdict(r);
        if (v != Verdict::Warning && v != Verdict::Error)
            continue;
        const QStringList cells = t.row(r);
        out.push_back({r, t.line(r), cells.value(npuCol), cells.value(benchCol), verdictName(v), cells.value(errCol).trimmed()});
    }
    return out;
}

} // namespace

QString pagedTableText(const PagedCompareTable &p)
{
    const PagedCsvTable &t = *p.table;
    const auto &c = t.verdictCounts();
    QString s = QStringLiteral("table:  %1 (msprobe's compare table, %2 MiB, read paged: %3 rows indexed)\n")
                    .arg(t.path()).arg(t.fileBytes() >> 20).arg(t.rowCount());
    s += QStringLiteral("dumps:  not searched: a table of %1 MiB or more is summarized from its own cells (no dumps linked, "
                        "no first divergence traced)\n").arg(pagedTableThreshold() >> 20);
    s += QStringLiteral("mode:   %1\nrows:   %2 (pass %3, warning %4, error %5, not compared %6); bench only 0\n")
             .arg(compareModeName(p.mode)).arg(t.rowCount()).arg(c[size_t(Verdict::Pass)]).arg(c[size_t(Verdict::Warning)])
             .arg(c[size_t(Verdict::Error)]).arg(c[size_t(Verdict::None)]);
    const qint64 bad = c[size_t(Verdict::Warning)] + c[size_t(Verdict::Error)];
    if (bad == 0) {
        s += c[size_t(Verdict::None)] == 0 ? QStringLiteral("\nno divergence\n")
                                           : QStringLiteral("\nno row is a warning or an error (%1 rows not compared)\n").arg(c[size_t(Verdict::None)]);
        return s;
    }
    const std::vector<NotPassRow> rows = notPassRows(t, kPagedNotPassListed);
    s += QStringLiteral("\nfirst row that is not a pass: line %1: %2\n").arg(rows.front().line).arg(rows.front().npuName);
    s += QStringLiteral("\nrows that are not a pass (the first %1 of %2):\n").arg(rows.size()).arg(bad);
    for (const NotPassRow &r : rows)
        s += QStringLiteral("  %1  %2  Result %3\n").arg(r.result, r.npuName, r.result);
    return s;
}

QByteArray pagedTableJson(const PagedCompareTable &p)
{
    const PagedCsvTable &t = *p.table;
    const auto &c = t.verdictCounts();
    QJsonObject summary{{QStringLiteral("rows"), t.rowCount()}, {QStringLiteral("pass"), c[size_t(Verdict::Pass)]},
                        {QStringLiteral("warning"), c[size_t(Verdict::Warning)]}, {QStringLiteral("error"), c[size_t(Verdict::Error)]},
                        {QStringLiteral("none"), c[size_t(Verdict::None)]}, {QStringLiteral("bench_only"), 0}};
    QJsonArray rows;
    for (const NotPassRow &r : notPassRows(t, kPagedNotPassListed))
        rows.append(QJsonObject{{QStringLiteral("row"), r.row}, {QStringLiteral("line"), r.line}, {QStringLiteral("npu_name"), r.npuName},
                                {QStringLiteral("bench_name"), r.benchName}, {QStringLiteral("result"), r.result},
                                {QStringLiteral("err_message"), r.message}});
    const QJsonObject o{{QStringLiteral("table"), t.path()}, {QStringLiteral("paged"), true}, {QStringLiteral("bytes"), t.fileBytes()},
                        {QStringLiteral("mode"), compareModeName(p.mode)}, {QStringLiteral("summary"), summary},
                        {QStringLiteral("not_pass"), rows},
                        {QStringLiteral("not_pass_total"), c[size_t(Verdict::Warning)] + c[size_t(Verdict::Error)]},
                        {QStringLiteral("table_dumps"), QStringLiteral("not searched (a paged table)")}};
    return QJsonDocument(o).toJson(QJsonDocument::Indented);
}

} // namespace ds
