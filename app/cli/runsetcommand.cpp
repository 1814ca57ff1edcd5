#include "runsetcommand.h"

#include "run/multirun.h"

#include <QFileInfo>

#include <cstdio>
#include <deque>

namespace ds {

namespace {

enum Exit { Ok = 0, Failed = 1, Usage = 2, NoPath = 3 };

void err(const QString &text) { std::fprintf(stderr, "%s\n", text.toUtf8().constData()); }

} // namespace

int runRunSetCommand(const RunSetCommand &c)
{
    CompareOptions options;
    options.fuzzy = c.fuzzy;
    if (!c.mode.isEmpty()) {
        const QStringList modes{QStringLiteral("tensor"), QStringLiteral("summary"), QStringLiteral("md5")};
        if (!modes.contains(c.mode)) {
            err(QStringLiteral("--mode must be tensor, summary or md5"));
            return Usage;
        }
        options.mode = c.mode == modes[0] ? CompareMode::Tensor : c.mode == modes[1] ? CompareMode::Summary : CompareMode::Md5;
    }
    std::deque<RunTree> trees; // stable addresses
    std::vector<RunSetMember> members;
    static const RunInfo empty;
    for (const QString &path : c.paths) {
        if (!QFileInfo::exists(path)) {
            err(QStringLiteral("no such file or directory: %1").arg(path));
            return NoPath;
        }
        auto found = discoverRuns(path);
        if (!found) {
            err(QStringLiteral("%1: %2").arg(path, found.errorText()));
            return Usage;
        }
        trees.push_back(std::move(*found));
        const RunTree &tree = trees.back();
        if (tree.runs.size() > 1) {
            err(QStringLiteral("%1 holds %2 runs; name each run folder").arg(path).arg(tree.runs.size()));
            return Usage;
        }
        members.push_back({tree.walk.openedPath, &tree, tree.runs.empty() ? &empty : &tree.runs.front()});
    }
    const RunSetResult result = compareRunSet(members, options);
    const QByteArray text = c.json ? result.toJson() : result.text().toUtf8();
    std::fwrite(text.constData(), 1, size_t(text.size()), stdout);
    return Ok;
}

} // namespace ds
