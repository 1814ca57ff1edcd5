#include "helpdialog.h"

#include <QDialogButtonBox>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace ds {

FirstStepsDialog::FirstStepsDialog(QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("First Steps"));
    m_text = new QTextBrowser(this);
    m_text->setOpenLinks(false);
    QString html = QStringLiteral("<ol>");
    for (const auto &[title, text] : steps())
        html += QStringLiteral("<li style=\"margin-bottom: 6px\"><b>%1</b>: %2</li>").arg(title.toHtmlEscaped(), text.toHtmlEscaped());
    html += QStringLiteral("</ol><p>") + tr("These steps are also in README.md (The GUI \u2192 First steps); the command line "
                                             "is described there too.").toHtmlEscaped()
            + QStringLiteral("</p>");
    m_text->setHtml(html);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_text);
    layout->addWidget(buttons);
    resize(620, 520);
}

QList<std::pair<QString, QString>> FirstStepsDialog::steps()
{
    return {
        {tr("Open a dump"),
         tr("File \u2192 Open Dump Folder\u2026 (Ctrl+O), Open Dump File\u2026 or Open Recent, drop a folder on the window, "
            "or start dumpscope PATH. To try it, open the bundled sample samples/cann/model_dump.")},
        {tr("Browse"),
         tr("The dump tree (left) fills while the folder is indexed in the background, and the window opens on the first "
            "operator. Files that could not be read are listed under \"Files that could not be read\" and in the "
            "Problems dock.")},
        {tr("Look at a tensor"),
         tr("Click an operator or a tensor: the Operators tab lists the operators of its level, the tensor inspector (right) "
            "shows its metadata, statistics and histogram, and its Values and Heatmap tabs show the elements.")},
        {tr("Find overflows"),
         tr("Analysis \u2192 Go to First Overflow (Ctrl+F1) selects the first overflow of the open dumps; the Overflow tab "
            "lists every record and finding.")},
        {tr("Compare with a bench run"),
         tr("Analysis \u2192 Compare with\u2026 (Ctrl+Shift+C) compares the selected NPU dump with a GPU/CPU dump; the "
            "Compare tab pins the first divergence on top.")},
        {tr("Export and copy"),
         tr("File \u2192 Export Tensors\u2026 (Ctrl+E) writes the selected tensors to .npy or .txt; right-click an item in "
            "the tree, the operator table or the graph to copy its name or path, export it, compare it or show it in the "
            "graph.")},
        {tr("Find your way"),
         tr("Ctrl+F goes to the search box of the current view; the View menu lists every panel and tab (Ctrl+1 to "
            "Ctrl+6), and View \u2192 Reset Layout brings back the default layout.")},
    };
}

} // namespace ds
