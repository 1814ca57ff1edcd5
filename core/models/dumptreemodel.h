#pragma once

#include "index/dumpindex.h"

#include <QAbstractItemModel>
#include <memory>
#include <vector>

namespace ds {

/// The dump tree: dump / time / device / model_name / model_id / data_index / operator / tensor,
/// one top-level item per open dump, bad files as their own items. Filled progressively from
/// indexing batches, then re-pointed at the final index. Roles give numbers, not colours.
class DumpTreeModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, CountColumn, SizeColumn, InfoColumn, ColumnCount };
    enum class Kind { Dump, Time, Device, ModelName, ModelId, DataIndex, Op, Tensor, ErrorGroup, Error };
    enum Role {
        KindRole = Qt::UserRole + 1, ///< int(Kind)
        DumpRole,                    ///< int dump number (index into dumps())
        TensorIdRole,                ///< QString tensor id (tensor items)
        OpPathRole,                  ///< QString relative file path (op and tensor items)
        ProblemRole,                 ///< bool: bad file or op with warnings
        BytesRole,                   ///< qulonglong payload bytes below this item
    };

    explicit DumpTreeModel(QObject *parent = nullptr);
    ~DumpTreeModel() override;

    /// Starts a new top-level dump (while it indexes) and returns its number.
    int beginDump(const QString &path);
    /// Adds operators and errors of a dump still indexing.
    void addBatch(int dump, const std::vector<OpRecord> &ops, const std::vector<FileError> &errors);
    /// Replaces the dump's provisional content with the final index.
    void finishDump(int dump, std::shared_ptr<const DumpIndex> index);
    void removeDump(int dump);
    std::shared_ptr<const DumpIndex> index(int dump) const;
    int dumpCount() const;

    /// Index of the tensor / op item, or invalid.
    QModelIndex findTensor(int dump, const QString &tensorId) const;
    QModelIndex findOp(int dump, const QString &relPath) const;
    /// Operator numbers (into index(dump)->ops) below an item, in tree order; for an op or
    /// tensor item, the operators of its parent level.
    std::vector<int> opsUnder(const QModelIndex &item) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Node;
    struct Dump;
    Node *node(const QModelIndex &index) const;
    QModelIndex indexOf(Node *n, int column = 0) const;
    Node *childFor(Node *parent, Kind kind, const QString &key, const QString &sortKey);
    void addOp(Dump &d, const OpRecord &op, int opNumber);
    void addError(Dump &d, const FileError &e);
    void updateTotals(Node *n, qulonglong bytes, int ops);

    std::vector<std::unique_ptr<Dump>> m_dumps;
    bool m_silent = false; ///< building a subtree that is announced in one go
};

} // namespace ds
