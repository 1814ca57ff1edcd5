// CSV text of msprobe's compare tables (pandas to_csv) into cells, with the line and column
// of anything that is not CSV (resulttable.h).
#include "resulttable.h"
#include "resulttablepaged.h"

#include "util/csvrecords.h"

#include <QFileInfo>
#include <QRegularExpression>

namespace ds {

Result<TextTable> parseCsvTable(QByteArrayView bytes, const QString &path)
{
    auto records = parseCsvRecords(bytes, path);
    if (!records)
        return Result<TextTable>::failure(records.error());
    TextTable table;
    table.path = path;
    table.header = std::move(records->header);
    for (size_t i = 0; i < records->rows.size(); ++i) {
        QStringList &row = records->rows[i];
        if (row.size() != table.header.size()) // pandas writes every row as wide as the header
            return Result<TextTable>::failure(ErrorKind::Corrupt, path,
                                              QStringLiteral("line %1: %2 fields where the header has %3 (a truncated or garbled row)")
                                                  .arg(records->lines[i]).arg(row.size()).arg(table.header.size()));
        table.rows.push_back(std::move(row));
    }
    table.lines = std::move(records->lines);
    return table;
}

Result<TextTable> readCsvTable(const QString &path)
{
    // the mapped file indexed and its rows parsed by the paged reader (the errors and cells are
    // parseCsvTable's; tst_resulttablepaged checks both on every committed table)
    auto table = PagedCsvTable::open(path);
    if (!table)
        return table.error();
    return (*table)->toTextTable();
}

bool isCompareTableName(const QString &fileName)
{
    static const QRegularExpression name(QStringLiteral(R"(^(debug_)?compare_result.*\.(csv|xlsx)$)"),
                                         QRegularExpression::CaseInsensitiveOption);
    return name.match(QFileInfo(fileName).fileName()).hasMatch();
}

} // namespace ds
