#include "scopeprobe.h"

#include "formats/readers.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

namespace ds {

namespace {

/// "task", "level" and "framework" from the first bytes of a dump.json (written first, msprobe.md §3.1).
void readHeader(const QString &file, ScopeProbe &p)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return;
    const QString head = QString::fromUtf8(f.read(512));
    static const QRegularExpression field(QStringLiteral("\"(task|level|framework)\"\\s*:\\s*\"([^\"]{0,40})\""));
    for (auto it = field.globalMatch(head); it.hasNext();) {
        const auto m = it.next();
        (m.captured(1) == QLatin1String("task") ? p.task : m.captured(1) == QLatin1String("level") ? p.level : p.framework) = m.captured(2);
    }
}

void addFile(const QFileInfo &info, ScopeProbe &p)
{
    p.bytes += quint64(std::max<qint64>(0, info.size()));
    ++p.files;
}

} // namespace

QString ScopeProbe::what() const
{
    QStringList parts;
    if (!task.isEmpty())
        parts << task;
    if (!level.isEmpty())
        parts << level;
    if (tensorFiles > 0)
        parts << QCoreApplication::translate("ScopeProbe", "%n tensor file(s)", nullptr, tensorFiles);
    else if (!task.isEmpty() && task != QLatin1String("statistics"))
        parts << QCoreApplication::translate("ScopeProbe", "no tensor files");
    return parts.join(QStringLiteral(" \u00b7 "));
}

ScopeProbe probeScope(const RunTree &tree, const RunScope &scope)
{
    ScopeProbe p;
    const QString root = tree.walk.rootDir;
    for (size_t i : scope.claims) {
        if (i >= tree.walk.claims.size())
            continue;
        const Claim &c = tree.walk.claims[i];
        const QString abs = c.relPath.isEmpty() ? root : root + QLatin1Char('/') + c.relPath;
        if (!c.files.isEmpty()) { // files claimed one by one (CANN dump files, single files)
            for (const QString &f : c.files) {
                const QFileInfo info(root + QLatin1Char('/') + f);
                addFile(info, p);
                ++p.tensorFiles;
            }
            continue;
        }
        const QFileInfo claimed(abs);
        if (claimed.isFile()) {
            addFile(claimed, p);
            continue;
        }
        const QDir dir(abs);
        if (!dir.exists()) {
            p.error = QCoreApplication::translate("ScopeProbe", "cannot read %1").arg(c.relPath);
            continue;
        }
        for (const QFileInfo &f : dir.entryInfoList(QDir::Files | QDir::NoDotAndDotDot, QDir::Name)) {
            addFile(f, p);
            const QString name = f.fileName();
            if (name == QLatin1String("dump.json") || name == QLatin1String("debug.json"))
                readHeader(f.absoluteFilePath(), p);
            if (name.endsWith(QLatin1String(".json")) || name.endsWith(QLatin1String(".pkl")))
                p.contents << name;
            else if (name.endsWith(QLatin1String(".npy")) || name.endsWith(QLatin1String(".h5")))
                ++p.tensorFiles;
        }
        for (const QString &sub : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
            const QFileInfoList files = QDir(abs + QLatin1Char('/') + sub).entryInfoList(QDir::Files | QDir::NoDotAndDotDot);
            for (const QFileInfo &f : files)
                addFile(f, p);
            p.tensorFiles += int(files.size());
        }
    }
    if (p.tensorFiles > 0)
        p.contents << QCoreApplication::translate("ScopeProbe", "%n tensor file(s)", nullptr, p.tensorFiles);
    return p;
}

} // namespace ds
