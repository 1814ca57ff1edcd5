// The dump tree while a dump indexes (issue 35 item 1): the first operators of a dump.json
// appear as rows before its index is complete, in the file's order, with the names the file
// gives them (parsed here with QJsonDocument, entry by entry); one of them opens in the
// inspector while indexing goes on; the status bar counts the operators read; and once the
// index is complete the tree is the same, row for row, as that of a dump opened normally.
// The indexing is held in the test (DocumentContext::setBatchQueuedHook) after its first batch,
// so "before the index is complete" does not depend on the machine's speed.
#include "documentcontext.h"
#include "mainwindow.h"
#include "models/dumptreemodel.h"
#include "tensorinspector.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <atomic>
#include <thread>

using namespace ds;

namespace {

const QString kSample = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_statistics_mix/step0/rank0/dump.json");

/// A dump.json of `replicas` copies of the real msprobe 26 entries of kSample, the call
/// counter (the last number of a name) renumbered per copy so that every name is unique; one
/// entry per line, in the order written. Returns the file's path.
QString writeBigDumpJson(const QString &dir, int replicas)
{
    QFile in(kSample);
    if (!in.open(QIODevice::ReadOnly))
        return {};
    const QJsonObject doc = QJsonDocument::fromJson(in.readAll()).object();
    const QJsonObject data = doc.value(QStringLiteral("data")).toObject();
    const QRegularExpression counter(QStringLiteral("\\.(\\d+)(\\.|$)(?!.*\\.\\d+(\\.|$))"));
    QByteArray out = "{\n \"task\": \"" + doc.value(QStringLiteral("task")).toString().toUtf8() + "\",\n \"level\": \""
                     + doc.value(QStringLiteral("level")).toString().toUtf8() + "\",\n \"framework\": \""
                     + doc.value(QStringLiteral("framework")).toString().toUtf8() + "\",\n \"dump_data_dir\": null,\n \"data\": {\n";
    bool first = true;
    for (int k = 0; k < replicas; ++k)
        for (auto it = data.begin(); it != data.end(); ++it) {
            QString name = it.key();
            if (k > 0) {
                const auto m = counter.match(name);
                if (!m.hasMatch())
                    continue; // no counter to renumber (parameters_grad): once
                name.replace(m.capturedStart(1), m.capturedLength(1), QString::number(m.captured(1).toLongLong() + 1000 * k));
            }
            if (!first)
                out += ",\n";
            first = false;
            out += "  " + QJsonDocument(QJsonObject{{name, it.value()}}).toJson(QJsonDocument::Compact).mid(1).chopped(1);
        }
    out += "\n }\n}\n";
    QDir().mkpath(dir);
    QFile f(dir + QStringLiteral("/dump.json"));
    if (!f.open(QIODevice::WriteOnly) || f.write(out) != out.size())
        return {};
    return f.fileName();
}

/// The entry names of a dump.json written by writeBigDumpJson, in file order: each entry line
/// parsed as a JSON object of its own.
QStringList entryNamesInFileOrder(const QString &file)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QStringList names;
    bool inData = false;
    while (!f.atEnd()) {
        QByteArray line = f.readLine().trimmed();
        if (line == "\"data\": {") {
            inData = true;
            continue;
        }
        if (!inData || !line.startsWith('"'))
            continue;
        if (line.endsWith(','))
            line.chop(1);
        const QJsonObject entry = QJsonDocument::fromJson("{" + line + "}").object();
        if (entry.size() == 1)
            names << entry.begin().key();
    }
    return names;
}

/// Every row below `parent`, depth first: "kind|name|count|size|details" per row.
void collectRows(const QAbstractItemModel *m, const QModelIndex &parent, QStringList &rows, bool opsOnly = false)
{
    for (int r = 0; r < m->rowCount(parent); ++r) {
        const QModelIndex i = m->index(r, 0, parent);
        const int kind = i.data(DumpTreeModel::KindRole).toInt();
        if (opsOnly) {
            if (kind == int(DumpTreeModel::Kind::Op))
                rows << i.data().toString();
        } else {
            QStringList cells;
            for (int c = 0; c < m->columnCount(parent); ++c)
                cells << i.siblingAtColumn(c).data().toString();
            rows << QString::number(kind) + QLatin1Char('|') + cells.join(QLatin1Char('|'));
        }
        if (kind != int(DumpTreeModel::Kind::Op)) // tensors are compared through their operators
            collectRows(m, i, rows, opsOnly);
        else if (!opsOnly)
            for (int t = 0; t < m->rowCount(i); ++t)
                rows << QStringLiteral("  ") + m->index(t, 0, i).data().toString() + QLatin1Char('|')
                            + m->index(t, DumpTreeModel::InfoColumn, i).data().toString();
    }
}

