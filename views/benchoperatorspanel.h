#pragma once

#include "compare/compare.h"

#include <QDialog>
#include <QWidget>
#include <memory>

class QCheckBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace ds {

class BenchOperatorFilterProxy;
class BenchOperatorModel;

/// The operators of the bench dump beside the comparison: which ones the comparison matched,
/// which it did not (highlighted), filterable by name or type and to the unmatched ones. NPU
/// rows dropped on an operator ask to map them to it, or to all selected operators when it is
/// one of several selected (an N:M group).
class BenchOperatorsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit BenchOperatorsPanel(QWidget *parent = nullptr);

    void setResult(std::shared_ptr<const CompareResult> result, std::shared_ptr<const DumpIndex> npu,
                   std::shared_ptr<const DumpIndex> bench);
    BenchOperatorModel *model() const { return m_model; }
    BenchOperatorFilterProxy *proxy() const { return m_proxy; }
    QTableView *table() const { return m_table; }
    QLineEdit *filter() const { return m_filter; }
    QCheckBox *unmatchedOnly() const { return m_unmatchedOnly; }
    /// The selected bench operators in execution order.
    QStringList selectedOperators() const;
    /// Selects (and shows) one operator; false when there is none of that name.
    bool selectOperator(const QString &name);

signals:
    void mappingRequested(const QStringList &npu, const QStringList &bench);

private:
    void onDropped(const QStringList &npu, int row);
    void updateCounts();

    BenchOperatorModel *m_model;
    BenchOperatorFilterProxy *m_proxy;
    QTableView *m_table;
    QLineEdit *m_filter;
    QCheckBox *m_unmatchedOnly;
    QLabel *m_counts;
};

/// "Map to bench operator…": a searchable list of the bench operators (the unmatched ones
/// first shown) from which one or several are chosen for some NPU operators.
class BenchOperatorChooser : public QDialog
{
    Q_OBJECT
public:
    BenchOperatorChooser(const QStringList &npu, std::shared_ptr<const CompareResult> result,
                         std::shared_ptr<const DumpIndex> npuIndex, std::shared_ptr<const DumpIndex> bench,
                         QWidget *parent = nullptr);
    BenchOperatorsPanel *panel() const { return m_panel; }
    QStringList chosen() const;

private:
    BenchOperatorsPanel *m_panel;
};

} // namespace ds
