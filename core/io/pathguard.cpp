#include "pathguard.h"

#include <QDir>
#include <QFileInfo>

namespace ds {

namespace {

/// Canonical form of a path that may not exist yet: its nearest existing ancestor resolved,
/// the rest appended.
QString canonicalOrParent(const QString &path)
{
    QString p = QDir::cleanPath(QFileInfo(path).absoluteFilePath()), rest;
    while (!QFileInfo::exists(p) && p != QLatin1String("/")) {
        rest = QLatin1Char('/') + QFileInfo(p).fileName() + rest;
        p = QFileInfo(p).absolutePath();
    }
    const QString canonical = QFileInfo(p).canonicalFilePath();
    return canonical.isEmpty() ? QString() : QDir::cleanPath(canonical + rest);
}

bool under(const QString &path, const QString &dir)
{
    if (path.isEmpty() || dir.isEmpty())
        return false;
    return path == dir || path.startsWith(dir.endsWith(QLatin1Char('/')) ? dir : dir + QLatin1Char('/'));
}

} // namespace

bool isInsideDir(const QString &path, const QString &dir)
{
    if (path.isEmpty() || dir.isEmpty())
        return false;
    const QString plainPath = QDir::cleanPath(QFileInfo(path).absoluteFilePath());
    const QString plainDir = QDir::cleanPath(QFileInfo(dir).absoluteFilePath());
    return under(plainPath, plainDir) || under(canonicalOrParent(path), QFileInfo(dir).canonicalFilePath());
}

} // namespace ds
