// libFuzzer harness: msprobe's compare table read paged (core/compare/resulttablepaged.h), checked
// against the full parser (parseCsvTable) on the same bytes: both accept or both refuse with the
// same error; when accepted, the same header, cells and lines, and the verdict counts add up.
#include "compare/resulttable.h"
#include "compare/resulttablepaged.h"

#include <QByteArray>
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    const QString path = QStringLiteral("compare_result.csv");
    const auto full = ds::parseCsvTable(bytes, path);
    const auto paged = ds::PagedCsvTable::fromBytes(bytes, path);
    if (bool(full) != bool(paged))
        __builtin_trap();
    if (!full) {
        if (full.errorText() != paged.errorText())
            __builtin_trap();
        return 0;
    }
    const ds::PagedCsvTable &t = **paged;
    if (t.header() != full->header || size_t(t.rowCount()) != full->rows.size())
        __builtin_trap();
    qint64 counted = 0;
    for (qint64 c : t.verdictCounts())
        counted += c;
    if (counted != t.rowCount())
        __builtin_trap();
    for (qint64 r = 0; r < t.rowCount(); ++r)
        if (t.row(r) != full->rows[size_t(r)] || t.line(r) != full->lines[size_t(r)])
            __builtin_trap();
    return 0;
}
