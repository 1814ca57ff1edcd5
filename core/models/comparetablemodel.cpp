#include "comparetablemodel.h"

#include "addederrortext.h"
#include "compare/comparereport.h"
#include "compare/msprobecells.h"
#include "run/runcompare.h"
#include "run/runtree.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QMimeData>
#include <QSet>

namespace ds {

namespace {

constexpr Metric kColumnMetric[] = {Metric::Cosine, Metric::MaxAbsErr, Metric::MaxRelativeErr, Metric::OneThousandthErrRatio,
                                    Metric::FiveThousandthsErrRatio, Metric::EucDist};

const MetricValue *cell(const CompareRow &row, int column)
{
    if (column < CompareTableModel::Cosine || column > CompareTableModel::EucDist)
        return nullptr;
    return &row.metrics[size_t(kColumnMetric[column - CompareTableModel::Cosine])];
}

bool isRowTensor(const TensorRecord &t)
{
    return t.io() == IoKind::Input || t.io() == IoKind::Output || t.io() == IoKind::Parameter;
}

} // namespace

QStringList npuOperatorsFromMime(const QMimeData *data)
{
    QStringList out;
    if (!data || !data->hasFormat(QLatin1String(kNpuOperatorsMime)))
        return out;
    for (const auto &v : QJsonDocument::fromJson(data->data(QLatin1String(kNpuOperatorsMime))).array())
        if (!v.toString().isEmpty())
            out << v.toString();
    return out;
}

CompareTableModel::CompareTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void CompareTableModel::setResult(std::shared_ptr<const CompareResult> result, std::shared_ptr<const DumpIndex> npu,
                                  std::shared_ptr<const DumpIndex> bench)
{
    beginResetModel();
    m_result = std::move(result);
    m_npu = std::move(npu);
    m_bench = std::move(bench);
    derive();
    endResetModel();
}

void CompareTableModel::updateResult(std::shared_ptr<const CompareResult> result)
{
    // Other rows (or another count of bench-only rows): reset.
    if (!m_result || !result || !m_npu || !m_bench || result->rows.size() != m_result->rows.size()
        || CompareGaps::build(*m_npu, *m_bench, *result).benchRows.size() != m_gaps.benchRows.size()) {
        setResult(std::move(result), m_npu, m_bench);
        return;
    }
    m_result = std::move(result);
    derive();
    if (rowCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void CompareTableModel::derive()
{
    m_dumpscope = m_msprobe = {};
    m_differing = 0;
    m_pinned = m_first = -1;
    m_runScopes.clear();
    m_runAnswer = {};
    m_why.clear();
    m_whyDone.clear();
    m_gaps = {};
    if (!m_result || !m_npu || !m_bench)
        return;
    m_gaps = CompareGaps::build(*m_npu, *m_bench, *m_result);
    for (const CompareRow &row : m_result->rows) {
        const ds::Verdict m = msprobeVerdict(row);
        ++m_dumpscope[row.verdict];
        ++m_msprobe[m];
        if (!row.result.isEmpty() && m != row.verdict)
            ++m_differing;
    }
    m_why.resize(m_result->rows.size());
    m_whyDone.assign(m_result->rows.size(), 0);
    // The run-level answer names one scope's divergence: that one is pinned (the first scope
    // in step/rank order is not it when another rank diverges earlier on the clock).
    m_runScopes = summarizeCompare(*m_npu, *m_bench, *m_result);
    m_runAnswer = combineRun(m_runScopes, RunAnswerKind::Compare);
    const auto &divergences = m_result->divergences;
    if (m_runAnswer.first) {
        const RunAnswer::RankFinding &at = m_runAnswer.first->at;
        for (size_t i = 0; i < divergences.size() && m_first < 0; ++i) {
            const Divergence &d = divergences[i];
            if (d.originOp >= 0 && d.originRow >= 0 && scopeIdOf(*m_npu->ops[size_t(d.originOp)].levels) == at.scope
                && m_result->rows[size_t(d.originRow)].npuName == at.finding.row)
                m_first = int(i);
        }
    }
    if (m_first < 0 && !divergences.empty())
        m_first = 0;
    m_pinned = m_first >= 0 ? divergences[size_t(m_first)].originRow : -1;
}

const Divergence *CompareTableModel::firstDivergence() const
{
    return m_first >= 0 ? &m_result->divergences[size_t(m_first)] : nullptr;
}

QString CompareTableModel::npuOperator(int row) const
{
    if (!m_result || row < 0 || size_t(row) >= m_result->rows.size())
        return {};
    return opMatchKey(m_npu->op(m_result->rows[size_t(row)].npu));
}

QString CompareTableModel::benchOperator(int row) const
{
    if (isBenchOnlyRow(row))
        return opMatchKey(m_bench->op(m_gaps.benchRows[size_t(row) - m_result->rows.size()].bench));
    if (!m_result || row < 0 || size_t(row) >= m_result->rows.size() || m_result->rows[size_t(row)].bench.op < 0)
        return {};
    return opMatchKey(m_bench->op(m_result->rows[size_t(row)].bench));
}

QStringList CompareTableModel::npuOperators(const QModelIndexList &rows) const
{
    std::vector<int> ops;
    for (const QModelIndex &i : rows)
        if (i.isValid() && i.model() == this && m_result && size_t(i.row()) < m_result->rows.size())
            ops.push_back(m_result->rows[size_t(i.row())].npu.op);
    std::sort(ops.begin(), ops.end());
    ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
    QStringList names;
    for (int op : ops)
        names << opMatchKey(m_npu->ops[size_t(op)]);
    names.removeDuplicates();
    return names;
}

Qt::ItemFlags CompareTableModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid())
        f |= isBenchOnlyRow(index.row()) ? Qt::ItemIsDropEnabled : Qt::ItemIsDragEnabled | Qt::ItemIsDropEnabled;
    return f;
}

QStringList CompareTableModel::mimeTypes() const { return {QLatin1String(kNpuOperatorsMime)}; }

QMimeData *CompareTableModel::mimeData(const QModelIndexList &indexes) const
{
    const QStringList ops = npuOperators(indexes);
    if (ops.isEmpty())
        return nullptr;
    auto *data = new QMimeData;
    data->setData(QLatin1String(kNpuOperatorsMime), QJsonDocument(QJsonArray::fromStringList(ops)).toJson(QJsonDocument::Compact));
    data->setText(ops.join(QLatin1Char('\n')));
    return data;
}

Qt::DropActions CompareTableModel::supportedDragActions() const { return Qt::CopyAction | Qt::LinkAction; }

Qt::DropActions CompareTableModel::supportedDropActions() const { return Qt::CopyAction | Qt::LinkAction; }

bool CompareTableModel::canDropMimeData(const QMimeData *data, Qt::DropAction action, int row, int, const QModelIndex &parent) const
{
    // on a row (parent) only: between rows there is no bench operator
    return (action == Qt::CopyAction || action == Qt::LinkAction) && row < 0 && parent.isValid()
           && !benchOperator(parent.row()).isEmpty() && !npuOperatorsFromMime(data).isEmpty();
}

bool CompareTableModel::dropMimeData(const QMimeData *data, Qt::DropAction action, int row, int column, const QModelIndex &parent)
{
    if (!canDropMimeData(data, action, row, column, parent))
        return false;
    emit mappingRequested(npuOperatorsFromMime(data), {benchOperator(parent.row())});
    return true;
}

int CompareTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_result ? 0 : int(m_result->rows.size() + m_gaps.benchRows.size());
}

