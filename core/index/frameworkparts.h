#pragma once

#include "index/frameworkpart.h"
#include "records.h"
#include "util/cancel.h"

#include <QStringList>

namespace ds {

/// A part of a tree that is not CANN operator files: found by the directory walk, indexed by
/// its format's reader (msprobe.md §1 detection order, h5-dumper.md, msprobe.md §8).
struct FrameworkDir
{
    enum class Kind : std::uint8_t { Msprobe, Ptdbg, PtdbgOverflowInfo, H5File, NpyFolder };
    Kind kind;
    QString relPath; ///< the rank directory, the .h5 or forward_info file, or the folder of .npy files ("" = root)
    DumpLevels levels;
};

/// Sorts the files of one directory: returns the framework part the directory is (msprobe or
/// ptdbg rank directory: its sub-directories hold only their tensors and are not walked), or
/// takes the .h5 and .npy files out of `files` as parts of their own. What stays in `files` is
/// looked at as CANN dump files. `absDir` gives the step/rank levels.
struct DirVerdict
{
    bool wholeDirectory = false; ///< an msprobe/ptdbg rank directory: do not walk below it
    std::vector<FrameworkDir> parts;
};
DirVerdict classifyDirectory(const QString &absDir, const QString &relDir, QStringList &files);

/// step{N} / rank{R} / rank / proc{pid} / rank{pid+100000} levels of a framework directory.
DumpLevels frameworkLevels(const QString &absDir);

/// Runs the reader of a part. Failure means the part could not be read at all (its errors
/// otherwise come back inside the part).
Result<FrameworkPart> indexFrameworkDir(const QString &rootDir, const FrameworkDir &dir, const JobControl *job);

} // namespace ds
