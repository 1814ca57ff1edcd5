#include "translations.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QTranslator>

namespace ds {

bool installTranslations(const QString &language)
{
    if (language.isEmpty() || language.startsWith(QLatin1String("en")))
        return false;
    auto *app = QCoreApplication::instance();
    auto *ours = new QTranslator(app);
    const QString appDir = QCoreApplication::applicationDirPath();
    const QStringList dirs{appDir + QLatin1String("/../share/dumpscope/translations"), appDir, QStringLiteral(":/i18n")};
    for (const QString &dir : dirs) {
        if (ours->load(QStringLiteral("dumpscope_") + language, dir)) {
            QCoreApplication::installTranslator(ours);
            break;
        }
    }
    auto *qtBase = new QTranslator(app);
    if (!qtBase->load(QStringLiteral("qtbase_") + language, QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        qWarning("DumpScope: Qt's own translation qtbase_%s.qm is not in %s (Debian: apt install qt6-translations-l10n); "
                 "Qt's dialogs stay in English.",
                 qPrintable(language), qPrintable(QLibraryInfo::path(QLibraryInfo::TranslationsPath)));
        delete qtBase;
        return false;
    }
    QCoreApplication::installTranslator(qtBase);
    return true;
}

} // namespace ds