bool CompareTableModel::isBenchOnlyRow(int row) const
{
    return m_result && row >= 0 && size_t(row) >= m_result->rows.size() && size_t(row) - m_result->rows.size() < m_gaps.benchRows.size();
}

int CompareTableModel::regionOf(int row) const
{
    if (isBenchOnlyRow(row))
        return m_gaps.benchRows[size_t(row) - m_result->rows.size()].region;
    return row >= 0 ? m_gaps.regionOfRow(size_t(row)) : -1;
}

QString CompareTableModel::regionText(int region) const
{
    if (!m_result || region < 0 || size_t(region) >= m_result->structure.size())
        return {};
    const StructureFinding &f = m_result->structure[size_t(region)];
    QString where = f.where();
    if (where.isEmpty())
        where = tr("(top level)");
    const QString plus = QStringLiteral(" + ");
    const QString text = f.npuOps.isEmpty()    ? tr("%1: only in the bench: %2").arg(where, f.benchOps.join(plus))
                         : f.benchOps.isEmpty() ? tr("%1: only on the NPU: %2").arg(where, f.npuOps.join(plus))
                                                : tr("%1: bench %2 vs NPU %3").arg(where, f.benchOps.join(plus), f.npuOps.join(plus));
    switch (f.outcome) {
    case StructureFinding::Outcome::Equal: return tr("%1: numerically equal").arg(text);
    case StructureFinding::Outcome::Differs: return tr("%1: numerically different").arg(text);
    case StructureFinding::Outcome::NotCompared: break;
    }
    return tr("%1: outputs not compared").arg(text);
}

