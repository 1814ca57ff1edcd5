#pragma once
// Copying a sample folder into a test's temporary folder (samples are never written to).
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>

namespace ds::testing {

/// Copies the folder `from` (its files and folders, recursively) to `to`, creating `to`.
inline bool copyTree(const QString &from, const QString &to)
{
    if (!QDir().mkpath(to))
        return false;
    for (const QFileInfo &f : QDir(from).entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot)) {
        const QString target = QDir(to).filePath(f.fileName());
        if (f.isDir() ? !copyTree(f.absoluteFilePath(), target) : !QFile::copy(f.absoluteFilePath(), target))
            return false;
    }
    return true;
}

} // namespace ds::testing
