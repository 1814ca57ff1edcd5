#pragma once

#include <QString>
#include <cstdint>
#include <optional>

namespace ds::cann {

/// Fields of a dump file name (cann-dump.md §3): `{op_type}.{op_name}.{task_id}.{stream_id}.{timestamp}`
/// with the legacy (no stream id) and FFTS+ (four more ids) variants.
struct DumpName
{
    QString opType, opName;
    std::int64_t taskId = -1, streamId = -1; ///< -1 when absent
    std::uint64_t timestamp = 0;
    bool ffts = false;
    int taskType = -1, contextId = -1, threadId = -1, deviceId = -1;
    bool statsCsv = false;   ///< "*.csv" statistics-mode file
    bool converted = false;  ///< msaccucmp conversion output ("*.output.0.npy")
    bool opDebug = false;    ///< Opdebug.Node_OpDebug overflow record
    QString warning;         ///< set when the name parsed with a fallback rule
};

/// Parses a base name. Returns nullopt when it is not a dump name.
std::optional<DumpName> parseDumpName(const QString &baseName);

/// True for names that are all digits (renamed files looked up in mapping.csv).
bool isNumericName(const QString &baseName);

/// Applies the sanitisation of §3.2: '.', '/', '\\' and ' ' become '_'.
QString sanitizeName(QString name);

} // namespace ds::cann