QVariant CompareTableModel::benchOnlyData(int r, int c, int role) const
{
    const CompareGaps::BenchRow &b = m_gaps.benchRows[size_t(r) - m_result->rows.size()];
    switch (role) {
    case Qt::DisplayRole:
        switch (c) {
        case Verdict: return tr("%1 \u00b7 bench only").arg(verdictText(ds::Verdict::None));
        case NpuName: return tr("bench only");
        case BenchName: return rowName(m_bench->op(b.bench), m_bench->tensor(b.bench));
        case Reasons: return reasonCodeName(b.reason);
        case Region: return regionText(b.region);
        default: return {};
        }
    case Qt::ToolTipRole:
        return QStringList{tr("Only the bench has this row: nothing on the NPU side of its structure region pairs with it."),
                           regionText(b.region), reasonCodeText(b.reason)}.join(QLatin1Char('\n'));
    case SortRole: return c == Verdict || c == MsprobeResult ? QVariant(int(ds::Verdict::None)) : benchOnlyData(r, c, Qt::DisplayRole);
    case VerdictRole:
    case MsprobeVerdictRole: return int(ds::Verdict::None);
    case SourceRole: return int(MatchSource::None);
    case DiffersRole:
    case PinnedRole: return false;
    case RowRole: return r;
    case GapRole: return int(CompareGaps::Gap::BenchOnly);
    case RegionRole: return regionText(b.region);
    default: return {};
    }
}

int CompareTableModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

Verdict msprobeVerdict(const CompareRow &row)
{
    ds::Verdict v = ds::Verdict::None;
    return parseVerdict(row.result, v) ? v : ds::Verdict::None;
}

QString CompareTableModel::verdictText(ds::Verdict v)
{
    switch (v) {
    case ds::Verdict::Pass: return tr("pass");
    case ds::Verdict::Warning: return tr("warning");
    case ds::Verdict::Error: return tr("error");
    case ds::Verdict::None: break;
    }
    return tr("not compared");
}

namespace {

/// One msprobe Err_message item ("error: The dtype of NPU and Bench are inconsistent.") as the
/// rule behind it, with the row's own cells where the rule compares them.
QString msprobeRule(const QString &message, const MsprobeRow &cells)
{
    QString text = message;
    for (const char *prefix : {"error: ", "warning: "})
        if (text.startsWith(QLatin1String(prefix)))
            text.remove(0, qsizetype(qstrlen(prefix)));
    auto has = [&](const char *s) { return text.contains(QLatin1String(s)); };
    if (has("dtype of NPU and Bench"))
        return CompareTableModel::tr("msprobe: the dtypes differ (%1 vs %2), an error on every such row").arg(cells.npuDtype, cells.benchDtype);
    if (has("Required_Grad"))
        return CompareTableModel::tr("msprobe: requires_grad differs (%1 vs %2)").arg(cells.npuReqGrad, cells.benchReqGrad);
    if (has("shape of NPU and Bench"))
        return CompareTableModel::tr("msprobe: the shapes differ (%1 vs %2)").arg(cells.npuShape, cells.benchShape);
    if (has("nan/inf/-inf"))
        return CompareTableModel::tr("msprobe: the NPU max or min is NaN/Inf while the bench's are finite");
    if (has("One Thousandth Err Ratio"))
        return CompareTableModel::tr("msprobe's operator rule: the inputs' One Thousandth Err Ratio is above 0.9 and this first output's below 0.1");
    if (has("scalar parameters"))
        return CompareTableModel::tr("msprobe: a non-tensor argument differs");
    if (has("Cosine > 0.9"))
        return CompareTableModel::tr("msprobe's operator rule: the inputs' cosine is above 0.9 and this first output's more than 0.1 lower");
    if (has("NormRelativeErr of output is greater than 0.5"))
        return CompareTableModel::tr("msprobe's statistics rule: the inputs' NormRelativeErr is below 10 % and this output's above 50 %");
    if (has("10 times that of input"))
        return CompareTableModel::tr("msprobe's statistics rule: this output's NormRelativeErr is over 10 times the inputs' (over 10 % when theirs is 0)");
    if (has("CRC-32 value"))
        return CompareTableModel::tr("msprobe: the CRC-32 values differ");
    if (has("does not match the bench"))
        return CompareTableModel::tr("msprobe: one side has no CRC-32");
    return CompareTableModel::tr("msprobe: %1").arg(text);
}

/// DumpScope's reasons of a row in words: §5's warning keeps msprobe Gen B's phrase in the
/// reports ("Need double check api accuracy."); here it says what it tests.
QString dumpscopeReasons(const CompareRow &row, const CompareThresholds &t)
{
    QStringList out;
    for (const QString &h : row.highlights)
        out << (h == QLatin1String("Need double check api accuracy.")
                    ? CompareTableModel::tr("a recorded statistic differs by more than %1 % of the larger value").arg(t.summaryWarning * 100)
                    : h);
    return out.join(QStringLiteral("; "));
}

/// Why msprobe's checkers let a row pass that DumpScope's rules do not, per report mode.
QString msprobeLeniency(CompareMode mode)
{
    switch (mode) {
    case CompareMode::Tensor:
        return CompareTableModel::tr("msprobe does not check a row's values against thresholds (only dtype, shape, requires_grad, "
                                     "NaN/Inf and its input-vs-output rules)");
    case CompareMode::Summary:
        return CompareTableModel::tr("msprobe's statistics rules flag only a NormRelativeErr growing from the inputs to an output");
    case CompareMode::Md5:
    case CompareMode::Value:
    case CompareMode::None: break;
    }
    return CompareTableModel::tr("msprobe's checkers find nothing on this row");
}

} // namespace

