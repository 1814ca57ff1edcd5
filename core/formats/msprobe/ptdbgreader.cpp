// ptdbg_ascend (generation A): dump.pkl line-JSON, overflow .pkl files, forward_info json
// (msprobe.md §2.2, §9; overflow.md §12).
#include "jsonstream.h"
#include "leafbuilder.h"
#include "msprobereader.h"

#include <QBuffer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>

#include <algorithm>
#include <array>

namespace ds::ptdbg {

using msprobe::JsonNode;
using msprobe::JsonTree;
using msprobe::LeafBuilder;
using msprobe::StringPool;

namespace {

QString joinPath(const QString &dir, const QString &name)
{
    return dir.isEmpty() ? name : dir + QLatin1Char('/') + name;
}

const QRegularExpression &overflowPklRe()
{
    static const QRegularExpression re(QStringLiteral("^([A-Za-z]+)_(.+)_(\\d+)_(fwd|bwd|forward|backward)_(\\d+)\\.pkl$"));
    return re;
}

bool isMainPkl(const QString &name)
{
    return name == QLatin1String("dump.pkl") || name.endsWith(QLatin1String("_dump.pkl"));
}

/// A row name split into the op ("Functional.linear.0.forward", normalised to `.`), the
/// category ("input"/"output") and the index path ("0", "1.0").
struct RowName
{
    QString op, category, indexes;
    bool forward = true;
    bool ok = false;
};

RowName splitRowName(const QString &name)
{
    RowName r;
    // v6: Type.api.n.dir.category[.i[.j]]
    const QStringList dots = name.split(QLatin1Char('.'));
    for (qsizetype d = 2; d + 1 < dots.size(); ++d) {
        if ((dots[d] == QLatin1String("forward") || dots[d] == QLatin1String("backward"))
            && (dots[d + 1] == QLatin1String("input") || dots[d + 1] == QLatin1String("output"))) {
            r.op = dots.mid(0, d + 1).join(QLatin1Char('.'));
            r.forward = dots[d] == QLatin1String("forward");
            r.category = dots[d + 1];
            r.indexes = dots.mid(d + 2).join(QLatin1Char('.'));
            r.ok = true;
            return r;
        }
    }
    // Old: Type_api_n_dir_category[.i[.j]] (the api itself may contain '_').
    static const QRegularExpression old(QStringLiteral("^([A-Za-z]+)_(.+)_(\\d+)_(forward|backward)_(input|output)((?:\\.[^.]+)*)$"));
    const auto m = old.match(name);
    if (m.hasMatch()) {
        r.op = m.captured(1) + QLatin1Char('.') + m.captured(2) + QLatin1Char('.') + m.captured(3) + QLatin1Char('.')
            + m.captured(4);
        r.forward = m.captured(4) == QLatin1String("forward");
        r.category = m.captured(5);
        r.indexes = m.captured(6).mid(1);
        r.ok = true;
    }
    return r;
}

// "Functional_linear_0_forward" / "Functional.linear.0.forward" -> dotted form.
QString normaliseOpName(const QString &name)
{
    static const QRegularExpression old(QStringLiteral("^([A-Za-z]+)_(.+)_(\\d+)_(forward|backward)$"));
    const auto m = old.match(name);
    if (m.hasMatch())
        return m.captured(1) + QLatin1Char('.') + m.captured(2) + QLatin1Char('.') + m.captured(3) + QLatin1Char('.')
            + m.captured(4);
    return name;
}

QString opTypeOfDotted(const QString &op)
{
    // "Functional.linear.0.forward" -> "Functional.linear"
    const QStringList t = op.split(QLatin1Char('.'));
    if (t.size() >= 4)
        return t.mid(0, t.size() - 2).join(QLatin1Char('.'));
    return op;
}

struct PklState
{
    QHash<QString, int> byOp; // op name -> index in part.ops
    std::vector<std::array<std::uint32_t, 5>> counters; // per op of this file (index - base)
    size_t base = 0;
    QHash<QString, int> stackOf; // op name -> stack index
};

/// A call stack as lines `File {path}, line {line}, in {func}, \n {code}`: from frames
/// `[path, line, func, code]` (dump.pkl stack lines) or from lines already in that form
/// (stack_info_{pid}.json). Other elements are skipped.
QStringList stackLines(const JsonTree &t, std::uint32_t node)
{
    QStringList lines;
    const JsonNode &frames = t.node(node);
    for (std::uint32_t f = frames.kind == JsonNode::Array ? frames.first : 0; f; f = t.node(f).next) {
        const JsonNode &fr = t.node(f);
        if (fr.kind == JsonNode::String) {
            const std::string_view line = t.text(fr);
            lines << QString::fromUtf8(line.data(), qsizetype(line.size()));
            continue;
        }
        if (fr.kind != JsonNode::Array || fr.count < 4)
            continue;
        std::array<QString, 4> parts;
        std::uint32_t c = fr.first;
        for (int k = 0; k < 4; ++k, c = t.node(c).next) {
            const JsonNode &p = t.node(c);
            std::string s;
            if (p.kind == JsonNode::String)
                s.assign(t.text(p));
            else
                t.serialize(c, s);
            parts[size_t(k)] = QString::fromUtf8(s.data(), qsizetype(s.size()));
        }
        lines << QStringLiteral("File %1, line %2, in %3, \n %4").arg(parts[0], parts[1], parts[2], parts[3]);
    }
    return lines;
}

/// stack_info_{pid}.json beside forward_info_{pid}.json / backward_info_{pid}.json
/// (api_accuracy_checker): `{"{api}_forward": [stack lines], ...}`, possibly several objects
/// appended by several processes. Backward APIs use the stack of their forward call. A damaged
/// file is reported as an error of its own; the APIs keep their records.
void readStackInfo(const QString &rootDir, const QString &relInfoFile, IndexPart &part)
{
    static const QRegularExpression re(QStringLiteral("(?:^|/)(?:forward|backward)_info_(\\d+)\\.json$"));
    const auto m = re.match(relInfoFile);
    if (!m.hasMatch())
        return;
    const QString relFile = relInfoFile.left(relInfoFile.lastIndexOf(QLatin1Char('/')) + 1)
                            + QStringLiteral("stack_info_%1.json").arg(m.captured(1));
    const QString abs = rootDir.isEmpty() ? relFile : rootDir + QLatin1Char('/') + relFile;
    if (!QFileInfo::exists(abs))
        return;
    QHash<QString, int> opByName;
    for (size_t i = 0; i < part.ops.size(); ++i)
        opByName.insert(part.ops[i].opName, int(i));
    msprobe::JsonStreamReader r;
    if (!r.open(abs)) {
        part.errors.push_back({relFile, QStringLiteral("cannot open: %1").arg(r.error()), 0});
        return;
    }
    JsonTree tree;
    std::string key;
    while (r.peekToken() >= 0) {
        if (!r.beginObject()) {
            part.errors.push_back({relFile, QStringLiteral("not a stack_info object: %1").arg(r.error()), r.errorOffset()});
            return;
        }
        bool first = true;
        for (;;) {
            const int mem = r.nextMember(key, first);
            if (mem == 0)
                break;
            if (mem < 0 || !r.parseValue(tree)) {
                part.errors.push_back({relFile, QStringLiteral("%1 (stacks before it were kept)").arg(r.error()), r.errorOffset()});
                return;
            }
            const QString op = normaliseOpName(QString::fromUtf8(key.data(), qsizetype(key.size())));
            const int index = int(part.stacks.size());
            bool used = false;
            for (const QString &name : {op, op.endsWith(QLatin1String(".forward")) ? op.chopped(8) + QStringLiteral(".backward") : QString()}) {
                const auto it = opByName.constFind(name);
                if (it != opByName.constEnd() && !name.isEmpty()) {
                    part.ops[size_t(*it)].stack = index;
                    used = true;
                }
            }
            if (used)
                part.stacks.push_back(stackLines(tree, 0));
        }
    }
}

void readPklLines(QIODevice &dev, const QString &relPathDir, const QString &relFile, const QString &tensorDir,
                  const DumpLevels &levels, IndexPart &part, StringPool &pool)
{
    PklState st;
    st.base = part.ops.size();
    const SharedLevels sharedLevels(levels);
    JsonTree t;
    QString firstError;
    int badLines = 0;
    qint64 lineNo = 0;
    const QString dataFile = relFile;
    auto opFor = [&](const QString &name, const QString &original) -> int {
        auto it = st.byOp.constFind(name);
        if (it != st.byOp.constEnd())
            return *it;
        OpRecord op;
        op.opName = name;
        if (original != name)
            op.extra().headerOpName = original;
        op.relPath = joinPath(relPathDir, name);
        op.dataFile = dataFile;
        op.levels = sharedLevels;
        op.opType = pool.get(opTypeOfDotted(name));
        op.timestamp = part.ops.size();
        const int index = int(part.ops.size());
        part.ops.push_back(std::move(op));
        st.counters.push_back({});
        st.byOp.insert(name, index);
        return index;
    };
    while (!dev.atEnd()) {
        const QByteArray raw = dev.readLine();
        ++lineNo;
        const QByteArray line = raw.trimmed();
        if (line.isEmpty())
            continue;
        QString err;
        if (!msprobe::parseJsonText(std::string(line.constData(), size_t(line.size())), t, &err)
            || t.root().kind != JsonNode::Array) {
            if (err.isEmpty())
                err = QStringLiteral("not a JSON array");
            if (badLines++ == 0)
                firstError = QStringLiteral("line %1: %2").arg(lineNo).arg(err);
            continue;
        }
        std::vector<std::uint32_t> el;
        for (std::uint32_t c = t.root().first; c; c = t.node(c).next)
            el.push_back(c);
        if (el.empty() || t.node(el[0]).kind != JsonNode::String) {
            if (badLines++ == 0)
                firstError = QStringLiteral("line %1: the first element is not a name").arg(lineNo);
            continue;
        }
        const std::string_view nameSv = t.text(t.node(el[0]));
        const QString name = QString::fromUtf8(nameSv.data(), qsizetype(nameSv.size()));
        if (el.size() == 2 && name.endsWith(QLatin1String(".stack_info"))) {
            const QStringList lines = stackLines(t, el[1]);
            const QString op = normaliseOpName(name.chopped(11));
            st.stackOf.insert(op, int(part.stacks.size()));
            part.stacks.push_back(lines);
            continue;
        }
        if (el.size() != 6) {
            if (badLines++ == 0)
                firstError = QStringLiteral("line %1: %2 elements (a data line has 6, a stack line 2)").arg(lineNo).arg(el.size());
            continue;
        }
        const RowName rn = splitRowName(name);
        if (!rn.ok) {
            if (badLines++ == 0)
                firstError = QStringLiteral("line %1: cannot split the name %2").arg(lineNo).arg(name);
            continue;
        }
        const int opIndex = opFor(rn.op, name.left(name.size() - rn.category.size() - (rn.indexes.isEmpty() ? 0 : rn.indexes.size() + 1) - 1));
        OpRecord &op = part.ops[size_t(opIndex)];
        const IoKind io = rn.category == QLatin1String("input") ? IoKind::Input : IoKind::Output;
        QString leafName = rn.category == QLatin1String("input") && rn.forward ? QStringLiteral("input_args") : rn.category;
        if (!rn.indexes.isEmpty())
            leafName += QLatin1Char('.') + rn.indexes;
        TensorFields r;
        r.io = io;
        r.index = st.counters[size_t(opIndex) - st.base][size_t(io)]++;
        r.name = pool.get(leafName);
        const JsonNode &md5 = t.node(el[2]);
        if (md5.kind == JsonNode::String)
            r.checksum = QString::fromUtf8(t.text(md5).data(), qsizetype(t.text(md5).size()));
        const JsonNode &dtype = t.node(el[3]);
        const std::string_view dtypeText = dtype.kind == JsonNode::String ? t.text(dtype) : std::string_view();
        const JsonNode &summary = t.node(el[5]);
        std::vector<std::uint32_t> sum;
        for (std::uint32_t c = summary.kind == JsonNode::Array ? summary.first : 0; c; c = t.node(c).next)
            sum.push_back(c);
        if (dtypeText.starts_with("<class '")) {
            // A Python scalar: summary [v, v, v, v].
            std::string_view type = dtypeText.substr(8);
            if (type.ends_with("'>"))
                type.remove_suffix(2);
            std::string value;
            if (!sum.empty())
                t.serialize(sum[0], value);
            r.storage = TensorStorage::Value;
            r.typeName = pool.get(type);
            r.value = pool.get(value);
        } else {
            r.typeName = pool.get(dtypeText);
            r.dataType = pool.dataType(dtypeText);
            const JsonNode &shape = t.node(el[4]);
            for (std::uint32_t c = shape.kind == JsonNode::Array && shape.count <= 64 ? shape.first : 0; c; c = t.node(c).next) {
                const JsonNode &d = t.node(c);
                // Dimensions outside [-2^63, 2^64) are skipped: converting them is undefined.
                if (d.kind == JsonNode::Number && d.integer && d.number >= -0x1p63 && d.number < 0x1p64)
                    r.shape.push_back(d.number < 0 ? std::uint64_t(std::int64_t(d.number)) : std::uint64_t(d.number));
            }
            static constexpr std::array<std::pair<RecordedStats::Field, double RecordedStats::*>, 4> kStats = {
                {{RecordedStats::Max, &RecordedStats::max},
                 {RecordedStats::Min, &RecordedStats::min},
                 {RecordedStats::Mean, &RecordedStats::mean},
                 {RecordedStats::Norm, &RecordedStats::norm}}};
            for (size_t k = 0; k < sum.size() && k < 4; ++k) {
                const JsonNode &sn = t.node(sum[k]);
                // "Nan" marks a statistic that was not computed (norm of integer tensors).
                if (sn.kind == JsonNode::String && t.text(sn) == "Nan")
                    continue;
                double v = 0;
                if (LeafBuilder::statValue(t, sum[k], v)) {
                    r.recorded.*(kStats[k].second) = v;
                    r.recorded.present |= kStats[k].first;
                }
            }
            if (tensorDir.isEmpty()) {
                r.storage = TensorStorage::Absent;
            } else {
                r.storage = TensorStorage::NpyFile;
                r.location = tensorDir + QLatin1Char('/') + name + QStringLiteral(".npy");
            }
        }
        op.tensors.push_back(TensorRecord(r));
    }
    for (auto it = st.stackOf.constBegin(); it != st.stackOf.constEnd(); ++it) {
        const auto op = st.byOp.constFind(it.key());
        if (op != st.byOp.constEnd())
            part.ops[size_t(*op)].stack = it.value();
    }
    // Backward APIs use the stack of their forward call.
    for (OpRecord &op : part.ops) {
        if (op.stack >= 0 || op.dataFile != dataFile)
            continue;
        const auto fwd = st.stackOf.constFind(msprobe::forwardTwin(op.opName));
        if (fwd != st.stackOf.constEnd())
            op.stack = *fwd;
    }
    if (badLines)
        part.errors.push_back({relFile, QStringLiteral("%1 unreadable line(s), first: %2").arg(badLines).arg(firstError), 0});
}

} // namespace

bool looksLikePtdbgRankDir(const QString &dir)
{
    const QDir d(dir);
    const QStringList pkls = d.entryList({QStringLiteral("*.pkl")}, QDir::Files);
    for (const QString &f : pkls)
        if (isMainPkl(f) || overflowPklRe().match(f).hasMatch())
            return true;
    return false;
}

bool isOverflowInfoFile(const QString &fileName)
{
    static const QRegularExpression re(QStringLiteral("^(forward|backward)_info_\\d+\\.json$"));
    return re.match(fileName).hasMatch();
}

void readDumpPkl(const QByteArray &text, const QString &relPathDir, const QString &relFile, const QString &tensorDir,
                 const DumpLevels &levels, IndexPart &part)
{
    QByteArray copy = text;
    QBuffer buf(&copy);
    buf.open(QIODevice::ReadOnly);
    StringPool pool;
    readPklLines(buf, relPathDir, relFile, tensorDir, levels, part, pool);
}

Result<IndexPart> indexRankDir(const QString &rootDir, const QString &relDir, const DumpLevels &levels,
                                   const JobControl *job)
{
    const QString dir = relDir.isEmpty() ? rootDir : rootDir + QLatin1Char('/') + relDir;
    const QDir d(dir);
    if (!d.exists())
        return Result<IndexPart>::failure(QStringLiteral("%1: no such directory").arg(dir));
    IndexPart part;
    part.framework = QStringLiteral("pytorch");
    part.level = QStringLiteral("L1");
    StringPool pool;
    const QStringList pkls = d.entryList({QStringLiteral("*.pkl")}, QDir::Files, QDir::Name);
    struct Overflow { QString file; qint64 ordinal; };
    std::vector<Overflow> overflows;
    bool any = false;
    for (const QString &f : pkls) {
        if (isMainPkl(f)) {
            any = true;
            QFile file(d.filePath(f));
            if (!file.open(QIODevice::ReadOnly)) {
                part.errors.push_back({joinPath(relDir, f), QStringLiteral("cannot open: %1").arg(file.errorString()), 0});
                continue;
            }
            const QString tensorDir = d.exists(QStringLiteral("dump")) ? joinPath(relDir, QStringLiteral("dump")) : QString();
            readPklLines(file, relDir, joinPath(relDir, f), tensorDir, levels, part, pool);
            part.task = f == QLatin1String("dump.pkl") ? QStringLiteral("dump") : f.chopped(9);
        } else if (const auto m = overflowPklRe().match(f); m.hasMatch()) {
            overflows.push_back({f, m.captured(5).toLongLong()});
        }
        if (job && job->cancelled())
            return Result<IndexPart>::failure(QStringLiteral("indexing cancelled"));
    }
    std::stable_sort(overflows.begin(), overflows.end(), [](const Overflow &a, const Overflow &b) { return a.ordinal < b.ordinal; });
    for (const Overflow &o : overflows) {
        any = true;
        const QString stem = o.file.chopped(4);
        QFile file(d.filePath(o.file));
        if (!file.open(QIODevice::ReadOnly)) {
            part.errors.push_back({joinPath(relDir, o.file), QStringLiteral("cannot open: %1").arg(file.errorString()), 0});
            continue;
        }
        const QString tensorDir = d.exists(stem) ? joinPath(relDir, stem) : QString();
        readPklLines(file, joinPath(relDir, stem), joinPath(relDir, o.file), tensorDir, levels, part, pool);
        if (part.task.isEmpty())
            part.task = QStringLiteral("overflow_check");
        if (job && job->cancelled())
            return Result<IndexPart>::failure(QStringLiteral("indexing cancelled"));
    }
    if (!any)
        return Result<IndexPart>::failure(QStringLiteral("%1: no dump.pkl or overflow .pkl files").arg(dir));
    return part;
}

Result<IndexPart> indexOverflowInfo(const QString &rootDir, const QString &relFile, const DumpLevels &levels,
                                        const JobControl *job)
{
    const QString abs = rootDir.isEmpty() ? relFile : rootDir + QLatin1Char('/') + relFile;
    msprobe::JsonStreamReader r;
    if (!r.open(abs))
        return Result<IndexPart>::failure(QStringLiteral("%1: cannot open: %2").arg(relFile, r.error()));
    const SharedLevels sharedLevels(levels);
    IndexPart part;
    part.task = QStringLiteral("overflow_check");
    part.framework = QStringLiteral("pytorch");
    part.level = QStringLiteral("L1");
    const bool backward = QFileInfo(relFile).fileName().startsWith(QLatin1String("backward_"));
    const qsizetype slash = relFile.lastIndexOf(QLatin1Char('/'));
    const QString relDir = slash < 0 ? QString() : relFile.left(slash);
    StringPool pool;
    LeafBuilder lb(pool);
    lb.datapathBase = relDir.isEmpty() ? QString() : relDir + QLatin1Char('/');
    JsonTree tree;
    std::string key, path;
    // Several processes append whole objects to the same file: `{...}{...}`.
    while (r.peekToken() >= 0) {
        if (!r.beginObject()) {
            part.errors.push_back({relFile, r.error(), r.errorOffset()});
            break;
        }
        bool first = true;
        bool failed = false;
        for (;;) {
            const int m = r.nextMember(key, first);
            if (m == 0)
                break;
            if (m < 0 || !r.parseValue(tree)) {
                part.errors.push_back({relFile,
                                       r.hitEnd() ? QStringLiteral("file ends inside entry %1 (%2); %3 complete entries salvaged")
                                                        .arg(QString::fromUtf8(key.data(), qsizetype(key.size())), r.error())
                                                        .arg(part.ops.size())
                                                  : QStringLiteral("syntax error: %1").arg(r.error()),
                                       r.errorOffset()});
                failed = true;
                break;
            }
            OpRecord op;
            const QString original = QString::fromUtf8(key.data(), qsizetype(key.size()));
            op.opName = normaliseOpName(original);
            if (op.opName != original)
                op.extra().headerOpName = original;
            op.relPath = relFile + QLatin1Char('/') + op.opName;
            op.dataFile = relFile;
            op.levels = sharedLevels;
            op.opType = pool.get(opTypeOfDotted(op.opName));
            op.timestamp = part.ops.size();
            lb.begin();
            const JsonNode &root = tree.root();
            if (backward || root.kind == JsonNode::Array) {
                path.assign("input");
                lb.walk(tree, 0, IoKind::Input, path, op, true);
            } else if (root.kind == JsonNode::Object) {
                for (std::uint32_t c = root.first; c; c = tree.node(c).next) {
                    const std::string_view k = tree.key(tree.node(c));
                    path.assign(k == "args" ? "input_args" : k == "kwargs" ? "input_kwargs" : k);
                    lb.walk(tree, c, k == "output" ? IoKind::Output : IoKind::Input, path, op, true);
                }
            }
            lb.finish(op);
            part.ops.push_back(std::move(op));
            if (job && (part.ops.size() & 1023) == 0 && job->cancelled())
                return Result<IndexPart>::failure(QStringLiteral("indexing cancelled"));
        }
        if (failed)
            break;
    }
    readStackInfo(rootDir, relFile, part);
    return part;
}

} // namespace ds::ptdbg
