// libFuzzer harness: msprobe's compare table (core/compare/resulttable.h). Input starting with
// "PK" is read as an .xlsx workbook (through a temporary file: libzip opens paths), any other
// as CSV text; what parses is opened as a comparison (rows, cells, Result, first divergence).
#include "compare/resulttable.h"
#include "dump/dumpindex.h"

#include <QByteArray>
#include <QFile>
#include <QTemporaryDir>
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    ds::Result<ds::TextTable> table = ds::Result<ds::TextTable>::failure(QStringLiteral("none"));
    if (bytes.startsWith("PK")) {
        static QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("compare_result.xlsx"));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(bytes) != bytes.size())
            __builtin_trap();
        f.close();
        table = ds::readXlsxTable(path);
    } else {
        table = ds::parseCsvTable(bytes, QStringLiteral("compare_result.csv"));
    }
    if (!table) {
        if (table.errorText().isEmpty())
            __builtin_trap(); // every error names what is wrong
        return 0;
    }
    if (table->rows.size() != table->lines.size())
        __builtin_trap();
    for (const QStringList &row : table->rows)
        if (row.size() != table->header.size())
            __builtin_trap(); // a row has the header's fields, or the table is refused
    const auto opened = ds::openedTableFrom(*table);
    if (!opened)
        return 0;
    const ds::CompareResult &r = *opened->result;
    if (r.rows.size() != table->rows.size())
        __builtin_trap();
    for (const ds::CompareRow &row : r.rows)
        if (row.npu.op < 0 || size_t(row.npu.op) >= opened->npu->ops.size()
            || (row.bench.op >= 0 && size_t(row.bench.op) >= opened->bench->ops.size()))
            __builtin_trap();
    for (const ds::Divergence &d : r.divergences)
        if (d.originRow < 0 || size_t(d.originRow) >= r.rows.size())
            __builtin_trap();
    return 0;
}
