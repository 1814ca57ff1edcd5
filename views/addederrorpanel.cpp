#include "addederrorpanel.h"

#include "compare/compare.h"
#include "dump/dumpindex.h"
#include "models/addederrortext.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QToolButton>

namespace ds {

AddedErrorPanel::AddedErrorPanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_title = new QLabel(this);
    m_title->setToolTip(AddedErrorText::explanation());
    layout->addWidget(m_title);
    m_more = new QToolButton(this);
    m_more->setPopupMode(QToolButton::InstantPopup);
    m_more->setMenu(new QMenu(m_more));
    m_more->menu()->setToolTipsVisible(true);
    layout->addWidget(m_more);
    layout->addStretch(1);
    // Its width is the tab's: the buttons that do not fit go into the menu.
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    clear();
}

void AddedErrorPanel::clear()
{
    m_result.reset();
    m_ranking.clear();
    for (QToolButton *b : m_buttons)
        delete b;
    m_buttons.clear();
    m_shown = 0;
    m_more->menu()->clear();
    m_more->hide();
    setVisible(false);
}

void AddedErrorPanel::setResult(std::shared_ptr<const CompareResult> result, std::shared_ptr<const DumpIndex> npu, const QString &scope)
{
    clear();
    if (!result || !npu || result->addedErrors.empty())
        return; // nothing to rank: the summary keeps the room
    m_result = std::move(result);
    m_ranking = addedErrorRanking(*npu, *m_result, scope, kListed);
    m_title->setText(m_ranking.empty() ? tr("No operator adds error (output error above its inputs').")
                                       : tr("Ops that add the most error:"));
    auto *layout = static_cast<QHBoxLayout *>(this->layout());
    for (size_t k = 0; k < m_ranking.size(); ++k) {
        const AddedError &e = m_result->addedErrors[m_ranking[k]];
        auto *b = new QToolButton(this);
        b->setText(QStringLiteral("%1  %2").arg(opMatchKey(npu->ops[size_t(e.op)]), AddedErrorText::value(e.added)));
        b->setToolTip(AddedErrorText::toolTip(*npu, *m_result, e));
        b->hide();
        connect(b, &QToolButton::clicked, this, [this, row = e.worstOutputRow] { emit rowRequested(row); });
        layout->insertWidget(int(k) + 1, b); // after the title, before "more"
        m_buttons.push_back(b);
    }
    setVisible(true);
    fit();
}

void AddedErrorPanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fit();
}

void AddedErrorPanel::fit()
{
    if (!m_result)
        return;
    const int spacing = layout()->spacing();
    const auto moreText = [this](size_t n) { return tr("%n more", nullptr, int(n)); };
    int used = m_title->sizeHint().width();
    size_t shown = 0;
    for (; shown < m_buttons.size(); ++shown) {
        const size_t rest = m_buttons.size() - shown - 1;
        const int more = rest > 0 ? spacing + m_more->fontMetrics().horizontalAdvance(moreText(rest)) + 30 : 0;
        if (used + spacing + m_buttons[shown]->sizeHint().width() + more > width())
            break;
        used += spacing + m_buttons[shown]->sizeHint().width();
    }
    if (shown == m_shown && m_more->menu()->actions().size() == qsizetype(m_buttons.size() - shown))
        return;
    m_shown = shown;
    m_more->menu()->clear();
    for (size_t k = 0; k < m_buttons.size(); ++k) {
        m_buttons[k]->setVisible(k < shown);
        if (k >= shown) {
            QAction *a = m_more->menu()->addAction(m_buttons[k]->text());
            a->setToolTip(m_buttons[k]->toolTip());
            connect(a, &QAction::triggered, m_buttons[k], &QToolButton::click);
        }
    }
    m_more->setText(moreText(m_buttons.size() - shown));
    m_more->setVisible(shown < m_buttons.size());
}

} // namespace ds
