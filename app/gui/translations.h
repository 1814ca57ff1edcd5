#pragma once

#include <QString>

namespace ds {

/// Installs the translations of `language` ("zh_CN"; nothing for "en"): DumpScope's own from an
/// installed tree (<prefix>/share/dumpscope/translations, so they can be updated without a
/// rebuild), next to the binary (build tree), else the embedded :/i18n copy; and Qt's own
/// (qtbase_<language>.qm from QLibraryInfo::TranslationsPath, Debian's qt6-translations-l10n),
/// so that Qt's dialogs and buttons (Cancel, Open, file dialogs) speak the same language.
/// The translators belong to the application. Returns whether Qt's own were found.
bool installTranslations(const QString &language);

} // namespace ds