QString CompareTableModel::verdictDifference(int r) const
{
    if (!m_result || r < 0 || size_t(r) >= m_result->rows.size())
        return {};
    if (m_whyDone[size_t(r)])
        return m_why[size_t(r)];
    m_whyDone[size_t(r)] = 1;
    const CompareRow &row = m_result->rows[size_t(r)];
    const ds::Verdict mine = row.verdict, theirs = msprobeVerdict(row);
    if (row.result.isEmpty() || mine == theirs)
        return {};
    QStringList why;
    const MsprobeRow cells = msprobeRow(*m_npu, *m_bench, row, m_result->mode);
    if (theirs > mine) { // msprobe's rules that raised its Result, then why DumpScope's did not
        for (const QString &m : row.resultMessages)
            why << msprobeRule(m, cells);
        if (mine == ds::Verdict::None) {
            QStringList reasons;
            for (ReasonCode c : row.reasons)
                reasons << reasonCodeText(c);
            why << tr("DumpScope did not compare the row (%1)").arg(reasons.isEmpty() ? tr("no comparable data") : reasons.join(QStringLiteral(", ")));
        } else if (mine == ds::Verdict::Pass) {
            why << (row.dtypeDiffers && !row.hasReason(ReasonCode::DtypeMismatch)
                        ? tr("DumpScope judges float16/bfloat16 against float32 by the values, which pass its thresholds")
                        : tr("DumpScope: the values pass its thresholds"));
        } else {
            why << tr("DumpScope: %1 (%2)").arg(verdictText(mine), dumpscopeReasons(row, m_result->thresholds));
        }
    } else { // DumpScope's rules that raised its verdict, then why msprobe's did not
        why << tr("DumpScope: %1").arg(dumpscopeReasons(row, m_result->thresholds));
        if (theirs == ds::Verdict::Pass)
            why << msprobeLeniency(row.mode);
        else
            for (const QString &m : row.resultMessages)
                why << msprobeRule(m, cells) + QLatin1Char(' ') + tr("(a %1 for msprobe)").arg(row.result);
    }
    m_why[size_t(r)] = why.join(QStringLiteral("; ")) + QLatin1Char('.');
    return m_why[size_t(r)];
}

QString CompareTableModel::pinnedCause() const
{
    const Divergence *d = firstDivergence();
    if (!d)
        return {};
    const CompareRow &row = m_result->rows[size_t(d->originRow)];
    switch (d->cause) {
    case DivergenceCause::Parameter: return tr("parameter differs");
    case DivergenceCause::Input: return row.dtypeDiffers ? tr("input dtype differs") : tr("input differs");
    case DivergenceCause::Output: break;
    }
    return tr("output differs");
}

