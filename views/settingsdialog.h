#pragma once

#include <QDialog>

class QCheckBox;
class QComboBox;
class QSpinBox;

namespace ds {

/// Preferences stored in QSettings: language (applied at the next start), histogram defaults.
/// The theme follows the system palette.
class SettingsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit SettingsDialog(QWidget *parent = nullptr);

    /// "en", "zh_CN" or "" (system locale).
    static QString language();
    /// The locale name to load translations for: the setting, else the system locale.
    static QString effectiveLanguage();
    static int histogramBins();
    static bool histogramLog();

    void accept() override;

private:
    QComboBox *m_language;
    QSpinBox *m_bins;
    QCheckBox *m_log;
};

} // namespace ds
