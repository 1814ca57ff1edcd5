#pragma once

#include "dump/dumpindex.h"

namespace ds {

/// One problem of an opened dump, as `info`, `stats` and the GUI's Problems list show it:
/// a file that could not be read (error), or a file that was read but whose content is
/// inconsistent (warning: declared shape x dtype != size, bytes after the declared sizes,
/// shapes far larger than the payload, odd framework leaves).
struct Problem
{
    enum class Severity { Error, Warning };
    Severity severity = Severity::Warning;
    QString file;    ///< relative to the index root: the dump file (CANN) or the record file (dump.json, .h5)
    QString entry;   ///< framework dumps: the entry inside `file` ("Functional.linear.0.forward"); empty for files
    QString message; ///< names the numbers ("output 0: shape [4] x float32 is 16 bytes but the header declares size 8")
    int op = -1;     ///< warnings: the operator in DumpIndex::ops
};

/// Errors (unreadable files) first, then every operator warning in execution order.
std::vector<Problem> indexProblems(const DumpIndex &index);
/// The warnings of one operator.
std::vector<Problem> opProblems(const DumpIndex &index, int op);
/// "file: message" or "file (entry): message".
QString problemText(const Problem &p);

} // namespace ds
