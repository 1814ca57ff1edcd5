// msprobe's compare table (its cells as text) into a CompareResult (resulttable.h): the
// columns of msprobe 26's CompareConst (BASIC_INFO, ALL_COMPARE_INDEX, SUMMARY_COMPARE_INDEX,
// SUMMARY_INFO, the md5 pair, EXTRACT_INDEX, NPU_Stack_Info, Data_name; MindSpore's
// MS_GRAPH_* columns), the rows on indexes made from the table or on the dumps it names.
#include "resulttable.h"

#include "comparematch.h"
#include "formats/msprobe/msprobereader.h"
#include "formats/readers.h"
#include "dump/dumpindex.h"

#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <optional>

namespace ds {

namespace {

using State = MetricValue::State;

const QString kNA = QStringLiteral("N/A");

/// msprobe's compare columns (and DumpScope's own, which its reports add): read or known.
const QStringList &knownColumns()
{
    static const QStringList k = [] {
        QStringList l = {QStringLiteral("NPU Name"), QStringLiteral("Bench Name"), QStringLiteral("NPU Dtype"),
                         QStringLiteral("Bench Dtype"), QStringLiteral("NPU Tensor Shape"), QStringLiteral("Bench Tensor Shape"),
                         QStringLiteral("NPU Requires_grad"), QStringLiteral("Bench Requires_grad"), QStringLiteral("Max diff"),
                         QStringLiteral("Min diff"), QStringLiteral("Mean diff"), QStringLiteral("L2norm diff"),
                         QStringLiteral("MinRelativeErr"), QStringLiteral("MeanRelativeErr"), QStringLiteral("NormRelativeErr"),
                         QStringLiteral("NPU max"), QStringLiteral("NPU min"), QStringLiteral("NPU mean"), QStringLiteral("NPU l2norm"),
                         QStringLiteral("Bench max"), QStringLiteral("Bench min"), QStringLiteral("Bench mean"),
                         QStringLiteral("Bench l2norm"), QStringLiteral("NPU MD5"), QStringLiteral("BENCH MD5"),
                         QStringLiteral("Requires_grad Consistent"), QStringLiteral("Result"), QStringLiteral("Err_message"),
                         QStringLiteral("NPU_Stack_Info"), QStringLiteral("Data_name"), QStringLiteral("Accuracy Reached or Not"),
                         QStringLiteral("NPU CSV File"), QStringLiteral("Bench CSV File"), QStringLiteral("Dirty Valid Len"),
                         QStringLiteral("NPU P2POp peer"), QStringLiteral("StandardDeviation"), QStringLiteral("Verdict"),
                         QStringLiteral("ReasonCode"), QStringLiteral("MatchSource"), QStringLiteral("NPU Saturated Count"),
                         QStringLiteral("Notes")};
        for (size_t m = 0; m < kMetricCount; ++m)
            l << metricColumn(Metric(m));
        return l;
    }();
    return k;
}

const QStringList kStatColumns = {QStringLiteral("NPU max"), QStringLiteral("NPU min"), QStringLiteral("NPU mean"),
                                  QStringLiteral("NPU l2norm"), QStringLiteral("Bench max"), QStringLiteral("Bench min"),
                                  QStringLiteral("Bench mean"), QStringLiteral("Bench l2norm")};
const QStringList kDiffColumns = {QStringLiteral("Max diff"), QStringLiteral("Min diff"), QStringLiteral("Mean diff"),
                                  QStringLiteral("L2norm diff"), QStringLiteral("MaxRelativeErr"), QStringLiteral("MinRelativeErr"),
                                  QStringLiteral("MeanRelativeErr"), QStringLiteral("NormRelativeErr")};

/// A number cell as Python/pandas print one ("1.0", " inf", "nan", "1e-05"), nullopt otherwise.
std::optional<double> numberOf(QStringView text)
{
    const QStringView t = text.trimmed();
    if (t.isEmpty())
        return std::nullopt;
    const QString l = t.toString().toLower();
    if (l == QLatin1String("inf") || l == QLatin1String("+inf") || l == QLatin1String("infinity"))
        return HUGE_VAL;
    if (l == QLatin1String("-inf") || l == QLatin1String("-infinity"))
        return -HUGE_VAL;
    if (l == QLatin1String("nan"))
        return std::nan("");
    bool ok = false;
    const double v = t.toDouble(&ok);
    return ok ? std::optional<double>(v) : std::nullopt;
}

/// A metric cell: a number, "x%" (the number x), or one of msprobe's placeholders; nullopt
/// for other text.
std::optional<MetricValue> metricOf(const QString &cell)
{
    const QString t = cell.trimmed();
    if (t.isEmpty() || t == kNA || t == QLatin1String("None"))
        return MetricValue::of(State::NotAvailable);
    if (t.compare(QLatin1String("nan"), Qt::CaseInsensitive) == 0)
        return MetricValue::of(State::Nan);
    if (t == QLatin1String("unsupported"))
        return MetricValue::of(State::Unsupported);
    if (t == QLatin1String("shape unmatched"))
        return MetricValue::of(State::ShapeUnmatched);
    if (const auto v = numberOf(t.endsWith(QLatin1Char('%')) ? QStringView(t).chopped(1) : QStringView(t)))
        return MetricValue::of(*v);
    return std::nullopt;
}

/// A Python list of str as repr() prints it ("['a', \"b's\"]", "[]"); nullopt when it is not one.
std::optional<QStringList> pythonStrList(const QString &text)
{
    const QString t = text.trimmed();
    if (!t.startsWith(QLatin1Char('[')) || !t.endsWith(QLatin1Char(']')))
        return std::nullopt;
    QStringList out;
    qsizetype i = 1;
    const qsizetype end = t.size() - 1;
    auto skipSpace = [&] {
        while (i < end && t[i].isSpace())
            ++i;
    };
    skipSpace();
    while (i < end) {
        const QChar q = t[i];
        if (q != QLatin1Char('\'') && q != QLatin1Char('"'))
            return std::nullopt;
        ++i;
        QString s;
        bool closed = false;
        while (i < end) {
            const QChar c = t[i++];
            if (c == q) {
                closed = true;
                break;
            }
            if (c != QLatin1Char('\\') || i >= end) {
                s += c;
                continue;
            }
            const QChar e = t[i++];
            switch (e.unicode()) {
            case 'n': s += QLatin1Char('\n'); break;
            case 't': s += QLatin1Char('\t'); break;
            case 'r': s += QLatin1Char('\r'); break;
            case '\\': s += QLatin1Char('\\'); break;
            case '\'': s += QLatin1Char('\''); break;
            case '"': s += QLatin1Char('"'); break;
            case 'x':
            case 'u':
            case 'U': {
                const int digits = e == QLatin1Char('x') ? 2 : e == QLatin1Char('u') ? 4 : 8;
                bool ok = false;
                const uint code = t.mid(i, digits).toUInt(&ok, 16);
                if (!ok || i + digits > end)
                    return std::nullopt;
                i += digits;
                const char32_t c32 = char32_t(code);
                s += QString::fromUcs4(&c32, 1);
                break;
            }
            default: s += QLatin1Char('\\'); s += e;
            }
        }
        if (!closed)
            return std::nullopt;
        out << s;
        skipSpace();
        if (i < end) {
            if (t[i] != QLatin1Char(','))
                return std::nullopt;
            ++i;
            skipSpace();
        }
    }
    return out;
}

Shape shapeOf(const QString &text)
{
    Shape s;
    static const QRegularExpression digits(QStringLiteral("\\d+"));
    for (auto it = digits.globalMatch(text); it.hasNext();)
        s.push_back(it.next().captured().toULongLong());
    return s;
}

/// An msprobe row name split into its entry and the leaf key: "Functional.conv2d.0.forward" +
/// "input.0", "Module.fc1.Linear.forward.0" + "parameters.weight",
/// "Module.fc1.Linear.parameters_grad.0" + "weight"; other names at their last dot.
std::pair<QString, QString> splitRowName(const QString &name)
{
    static const QRegularExpression pass(QStringLiteral(
        R"(^(.*?\.(?:forward|backward)(?:\.\d+)?)\.((?:input|output|parameters)(?:\..*)?)$)"));
    static const QRegularExpression grad(QStringLiteral(R"(^(.*\.parameters_grad(?:\.\d+)?)\.(.+)$)"));
    static const QRegularExpression debug(QStringLiteral(R"(^(.*\.debug)\.(.+)$)"));
    for (const QRegularExpression *re : {&pass, &grad, &debug})
        if (const auto m = re->match(name); m.hasMatch())
            return {m.captured(1), m.captured(2)};
    for (const QString &io : {QStringLiteral(".input."), QStringLiteral(".output.")})
        if (const qsizetype at = name.lastIndexOf(io); at > 0)
            return {name.left(at), name.mid(at + 1)};
    const qsizetype dot = name.lastIndexOf(QLatin1Char('.'));
    return dot > 0 ? std::pair{name.left(dot), name.mid(dot + 1)} : std::pair{name, QString()};
}

IoKind ioOfKey(const QString &entry, const QString &key)
{
    if (entry.contains(QLatin1String(".parameters_grad")))
        return IoKind::Parameter;
    if (key.startsWith(QLatin1String("output")))
        return IoKind::Output;
    if (key.startsWith(QLatin1String("parameters")))
        return IoKind::Parameter;
    return IoKind::Input;
}

} // namespace

DumpLevels compareTableLevels(const QString &path)
{
    DumpLevels l;
    const QFileInfo info(path);
    static const QRegularExpression rank(QStringLiteral(R"((?:^|_)rank_?(\d+)(?:_|\.))"));
    static const QRegularExpression ms(QStringLiteral(R"(^compare_result_(\d+)_(\d+)_\d{14}\.)"));
    if (const auto m = ms.match(info.fileName()); m.hasMatch()) {
        l.rank = QStringLiteral("rank") + m.captured(1);
        l.step = QStringLiteral("step") + m.captured(2);
    } else if (const auto r = rank.match(info.fileName()); r.hasMatch()) {
        l.rank = QStringLiteral("rank") + r.captured(1);
    }
    if (l.step.isEmpty()) {
        static const QRegularExpression step(QStringLiteral("^step\\d+$"));
        const QStringList parts = info.absolutePath().split(QLatin1Char('/'), Qt::SkipEmptyParts);
        for (qsizetype i = parts.size() - 1; i >= 0 && i >= parts.size() - 3; --i)
            if (step.match(parts[i]).hasMatch()) {
                l.step = parts[i];
                break;
            }
    }
    return l;
}

namespace {

/// One side (NPU or bench) of the table: a copy of the linked dump, or an empty index, to
/// which the rows' tensors not found in it are added as operators of their own.
class Side
{
public:
    Side(std::shared_ptr<const DumpIndex> dump, const QString &tablePath, const DumpLevels &levels)
        : m_index(dump ? std::make_shared<DumpIndex>(*dump) : std::make_shared<DumpIndex>()),
          m_levels(std::make_shared<const DumpLevels>(levels)), m_linked(bool(dump))
    {
        if (!dump) {
            m_index->openedPath = tablePath;
            m_index->rootDir = QFileInfo(tablePath).absolutePath();
        }
        m_source = sourceFormatByName(QStringLiteral("msprobe")).value_or(FormatId{});
        if (!dump)
            return;
        // Row names of the dump's tensors, in the table's scope when the dump has several.
        for (size_t o = 0; o < m_index->ops.size(); ++o) {
            const OpRecord &op = m_index->ops[o];
            if (!sameLevel(op.levels->rank, levels.rank) || !sameLevel(op.levels->step, levels.step))
                continue;
            for (int t : rowTensors(op))
                m_byName.insert(rowName(op, op.tensors[size_t(t)]), {int(o), t});
        }
    }

