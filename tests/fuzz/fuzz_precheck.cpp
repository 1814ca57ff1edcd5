// libFuzzer harness: msprobe's API precheck tables (core/precheck parsePrecheckTable) and the
// CSV record splitter under it (core/util/csvrecords).
#include "precheck/precheck.h"
#include "util/csvrecords.h"

#include <QByteArray>
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    const QString file = QStringLiteral("accuracy_checking_details_1.csv");
    (void)ds::parseCsvRecords(bytes, file);
    const auto t = ds::precheck::parsePrecheckTable(bytes, file);
    if (!t) {
        if (t.error().file != file || t.error().message.isEmpty())
            __builtin_trap(); // a refused table names the file and says why
        return 0;
    }
    for (const auto &row : t->rows) {
        if (row.api.isEmpty() || row.line < 2 || row.cells.size() != t->header.size())
            __builtin_trap(); // rows keep their API, line and one cell per column
    }
    for (const auto &e : t->errors)
        if (e.file != file || !e.message.startsWith(QLatin1String("line ")))
            __builtin_trap(); // every error names the file and the line
    (void)ds::precheck::precheckJson(ds::precheck::PrecheckDocument{QString(), {*t}, {}, t->errors});
    return 0;
}
