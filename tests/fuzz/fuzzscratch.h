#pragma once
// A scratch folder for harnesses whose parser reads files only (HDF5, SQLite): made once per
// process (in /dev/shm when there is one), removed at exit.
#include <QDir>
#include <QFile>
#include <QString>

#include <cstdlib>
#include <unistd.h>

namespace ds::fuzz {

/// `prefix` names the folder ("fuzz_h5" -> /dev/shm/fuzz_h5_XXXXXX).
inline QString scratchDir(const char *prefix)
{
    // Leaked on purpose: the exit handler below still needs it after static destructors ran.
    static const QString &dir = *new QString([prefix] {
        const QByteArray name = QByteArray(prefix) + "_XXXXXX";
        QByteArray tmpl = QFile::encodeName(QDir(QDir::tempPath()).filePath(QString::fromLatin1(name)));
        if (QDir(QStringLiteral("/dev/shm")).exists())
            tmpl = "/dev/shm/" + name;
        if (!::mkdtemp(tmpl.data()))
            std::abort();
        return QFile::decodeName(tmpl);
    }());
    static const bool cleanup = [] {
        return std::atexit([] { QDir(dir).removeRecursively(); }) == 0;
    }();
    (void)cleanup;
    return dir;
}

} // namespace ds::fuzz
