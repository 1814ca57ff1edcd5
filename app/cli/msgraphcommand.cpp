#include "msgraphcommand.h"

#include "compare/msgraphcompare.h"
#include "index/buildindex.h"
#include "io/pathguard.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cstdio>

namespace ds {

namespace {

enum Exit { Ok = 0, Failed = 1, Usage = 2, NoPath = 3 };

void err(const QString &text) { std::fprintf(stderr, "%s\n", qPrintable(text)); }

/// A CSV cell as pandas' to_csv quotes it (fields with a comma, quote or line break).
QString csvCell(const QString &s)
{
    if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) && !s.contains(QLatin1Char('\n')) && !s.contains(QLatin1Char('\r')))
        return s;
    QString q = s;
    q.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + q + QLatin1Char('"');
}

QString csvLine(const QStringList &cells)
{
    QStringList out;
    for (const QString &c : cells)
        out << csvCell(c);
    return out.join(QLatin1Char(',')) + QLatin1Char('\n');
}

} // namespace

int runMsGraphCommand(const QString &npuPath, const QString &benchPath, const QString &outDir, bool quiet)
{
    std::shared_ptr<DumpIndex> sides[2];
    const QString paths[2] = {npuPath, benchPath};
    for (int i = 0; i < 2; ++i) {
        if (!QFileInfo::exists(paths[i])) {
            err(QStringLiteral("no such file or directory: %1").arg(paths[i]));
            return NoPath;
        }
        auto index = buildIndex(paths[i]);
        if (!index) {
            err(index.errorText());
            return Failed;
        }
        if (!isMsKernelIndex(**index)) {
            err(QStringLiteral("--ms-graph: %1 holds no MindSpore kernel dump (rank_{id}/{net}/{graph}/{iteration} with "
                               "statistic.csv or .npy files)").arg(paths[i]));
            return Usage;
        }
        if (isInsideDir(outDir, (*index)->rootDir)) {
            err(QStringLiteral("--ms-graph %1 lies inside a dump directory; DumpScope never writes there").arg(outDir));
            return Usage;
        }
        sides[i] = *index;
    }
    if (!QDir().mkpath(outDir)) {
        err(QStringLiteral("--ms-graph: cannot create %1").arg(outDir));
        return Failed;
    }
    const auto scopes = compareMsGraph(*sides[0], *sides[1]);
    if (scopes.empty()) {
        err(QStringLiteral("--ms-graph: no rank and step is in both dumps in the same mode (statistics or tensors)"));
        return Failed;
    }
    for (const MsGraphScope &s : scopes) {
        const QString file = QDir(outDir).filePath(QStringLiteral("compare_result_%1_%2.csv").arg(s.rank).arg(s.step));
        QFile f(file);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            err(QStringLiteral("%1: %2").arg(file, f.errorString()));
            return Failed;
        }
        QString text = csvLine(msGraphHeader(s.mode));
        int no = 0, notCompared = 0;
        for (const MsGraphRow &r : s.rows) {
            text += csvLine(msGraphCells(r, s.mode));
            no += r.accuracy == QLatin1String("No");
            notCompared += !r.compared;
        }
        f.write(text.toUtf8());
        if (!quiet)
            std::printf("rank %lld step %lld: %s mode, %zu rows (%d not reached, %d not compared) -> %s\n", s.rank, s.step,
                        s.mode == MsGraphMode::Npy ? "npy" : "statistics", s.rows.size(), no, notCompared, qPrintable(file));
    }
    return Ok;
}

} // namespace ds
