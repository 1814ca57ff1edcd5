#pragma once

// `dumpscope-cli compare RUN1 RUN2 RUN3 [RUN...] [--json] [--mode tensor|summary|md5] [--fuzzy]`
//
// Three or more runs compared with each other (core/run/multirun.h): every pair with the two-run
// engine, then which runs are the same in every row (bit-identical), which run departs from the
// majority first, and per phase the first operator whose inputs agree while an output differs.
// Exit codes: 0 compared; 2 usage error (bad --mode, a path holding several runs); 3 a path does
// not exist.

#include <QString>
#include <QStringList>

namespace ds {

struct RunSetCommand
{
    QStringList paths;
    QString mode; ///< "", "tensor", "summary" or "md5"
    bool fuzzy = false, json = false, quiet = false;
};

int runRunSetCommand(const RunSetCommand &c);

} // namespace ds