    /// The tensor a row names: the linked dump's, else a tensor of an operator made from the
    /// table (added when not there yet). `found`: it is the dump's.
    DumpIndex::TensorRef tensor(const QString &name, const QString &dtype, const QString &shape, const QString &reqGrad,
                                const std::array<std::optional<MetricValue>, 4> &stats, const QString &checksum,
                                const QString &value, int stack, bool &found)
    {
        if (const auto it = m_byName.constFind(name); it != m_byName.constEnd()) {
            found = true;
            return *it;
        }
        found = false;
        const auto [entry, key] = splitRowName(name);
        if (m_lastEntry != entry || m_lastOp < 0) {
            OpRecord op;
            op.relPath = PackedText(m_levelsPath() + entry);
            op.opName = PackedText(entry);
            op.opType = PackedText(entry.section(QLatin1Char('.'), 1, 1));
            op.levels = SharedLevels(m_levels);
            op.source = m_source;
            op.timestamp = m_index->ops.size();
            op.stack = stack;
            m_index->ops.push_back(std::move(op));
            m_lastOp = int(m_index->ops.size() - 1);
            m_lastEntry = entry;
        }
        OpRecord &op = m_index->ops[size_t(m_lastOp)];
        if (op.stack < 0)
            op.stack = stack;
        TensorFields f;
        f.name = key;
        f.io = ioOfKey(entry, key);
        f.index = std::uint32_t(op.count(f.io));
        f.typeName = dtype;
        f.dataType = msprobe::dataTypeFromText(dtype);
        const bool tensor = dtype.startsWith(QLatin1String("torch.")) || f.dataType != 0;
        f.storage = tensor ? TensorStorage::Absent : TensorStorage::Value;
        f.shape = shapeOf(shape);
        if (tensor && (reqGrad == QLatin1String("True") || reqGrad == QLatin1String("False")))
            f.value = QStringLiteral("{\"requires_grad\": %1}").arg(reqGrad == QLatin1String("True") ? QStringLiteral("true")
                                                                                                   : QStringLiteral("false"));
        else if (!tensor)
            f.value = value;
        f.checksum = checksum == kNA ? QString() : checksum;
        static constexpr RecordedStats::Field statFields[] = {RecordedStats::Max, RecordedStats::Min, RecordedStats::Mean,
                                                              RecordedStats::Norm};
        double *statSlots[] = {&f.recorded.max, &f.recorded.min, &f.recorded.mean, &f.recorded.norm};
        for (size_t k = 0; k < 4; ++k)
            if (stats[k] && (stats[k]->isNumber() || stats[k]->state == State::Nan)) {
                *statSlots[k] = stats[k]->value;
                f.recorded.present |= statFields[k];
            }
        op.tensors.emplace_back(f);
        return {m_lastOp, int(op.tensors.size() - 1)};
    }
    int addStack(QStringList lines)
    {
        m_index->stacks.push_back(std::move(lines));
        return int(m_index->stacks.size() - 1);
    }
    std::shared_ptr<DumpIndex> index() const { return m_index; }
    bool linked() const { return m_linked; }

private:
    static bool sameLevel(const QString &a, const QString &b) { return a.isEmpty() || b.isEmpty() || a == b; }
    QString m_levelsPath() const
    {
        QString p;
        for (const QString *l : {&m_levels->step, &m_levels->rank})
            if (!l->isEmpty())
                p += *l + QLatin1Char('/');
        return p;
    }

