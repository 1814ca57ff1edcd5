#include "statisticcsv.h"

#include <QRegularExpression>

#include <array>
#include <cmath>
#include <limits>

namespace ds::mindspore {

namespace {

/// One CSV record from `text` starting at `pos` (RFC 4180 quoting); advances `pos` past its
/// line end. Quoted fields may hold commas and doubled quotes.
QStringList splitRecord(QStringView text, qsizetype &pos)
{
    QStringList fields;
    QString cur;
    bool quoted = false, any = false;
    while (pos < text.size()) {
        const QChar c = text[pos++];
        if (quoted) {
            if (c == QLatin1Char('"')) {
                if (pos < text.size() && text[pos] == QLatin1Char('"')) {
                    cur += QLatin1Char('"');
                    ++pos;
                } else {
                    quoted = false;
                }
            } else {
                cur += c;
            }
            continue;
        }
        if (c == QLatin1Char('\n'))
            break;
        if (c == QLatin1Char('\r'))
            continue;
        any = true;
        if (c == QLatin1Char('"'))
            quoted = true;
        else if (c == QLatin1Char(',')) {
            fields << cur;
            cur.clear();
        } else
            cur += c;
    }
    if (any || !cur.isEmpty())
        fields << cur;
    return fields;
}

enum Col : int { OpType, OpName, TaskId, StreamId, Timestamp, Io, Slot, DataSize, DataTypeCol, ShapeCol, Max, Min, Avg, L2Norm, Md5, ColCount };

const std::array<const char *, ColCount> kColumnNames{"Op Type", "Op Name", "Task ID", "Stream ID", "Timestamp", "IO",
                                                      "Slot", "Data Size", "Data Type", "Shape", "Max Value", "Min Value",
                                                      "Avg Value", "L2Norm Value", "MD5"};
constexpr int kRequired = ShapeCol + 1; ///< columns every row needs (Data Size is optional)

std::optional<Shape> parseShape(QString text)
{
    text = text.trimmed();
    if (text.size() >= 2 && ((text.front() == QLatin1Char('(') && text.back() == QLatin1Char(')'))
                             || (text.front() == QLatin1Char('[') && text.back() == QLatin1Char(']'))))
        text = text.mid(1, text.size() - 2);
    Shape shape;
    for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const qulonglong d = part.trimmed().toULongLong(&ok);
        if (!ok)
            return std::nullopt;
        shape.push_back(d);
    }
    return shape;
}

/// A statistic cell: a number, True/False (bool tensors), nan/inf; nullopt for garbage.
/// `absent` is set for an empty or "null" cell.
std::optional<double> parseStat(const QString &cell, bool *absent, bool *integral)
{
    const QString t = cell.trimmed();
    *absent = t.isEmpty() || t.compare(QLatin1String("null"), Qt::CaseInsensitive) == 0;
    *integral = false;
    if (*absent)
        return 0.0;
    if (t == QLatin1String("True"))
        return 1.0;
    if (t == QLatin1String("False"))
        return 0.0;
    const QString lower = t.toLower();
    if (lower == QLatin1String("nan") || lower == QLatin1String("-nan"))
        return std::numeric_limits<double>::quiet_NaN();
    if (lower == QLatin1String("inf") || lower == QLatin1String("+inf"))
        return std::numeric_limits<double>::infinity();
    if (lower == QLatin1String("-inf"))
        return -std::numeric_limits<double>::infinity();
    bool ok = false;
    const double v = t.toDouble(&ok);
    if (!ok)
        return std::nullopt;
    *integral = !t.contains(QLatin1Char('.')) && !t.contains(QLatin1Char('e')) && !t.contains(QLatin1Char('E'));
    return v;
}

QString colName(int c) { return QString::fromLatin1(kColumnNames[size_t(c)]); }

} // namespace

bool looksLikeStatisticCsv(QByteArrayView bytes)
{
    return bytes.startsWith(QByteArrayView("Op Type,Op Name,")) || bytes.startsWith(QByteArrayView("\xEF\xBB\xBFOp Type,Op Name,"));
}

