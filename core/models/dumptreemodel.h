#pragma once

#include "dump/dumpindex.h"

#include <QAbstractItemModel>
#include <QTimer>
#include <unordered_map>
#include <memory>
#include <vector>

namespace ds {

/// The dump tree: dump / [format part] / [run] / time / step / rank / device / model_name / model_id /
/// data_index / operator / tensor (absent levels skipped; a run node only when the folder holds
/// several runs),
/// one top-level item per open dump, bad files as their own items. While a dump indexes, its
/// directory levels fill with counts and sizes from indexing batches, and the first operators
/// read (Batch::ops, up to the indexer's limit) appear as rows, in the order they were read;
/// the final index then replaces them all (its order, its run and part levels). Roles give
/// numbers, not colours.
///
/// Compact: only directory levels and unreadable files are nodes. Operator and tensor items
/// are (operator, tensor) numbers into the dump's index packed into the model index, and
/// their text is made in data() when a view asks: a million operators cost a few bytes each,
/// not a node with strings. Inside a level, sub-levels (and the unreadable files) come first,
/// then its operators in the index's execution order (timestamp, then file).
class DumpTreeModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, CountColumn, SizeColumn, InfoColumn, ColumnCount };
    enum class Kind { Dump, Part, Time, Step, Rank, Device, ModelName, ModelId, DataIndex, Op, Tensor, ErrorGroup, Error, Run };
    enum Role {
        KindRole = Qt::UserRole + 1, ///< int(Kind)
        DumpRole,                    ///< int dump number (beginDump's, kept while the dump is open: not its row)
        TensorIdRole,                ///< TensorId (tensor items)
        OpPathRole,                  ///< QString relative file path (op and tensor items)
        ProblemRole,                 ///< bool: bad file or op with warnings
        BytesRole,                   ///< qulonglong payload bytes below this item
        OverflowRole,                ///< int mark: 0 none, 1 medium, 2 high, 3 critical, 4 OpDebug record
        LevelRole,                   ///< QString: a level item's value as in DumpLevels ("step0", a run's folder or ".")
        ProducerRole,                ///< QString: who wrote the operators (producerLabel), ", "-joined; level and op items
    };

    explicit DumpTreeModel(QObject *parent = nullptr);
    ~DumpTreeModel() override;

    /// Starts a new top-level dump (while it indexes) and returns its number. Dump numbers are
    /// not rows: they stay while the dump is open (closing another one does not change them)
    /// and are never reused, so results keyed by them cannot reach a later dump.
    int beginDump(const QString &path);
    /// What a batch of operators adds to a dump still indexing: operators and bytes per
    /// directory, and the unreadable files. Made from the batch on the indexing thread; the
    /// operators themselves are not kept (the final index holds the only copy).
    struct LevelTotals
    {
        SharedLevels levels;
        int ops = 0;
        qulonglong bytes = 0;
    };
    struct Batch
    {
        std::vector<LevelTotals> levels;
        std::vector<FileError> errors;
        /// Operators to show as rows while the dump indexes (a copy of some of those the totals
        /// count, with the index's root), or null. Their tensors open in the inspector through
        /// indexFor().
        std::shared_ptr<const DumpIndex> ops;
    };
    static Batch summarizeBatch(const OpRecord *ops, size_t count, const std::vector<FileError> &errors);
    static Batch summarizeBatch(const std::vector<OpRecord> &ops, const std::vector<FileError> &errors)
    {
        return summarizeBatch(ops.data(), ops.size(), errors);
    }
    /// Adds the totals, errors and operator rows of a batch to a dump still indexing (the rows
    /// appended with one beginInsertRows per directory of the batch).
    void addBatch(int dump, const Batch &batch);
    /// The final tree of an index as plain data; safe to build on a worker thread.
    struct BuiltTree;
    static std::shared_ptr<BuiltTree> buildTree(const DumpIndex &index, int dump);
    /// Replaces the dump's provisional content with the final index (and its prebuilt tree,
    /// built here when null) in two notifications.
    void finishDump(int dump, std::shared_ptr<const DumpIndex> index, std::shared_ptr<BuiltTree> tree = {});
    void removeDump(int dump);
    /// Overflow marks per operator (see OverflowRole); level items show their worst child.
    /// data() gives the new marks at once and the level items are announced at once; the
    /// operator items whose mark changed are announced (dataChanged) in time slices of the
    /// event loops that follow: a scan can mark thousands of operators, and one notification
    /// each at once stalled the GUI thread for tens of milliseconds.
    void setOverflowMarks(int dump, std::unordered_map<int, int> marks);
    /// Operator items whose changed mark is still to be announced.
    size_t pendingMarkNotices() const { return m_markNotices.size() - m_markNoticesDone; }
    std::shared_ptr<const DumpIndex> index(int dump) const;
    /// The index holding `tensorId`: the final index, or while the dump indexes the batch of
    /// operators shown (Batch::ops) that holds it; null when none does.
    std::shared_ptr<const DumpIndex> indexFor(int dump, const TensorId &tensorId) const;
    /// Operator rows shown while the dump indexes (0 once its final index is in).
    int liveOps(int dump) const;
    int dumpCount() const;
    /// The numbers of the open dumps, in row order.
    QList<int> dumpIds() const;
    /// The absolute path a dump was opened from ("" when it is not open).
    QString dumpPath(int dump) const;
    /// The top-level item of a dump (its row is not its number), invalid when it is not open.
    QModelIndex dumpItem(int dump) const;

    /// Index of the tensor / op item, or invalid.
    QModelIndex findTensor(int dump, const TensorId &tensorId) const;
    QModelIndex findOp(int dump, const QString &relPath) const;
    /// The item of operator `op` (into index(dump)->ops), or invalid.
    QModelIndex findOp(int dump, int op) const;
    /// The item of the directory levels `levels` (e.g. a run's step/rank), or invalid.
    QModelIndex findLevels(int dump, const DumpLevels &levels) const;
    /// Operator numbers (into index(dump)->ops) below an item, in tree order; for an op or
    /// tensor item, the operators of its parent level.
    std::shared_ptr<const std::vector<int>> opsUnder(const QModelIndex &item) const;

    /// A run of thousands of scopes opens scope by scope (DocumentContext): its scopes are
    /// level nodes without operators, marked unread (an expander, "not read" in the count
    /// column). Expanding one (fetchMore) or requestScope() emits scopeWanted once; the
    /// operators then arrive through scopeRead() as the rows of a live dump (addBatch).
    void addUnreadScopes(int dump, const std::vector<std::shared_ptr<const DumpLevels>> &scopes);
    /// Adds a scope's operators and totals (batch.ops: the scope's own index) and marks the
    /// nodes of `nodes` (the scope's levels given to addUnreadScopes) read.
    void scopeRead(int dump, const std::vector<std::shared_ptr<const DumpLevels>> &nodes, const Batch &batch);
    /// True when `item` is a scope not read yet (with requested: or being read).
    bool isUnreadScope(const QModelIndex &item, bool includeReading = true) const;
    /// Asks for an unread scope's operators (what expanding it does); false when `item` is not
    /// one or is being read already.
    bool requestScope(const QModelIndex &item);
    /// Scopes of a dump opened scope by scope, and how many of them are read (0, 0: none).
    std::pair<int, int> scopesRead(int dump) const;
    /// For a dump opened scope by scope: the scopes at or below `item` (an operator or tensor
    /// item: those of its level), and how many of them are read.
    std::pair<int, int> scopesUnder(const QModelIndex &item) const;
    /// For a dump opened scope by scope: the read scope's own index (scopeRead's batch.ops)
    /// holding every operator below `item`, and those operators as numbers into it (the
    /// operator table of that scope); {null, null} when they are not all in one read scope.
    std::pair<std::shared_ptr<const DumpIndex>, std::shared_ptr<const std::vector<int>>> scopeOpsUnder(const QModelIndex &item) const;
    /// The item of operator `op` of `scope` (an index scopeOpsUnder gave), or invalid.
    QModelIndex findScopeOp(int dump, const DumpIndex *scope, int op) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    bool hasChildren(const QModelIndex &parent = {}) const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;

