#pragma once
// CSV records as Python's csv module writes them (msprobe's write_csv, monitor's CSV writers):
// "," separated, fields holding , " or a line break quoted, "" for a quote, \r\n or \n, an
// optional UTF-8 BOM. Unlike a table reader it does not require every row to have as many
// fields as the header: msprobe's accuracy_checking_result rows leave out the trailing Message
// (compare.py write_summary_csv), so the caller decides what a short row means.

#include "util/error.h"

#include <QByteArrayView>
#include <QString>
#include <QStringList>
#include <vector>

namespace ds {

struct CsvRecords
{
    QStringList header;
    std::vector<QStringList> rows;
    std::vector<int> lines; ///< file line (1-based) each row starts on; the header is line 1
};

/// Splits `bytes` into records. Errors name `file`, the line and the field: a quoted field
/// that never ends (a truncated file), a quote inside an unquoted field, text after a closing
/// quote, text that is not UTF-8, an empty file. Blank lines are skipped.
Result<CsvRecords> parseCsvRecords(QByteArrayView bytes, const QString &file);

/// Reads a whole file (at most `maxBytes`) and parses it; a longer file is refused by name.
Result<CsvRecords> readCsvRecords(const QString &path, const QString &shownName, qint64 maxBytes = qint64(1) << 30);

/// " (name)" for field `column` of `header`, or nothing: for "line 3, column 2 (Status): ...".
QString csvFieldName(const QStringList &header, qsizetype column);

} // namespace ds
