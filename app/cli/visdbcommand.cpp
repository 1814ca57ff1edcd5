#include "visdbcommand.h"

#include "dumpgraph/visdbgraph.h"
#include "formats/visdb/visdb.h"

#include <QDir>
#include <QJsonObject>

#include <map>

namespace ds {

namespace {

QString shown(const QString &root, const QString &file)
{
    const QString rel = QDir(root).relativeFilePath(file);
    return rel.startsWith(QLatin1String("..")) ? file : rel;
}

QJsonArray ints(const std::vector<int> &v)
{
    QJsonArray a;
    for (int x : v)
        a.append(x);
    return a;
}

/// Nodes per level of one graph: precision levels (compare) or overflow levels (build).
std::map<QString, int> levelCounts(const visdb::VisDatabase &db, const visdb::VisGraph &g)
{
    std::map<QString, int> counts;
    const bool compare = db.graphType == QLatin1String("compare");
    for (const visdb::VisNode &n : g.nodes) {
        if (compare && g.source == QLatin1String("NPU")) {
            if (n.matchedPath.isEmpty() && n.name != g.root)
                ++counts[QStringLiteral("unmatched")];
            else if (n.precisionIndex)
                ++counts[visdb::precisionLevel(db, *n.precisionIndex)];
        } else if (!n.overflowLevel.isEmpty()) {
            ++counts[n.overflowLevel];
        }
    }
    counts.erase(QString());
    return counts;
}

} // namespace

VisDbSection visDbSection(const QString &path, const QString &root)
{
    VisDbSection out;
    for (const QString &file : visdb::findVisDbFiles(path)) {
        const auto db = visdb::readVisDb(file);
        if (!db) {
            out.json.append(QJsonObject{{QStringLiteral("file"), shown(root, file)}, {QStringLiteral("error"), db.error().message}});
            out.text += QStringLiteral("  %1\n    error: %2\n").arg(shown(root, file), db.error().message);
            continue;
        }
        ++out.readable;
        QJsonArray graphs;
        out.text += QStringLiteral("  %1  msprobe %2 graph%3, steps %4, ranks %5\n")
                        .arg(shown(root, file), db->graphType,
                             db->task.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(db->task))
                        .arg(db->steps.size()).arg(db->ranks.size());
        for (const visdb::VisGraph &g : db->graphs) {
            QJsonObject levels;
            QStringList levelText;
            for (const auto &[level, n] : levelCounts(*db, g)) {
                levels.insert(level, n);
                levelText << QStringLiteral("%1 %2").arg(n).arg(level);
            }
            graphs.append(QJsonObject{{QStringLiteral("source"), g.source}, {QStringLiteral("step"), g.step},
                                      {QStringLiteral("rank"), g.rank}, {QStringLiteral("nodes"), int(g.nodes.size())},
                                      {QStringLiteral("levels"), levels}});
            out.text += QStringLiteral("    %1 step %2 rank %3: %4 nodes%5\n")
                            .arg(g.source).arg(g.step).arg(g.rank).arg(g.nodes.size())
                            .arg(levelText.isEmpty() ? QString() : QStringLiteral(" (") + levelText.join(QStringLiteral(", ")) + QLatin1Char(')'));
        }
        out.json.append(QJsonObject{{QStringLiteral("file"), shown(root, file)},
                                    {QStringLiteral("graph_type"), db->graphType},
                                    {QStringLiteral("task"), db->task},
                                    {QStringLiteral("overflow_check"), db->overflowCheck},
                                    {QStringLiteral("steps"), ints(db->steps)},
                                    {QStringLiteral("ranks"), ints(db->ranks)},
                                    {QStringLiteral("graphs"), graphs}});
    }
    return out;
}

} // namespace ds