QString CompareTableModel::firstDivergenceReason() const
{
    const Divergence *d = firstDivergence();
    if (!d)
        return {};
    const CompareRow &row = m_result->rows[size_t(d->originRow)];
    QString why;
    switch (d->cause) {
    case DivergenceCause::Parameter: {
        const QString name = d->parameter.isEmpty() ? tr("a parameter") : tr("parameter %1").arg(d->parameter);
        switch (row.mode) {
        case CompareMode::Tensor:
            why = tr("%1 differs at its first use: its values are not identical (MaxAbsErr %2)")
                      .arg(name, QString::number(row.metrics[size_t(Metric::MaxAbsErr)].value, 'g', 6));
            break;
        case CompareMode::Md5: why = tr("%1 differs at its first use: its CRC-32 differs").arg(name); break;
        default: why = tr("%1 differs at its first use: its recorded statistics differ").arg(name); break;
        }
        return why;
    }
    case DivergenceCause::Input:
        if (row.dtypeDiffers) {
            const MsprobeRow cells = msprobeRow(*m_npu, *m_bench, row, m_result->mode);
            return tr("the input's dtype already differs (%1 vs %2)").arg(cells.npuDtype, cells.benchDtype);
        }
        why = tr("an input already differs");
        break;
    case DivergenceCause::Output: why = tr("its inputs agree, this output differs"); break;
    }
    return why; // the verdict's own reasons are in the row's tooltip and "Why the verdicts differ"
}

QVariant CompareTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_result)
        return {};
    if (isBenchOnlyRow(index.row()))
        return benchOnlyData(index.row(), index.column(), role);
    const CompareRow &row = m_result->rows[size_t(index.row())];
    const int c = index.column();
    const int region = m_gaps.regionOfRow(size_t(index.row()));
    const bool npuOnly = region >= 0 && row.bench.op < 0;
    switch (role) {
    case Qt::DisplayRole:
        switch (c) {
        case Verdict:
            if (index.row() == m_pinned) // the row's own verdict, and why it starts the divergence
                return tr("%1 \u00b7 first divergence: %2").arg(verdictText(row.verdict), pinnedCause());
            if (npuOnly) // a gap of the alignment, visible also where the bench column is scrolled away
                return tr("%1 \u00b7 NPU only").arg(verdictText(row.verdict));
            return verdictText(row.verdict);
        case MsprobeResult: return row.result; // msprobe's own word, as in its CSV
        case NpuName: return row.npuName;
        case BenchName: return npuOnly && row.benchName.isEmpty() ? tr("NPU only") : row.benchName;
        case Region: return regionText(region);
        case VerdictsDiffer: return verdictDifference(index.row());
        case ErrorAdded: {
            const AddedError *e = addedError(index.row());
            return e ? AddedErrorText::value(e->added) : QString();
        }
        case Reasons: {
            QStringList names;
            for (ReasonCode r : row.reasons)
                names << reasonCodeName(r);
            return names.join(QStringLiteral(", "));
        }
        default:
            if (const MetricValue *v = cell(row, c))
                return formatMetric(*v);
            return {};
        }
    case Qt::ToolTipRole: {
        QStringList lines;
        if (c == Verdict) {
            lines << tr("DumpScope's verdict: %1").arg(verdictText(row.verdict));
            if (index.row() == m_pinned)
                lines << tr("First divergence: %1").arg(firstDivergenceReason());
            lines << row.highlights;
            for (ReasonCode r : row.reasons)
                lines << reasonCodeText(r);
        } else if (c == MsprobeResult) {
            lines << tr("msprobe's Result: %1").arg(row.result.isEmpty() ? tr("none") : row.result);
            for (const QString &m : row.resultMessages)
                lines << m;
        } else if (c == VerdictsDiffer) {
            const QString why = verdictDifference(index.row());
            if (!why.isEmpty())
                lines << why.split(QStringLiteral("; "));
        } else if (c == ErrorAdded) {
            if (const AddedError *e = addedError(index.row()))
                lines << AddedErrorText::toolTip(*m_npu, *m_result, *e);
        } else {
            for (ReasonCode r : row.reasons)
                lines << reasonCodeText(r);
            lines << row.highlights << row.messages;
            if (!row.resultMessages.isEmpty())
                lines << tr("msprobe: %1").arg(row.resultMessages.join(QStringLiteral("; ")));
        }
        if (row.source == MatchSource::User && (c == NpuName || c == BenchName))
            lines.prepend(tr("Paired by the user mapping."));
        if (region >= 0 && (c == NpuName || c == BenchName || c == Region)) {
            if (npuOnly)
                lines.prepend(tr("Only the NPU has this row: nothing on the bench side of its structure region pairs with it."));
            lines.prepend(regionText(region));
        }
        return lines.join(QLatin1Char('\n'));
    }
    case Qt::TextAlignmentRole:
        return c >= Cosine && c <= ErrorAdded ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case SortRole:
        if (c == ErrorAdded) {
            const AddedError *e = addedError(index.row());
            return e && e->known() ? QVariant(e->added) : QVariant();
        }
        if (const MetricValue *v = cell(row, c))
            return v->isNumber() ? QVariant(v->value) : QVariant();
        if (c == Verdict)
            return int(row.verdict);
        if (c == MsprobeResult)
            return int(msprobeVerdict(row));
        return data(index, Qt::DisplayRole);
    case VerdictRole: return int(row.verdict);
    case MsprobeVerdictRole: return int(msprobeVerdict(row));
    case DiffersRole: return !row.result.isEmpty() && msprobeVerdict(row) != row.verdict;
    case AddedErrorRole: {
        const AddedError *e = addedError(index.row());
        return e ? QVariant(e->added) : QVariant();
    }
    case RowRole: return index.row();
    case PinnedRole: return index.row() == m_pinned;
    case SourceRole: return int(row.source);
    case GapRole: return int(npuOnly ? CompareGaps::Gap::NpuOnly : CompareGaps::Gap::None);
    case RegionRole: return regionText(region);
    default: return {};
    }
}

