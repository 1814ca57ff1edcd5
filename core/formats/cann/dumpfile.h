#pragma once

#include "dump/records.h"
#include "util/error.h"

#include <cstddef>
#include <cstdint>

namespace ds::cann {

/// What the header of one dump file says (cann-dump.md §4, §5).
struct ParsedDump
{
    ContainerKind container = ContainerKind::BigDump;
    QString version, opName;
    std::uint64_t dumpTime = 0, headerLen = 0;
    std::vector<TensorFields> tensors; ///< inputs, outputs, buffers, workspaces, offsets absolute
    QStringList warnings;
};

/// Parses a dump file held in memory (the whole file). Errors name the problem:
/// "empty file", "truncated: ...", "unrecognised dump file: ...".
Result<ParsedDump> parseDump(const std::byte *data, std::uint64_t size);

/// Parses a dump file on disk reading only its header (pread); falls back to mapping the
/// whole file only for the legacy inline layout.
Result<ParsedDump> parseDumpFile(const QString &path);

} // namespace ds::cann
