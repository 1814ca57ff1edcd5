#include "runsetcommand.h"

#include "run/multirun.h"

#include <cstdio>

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
    auto result = compareRunPaths(c.paths, options);
    if (!result) {
        err(result.errorText());
        return result.error().kind == ErrorKind::NotFound ? NoPath : Usage;
    }
    const QByteArray text = c.json ? result->toJson() : result->text().toUtf8();
    std::fwrite(text.constData(), 1, size_t(text.size()), stdout);
    return Ok;
}

} // namespace ds