StatisticCsv parseStatisticCsv(QByteArrayView bytes, const QString &file)
{
    StatisticCsv out;
    QString text = QString::fromUtf8(bytes);
    if (text.startsWith(QChar(0xFEFF)))
        text.remove(0, 1);
    qsizetype pos = 0;
    int line = 0;
    while (pos < text.size() && out.header.isEmpty()) {
        out.header = splitRecord(text, pos);
        ++line;
    }
    if (out.header.isEmpty()) {
        out.errors.push_back({ErrorKind::NoData, file, QStringLiteral("empty file: no header")});
        return out;
    }
    while (!out.header.isEmpty() && out.header.back().trimmed().isEmpty())
        out.header.removeLast(); // "...,L2Norm Value," (trailing comma)
    std::array<int, ColCount> at;
    at.fill(-1);
    for (qsizetype i = 0; i < out.header.size(); ++i)
        for (int c = 0; c < ColCount; ++c)
            if (out.header[i].trimmed() == QLatin1String(kColumnNames[size_t(c)]) && at[size_t(c)] < 0)
                at[size_t(c)] = int(i);
    QStringList missing;
    for (int c = 0; c < kRequired; ++c)
        if (c != DataSize && at[size_t(c)] < 0)
            missing << colName(c);
    if (!missing.isEmpty()) {
        out.errors.push_back({file, QStringLiteral("line 1: the header lacks the column(s) %1; no row of this file is read")
                                        .arg(missing.join(QStringLiteral(", ")))});
        return out;
    }
    const qsizetype columns = out.header.size();
    int rowsSeen = 0;
    while (pos < text.size()) {
        QStringList f = splitRecord(text, pos);
        ++line;
        if (f.isEmpty() || (f.size() == 1 && f[0].trimmed().isEmpty()))
            continue;
        ++rowsSeen;
        while (f.size() > columns && f.back().trimmed().isEmpty())
            f.removeLast();
        if (f.size() != columns) {
            out.errors.push_back({file, QStringLiteral("line %1: %2 cells where the header has %3; row left out")
                                            .arg(line).arg(f.size()).arg(columns)});
            continue;
        }
        auto cell = [&](int c) { return f[at[size_t(c)]].trimmed(); };
        auto bad = [&](int c, const QString &why) {
            out.errors.push_back({file, QStringLiteral("line %1, column '%2': %3").arg(line).arg(colName(c), why)});
        };
        StatRow r;
        r.line = line;
        r.opType = cell(OpType);
        r.opName = cell(OpName);
        bool ok = true, okCell = false;
        r.taskId = cell(TaskId).toLongLong(&okCell);
        if (!okCell) {
            bad(TaskId, QStringLiteral("'%1' is not an integer; row left out").arg(cell(TaskId)));
            ok = false;
        }
        r.streamId = cell(StreamId).toLongLong(&okCell);
        if (ok && !okCell) {
            bad(StreamId, QStringLiteral("'%1' is not an integer; row left out").arg(cell(StreamId)));
            ok = false;
        }
        r.timestamp = cell(Timestamp).toULongLong(&okCell);
        if (ok && !okCell) {
            bad(Timestamp, QStringLiteral("'%1' is not an integer; row left out").arg(cell(Timestamp)));
            ok = false;
        }
        const QString io = cell(Io);
        if (ok && io != QLatin1String("input") && io != QLatin1String("output")) {
            bad(Io, QStringLiteral("'%1' is neither input nor output; row left out").arg(io));
            ok = false;
        }
        r.io = io == QLatin1String("output") ? IoKind::Output : IoKind::Input;
        r.slot = cell(Slot).toUInt(&okCell);
        if (ok && !okCell) {
            bad(Slot, QStringLiteral("'%1' is not a slot number; row left out").arg(cell(Slot)));
            ok = false;
        }
        if (ok && r.opName.isEmpty()) {
            bad(OpName, QStringLiteral("empty; row left out"));
            ok = false;
        }
        if (!ok)
            continue;
        if (at[DataSize] >= 0 && !cell(DataSize).isEmpty()) {
            r.dataSize = cell(DataSize).toULongLong(&okCell);
            if (!okCell)
                bad(DataSize, QStringLiteral("'%1' is not a byte count; ignored").arg(cell(DataSize)));
        }
        r.dataType = cell(DataTypeCol);
        if (auto shape = parseShape(cell(ShapeCol)))
            r.shape = *shape;
        else
            bad(ShapeCol, QStringLiteral("'%1' is not a shape; shown as a scalar").arg(cell(ShapeCol)));
        const std::array<std::pair<int, RecordedStats::Field>, 4> stats{
            {{Max, RecordedStats::Max}, {Min, RecordedStats::Min}, {Avg, RecordedStats::Mean}, {L2Norm, RecordedStats::Norm}}};
        for (const auto &[c, field] : stats) {
            if (at[size_t(c)] < 0)
                continue;
            bool absent = false, integral = false;
            const auto v = parseStat(cell(c), &absent, &integral);
            if (!v) {
                bad(c, QStringLiteral("'%1' is not a number; left out").arg(cell(c)));
                continue;
            }
            if (absent)
                continue;
            double *slot = field == RecordedStats::Max ? &r.stats.max : field == RecordedStats::Min ? &r.stats.min
                         : field == RecordedStats::Mean ? &r.stats.mean : &r.stats.norm;
            *slot = *v;
            r.stats.present |= field;
            if (integral)
                r.stats.integral |= field;
        }
        if (at[Md5] >= 0)
            r.md5 = cell(Md5);
        out.rows.push_back(std::move(r));
    }
    if (rowsSeen == 0)
        out.errors.push_back({ErrorKind::NoData, file, QStringLiteral("a header and no rows: no tensor statistics recorded")});
    return out;
}