    std::shared_ptr<DumpIndex> m_index;
    std::shared_ptr<const DumpLevels> m_levels;
    bool m_linked = false;
    FormatId m_source{};
    QHash<QString, DumpIndex::TensorRef> m_byName;
    QString m_lastEntry;
    int m_lastOp = -1;
};

} // namespace

Result<OpenedTable> openedTableFrom(const TextTable &table, std::shared_ptr<const DumpIndex> npuDump,
                                    std::shared_ptr<const DumpIndex> benchDump)
{
    const QString &path = table.path;
    auto fail = [&](const QString &what) { return Result<OpenedTable>::failure(ErrorKind::Unsupported, path, what); };
    auto col = [&](const QString &name) { return int(table.header.indexOf(name)); };
    const QString headText = table.header.mid(0, 6).join(QStringLiteral(", "));
    if (col(QStringLiteral("NPU Name")) < 0)
        return fail(QStringLiteral("not an msprobe compare table: no column \"NPU Name\" (the header starts %1)").arg(headText));
    CompareMode mode = CompareMode::None;
    QStringList modeColumns;
    if (col(QStringLiteral("Cosine")) >= 0) {
        mode = CompareMode::Tensor;
        for (size_t m = 0; m <= size_t(Metric::FiveThousandthsErrRatio); ++m)
            modeColumns << metricColumn(Metric(m));
    } else if (col(QStringLiteral("Max diff")) >= 0) {
        mode = CompareMode::Summary;
        modeColumns = kDiffColumns;
    } else if (col(QStringLiteral("NPU MD5")) >= 0) {
        mode = CompareMode::Md5;
        modeColumns = {QStringLiteral("NPU MD5"), QStringLiteral("BENCH MD5")};
    } else {
        return fail(QStringLiteral("not an msprobe compare table: none of the columns \"Cosine\" (tensor mode), \"Max diff\" "
                                   "(statistics) or \"NPU MD5\" (md5) (the header starts %1)").arg(headText));
    }
    QStringList required = {QStringLiteral("NPU Name"), QStringLiteral("Bench Name"), QStringLiteral("NPU Dtype"),
                            QStringLiteral("Bench Dtype"), QStringLiteral("NPU Tensor Shape"), QStringLiteral("Bench Tensor Shape")};
    required += modeColumns;
    if (mode != CompareMode::Md5)
        required += kStatColumns;
    for (const QString &c : std::as_const(required))
        if (col(c) < 0)
            return fail(QStringLiteral("the column \"%1\" is missing (msprobe's %2 table has it)").arg(c, compareModeName(mode)));
    const int resultCol = col(QStringLiteral("Result")), accuracyCol = col(QStringLiteral("Accuracy Reached or Not"));
    if (resultCol < 0 && accuracyCol < 0)
        return fail(QStringLiteral("the column \"Result\" is missing (or MindSpore's \"Accuracy Reached or Not\")"));

    auto result = std::make_shared<CompareResult>();
    result->mode = result->taskMode = mode;
    result->tablePath = path;
    for (const QString &h : table.header)
        if (!knownColumns().contains(h))
            result->warnings << QStringLiteral("the column \"%1\" is not one of msprobe's compare columns; ignored").arg(h);
    const DumpLevels levels = compareTableLevels(path);
    Side npu(npuDump, path, levels), bench(benchDump, path, levels);
    const bool linked = npuDump && benchDump;

    const int c[] = {col(QStringLiteral("NPU Name")), col(QStringLiteral("Bench Name")), col(QStringLiteral("NPU Dtype")),
                     col(QStringLiteral("Bench Dtype")), col(QStringLiteral("NPU Tensor Shape")),
                     col(QStringLiteral("Bench Tensor Shape")), col(QStringLiteral("NPU Requires_grad")),
                     col(QStringLiteral("Bench Requires_grad"))};
    std::vector<int> mc;
    for (const QString &m : std::as_const(modeColumns))
        mc.push_back(col(m));
    std::vector<int> sc;
    for (const QString &s : kStatColumns)
        sc.push_back(col(s));
    const int errCol = col(QStringLiteral("Err_message")), stackCol = col(QStringLiteral("NPU_Stack_Info"));
    int unlinked = 0;
    result->rows.reserve(table.rows.size());
    for (size_t r = 0; r < table.rows.size(); ++r) {
        const QStringList &cells = table.rows[r];
        const int line = r < table.lines.size() ? table.lines[r] : int(r) + 2;
        auto cell = [&](int k) { return k >= 0 && k < cells.size() ? cells[k] : QString(); };
        auto cellFail = [&](int k, const QString &what) {
            const QString where = table.sheet.isEmpty() ? QStringLiteral("line %1").arg(line)
                                                        : QStringLiteral("sheet %1, row %2").arg(table.sheet).arg(line);
            return fail(QStringLiteral("%1, column %2 (%3): %4").arg(where).arg(k + 1).arg(table.header.value(k), what));
        };
        CompareRow row;
        row.npuName = cell(c[0]);
        if (row.npuName.trimmed().isEmpty())
            return cellFail(c[0], QStringLiteral("no NPU name"));
        const QString benchName = cell(c[1]);
        const bool matched = !benchName.isEmpty() && benchName != kNA;
        row.mode = mode;
        std::array<std::optional<MetricValue>, 8> stats;
        for (size_t k = 0; k < sc.size(); ++k)
            if (sc[k] >= 0)
                stats[k] = metricOf(cell(sc[k])).value_or(MetricValue::of(State::NotAvailable));
        int stack = -1;
        if (const QString st = cell(stackCol); !st.isEmpty() && st != kNA) {
            const auto lines = pythonStrList(st);
            if (!lines)
                return cellFail(stackCol, QStringLiteral("not a Python list of stack lines"));
            stack = npu.addStack(*lines);
        }
        const QString npuMd5 = mode == CompareMode::Md5 ? cell(mc[0]) : QString();
        const QString benchMd5 = mode == CompareMode::Md5 ? cell(mc[1]) : QString();
        bool found = false;
        row.npu = npu.tensor(row.npuName, cell(c[2]), cell(c[4]), cell(c[6]), {stats[0], stats[1], stats[2], stats[3]}, npuMd5,
                             cell(sc.empty() || sc[0] < 0 ? -1 : sc[0]), stack, found);
        if (linked && !found)
            ++unlinked;
        row.io = npu.index()->tensor(row.npu).io();
        if (matched) {
            row.benchName = benchName;
            bool benchFound = false;
            row.bench = bench.tensor(benchName, cell(c[3]), cell(c[5]), cell(c[7]), {stats[4], stats[5], stats[6], stats[7]},
                                     benchMd5, cell(sc.size() > 4 && sc[4] >= 0 ? sc[4] : -1), -1, benchFound);
            row.source = MatchSource::Exact;
        } else {
            row.bench = {};
            row.reasons.push_back(ReasonCode::UnmatchedBench);
        }
        for (size_t k = 0; k < kStatCount; ++k) {
            row.npuStats[k] = stats[k].value_or(MetricValue::of(State::NotAvailable));
            row.benchStats[k] = stats[k + 4].value_or(MetricValue::of(State::NotAvailable));
        }
        if (mode == CompareMode::Tensor) {
            for (size_t k = 0; k < mc.size(); ++k) {
                const auto v = metricOf(cell(mc[k]));
                if (!v)
                    return cellFail(mc[k], QStringLiteral("\"%1\" is neither a number nor one of msprobe's placeholders "
                                                          "(Nan, N/A, unsupported, shape unmatched)").arg(cell(mc[k])));
                row.metrics[k] = *v;
            }
        } else if (mode == CompareMode::Summary) {
            for (size_t k = 0; k < kStatCount; ++k) {
                row.statDiff[k] = metricOf(cell(mc[k])).value_or(MetricValue::of(State::NotAvailable));
                row.statRelErr[k] = metricOf(cell(mc[k + kStatCount])).value_or(MetricValue::of(State::NotAvailable));
            }
        } else {
            row.npuChecksum = npuMd5;
            row.benchChecksum = matched ? benchMd5 : QString();
            row.identical = matched && npuMd5 == benchMd5 && cell(c[2]) == cell(c[3]);
        }
        // equal values and dtypes, from the table's cells (a parameter that is not identical
        // disagrees at its first use: findDivergences)
        const bool sameDtype = cell(c[2]) == cell(c[3]);
        row.dtypeDiffers = matched && !sameDtype;
        auto zero = [](const MetricValue &v) { return v.isNumber() && v.value == 0; };
        if (matched && sameDtype && mode == CompareMode::Tensor)
            row.identical = zero(row.metrics[size_t(Metric::MaxAbsErr)]);
        else if (matched && sameDtype && mode == CompareMode::Summary)
            row.identical = std::all_of(row.statDiff.begin(), row.statDiff.end(), zero)
                            || (std::none_of(row.statDiff.begin(), row.statDiff.end(), [](const MetricValue &v) { return v.isNumber(); })
                                && row.npuStats == row.benchStats && cell(c[4]) == cell(c[5]));
        if (resultCol >= 0) {
            const QString res = cell(resultCol).trimmed();
            Verdict v = Verdict::None;
            if (!res.isEmpty() && !parseVerdict(res, v))
                return cellFail(resultCol, QStringLiteral("\"%1\" is not a Result (pass, warning or error)").arg(res));
            row.result = res;
            if (matched)
                row.verdict = v;
        }
        if (accuracyCol >= 0) {
            row.accuracyReached = cell(accuracyCol).trimmed();
            if (resultCol < 0 && matched)
                row.verdict = row.accuracyReached == QLatin1String("Yes") ? Verdict::Pass
                              : row.accuracyReached == QLatin1String("No") ? Verdict::Error
                                                                            : Verdict::None;
        }
        if (const QString e = cell(errCol).trimmed(); !e.isEmpty()) {
            if (const auto list = pythonStrList(e))
                row.resultMessages = *list;
            else
                row.resultMessages << e; // MindSpore's kernel compare writes plain text
        }
        result->rows.push_back(std::move(row));
    }
    OpenedTable out;
    out.npu = npu.index();
    out.bench = bench.index();
    out.linked = linked;
    out.unlinkedRows = unlinked;
    if (linked && unlinked > 0)
        result->warnings << QStringLiteral("%1 of %2 rows name no tensor of the NPU dump %3; they show the table's values only")
                                .arg(unlinked).arg(result->rows.size()).arg(npuDump->openedPath);
    findDivergences(*out.npu, *result, Verdict::Error);
    out.result = std::move(result);
    return out;
}

Result<OpenedTable> openCompareTable(const QString &path, std::shared_ptr<const DumpIndex> npu,
                                     std::shared_ptr<const DumpIndex> bench)
{
    auto table = path.endsWith(QLatin1String(".xlsx"), Qt::CaseInsensitive) ? readXlsxTable(path) : readCsvTable(path);
    if (!table)
        return table.error();
    return openedTableFrom(*table, std::move(npu), std::move(bench));
}

} // namespace ds
