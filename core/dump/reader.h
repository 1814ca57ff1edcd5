#pragma once

#include "dumpindex.h"
#include "indexpart.h"
#include "loadedtensor.h"
#include "util/cancel.h"

#include <QStringList>
#include <memory>
#include <vector>

namespace ds {

/// One directory as the index walk sees it.
struct DirListing
{
    QString rootDir;   ///< the index root
    QString absDir;    ///< this directory
    QString relDir;    ///< relative to rootDir ("" = the root itself)
    QStringList files; ///< regular files no reader has claimed yet (readers take theirs out)

    QString relPath(const QString &file) const { return relDir.isEmpty() ? file : relDir + QLatin1Char('/') + file; }
};

/// What a reader keeps between claim() and index() beyond the claim's paths (e.g. the names
/// of a directory's mapping.csv). Shared read-only by the claims of one directory.
struct ClaimData
{
    virtual ~ClaimData() = default;
};

/// One unit of indexing work a reader took during the walk: a rank directory, one file, or a
/// batch of files of one directory. Claims are indexed in parallel.
struct Claim
{
    FormatId format{};
    QString relPath;     ///< the claimed directory or file, relative to the root ("" = the root)
    DumpLevels levels;   ///< where it sits in the tree (step/rank or time/device/...)
    QStringList files;   ///< batches of files: their paths relative to the root
    std::shared_ptr<const ClaimData> data;
};

/// A whole-directory reader is asked first, then the file readers, then the one that takes
/// the rest (CANN: whether a leftover file is a dump file is decided on the worker threads).
enum class ClaimOrder : std::uint8_t { WholeDirectory, Files, Rest };

/// Optional: writes selected operators of this format into a new file of the same format.
class OpExporter
{
public:
    virtual ~OpExporter() = default;
    virtual QString fileSuffix() const = 0; ///< ".h5"
    /// Writes `ops` (indexes into index.ops, all of this format) into a NEW file `outFile`.
    /// Refuses to overwrite unless `force`, and to write inside index.rootDir. Returns the
    /// number of operators written.
    virtual Result<int> exportOps(const DumpIndex &index, const std::vector<int> &ops, const QString &outFile,
                                  bool force, const JobControl *job) const = 0;
};

/// One input format. Readers are stateless and live for the whole program (formats/readers.h
/// lists them); every method may be called from any thread.
class DumpReader
{
public:
    virtual ~DumpReader() = default;
    /// The JSON and CLI spelling ("cann", "msprobe", ...).
    virtual QString name() const = 0;
    /// For people ("CANN operator dump").
    virtual QString description() const = 0;
    virtual ClaimOrder claimOrder() const = 0;
    /// Cheap: looks at one directory's file names (and at most the first bytes of a few
    /// files). Moves the files it takes out of `dir.files` into `claims`. Returns true when
    /// the whole directory is its own (the walk neither offers it to other readers nor goes
    /// below it).
    virtual bool claim(DirListing &dir, std::vector<Claim> &claims) const = 0;
    /// Reads the headers of a claim. Fails only when the claim could not be read at all (its
    /// bad files otherwise come back as IndexPart::errors) or when cancelled.
    virtual Result<IndexPart> index(const QString &rootDir, const Claim &claim, const JobControl *job) const = 0;
    /// Loads a tensor this reader indexed (TensorRecord::storage is not Absent or Value).
    virtual Result<LoadedTensorPtr> load(const DumpIndex &index, const OpRecord &op, const TensorRecord &rec,
                                         LayoutChoice layout, const JobControl *job) const = 0;
    virtual const OpExporter *exporter() const { return nullptr; }

    // What the rest of DumpScope needs to know about the operators of this format.
    /// Each operator is one dump file (CANN): its path names it uniquely, its type is shown
    /// before its name, fused outputs carry the original op.
    virtual bool opsAreFiles() const { return false; }
    /// Operators are framework API calls and modules with parents (msprobe, ptdbg).
    virtual bool hasModules() const { return false; }
    /// Operators are drawn as a module graph (buildModuleGraphs) when no graph file is found:
    /// the framework dumps with modules, and MindSpore kernel dumps whose parents are name
    /// scopes ("Default/network-WithLossCell/_backbone-Net/fc1-Dense").
    virtual bool hasModuleGraph() const { return hasModules(); }
    /// OpRecord::parent is a '/'-separated name scope (MindSpore kernels), not an entry.
    virtual bool parentIsScope() const { return false; }
};

} // namespace ds
