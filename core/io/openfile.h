#pragma once
// Opening a file named like a dump file without waiting on it: a FIFO (or a socket, a device)
// that carries a dump file's name would block open(2) until a writer came, and reading it
// would never end. DumpScope reads regular files only.

#include <QFile>
#include <QString>

namespace ds {

/// Opens `path` into `file` (read-only, `mode` added) when it is a regular file; a directory
/// goes through QFile::open as before (its message). Anything else is refused with
/// "not a regular file" in `error` without waiting for a writer; a failing open gives
/// QFile's message (e.g. "No such file or directory").
bool openRegularFile(QFile &file, QIODevice::OpenMode mode, QString &error);

} // namespace ds