QVariant CompareTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Verdict:
            return tr("DumpScope's own verdict: every row judged by its values against the thresholds (Thresholds\u2026) "
                      "and the rules between an operator's inputs and outputs (docs/COMPARE.md)");
        case MsprobeResult:
            return tr("msprobe 26's Result, as msprobe's CSV has it: each API judged by dtype, shape, requires_grad, NaN/Inf "
                      "and its rules between inputs and outputs; the Err_message is in the cell's tooltip");
        case VerdictsDiffer: return tr("Where DumpScope's verdict and msprobe's Result disagree: the rule of each side that decided it");
        case Reasons: return tr("Why DumpScope did not compare the row (or compared only part of it)");
        case Region:
            return tr("Where the two op streams differ in structure (an aligned compare, docs/COMPARE.md rule 4): the "
                      "enclosing module, the operators each side runs there, and whether the region's outputs agree");
        case ErrorAdded: return QString(AddedErrorText::explanation() + QLatin1Char('\n') + tr("Shown on the operator's output rows; not in the CSV export (msprobe's columns)."));
        default: return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Verdict: return tr("DumpScope verdict");
    case NpuName: return tr("NPU tensor");
    case BenchName: return tr("Bench tensor");
    case MsprobeResult: return tr("msprobe Result");
    case VerdictsDiffer: return tr("Why the verdicts differ");
    case Reasons: return tr("Not compared because");
    case ErrorAdded: return tr("Added error");
    case Region: return tr("Structure region");
    default:
        if (section >= Cosine && section <= EucDist)
            return metricColumn(kColumnMetric[section - Cosine]);
        return {};
    }
}

const AddedError *CompareTableModel::addedError(int row) const
{
    if (!m_result || !m_npu || row < 0 || size_t(row) >= m_result->rows.size())
        return nullptr;
    const CompareRow &r = m_result->rows[size_t(row)];
    if (r.io != IoKind::Output || r.npu.op < 0)
        return nullptr;
    return addedErrorOf(*m_result, r.npu.op);
}

CompareFilterProxy::CompareFilterProxy(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(CompareTableModel::SortRole);
}

void CompareFilterProxy::setText(const QString &text)
{
    m_text = text;
    invalidateFilter();
}

void CompareFilterProxy::setMinimumVerdict(ds::Verdict v)
{
    m_minimum = v;
    invalidateFilter();
}

void CompareFilterProxy::setUnmatchedOnly(bool on)
{
    m_unmatchedOnly = on;
    invalidateFilter();
}