/// The first operator item below `parent` (depth first).
QModelIndex firstOp(const QAbstractItemModel *m, const QModelIndex &parent)
{
    for (int r = 0; r < m->rowCount(parent); ++r) {
        const QModelIndex i = m->index(r, 0, parent);
        if (i.data(DumpTreeModel::KindRole).toInt() == int(DumpTreeModel::Kind::Op))
            return i;
        if (const QModelIndex o = firstOp(m, i); o.isValid())
            return o;
    }
    return {};
}

/// Releases a held indexing job when the test leaves (also on a failed check).
struct Release
{
    std::atomic<bool> &flag;
    ~Release() { flag = true; }
};

} // namespace

class TestLiveIndex : public QObject
{
    Q_OBJECT
private slots:
    void operatorsAppearWhileIndexing()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString dir = tmp.path() + QStringLiteral("/big/step0/rank0");
        const QString file = writeBigDumpJson(dir, 120); // ~3,700 entries: several batches of 1,024
        QVERIFY(!file.isEmpty());
        const QStringList fileNames = entryNamesInFileOrder(file);
        QVERIFY2(fileNames.size() > 3 * 1024, qPrintable(QString::number(fileNames.size())));

        // The tree of a normal open: the oracle of the final tree.
        QStringList normalRows;
        {
            DocumentContext normal;
            QSignalSpy done(&normal, &DocumentContext::indexingFinished);
            normal.openDump(file);
            QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 60000);
            QCOMPARE(done.first().at(2).toInt(), int(fileNames.size())); // every entry is an operator
            collectRows(normal.treeModel(), {}, normalRows);
        }

        MainWindow w;
        w.resize(1280, 800);
        w.show();
        DocumentContext *context = w.context();
        DumpTreeModel *model = context->treeModel();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::atomic<int> batches{0};
        std::atomic<bool> release{false};
        Release releaseOnExit{release};
        context->setBatchQueuedHook([&] { // the indexing thread waits after its first batch
            if (++batches == 1)
                while (!release)
                    std::this_thread::sleep_for(std::chrono::milliseconds(2));
        });
        QSignalSpy finished(context, &DocumentContext::indexingFinished);
        w.openPath(file);

        // Held after the first batch: operators are rows already, in file order, named as in the file.
        QTRY_VERIFY_WITH_TIMEOUT(batches.load() >= 1, 60000);
        QStringList live;
        QTRY_VERIFY_WITH_TIMEOUT((live.clear(), collectRows(model, {}, live, true), live.size() >= 1024), 20000);
        QVERIFY(context->isIndexing());
        QCOMPARE(finished.count(), 0);
        QVERIFY(!context->index(context->indexingDump()));
        QVERIFY(live.size() < fileNames.size());
        QCOMPARE(live, fileNames.mid(0, live.size()));
        QCOMPARE(model->liveOps(context->indexingDump()), int(live.size()));
        // The status bar says indexing goes on, with the count read so far.
        QTRY_VERIFY(w.statusBar()->findChildren<QLabel *>().size() > 0);
        bool counted = false;
        for (const QLabel *l : w.statusBar()->findChildren<QLabel *>())
            counted = counted || l->text().contains(QLocale().toString(context->opsReadSoFar()) + QStringLiteral(" operators so far"));
        QVERIFY(context->opsReadSoFar() >= 1024);
        QVERIFY(counted);

        // An operator shown while indexing opens in the inspector (its first output).
        const QModelIndex op = firstOp(model, {});
        QVERIFY(op.isValid());
        QCOMPARE(op.data().toString(), fileNames.first());
        w.tree()->setCurrentIndex(op);
        const int dump = op.data(DumpTreeModel::DumpRole).toInt();
        QCOMPARE(context->selectedDump(), dump);
        const TensorId selected = context->selectedTensor();
        QVERIFY(!selected.isNull());
        const auto holder = context->indexFor(dump, selected);
        QVERIFY(holder);
        const auto ref = holder->find(selected);
        QVERIFY(ref);
        QCOMPARE(holder->ops[size_t(ref->op)].opName.toString(), fileNames.first());
        QVERIFY(context->isIndexing());

        // Released: the final tree is that of a normal open, row for row.
        release = true;
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 60000);
        QCOMPARE(finished.first().at(2).toInt(), int(fileNames.size()));
        QCOMPARE(model->liveOps(dump), 0);
        QStringList finalRows;
        collectRows(model, {}, finalRows);
        QCOMPARE(finalRows.size(), normalRows.size());
        QCOMPARE(finalRows, normalRows);
    }
};

QTEST_MAIN(TestLiveIndex)
#include "tst_liveindex.moc"
