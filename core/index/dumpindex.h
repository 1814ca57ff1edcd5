#pragma once

#include "records.h"
#include "util/cancel.h"

#include <QHash>
#include <functional>
#include <memory>
#include <optional>

namespace ds {

/// Everything known about an opened dump after indexing headers: operators, their tensors
/// and the files that could not be read. Plain data; shared read-only across threads.
class DumpIndex
{
public:
    QString openedPath; ///< what the user opened (absolute)
    QString rootDir;    ///< directory relative paths and tensor ids are based on
    std::vector<OpRecord> ops;
    std::vector<FileError> errors;
    std::uint64_t otherFiles = 0; ///< files that are not dump files (skipped)
    std::vector<QStringList> stacks; ///< call stacks (msprobe stack.json), OpRecord::stack indexes them
    bool cancelled = false;

    struct TensorRef
    {
        int op = -1, tensor = -1;
        bool operator==(const TensorRef &) const = default;
    };

    /// Sorts operators into execution order and builds the lookup tables.
    void finalize();

    /// The file holding the operator's record (its dump file, dump.json, the .h5 file).
    QString absolutePath(const OpRecord &op) const;
    /// A path relative to the index root made absolute.
    QString absolute(const QString &relPath) const;
    int opIndex(const QString &relPath) const;
    /// Tensor id: `<relPath>.<input|output|buffer|workspace>.<index>`.
    QString tensorId(const TensorRef &ref) const;
    std::optional<TensorRef> findTensor(const QString &id) const;
    const OpRecord &op(const TensorRef &ref) const { return ops[size_t(ref.op)]; }
    const TensorRecord &tensor(const TensorRef &ref) const { return ops[size_t(ref.op)].tensors[size_t(ref.tensor)]; }

    /// Tensors (inputs, outputs, parameters; not values), or every record when `false`.
    std::uint64_t tensorCount(bool inputsAndOutputsOnly = true) const;
    std::uint64_t payloadBytes() const;
    /// The producers of the operators, in SourceFormat order.
    std::vector<SourceFormat> sourceFormats() const;

private:
    QHash<QString, int> m_byPath;
};

/// Partial results while indexing (for progressive display). Called from a worker thread.
using IndexBatchSink = std::function<void(std::vector<OpRecord> ops, std::vector<FileError> errors)>;

/// Indexes a dump at any level (dump_path, a time or data_index directory, or a single file):
/// CANN operator files, msprobe and ptdbg rank directories, .h5 dumper files and folders of
/// .npy files, each found where it lies in the tree. Reads headers only, on all cores. A
/// missing path is an error; bad files become entries in DumpIndex::errors and never stop
/// the rest.
Result<std::shared_ptr<DumpIndex>> buildIndex(const QString &path, const JobControl *job = nullptr,
                                              const IndexBatchSink &sink = {});

/// Classifies the directory components above a dump file into the levels of §2.2.
/// `components` are the directory names from the outermost to the file's own directory.
DumpLevels classifyLevels(const QStringList &components);

} // namespace ds