std::optional<KernelFileName> parseKernelFileName(const QString &fileName)
{
    // op_type and op_name hold no '.'; the timestamp is digits; then input|output, slot, format
    // and the optional original dtype.
    static const QRegularExpression re(QStringLiteral(
        "^([^.]+)\\.([^.]+)\\.([0-9]+)\\.([0-9]+)\\.([0-9]+)\\.(input|output)\\.([0-9]+)\\.([^.]+)(?:\\.([^.]+))?\\.npy$"));
    const auto m = re.match(fileName);
    if (!m.hasMatch())
        return std::nullopt;
    KernelFileName k;
    k.opType = m.captured(1);
    k.opName = m.captured(2);
    bool ok1 = false, ok2 = false, ok3 = false, ok4 = false;
    k.taskId = m.captured(3).toLongLong(&ok1);
    k.streamId = m.captured(4).toLongLong(&ok2);
    k.timestamp = m.captured(5).toULongLong(&ok3);
    k.io = m.capturedView(6) == QLatin1String("input") ? IoKind::Input : IoKind::Output;
    k.slot = m.captured(7).toUInt(&ok4);
    if (!ok1 || !ok2 || !ok3 || !ok4)
        return std::nullopt;
    k.format = m.captured(8);
    k.dtype = m.captured(9);
    return k;
}

QString kernelScope(const QString &opName, const QString &fullName)
{
    if (!fullName.isEmpty()) {
        const qsizetype cut = fullName.lastIndexOf(QLatin1Char('/'));
        return cut > 0 ? fullName.left(cut) : QString();
    }
    // Default_network-WithLossCell__backbone-Net_fc1-Dense_MatMul-op12: segments end at a '_'
    // once they hold a '-' ("{instance}-{Class}"); the scopes without one are Default and
    // Gradients and the gradient scopes grad{Op} ("gradMatMul"). A heuristic: the execution
    // order's full names, when present, are used instead.
    static const QRegularExpression gradScope(QStringLiteral("^grad[A-Z][A-Za-z0-9]*$"));
    const QStringList tokens = opName.split(QLatin1Char('_'));
    QStringList segments;
    QString cur;
    bool started = false;
    for (const QString &t : tokens) {
        cur = started ? cur + QLatin1Char('_') + t : t;
        started = true;
        const bool top = cur == QLatin1String("Default") || cur == QLatin1String("Gradients") || gradScope.match(cur).hasMatch();
        if (cur.contains(QLatin1Char('-')) || top) {
            segments << cur;
            cur.clear();
            started = false;
        }
    }
    if (started && !segments.isEmpty())
        segments.last() += QLatin1Char('_') + cur; // a tail without '-' belongs to the kernel
    if (segments.size() < 2)
        return {};
    segments.removeLast(); // the kernel itself
    return segments.join(QLatin1Char('/'));
}

QStringList parseExecutionOrder(QByteArrayView bytes)
{
    QStringList names;
    const QString text = QString::fromUtf8(bytes);
    for (QStringView line : QStringView(text).split(QLatin1Char('\n'))) {
        line = line.trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1String("NodeExecutionOrder")))
            continue;
        names << line.toString();
    }
    return names;
}

} // namespace ds::mindspore
