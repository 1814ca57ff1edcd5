#include "wrappedtextarea.h"

#include <QLabel>
#include <QResizeEvent>
#include <QScrollBar>
#include <algorithm>

namespace ds {

WrappedTextArea::WrappedTextArea(int maxLines, QWidget *parent) : QScrollArea(parent), m_label(new QLabel), m_maxLines(maxLines)
{
    m_label->setWordWrap(true);
    m_label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    setWidget(m_label);
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    viewport()->setAutoFillBackground(false);
    m_label->setAutoFillBackground(false);
    fit();
}

void WrappedTextArea::setText(const QString &text)
{
    m_label->setText(text);
    setToolTip(QString());
    fit();
}

QString WrappedTextArea::text() const { return m_label->text(); }

void WrappedTextArea::setMaxLines(int lines)
{
    m_maxLines = lines;
    fit();
}

void WrappedTextArea::resizeEvent(QResizeEvent *event)
{
    QScrollArea::resizeEvent(event);
    if (event->oldSize().width() != event->size().width())
        fit();
}

void WrappedTextArea::fit()
{
    // The text's height at the full width; capped, the scroll bar takes its width from the text.
    const int lineHeight = m_label->fontMetrics().lineSpacing();
    const int cap = m_maxLines * lineHeight + 2;
    int needed = m_label->heightForWidth(std::max(1, width()));
    if (needed > cap)
        needed = m_label->heightForWidth(std::max(1, width() - verticalScrollBar()->sizeHint().width()));
    setFixedHeight(std::clamp(needed, lineHeight + 2, cap));
}

} // namespace ds
