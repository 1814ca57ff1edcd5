#pragma once

#include <QString>

namespace ds {

/// True when `path` (a file or folder, existing or not yet) is `dir` or lies below it. Both are
/// compared as written (made absolute and clean) and with the symbolic links of their existing
/// parts resolved, so neither `dump/../dump/x` nor a link into the dump gets past. Every writer
/// asks this before writing: DumpScope never writes into an opened dump directory. False when
/// either is empty.
bool isInsideDir(const QString &path, const QString &dir);

} // namespace ds
