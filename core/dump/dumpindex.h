#pragma once

#include "records.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <utility>

namespace ds {

/// Everything known about an opened dump after indexing headers: operators, their tensors
/// and the files that could not be read. Plain data; shared read-only across threads.
/// Built by buildIndex() (index/buildindex.h).
class DumpIndex
{
public:
    QString openedPath; ///< what the user opened (absolute)
    QString rootDir;    ///< directory relative paths and tensor ids are based on
    std::vector<OpRecord> ops;
    std::vector<FileError> errors;
    std::uint64_t otherFiles = 0; ///< files that are not dump files (skipped)
    std::vector<QStringList> stacks; ///< call stacks (msprobe stack.json), OpRecord::stack indexes them
    /// The producers' tasks (msprobe dump.json "task": "tensor", "statistics", ...) of the parts
    /// that recorded one, each once, sorted; empty for formats without one.
    QStringList producerTasks;
    /// The producers' frameworks (msprobe dump.json "framework": "pytorch", "mindspore", ...),
    /// each once, sorted; empty for formats without one.
    QStringList producerFrameworks;
    bool cancelled = false;

    /// A tensor's position in this index (ops[op].tensors[tensor]); TensorId names it across indexes.
    struct TensorRef
    {
        int op = -1, tensor = -1;
        bool operator==(const TensorRef &) const = default;
    };

    /// Sorts operators into execution order (the path lookup is built on first use).
    void finalize();
    /// Builds the lookup of opIndex() now (a worker thread does, before the GUI thread asks).
    void buildPathIndex() const { (void)m_paths.get(ops); }

    /// The file holding the operator's record (its dump file, dump.json, the .h5 file).
    QString absolutePath(const OpRecord &op) const;
    /// A path relative to the index root made absolute.
    QString absolute(const QString &relPath) const;
    int opIndex(const QString &relPath) const;
    TensorId tensorId(const TensorRef &ref) const;
    std::optional<TensorRef> find(const TensorId &id) const;
    const OpRecord &op(const TensorRef &ref) const { return ops[size_t(ref.op)]; }
    const TensorRecord &tensor(const TensorRef &ref) const { return ops[size_t(ref.op)].tensors[size_t(ref.tensor)]; }

    /// Tensors (inputs, outputs, parameters; not values), or every record when `false`.
    std::uint64_t tensorCount(bool inputsAndOutputsOnly = true) const;
    std::uint64_t payloadBytes() const;
    /// The same over ops [begin, end).
    std::uint64_t tensorCount(size_t begin, size_t end, bool inputsAndOutputsOnly = true) const;
    std::uint64_t payloadBytes(size_t begin, size_t end) const;
    /// tensorCount(begin, end) and payloadBytes(begin, end) in one pass over the tensors.
    std::pair<std::uint64_t, std::uint64_t> tensorCountAndBytes(size_t begin, size_t end) const;
    /// The readers that indexed the operators, in reader-list order.
    std::vector<FormatId> sourceFormats() const;

    int opIndex(std::string_view relPathUtf8) const;

private:
    /// (hash of relPath's UTF-8, op) sorted: 16 bytes per operator, and no copy of the paths.
    /// Built once, on first use (thread-safe): opening a run for a listing never needs it. A
    /// copy or a finalize() starts a new one.
    class PathTable
    {
    public:
        using Entries = std::vector<std::pair<std::uint64_t, int>>;
        PathTable() : d(std::make_unique<State>()) {}
        PathTable(const PathTable &) : PathTable() {}
        PathTable(PathTable &&o) : d(std::exchange(o.d, std::make_unique<State>())) {}
        PathTable &operator=(const PathTable &o)
        {
            if (this != &o)
                reset();
            return *this;
        }
        PathTable &operator=(PathTable &&o)
        {
            d = std::exchange(o.d, std::make_unique<State>());
            return *this;
        }
        void reset() { d = std::make_unique<State>(); }
        const Entries &get(const std::vector<OpRecord> &ops) const;

    private:
        struct State
        {
            std::once_flag built;
            Entries entries;
        };
        std::unique_ptr<State> d;
    };
    PathTable m_paths;
};

} // namespace ds