signals:
    /// An unread scope was expanded (or requestScope): read the operators of the scope whose
    /// levels are `scope` (one of those given to addUnreadScopes) and give them to scopeRead().
    void scopeWanted(int dump, std::shared_ptr<const DumpLevels> scope);

public:
    struct Node;
    struct Dump;

private:
    /// What a model index points at: a node (level, dump, error), or an operator / tensor of a dump.
    struct Item
    {
        const Node *node = nullptr; ///< level items only
        Dump *dump = nullptr;
        int op = -1, tensor = -1;
    };
    Item item(const QModelIndex &index) const;
    Dump *dumpOf(quintptr serial) const;
    Dump *dumpById(int dump) const;
    int dumpNumber(const Dump *d) const;
    QModelIndex indexOf(const Node *n, int column = 0) const;
    QModelIndex opIndex(const Dump &d, int op, int column = 0) const;
    QModelIndex tensorIndex(const Dump &d, int op, int tensor, int column = 0) const;
    QVariant nodeData(const Node &n, int column, int role) const;
    QVariant opData(const Dump &d, int op, int column, int role) const;
    QVariant tensorData(const Dump &d, int op, int tensor, int column, int role) const;
    void applyMarks(Dump &d, bool notify);
    void appendLive(Dump &d, std::shared_ptr<const DumpIndex> ops);
    /// The node for the directory levels below root, created (and announced through
    /// `notify` when it is a live model) as needed.
    static Node *levelNode(DumpTreeModel *notify, Node *root, const DumpLevels &levels);

    QVariant unreadCount(const Node &n) const;
    /// Announces the next operator items of m_markNotices for at most a time slice.
    void announceMarks();

    std::vector<std::unique_ptr<Dump>> m_dumps; ///< in row order
    int m_nextId = 0;
    std::vector<std::pair<quintptr, int>> m_markNotices; ///< (dump serial, operator), in order
    size_t m_markNoticesDone = 0;
    QTimer *m_markTimer;
};

} // namespace ds
