#pragma once

#include <QScrollArea>

class QLabel;

namespace ds {

/// A word-wrapped, selectable text that is as tall as it needs up to `maxLines` lines and
/// scrolls beyond that, so that a long summary never squeezes the panes below it.
class WrappedTextArea : public QScrollArea
{
public:
    explicit WrappedTextArea(int maxLines, QWidget *parent = nullptr);

    QLabel *label() const { return m_label; }
    void setText(const QString &text);
    QString text() const;
    void setMaxLines(int lines);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void fit();

    QLabel *m_label;
    int m_maxLines;
};

} // namespace ds
