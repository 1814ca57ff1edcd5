#include "msgraphcompare.h"

#include "compare/pairmetrics.h"
#include "formats/readers.h"
#include "index/tensorloader.h"
#include "tensor/stats.h"

#include <QDir>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

namespace ds {

namespace {

/// Python's repr of a float (numpy's str of a float32 scalar when `single`): shortest
/// round-trip digits, scientific below 1e-4 and from 1e16 on, "1.0" for integral values.
QString pyRepr(double v, bool single)
{
    if (std::isnan(v))
        return QStringLiteral("nan");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    char buf[64];
    const double a = std::abs(v);
    const bool sci = a != 0 && (a < 1e-4 || a >= 1e16);
    const auto fmt = sci ? std::chars_format::scientific : std::chars_format::fixed;
    const auto r = single ? std::to_chars(buf, buf + sizeof buf, float(v), fmt) : std::to_chars(buf, buf + sizeof buf, v, fmt);
    QString s = QString::fromLatin1(buf, int(r.ptr - buf));
    if (!sci && !s.contains(QLatin1Char('.')))
        s += QStringLiteral(".0");
    return s;
}

QString shapeText(const Shape &shape, MsGraphMode mode)
{
    QStringList dims;
    for (auto d : shape)
        dims << QString::number(d);
    if (mode == MsGraphMode::Statistics) // statistic.csv "(3,4)" with () made []
        return QLatin1Char('[') + dims.join(QLatin1Char(',')) + QLatin1Char(']');
    // str() of a numpy shape tuple: "(3, 8)", "(2,)", "()"
    return QLatin1Char('[') + dims.join(QStringLiteral(", ")) + (dims.size() == 1 ? QStringLiteral(",") : QString()) + QLatin1Char(']');
}

struct Item
{
    QString key;
    int op = -1, tensor = -1;
};

/// The tensors of one scope in execution order, keyed as msprobe keys them.
std::vector<Item> itemsOf(const DumpIndex &index, const std::vector<int> &ops)
{
    std::vector<Item> items;
    for (int o : ops) {
        const OpRecord &op = index.ops[size_t(o)];
        for (size_t t = 0; t < op.tensors.size(); ++t) {
            const TensorRecord &r = op.tensors[t];
            if (r.io() != IoKind::Input && r.io() != IoKind::Output)
                continue;
            items.push_back({QStringLiteral("%1.%2.%3.%4").arg(op.opName.toString()).arg(op.taskId()).arg(ioKindName(r.io())).arg(r.index()),
                             o, int(t)});
        }
    }
    return items;
}

void fillSide(const DumpIndex &index, const Item &it, MsGraphMode mode, MsGraphSide &s, const JobControl *job)
{
    const OpRecord &op = index.ops[size_t(it.op)];
    const TensorRecord &r = op.tensors[size_t(it.tensor)];
    s.op = it.op;
    s.tensor = it.tensor;
    if (mode == MsGraphMode::Statistics) {
        s.name = it.key;
        s.dtype = r.typeName();
        s.shape = shapeText(r.shape(), mode);
        const RecordedStats st = r.recorded();
        // msprobe reads the cells as float ("null" -> 0) and keeps np.float32 of them.
        s.max = float(st.has(RecordedStats::Max) ? st.max : 0);
        s.min = float(st.has(RecordedStats::Min) ? st.min : 0);
        s.mean = float(st.has(RecordedStats::Mean) ? st.mean : 0);
        s.norm = float(st.has(RecordedStats::Norm) ? st.norm : 0);
        s.csvFile = QDir(index.rootDir).filePath(op.relPath.toString().section(QLatin1Char('/'), 0, -2) + QStringLiteral("/statistic.csv"));
        return;
    }
    s.name = QDir(index.rootDir).filePath(r.location());
    s.shape = shapeText(r.shape(), mode);
    auto loaded = loadTensor(index, {it.op, it.tensor}, LayoutChoice::Logical, job);
    s.dtype = loaded ? dataTypeName((*loaded)->dataType) : dataTypeName(r.dataType());
}

/// The number at the end of a rank or iteration folder name ("rank_3" -> 3, "12" -> 12), -1 without.
qint64 trailingNumber(const QString &value)
{
    qsizetype digits = value.size();
    while (digits > 0 && value[digits - 1].isDigit() && value[digits - 1].unicode() < 128)
        --digits;
    bool ok = false;
    const qint64 n = value.mid(digits).toLongLong(&ok);
    return ok ? n : -1;
}

} // namespace

bool isMsKernelIndex(const DumpIndex &index)
{
    const auto id = sourceFormatByName(QStringLiteral("mindspore-kernel"));
    return id && std::any_of(index.ops.begin(), index.ops.end(), [&](const OpRecord &op) { return op.source == *id; });
}

QStringList msGraphHeader(MsGraphMode mode)
{
    QStringList h{QStringLiteral("NPU Name"), QStringLiteral("Bench Name"), QStringLiteral("NPU Dtype"), QStringLiteral("Bench Dtype"),
                  QStringLiteral("NPU Tensor Shape"), QStringLiteral("Bench Tensor Shape"), QStringLiteral("NPU max"),
                  QStringLiteral("NPU min"), QStringLiteral("NPU mean"), QStringLiteral("NPU l2norm"), QStringLiteral("Bench max"),
                  QStringLiteral("Bench min"), QStringLiteral("Bench mean"), QStringLiteral("Bench l2norm"),
                  QStringLiteral("Accuracy Reached or Not"), QStringLiteral("Err_message")};
    if (mode == MsGraphMode::Npy)
        h << QStringLiteral("Cosine") << QStringLiteral("EucDist") << QStringLiteral("MaxAbsErr") << QStringLiteral("MaxRelativeErr")
          << QStringLiteral("One Thousandth Err Ratio") << QStringLiteral("Five Thousandths Err Ratio");
    else
        h << QStringLiteral("Max diff") << QStringLiteral("Min diff") << QStringLiteral("Mean diff") << QStringLiteral("L2norm diff")
          << QStringLiteral("MaxRelativeErr") << QStringLiteral("MinRelativeErr") << QStringLiteral("MeanRelativeErr")
          << QStringLiteral("NormRelativeErr") << QStringLiteral("NPU CSV File") << QStringLiteral("Bench CSV File");
    return h;
}

QStringList msGraphCells(const MsGraphRow &row, MsGraphMode mode)
{
    auto side = [&](const MsGraphSide &s, double v) { return s.present() ? pyRepr(v, true) : QString(); };
    QStringList c{row.npu.name, row.bench.name, row.npu.dtype, row.bench.dtype, row.npu.shape, row.bench.shape,
                  side(row.npu, row.npu.max), side(row.npu, row.npu.min), side(row.npu, row.npu.mean), side(row.npu, row.npu.norm),
                  side(row.bench, row.bench.max), side(row.bench, row.bench.min), side(row.bench, row.bench.mean),
                  side(row.bench, row.bench.norm), row.accuracy, row.errorMessage};
    if (mode == MsGraphMode::Npy) {
        for (double m : row.metrics)
            c << (row.compared ? pyRepr(m, false) : QString());
    } else {
        for (double d : row.diff)
            c << (row.compared ? pyRepr(d, true) : QString());
        for (const QString &r : row.relative)
            c << (row.compared ? r : QString());
        c << row.npu.csvFile << row.bench.csvFile;
    }
    return c;
}

std::vector<MsGraphScope> compareMsGraph(const DumpIndex &npu, const DumpIndex &bench, const JobControl *job)
{
    // (rank, step) -> ops, as msprobe groups every lowest folder of a rank and iteration.
    auto scopes = [](const DumpIndex &index) {
        std::map<std::pair<qint64, qint64>, std::vector<int>> out;
        const auto id = sourceFormatByName(QStringLiteral("mindspore-kernel"));
        for (size_t o = 0; o < index.ops.size(); ++o) {
            const OpRecord &op = index.ops[o];
            if (!id || op.source != *id)
                continue;
            out[{trailingNumber(op.levels->rank), trailingNumber(op.levels->step)}].push_back(int(o));
        }
        return out;
    };
    const auto npuScopes = scopes(npu), benchScopes = scopes(bench);
    std::vector<MsGraphScope> result;
    for (const auto &[rs, npuOps] : npuScopes) {
        const auto b = benchScopes.find(rs);
        if (b == benchScopes.end())
            continue;
        auto modeOf = [](const DumpIndex &index, const std::vector<int> &ops) {
            for (int o : ops)
                for (const TensorRecord &t : index.ops[size_t(o)].tensors)
                    if (t.storage() == TensorStorage::NpyFile)
                        return MsGraphMode::Npy;
            return MsGraphMode::Statistics;
        };
        MsGraphScope scope;
        scope.rank = rs.first;
        scope.step = rs.second;
        scope.mode = modeOf(npu, npuOps);
        if (scope.mode != modeOf(bench, b->second))
            continue; // msprobe: "NPU mode ... not equal to MATCH mode ..."
        // Outer join on (key, n-th occurrence) in the NPU's order, bench-only rows after (pandas'
        // merge without sorting; msprobe's NPU order is statistic.csv's row order, which is the
        // execution order, or for .npy files the directory listing's order).
        std::vector<MsGraphRow> rows;
        QHash<QString, size_t> rowOf; // "key#n"
        for (int s = 0; s < 2; ++s) {
            const DumpIndex &index = s == 0 ? npu : bench;
            QHash<QString, int> seen;
            for (const Item &it : itemsOf(index, s == 0 ? npuOps : b->second)) {
                const int n = seen[it.key]++;
                const QString k = it.key + QLatin1Char('#') + QString::number(n);
                auto at = rowOf.constFind(k);
                if (at == rowOf.constEnd()) {
                    at = rowOf.insert(k, rows.size());
                    rows.emplace_back();
                    rows.back().key = it.key;
                    rows.back().localIndex = n;
                }
                fillSide(index, it, scope.mode, s == 0 ? rows[*at].npu : rows[*at].bench, job);
            }
        }
        for (MsGraphRow &row : rows) {
            if (job && job->cancelled())
                return result;
            QString err;
            if (scope.mode == MsGraphMode::Statistics) {
                // statistics_data_check
                if (!row.npu.present() || !row.bench.present() || row.npu.shape != row.bench.shape)
                    err += QStringLiteral("Tensor shapes do not match.\n");
                if (!row.npu.present() || !row.bench.present() || row.npu.dtype != row.bench.dtype)
                    err += QStringLiteral("Dtype of NPU and bench Tensor do not match. Skipped.\n");
                row.errorMessage = err;
                if (!err.isEmpty())
                    continue;
                row.compared = true;
                const double n[4] = {row.npu.max, row.npu.min, row.npu.mean, row.npu.norm};
                const double bv[4] = {row.bench.max, row.bench.min, row.bench.mean, row.bench.norm};
                for (int i = 0; i < 4; ++i) {
                    row.diff[i] = float(float(n[i]) - float(bv[i]));
                    if (bv[i] != 0) {
                        const double r = double(float(float(row.diff[i]) / float(bv[i]))) * 100;
                        row.relative[i] = std::isnan(r) ? QStringLiteral("Nan") : pyRepr(std::abs(r), false) + QLatin1Char('%');
                    } else {
                        row.relative[i] = QStringLiteral("N/A");
                    }
                }
                double magnitude = row.diff[0] / (std::max(row.npu.max, row.bench.max) + 1e-10);
                if (std::isnan(row.npu.max) && std::isnan(row.bench.max))
                    magnitude = 0;
                row.accuracy = magnitude <= 0.5 ? QStringLiteral("Yes") : QStringLiteral("No");
                continue;
            }
            // Npy mode: the files' statistics and msprobe's tensor metrics.
            if (!row.npu.present() || !row.bench.present()) {
                row.errorMessage = QStringLiteral("Dump file not found.\n");
                continue;
            }
            auto n = loadTensor(npu, {row.npu.op, row.npu.tensor}, LayoutChoice::Logical, job);
            auto bl = loadTensor(bench, {row.bench.op, row.bench.tensor}, LayoutChoice::Logical, job);
            if (!n || !bl) {
                row.errorMessage = (!n ? n.errorText() : bl.errorText()) + QLatin1Char('\n');
                continue;
            }
            // npy_data_check: 0-d tensors are not compared; the files' statistics are still shown
            if ((*n)->shape.empty() || (*bl)->shape.empty())
                err += QStringLiteral("This is type of scalar data, can not compare.\n");
            if (row.npu.shape != row.bench.shape)
                err += QStringLiteral("Shape of NPU and bench Tensor do not match.\n");
            if (row.npu.dtype != row.bench.dtype)
                err += QStringLiteral("Dtype of NPU and bench Tensor do not match. Skipped.\n");
            PairMetrics m;
            if (err.isEmpty() && !computePairMetrics((*n)->view, (*bl)->view, m, {}, job))
                return result;
            if (err.isEmpty()) {
                row.npu.max = m.npu.max, row.npu.min = m.npu.min, row.npu.mean = m.npu.mean, row.npu.norm = m.npu.l2norm;
                row.bench.max = m.bench.max, row.bench.min = m.bench.min, row.bench.mean = m.bench.mean, row.bench.norm = m.bench.l2norm;
                const double cosine = m.npuNorm > 0 && m.benchNorm > 0 ? m.dot / (m.npuNorm * m.benchNorm) : std::nan("");
                if (m.maxAbsErr == 0) { // equal tensors (all-zero ones too): no relative error
                    m.maxRelErr = 0;
                    m.oneThousandthRatio = m.fiveThousandthsRatio = 1;
                }
                row.metrics[0] = std::round(cosine * 1e6) / 1e6;
                row.metrics[1] = m.eucDist;
                row.metrics[2] = std::round(m.maxAbsErr * 1e12) / 1e12;
                row.metrics[3] = std::round(m.maxRelErr * 1e12) / 1e12;
                row.metrics[4] = std::round(m.oneThousandthRatio * 1e12) / 1e12;
                row.metrics[5] = std::round(m.fiveThousandthsRatio * 1e12) / 1e12;
                row.compared = true;
                // check_accuracy (multiprocessing_compute.py): No when cos < 0.99 and MaxAbsErr > 0.001,
                // or cos < 0.9 or MaxAbsErr > 1
                const double cos = row.metrics[0], abs = row.metrics[2];
                const bool no = (cos < 0.99 && abs > 0.001) || cos < 0.9 || abs > 1;
                row.accuracy = no ? QStringLiteral("No") : QStringLiteral("Yes");
            }
            if (!err.isEmpty()) {
                TensorStats a, c;
                computeStats((*n)->view, a, job);
                computeStats((*bl)->view, c, job);
                row.npu.max = a.max, row.npu.min = a.min, row.npu.mean = a.mean, row.npu.norm = a.l2norm;
                row.bench.max = c.max, row.bench.min = c.min, row.bench.mean = c.mean, row.bench.norm = c.l2norm;
            }
            row.errorMessage = err;
        }
        scope.rows = std::move(rows);
        result.push_back(std::move(scope));
    }
    return result;
}

} // namespace ds
