#pragma once

#include <QDialog>
#include <QList>
#include <utility>

class QTextBrowser;

namespace ds {

/// Help -> First Steps: what to do in the first minutes (open, browse, inspect, overflow,
/// compare, export, find). The same steps, in English, are README.md's "First steps"
/// (tst_windowmenus checks that they agree).
class FirstStepsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit FirstStepsDialog(QWidget *parent = nullptr);

    /// The steps as (title, text), translated.
    static QList<std::pair<QString, QString>> steps();
    QTextBrowser *browser() const { return m_text; }

private:
    QTextBrowser *m_text;
};

} // namespace ds