void CompareFilterProxy::setDifferingOnly(bool on)
{
    m_differingOnly = on;
    invalidateFilter();
}

void CompareFilterProxy::setStructuralOnly(bool on)
{
    m_structuralOnly = on;
    invalidateFilter();
}

bool CompareFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &) const
{
    const auto *m = static_cast<const CompareTableModel *>(sourceModel());
    if (sourceRow == m->pinnedRow())
        return true; // the first divergence stays visible whatever the filter
    if (m->isBenchOnlyRow(sourceRow)) { // no verdict, no NPU tensor: shown by "all rows" and the structure filter
        if (m_minimum != ds::Verdict::None || m_unmatchedOnly || m_differingOnly)
            return false;
        const auto &b = m->gaps().benchRows[size_t(sourceRow) - m->result()->rows.size()];
        return m_text.isEmpty() || m->index(sourceRow, CompareTableModel::BenchName).data().toString().contains(m_text, Qt::CaseInsensitive)
               || (b.region >= 0 && m->regionText(b.region).contains(m_text, Qt::CaseInsensitive));
    }
    const CompareRow &row = m->result()->rows[size_t(sourceRow)];
    if (m_structuralOnly && m->gaps().regionOfRow(size_t(sourceRow)) < 0)
        return false;
    if (int(row.verdict) < int(m_minimum) || (m_unmatchedOnly && row.bench.op >= 0))
        return false;
    if (m_differingOnly && (row.result.isEmpty() || msprobeVerdict(row) == row.verdict))
        return false;
    return m_text.isEmpty() || row.npuName.contains(m_text, Qt::CaseInsensitive)
           || row.benchName.contains(m_text, Qt::CaseInsensitive);
}

bool CompareFilterProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    // The pinned row is first in either sort order.
    const bool pl = left.data(CompareTableModel::PinnedRole).toBool(), pr = right.data(CompareTableModel::PinnedRole).toBool();
    if (pl != pr)
        return sortOrder() == Qt::AscendingOrder ? pl : pr;
    const QVariant a = left.data(sortRole()), b = right.data(sortRole());
    if (a.isValid() != b.isValid()) // cells without a number sort last in ascending order
        return a.isValid();
    if (a.typeId() == QMetaType::Double && b.typeId() == QMetaType::Double)
        return a.toDouble() < b.toDouble();
    if (a.typeId() == QMetaType::Int && b.typeId() == QMetaType::Int) {
        if (a.toInt() != b.toInt())
            return a.toInt() < b.toInt();
        // Equal verdicts stay in execution order whichever way the column is sorted.
        return sortOrder() == Qt::AscendingOrder ? left.row() < right.row() : left.row() > right.row();
    }
    return QString::compare(a.toString(), b.toString(), Qt::CaseInsensitive) < 0;
}

BenchOperatorModel::BenchOperatorModel(QObject *parent) : QAbstractTableModel(parent) {}

void BenchOperatorModel::setResult(std::shared_ptr<const CompareResult> result, std::shared_ptr<const DumpIndex> npu,
                                   std::shared_ptr<const DumpIndex> bench)
{
    beginResetModel();
    m_entries.clear();
    if (result && npu && bench) {
        std::vector<int> entryOf(bench->ops.size(), -1);
        for (size_t o = 0; o < bench->ops.size(); ++o) {
            const OpRecord &op = bench->ops[o];
            const int rows = int(std::count_if(op.tensors.begin(), op.tensors.end(), isRowTensor));
            if (rows == 0)
                continue;
            entryOf[o] = int(m_entries.size());
            m_entries.push_back({int(o), opMatchKey(op), op.opType, State::Unmatched, 0, rows, {}});
        }
        std::vector<char> fused(m_entries.size(), 0);
        for (const CompareRow &row : result->rows) {
            if (row.bench.op < 0 || entryOf[size_t(row.bench.op)] < 0)
                continue;
            Entry &e = m_entries[size_t(entryOf[size_t(row.bench.op)])];
            ++e.matchedRows;
            const QString n = opMatchKey(npu->op(row.npu));
            if (!e.npu.contains(n))
                e.npu << n;
        }
        for (const BenchOnlyRow &b : result->benchOnly)
            if (b.reason == ReasonCode::FusedAway && entryOf[size_t(b.bench.op)] >= 0)
                fused[size_t(entryOf[size_t(b.bench.op)])] = 1;
        for (size_t i = 0; i < m_entries.size(); ++i) {
            Entry &e = m_entries[i];
            e.state = e.matchedRows >= e.rows ? State::Matched
                      : e.matchedRows > 0      ? State::Partial
                      : fused[i]               ? State::FusedAway
                                               : State::Unmatched;
        }
    }
    endResetModel();
}

