// libFuzzer harness: msprobe `compare -da` answers (core/compare/diffanalyze.h parseDiffAnalyze,
// parseCompareResultJson) and overflow_check's anomaly_analyze JSON (parseAnomalyAnalyze); the
// input is read as each of them.
#include "compare/diffanalyze.h"
#include "overflow/anomalyanalyze.h"

#include <QByteArray>
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    const QString da = QStringLiteral("out/diff_analyze_1.json"), rank = QStringLiteral("out/compare_result_rank3_1.json");
    if (auto f = ds::parseDiffAnalyze(bytes, da)) {
        for (const ds::MsprobeFirstDiff &d : f->diffs)
            if (d.opName.isNull() || d.rank.isNull())
                __builtin_trap();
    } else if (!f.errorText().startsWith(da + QStringLiteral(": "))) {
        __builtin_trap(); // every error names the file
    }
    if (auto f = ds::parseCompareResultJson(bytes, rank)) {
        if (f->diffs.size() > 1 || f->differing > f->entries || f->table.rows.size() != f->table.lines.size())
            __builtin_trap();
        for (const QStringList &row : f->table.rows)
            if (row.size() != f->table.header.size())
                __builtin_trap(); // every row has a cell per column
        for (const ds::MsprobeFirstDiff &d : f->diffs)
            if (d.rank != QLatin1String("rank_3"))
                __builtin_trap();
    } else if (!f.errorText().startsWith(rank + QStringLiteral(": "))) {
        __builtin_trap();
    }
    const QString an = QStringLiteral("out/anomaly_analyze_1.json");
    if (auto a = ds::parseAnomalyAnalyze(bytes, an); !a && !a.errorText().startsWith(an + QStringLiteral(": ")))
        __builtin_trap();
    return 0;
}
