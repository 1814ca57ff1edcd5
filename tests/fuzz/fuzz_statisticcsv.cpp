// libFuzzer harness: a MindSpore kernel dump's statistic.csv (core/formats/mindspore), and the
// kernel file name and scope parsers on each of its lines.
#include "formats/mindspore/statisticcsv.h"

#include <QByteArray>
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    const auto csv = ds::mindspore::parseStatisticCsv(bytes, QStringLiteral("statistic.csv"));
    for (const auto &row : csv.rows) {
        if (row.opName.isEmpty() || row.line < 2)
            __builtin_trap(); // rows without an op name are left out; line 1 is the header
        (void)ds::mindspore::kernelScope(row.opName);
    }
    for (const auto &e : csv.errors)
        if (e.file != QLatin1String("statistic.csv") || e.message.isEmpty())
            __builtin_trap(); // every error names the file and says what is wrong
    for (const QString &line : QString::fromUtf8(bytes).split(QLatin1Char('\n')))
        (void)ds::mindspore::parseKernelFileName(line);
    (void)ds::mindspore::parseExecutionOrder(bytes);
    return 0;
}
