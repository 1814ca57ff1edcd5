#pragma once

#include "dump/dumpindex.h"
#include "dump/reader.h"
#include "util/cancel.h"

#include <functional>
#include <memory>
#include <optional>

namespace ds {

/// Partial results while indexing (for progressive display): the operators and errors of
/// one part, before they move into the index. Called from a worker thread, under the lock
/// that merges parts: keep what is needed, do not copy every operator.
using IndexBatchSink = std::function<void(const std::vector<OpRecord> &ops, const std::vector<FileError> &errors)>;

/// Every operator as soon as it is read, for a display that fills while indexing: `format`'s
/// reader read them, a part's in file order (a reader that streams one huge file, msprobe's
/// dump.json, delivers them every 1,024 entries; the others, and the rest of a part, when the
/// part is complete). Each operator comes once. Called from worker threads, concurrently for
/// different parts; the array moves on after the call: copy what is kept. These are the
/// records as read: levels without the run and part labels, no stacks (finalize() and the
/// merge of parts give those to the index).
using IndexOpsSink = std::function<void(FormatId format, const OpRecord *ops, size_t count)>;

/// The claims of a tree before anything is indexed: what every reader took, directory by
/// directory (names and at most a few first bytes of a file).
struct TreeWalk
{
    QString openedPath; ///< what the user opened (absolute)
    QString rootDir;    ///< directory relative paths and tensor ids are based on
    bool singleFile = false;
    std::vector<Claim> claims;
    std::vector<QString> runs;     ///< the run of each claim (runRootOf, dump/levels.h)
    std::vector<FileError> errors; ///< unreadable directories, broken links
    bool cancelled = false;
};

/// Walks `path` once (a dump at any level, or a single file). A missing path is an error.
Result<TreeWalk> walkTree(const QString &path, const JobControl *job = nullptr);

/// How indexClaims labels the levels of operators from several runs or formats.
enum class IndexLabels : std::uint8_t {
    Auto,   ///< levels.run when the operators come from several runs, levels.part when from several formats
    Always, ///< both always: a part of a tree indexed on its own (issue 17) keeps what the whole tree needs;
            ///< the merge of the reports (overflowpart.h, infopart.h) drops what the whole tree does not
};

/// Indexes the claims `which` of a walk (every claim when empty) on all cores into one index
/// based at walk.rootDir: tensor ids and paths are those of the whole tree. When its operators
/// come from several runs, their levels.run names the run (each run gets its own tree node).
std::shared_ptr<DumpIndex> indexClaims(const TreeWalk &walk, const std::vector<size_t> &which = {},
                                       const JobControl *job = nullptr, const IndexBatchSink &sink = {},
                                       IndexLabels labels = IndexLabels::Auto, const IndexOpsSink &live = {});

/// The error of a single file opened alone that no reader takes ("not a dump file name").
bool isNotDumpFileName(const FileError &error);

/// True when nothing at the opened path was recognised: no operator, and no error other than
/// that of a lone file no reader takes (a folder of text files, an empty folder, a stray file).
/// A file a reader took but could not read is recognised: its error says what is wrong.
bool recognisedNothing(std::uint64_t ops, const std::vector<FileError> &errors);
inline bool recognisedNothing(const DumpIndex &index) { return recognisedNothing(index.ops.size(), index.errors); }

/// What the CLI prints and the GUI shows (translated: context "ds::DumpIndex") when
/// recognisedNothing(): "Nothing recognised here: ..." naming `openedPath`, the `otherFiles`
/// skipped (when known) and every format looked for (formats/readers.h), graph files included.
QString nothingRecognisedMessage(const QString &openedPath, bool singleFile, std::optional<std::uint64_t> otherFiles);
inline QString nothingRecognisedMessage(const DumpIndex &index)
{
    return nothingRecognisedMessage(index.openedPath, index.openedPath != index.rootDir, index.otherFiles);
}

/// Indexes a dump at any level (dump_path, a time or data_index directory, or a single file):
/// walks the tree once, lets every reader of formats/readers.h claim what is its own in each
/// directory, then indexes the claims on all cores (headers only). A missing path is an
/// error; bad files become entries in DumpIndex::errors and never stop the rest.
Result<std::shared_ptr<DumpIndex>> buildIndex(const QString &path, const JobControl *job = nullptr,
                                              const IndexBatchSink &sink = {}, const IndexOpsSink &live = {});

} // namespace ds