int BenchOperatorModel::rowOf(const QString &name) const
{
    for (size_t i = 0; i < m_entries.size(); ++i)
        if (m_entries[i].name == name)
            return int(i);
    return -1;
}

QString BenchOperatorModel::name(int row) const
{
    return row >= 0 && size_t(row) < m_entries.size() ? m_entries[size_t(row)].name : QString();
}

int BenchOperatorModel::count(State s) const
{
    return int(std::count_if(m_entries.begin(), m_entries.end(), [s](const Entry &e) { return e.state == s; }));
}

int BenchOperatorModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_entries.size()); }

int BenchOperatorModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant BenchOperatorModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || size_t(index.row()) >= m_entries.size())
        return {};
    const Entry &e = m_entries[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Name: return e.name;
        case Type: return e.type;
        case Status:
            switch (e.state) {
            case State::Matched: return tr("matched");
            case State::Partial: return tr("%1 of %2 tensors matched").arg(e.matchedRows).arg(e.rows);
            case State::FusedAway: return tr("fused away");
            case State::Unmatched: return tr("unmatched");
            }
            return {};
        case ComparedWith: return e.npu.join(QStringLiteral(", "));
        default: return {};
        }
    case Qt::ToolTipRole:
        return e.npu.isEmpty() ? tr("%1 (%2): no NPU operator is compared with it. Drop NPU rows here to map them.").arg(e.name, e.type)
                               : tr("%1 (%2) is compared with %3.").arg(e.name, e.type, e.npu.join(QStringLiteral(", ")));
    case StateRole: return int(e.state);
    case OpRole: return e.op;
    case NameRole: return e.name;
    default: return {};
    }
}

QVariant BenchOperatorModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name: return tr("Bench operator");
    case Type: return tr("Type");
    case Status: return tr("Status");
    case ComparedWith: return tr("Compared with (NPU)");
    default: return {};
    }
}

Qt::ItemFlags BenchOperatorModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid())
        f |= Qt::ItemIsDropEnabled;
    return f;
}

QStringList BenchOperatorModel::mimeTypes() const { return {QLatin1String(kNpuOperatorsMime)}; }

Qt::DropActions BenchOperatorModel::supportedDropActions() const { return Qt::CopyAction | Qt::LinkAction; }

bool BenchOperatorModel::canDropMimeData(const QMimeData *data, Qt::DropAction action, int row, int, const QModelIndex &parent) const
{
    return (action == Qt::CopyAction || action == Qt::LinkAction) && row < 0 && parent.isValid()
           && size_t(parent.row()) < m_entries.size() && !npuOperatorsFromMime(data).isEmpty();
}

bool BenchOperatorModel::dropMimeData(const QMimeData *data, Qt::DropAction action, int row, int column, const QModelIndex &parent)
{
    if (!canDropMimeData(data, action, row, column, parent))
        return false;
    emit npuOperatorsDropped(npuOperatorsFromMime(data), parent.row());
    return true;
}

BenchOperatorFilterProxy::BenchOperatorFilterProxy(QObject *parent) : QSortFilterProxyModel(parent) {}

void BenchOperatorFilterProxy::setText(const QString &text)
{
    m_text = text;
    invalidateFilter();
}

void BenchOperatorFilterProxy::setUnmatchedOnly(bool on)
{
    m_unmatchedOnly = on;
    invalidateFilter();
}

bool BenchOperatorFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex i = sourceModel()->index(sourceRow, 0, sourceParent);
    if (m_unmatchedOnly && BenchOperatorModel::State(i.data(BenchOperatorModel::StateRole).toInt()) == BenchOperatorModel::State::Matched)
        return false;
    return m_text.isEmpty() || i.data().toString().contains(m_text, Qt::CaseInsensitive)
           || i.siblingAtColumn(BenchOperatorModel::Type).data().toString().contains(m_text, Qt::CaseInsensitive);
}

} // namespace ds
