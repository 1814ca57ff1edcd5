#include "mainwindow.h"

#include "documentcontext.h"
#include "models/dumptreemodel.h"
#include "tensorinspector.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>
#include <QToolButton>
#include <QTreeView>

namespace ds {

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent), m_context(new DocumentContext(this))
{
    setWindowTitle(tr("DumpScope"));
    setAcceptDrops(true);

    m_tree = new QTreeView(this);
    m_tree->setModel(m_context->treeModel());
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->header()->setSectionResizeMode(DumpTreeModel::NameColumn, QHeaderView::Interactive);
    m_tree->header()->resizeSection(DumpTreeModel::NameColumn, 300);
    auto *treeDock = new QDockWidget(tr("Dump tree"), this);
    treeDock->setObjectName(QStringLiteral("dumpTreeDock"));
    treeDock->setWidget(m_tree);
    addDockWidget(Qt::LeftDockWidgetArea, treeDock);
    resizeDocks({treeDock}, {460}, Qt::Horizontal);

    m_inspector = new TensorInspector(m_context, this);
    setCentralWidget(m_inspector);

    m_statusText = new QLabel(tr("Open a dump directory to begin (File \u2192 Open, or drop a folder here)."), this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(220);
    m_progress->setVisible(false);
    m_cancel = new QToolButton(this);
    m_cancel->setText(tr("Cancel"));
    m_cancel->setVisible(false);
    statusBar()->addWidget(m_statusText, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);

    createActions();

    connect(m_cancel, &QToolButton::clicked, m_context, &DocumentContext::cancelIndexing);
    connect(m_context, &DocumentContext::indexingStarted, this, [this](const QString &path) {
        m_statusText->setText(tr("Indexing %1\u2026").arg(path));
        m_progress->setValue(0);
        m_progress->setVisible(true);
        m_cancel->setVisible(true);
    });
    connect(m_context, &DocumentContext::indexingProgress, m_progress, &QProgressBar::setValue);
    connect(m_context, &DocumentContext::indexingFinished, this, &MainWindow::onIndexingFinished);
    connect(m_context, &DocumentContext::openFailed, this, [this](const QString &message) {
        m_progress->setVisible(false);
        m_cancel->setVisible(false);
        m_statusText->setText(message);
        QMessageBox::warning(this, tr("Cannot open"), message);
    });
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, &MainWindow::onCurrentChanged);

    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    if (!settings.contains(QStringLiteral("window/geometry")))
        resize(1280, 800);
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *openDir = file->addAction(tr("&Open Dump Folder\u2026"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open dump folder"));
        if (!dir.isEmpty())
            openPath(dir);
    });
    openDir->setShortcut(QKeySequence::Open);
    file->addAction(tr("Open Dump &File\u2026"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open dump file"));
        if (!path.isEmpty())
            openPath(path);
    });
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About DumpScope"), this, [this] {
        QMessageBox::about(this, tr("About DumpScope"),
                           tr("<b>DumpScope %1</b><p>A workbench for Ascend NPU dump data: operator tensors, "
                              "layouts, statistics and overflow records.</p>").arg(QStringLiteral(DUMPSCOPE_VERSION)));
    });
    QToolBar *tools = addToolBar(tr("Main"));
    tools->setObjectName(QStringLiteral("mainToolBar"));
    tools->addAction(openDir);
}

void MainWindow::openPath(const QString &path) { m_context->openDump(path); }

bool MainWindow::selectTensor(const QString &tensorId)
{
    auto *model = m_context->treeModel();
    for (int d = 0; d < model->dumpCount(); ++d) {
        const QModelIndex i = model->findTensor(d, tensorId);
        if (i.isValid()) {
            m_tree->scrollTo(i);
            m_tree->setCurrentIndex(i);
            return true;
        }
    }
    return false;
}

void MainWindow::onCurrentChanged()
{
    const QModelIndex i = m_tree->currentIndex();
    const QString id = i.data(DumpTreeModel::TensorIdRole).toString();
    m_context->selectTensor(id.isEmpty() ? -1 : i.data(DumpTreeModel::DumpRole).toInt(), id);
}

void MainWindow::onIndexingFinished(int dump, bool cancelled, int ops, int errors)
{
    m_progress->setVisible(false);
    m_cancel->setVisible(false);
    const QString what = tr("%n operator(s)", nullptr, ops) + QStringLiteral(", ") + tr("%n unreadable file(s)", nullptr, errors);
    m_statusText->setText(cancelled ? tr("Indexing cancelled: %1 indexed so far.").arg(what) : tr("Indexed %1.").arg(what));
    m_tree->expand(m_context->treeModel()->index(dump, 0));
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    for (const QUrl &url : event->mimeData()->urls())
        if (url.isLocalFile())
            openPath(url.toLocalFile());
}

} // namespace ds
