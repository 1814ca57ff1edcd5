#pragma once

#include <QWidget>
#include <memory>
#include <vector>

class QLabel;
class QToolButton;

namespace ds {

class DumpIndex;
struct CompareResult;

/// "Ops that add the most error", one line below the Compare tab's summary and its first
/// divergence (issue 34, item 3): the operators of one scope ranked by the error they add
/// (compare/addederror.h, addedErrorRanking: output relative error minus the largest input
/// relative error). The first entries are buttons reading "operator +added", as many as the
/// width holds (their tooltip: output error, largest input error, the inputs' label); the
/// others, up to kListed, are in the menu of an "n more" button. Choosing an entry asks for the
/// operator's worst output row (rowRequested), which the view selects as it selects the pinned
/// first divergence. Hidden when the result has no added errors (md5 rows, a table read alone).
class AddedErrorPanel : public QWidget
{
    Q_OBJECT
public:
    static constexpr size_t kListed = 10;

    explicit AddedErrorPanel(QWidget *parent = nullptr);

    /// Ranks the operators of `scope` (scopeKey; empty: every scope). Null result: clears.
    void setResult(std::shared_ptr<const CompareResult> result, std::shared_ptr<const DumpIndex> npu, const QString &scope);
    void clear();
    /// Indexes into result->addedErrors, in the order listed.
    const std::vector<size_t> &ranking() const { return m_ranking; }
    /// One button per entry, in ranking order; the first shownButtons() are visible.
    const std::vector<QToolButton *> &entryButtons() const { return m_buttons; }
    size_t shownButtons() const { return m_shown; }
    /// "n more": its menu holds the entries after the visible buttons (hidden when none).
    QToolButton *moreButton() const { return m_more; }
    QLabel *title() const { return m_title; }

signals:
    /// An entry was chosen: select this row of the result (the operator's worst output row).
    void rowRequested(int row);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    /// Shows the buttons that fit on the line beside the title; the others go into the menu.
    void fit();

    QLabel *m_title;
    QToolButton *m_more;
    std::vector<QToolButton *> m_buttons;
    size_t m_shown = 0;
    std::shared_ptr<const CompareResult> m_result;
    std::vector<size_t> m_ranking;
};

} // namespace ds
