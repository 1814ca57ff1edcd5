#include "settingsdialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

namespace ds {

SettingsDialog::SettingsDialog(QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("Settings"));
    m_language = new QComboBox(this);
    m_language->addItem(tr("System default"), QString());
    m_language->addItem(QStringLiteral("English"), QStringLiteral("en"));
    m_language->addItem(QStringLiteral("\u7b80\u4f53\u4e2d\u6587"), QStringLiteral("zh_CN"));
    m_language->setCurrentIndex(std::max(0, m_language->findData(language())));
    m_bins = new QSpinBox(this);
    m_bins->setRange(1, 4096);
    m_bins->setValue(histogramBins());
    m_log = new QCheckBox(tr("Logarithmic count axis"), this);
    m_log->setChecked(histogramLog());

    auto *form = new QFormLayout;
    form->addRow(tr("Language:"), m_language);
    form->addRow(QString(), new QLabel(tr("The language changes at the next start."), this));
    form->addRow(tr("Histogram bins:"), m_bins);
    form->addRow(QString(), m_log);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &SettingsDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &SettingsDialog::reject);
}

QString SettingsDialog::language() { return QSettings().value(QStringLiteral("language")).toString(); }

QString SettingsDialog::effectiveLanguage()
{
    const QString l = language();
    if (!l.isEmpty())
        return l;
    return QLocale().language() == QLocale::Chinese ? QStringLiteral("zh_CN") : QStringLiteral("en");
}

int SettingsDialog::histogramBins() { return QSettings().value(QStringLiteral("histogram/bins"), 64).toInt(); }
bool SettingsDialog::histogramLog() { return QSettings().value(QStringLiteral("histogram/log"), false).toBool(); }

void SettingsDialog::accept()
{
    QSettings s;
    s.setValue(QStringLiteral("language"), m_language->currentData().toString());
    s.setValue(QStringLiteral("histogram/bins"), m_bins->value());
    s.setValue(QStringLiteral("histogram/log"), m_log->isChecked());
    QDialog::accept();
}

} // namespace ds
