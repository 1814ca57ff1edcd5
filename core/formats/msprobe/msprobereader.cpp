#include "msprobereader.h"

#include "entryrecords.h"
#include "fastjson.h"
#include "jsonstream.h"
#include "leafbuilder.h"
#include "tensor/dtype.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>

#include <algorithm>
#include <array>
#include <type_traits>
#include <unordered_map>

namespace ds {

std::optional<StackFrame> parseStackLine(const QString &line)
{
    static const QRegularExpression re(QStringLiteral("^File (.*), line (\\d+), in (.*), \\n (.*)$"),
                                       QRegularExpression::DotMatchesEverythingOption);
    const auto m = re.match(line);
    if (!m.hasMatch())
        return std::nullopt;
    StackFrame f;
    f.path = m.captured(1);
    bool ok = false;
    f.line = m.captured(2).toInt(&ok);
    if (!ok)
        return std::nullopt;
    f.func = m.captured(3);
    f.code = m.captured(4);
    return f;
}

namespace msprobe {

namespace {

QString joinPath(const QString &dir, const QString &name)
{
    return dir.isEmpty() ? name : dir + QLatin1Char('/') + name;
}

enum class EntryKind { Forward, Backward, ParametersGrad, Debug, Other };

EntryKind entryKind(std::string_view name)
{
    if (name.ends_with(".forward") || name.find(".forward.") != std::string_view::npos)
        return EntryKind::Forward;
    if (name.ends_with(".backward") || name.find(".backward.") != std::string_view::npos)
        return EntryKind::Backward;
    if (name.ends_with(".parameters_grad") || name.find(".parameters_grad.") != std::string_view::npos)
        return EntryKind::ParametersGrad;
    if (name.ends_with(".debug"))
        return EntryKind::Debug;
    return EntryKind::Other;
}

bool isNumber(std::string_view s)
{
    if (s.empty())
        return false;
    for (char c : s)
        if (c < '0' || c > '9')
            return false;
    return true;
}

// "Functional.conv2d.0.forward" -> "Functional.conv2d"; "Module.conv1.Conv2d.forward.0" ->
// "Conv2d"; "Module.fc.Linear.parameters_grad.1" -> "Linear"; "x_grad.0.debug" -> "x_grad".
std::string_view opTypeOf(std::string_view name)
{
    // Tokens between dots, up to the first forward / backward / parameters_grad / debug; a name
    // of more than 64 tokens is its own type.
    constexpr size_t kMaxTokens = 64;
    std::string_view first, before, last; // tokens 0, d - 2 and d - 1 (d: the keyword's)
    size_t d = 0, start = 0;
    bool found = false;
    while (start <= name.size()) {
        const size_t dot = std::min(name.find('.', start), name.size());
        const std::string_view tok = name.substr(start, dot - start);
        if (tok == "forward" || tok == "backward" || tok == "parameters_grad" || tok == "debug") {
            found = true;
            const size_t rest = size_t(std::count(name.begin() + std::ptrdiff_t(dot), name.end(), '.'));
            if (d + 1 + rest > kMaxTokens)
                return name;
            break;
        }
        if (d == 0)
            first = tok;
        before = last;
        last = tok;
        if (++d > kMaxTokens)
            return name;
        start = dot + 1;
    }
    if (!found || d == 0)
        return name;
    if (first == "Module" || first == "Cell")
        return last;
    const std::string_view end = isNumber(last) && d >= 2 ? before : last;
    return name.substr(0, size_t(end.data() + end.size() - name.data()));
}

struct DumpJsonContext
{
    QString relDir, relFile;
    SharedLevels levels;
    IndexPart *part = nullptr;
    const JobControl *job = nullptr;
    StringPool pool;
    LeafPool leaves;
    TextArena texts;
    PackedText dataFile;
    std::string pathPrefix; ///< "<relDir>/" in UTF-8
    std::string scratch;
    JsonEngine engine = JsonEngine::SimdJson;
    bool cancelled = false;

    void init(const QString &dir, const QString &file, const DumpLevels &l, IndexPart &p, const JobControl *j)
    {
        relDir = dir;
        relFile = file;
        levels = SharedLevels(l);
        part = &p;
        job = j;
        dataFile = texts.add(file);
        pathPrefix = dir.isEmpty() ? std::string() : dir.toStdString() + '/';
    }
};

/// Names an entry's op: one text per entry, "<relDir>/<name>"; the name and the type are
/// parts of it.
void nameOp(DumpJsonContext &ctx, const std::string &name, OpRecord &op)
{
    ctx.scratch.assign(ctx.pathPrefix).append(name);
    op.relPath = ctx.texts.add(ctx.scratch);
    op.opName = op.relPath.substr(ctx.pathPrefix.size());
    const std::string_view type = opTypeOf(name);
    op.opType = op.opName.substr(size_t(type.data() - name.data()), type.size());
    op.dataFile = ctx.dataFile;
    op.levels = ctx.levels;
    op.timestamp = ctx.part->ops.size();
}

/// An entry from its JsonTree: the reference walk (EntryRecords streams the same records
/// from RapidJSON's events; the tokenizer's results and debug.json entries come here).
void convertEntry(DumpJsonContext &ctx, LeafBuilder &lb, const std::string &name, EntryKind kind, const JsonTree &t,
                  std::string &path)
{
    OpRecord op;
    nameOp(ctx, name, op);
    lb.begin();
    const JsonNode &root = t.root();
    if (kind == EntryKind::Debug) {
        path.assign("debug");
        lb.walk(t, 0, IoKind::Output, path, op, false);
    } else if (root.kind != JsonNode::Object) {
        op.addWarning(QStringLiteral("entry body is not an object"));
        path.clear();
        lb.walk(t, 0, IoKind::Input, path, op, false);
    } else {
        for (std::uint32_t c = root.first; c; c = t.node(c).next) {
            const JsonNode &member = t.node(c);
            const std::string_view key = t.key(member);
            if (kind == EntryKind::ParametersGrad) {
                path.assign(key);
                // {"weight": [leaf]}: the one-element list is unwrapped ("weight").
                if (member.kind == JsonNode::Array && member.count == 1)
                    lb.walk(t, member.first, IoKind::Parameter, path, op, false, 1);
                else
                    lb.walk(t, c, IoKind::Parameter, path, op, true);
                continue;
            }
            bool known = false;
            const IoKind io = categoryIo(key, known);
            if (!known && member.kind != JsonNode::Object && member.kind != JsonNode::Array) {
                if (key == "is_nan") { // nan_check's result
                    path.clear();
                    t.serialize(c, path);
                    op.nanCheck = nanCheckOf(member.kind, path);
                }
                continue; // is_recompute and other per-entry flags
            }
            path.assign(key);
            lb.walk(t, c, io, path, op, true);
        }
    }
    lb.finish(op);
    ctx.part->ops.push_back(std::move(op));
}

QString qs(const std::string &name)
{
    return QString::fromUtf8(name.data(), qsizetype(name.size()));
}

/// The simdjson windows of one dump.json (EntryWindow, FastJsonReader::openMemberWindow).
struct SimdState
{
    std::string closing; ///< "\n" + the entries' indentation + "},"; empty: no windows
    int failures = 0;    ///< windows that took no entry
    EntryWindow window;
    OpRecord pendingOp;  ///< the last entry read, kept until what follows it is known to be right
    std::string pendingName;
};
/// After this many windows that took nothing, the file is read entry by entry (a file whose
/// indentation misleads the window search must not pay for a search per entry).
constexpr int kSimdFailures = 16;
thread_local std::uint64_t t_windowEntries = 0;
constexpr size_t kWindowBytes = size_t(256) << 10;

/// Takes the entries of one window. An entry whose value ends at the window's '}' (that byte is
/// a ',' in the file: the layout misled the window search) is not taken, and an entry is kept
/// only once the window goes on correctly after it (a ',' and the next name, or the window's
/// own end). Whatever the window refuses is left where it starts for
/// the caller's entry-by-entry reading. Returns the entries taken, -1 when cancelled.
template<typename EntryDone>
int readEntryWindow(FastJsonReader &r, DumpJsonContext &ctx, SimdState &simd, EntryRecords &records, LeafBuilder &lb,
                    OpRecord &op, JsonTree &tree, bool &firstEntry, std::string &lastEntry, EntryDone &entryDone)
{
    FastJsonReader::MemberWindow w;
    if (!r.openMemberWindow(firstEntry, simd.closing, kWindowBytes, w)) {
        ++simd.failures;
        return 0;
    }
    int taken = 0;
    const char *resume = w.start, *pendingEnd = nullptr;
    bool resumeFirst = firstEntry, pending = false, cancelled = false;
    if (simd.window.open(w.doc, w.len, w.capacity)) {
        for (;;) {
            std::string_view name;
            const char *nameAt = nullptr;
            const int n = simd.window.next(name, nameAt);
            if (pending && n >= 0) {
                ctx.part->ops.push_back(std::move(simd.pendingOp));
                lastEntry.swap(simd.pendingName);
                resume = pendingEnd;
                resumeFirst = pending = false;
                ++taken;
                if (!entryDone(r.offsetOf(resume))) {
                    cancelled = true;
                    break;
                }
            }
            if (n <= 0)
                break;
            const EntryKind kind = entryKind(name);
            bool inTree = false;
            if (kind == EntryKind::Debug || !simd.window.parse(records, kind == EntryKind::ParametersGrad, op, tree, inTree)
                || inTree)
                break;
            pendingEnd = simd.window.position();
            if (!pendingEnd)
                break;
            simd.pendingName.assign(name);
            nameOp(ctx, simd.pendingName, op);
            lb.finish(op);
            simd.pendingOp = std::move(op);
            pending = true;
        }
    }
    r.closeMemberWindow(w, resume);
    firstEntry = resumeFirst;
    t_windowEntries += std::uint64_t(taken);
    if (taken == 0)
        ++simd.failures;
    return cancelled ? -1 : taken;
}

template<typename Reader>
bool readDumpJsonStream(Reader &r, DumpJsonContext &ctx)
{
    IndexPart &part = *ctx.part;
    auto addError = [&](const QString &message, std::uint64_t offset) {
        part.errors.push_back(FileError{ctx.relFile, message, offset});
        return false;
    };
    if (!r.beginObject())
        return addError(QStringLiteral("not a dump.json object: %1").arg(r.error()), r.errorOffset());
    LeafBuilder lb(ctx.pool, ctx.leaves);
    lb.tensorDirPrefix = joinPath(ctx.relDir, QStringLiteral("dump_tensor_data/"));
    EntryRecords records(lb);
    SimdState simd;
    OpRecord op; // the entry being streamed
    JsonTree tree;
    std::string key, entry, path, lastEntry;
    bool first = true, sawData = false;
    const size_t opsBefore = part.ops.size();
    size_t opsShown = opsBefore; // delivered to JobControl::opsRead
    for (;;) {
        const int m = r.nextMember(key, first);
        if (m == 0)
            break;
        if (m < 0)
            return addError(r.hitEnd() ? QStringLiteral("file ends before the end of the top-level object")
                                       : QStringLiteral("syntax error: %1").arg(r.error()),
                            r.errorOffset());
        if (key == "data") {
            sawData = true;
            if (!r.beginObject())
                return addError(QStringLiteral("\"data\" is not an object: %1").arg(r.error()), r.errorOffset());
            const std::uint64_t dataStart = r.offset();
            bool firstEntry = true;
            // After an entry is in part.ops (`at`: the input offset after it): the reservation,
            // progress and cancellation. false: cancelled.
            auto entryDone = [&](std::uint64_t at) {
                const size_t done = part.ops.size() - opsBefore;
                if (done == 1024 && r.size() > at) {
                    // Reserve from the entry size seen so far (+25 %): push_back doubling
                    // would hold the old and the new array at once, and reserved pages
                    // that are never written cost no memory.
                    const double perEntry = double(at - dataStart) / double(done);
                    const double rest = double(r.size() - at) / std::max(perEntry, 16.0);
                    part.ops.reserve(part.ops.size() + size_t(std::min(rest * 1.25, 1e8)) + 64);
                }
                if ((done & 1023) == 0 && ctx.job) {
                    ctx.job->read(part.ops.data() + opsShown, part.ops.size() - opsShown);
                    opsShown = part.ops.size();
                    if (ctx.job->cancelled()) {
                        ctx.cancelled = true;
                        return false;
                    }
                    if (r.size())
                        ctx.job->report(int(std::min<std::uint64_t>(999, at * 1000 / r.size())));
                }
                return true;
            };
            if constexpr (std::is_same_v<Reader, FastJsonReader>) {
                if (ctx.engine == JsonEngine::SimdJson) {
                    simd.closing = r.memberIndent();
                    if (!simd.closing.empty())
                        simd.closing += "},";
                }
            }
            for (;;) {
                if constexpr (std::is_same_v<Reader, FastJsonReader>) {
                    if (!simd.closing.empty() && simd.failures < kSimdFailures) {
                        const int w = readEntryWindow(r, ctx, simd, records, lb, op, tree, firstEntry, lastEntry, entryDone);
                        if (w < 0)
                            return false; // cancelled
                        if (w > 0)
                            continue; // the next window, if the buffer holds one
                    }
                }
                const int e = r.nextMember(entry, firstEntry);
                if (e == 0)
                    break;
                const size_t salvaged = part.ops.size() - opsBefore;
                if (e < 0) {
                    if (r.hitEnd())
                        return addError(lastEntry.empty()
                                            ? QStringLiteral("file ends inside \"data\" before the first entry")
                                            : QStringLiteral("file ends after entry %1; %2 complete entries salvaged")
                                                  .arg(qs(lastEntry))
                                                  .arg(salvaged),
                                        r.errorOffset());
                    return addError(QStringLiteral("syntax error after entry %1: %2; %3 complete entries salvaged")
                                        .arg(qs(lastEntry), r.error())
                                        .arg(salvaged),
                                    r.errorOffset());
                }
                const std::uint64_t entryStart = r.offset();
                const EntryKind kind = entryKind(entry);
                bool inTree = true, parsed = false;
                if constexpr (std::is_same_v<Reader, FastJsonReader>) {
                    if (ctx.engine != JsonEngine::RapidJsonTree && kind != EntryKind::Debug)
                        parsed = records.parse(r, kind == EntryKind::ParametersGrad, op, tree, inTree);
                    else
                        parsed = r.parseValue(tree);
                } else {
                    parsed = r.parseValue(tree);
                }
                if (!parsed) {
                    // The offset of a truncated entry is where its value starts: everything
                    // before it was read.
                    if (r.hitEnd())
                        return addError(QStringLiteral("file ends inside entry %1 (%2); %3 complete entries salvaged")
                                            .arg(qs(entry), r.error())
                                            .arg(salvaged),
                                        entryStart);
                    return addError(QStringLiteral("syntax error inside entry %1: %2; %3 complete entries salvaged")
                                        .arg(qs(entry), r.error())
                                        .arg(salvaged),
                                    r.errorOffset());
                }
                if (inTree) {
                    convertEntry(ctx, lb, entry, kind, tree, path);
                } else {
                    nameOp(ctx, entry, op);
                    lb.finish(op);
                    part.ops.push_back(std::move(op));
                }
                lastEntry.swap(entry);
                if (!entryDone(r.offset()))
                    return false;
            }
            continue;
        }
        if (!r.parseValue(tree))
            return addError(QStringLiteral("syntax error in \"%1\": %2").arg(qs(key), r.error()), r.errorOffset());
        const JsonNode &v = tree.root();
        const QString text = v.kind == JsonNode::String ? ctx.pool.get(tree.text(v)) : QString();
        if (key == "task")
            part.task = text;
        else if (key == "level")
            part.level = text;
        else if (key == "framework")
            part.framework = text;
        else if (key == "dump_data_dir")
            part.dumpDataDir = text;
    }
    if (r.peekToken() >= 0)
        return addError(QStringLiteral("unexpected data after the top-level object at offset %1").arg(r.offset()), r.offset());
    // A file msprobe wrote lists its operators under "data": without any, say which it is.
    if (!sawData)
        return addError(QStringLiteral("no \"data\" object: msprobe lists the dumped operators under \"data\""), 0);
    if (lastEntry.empty())
        return addError(QStringLiteral("no operators in \"data\""), 0);
    return true;
}

} // namespace

int dataTypeFromText(QStringView text)
{
    QString s = text.trimmed().toString().toLower();
    if (s.startsWith(QLatin1String("torch.")))
        s = s.mid(6);
    else if (s.startsWith(QLatin1String("mindspore.")))
        s = s.mid(10);
    else if (s.startsWith(QLatin1String("numpy.")))
        s = s.mid(6);
    else if (s.startsWith(QLatin1String("<class '")) && s.endsWith(QLatin1String("'>")))
        s = s.mid(8, s.size() - 10);
    struct Alias { const char *name; DataType type; };
    static constexpr Alias kAliases[] = {
        {"float32", DataType::Float32}, {"float", DataType::Float32}, {"float16", DataType::Float16},
        {"half", DataType::Float16}, {"bfloat16", DataType::BFloat16}, {"float64", DataType::Float64},
        {"double", DataType::Float64}, {"int8", DataType::Int8}, {"uint8", DataType::UInt8},
        {"int16", DataType::Int16}, {"short", DataType::Int16}, {"uint16", DataType::UInt16},
        {"int32", DataType::Int32}, {"int", DataType::Int32}, {"uint32", DataType::UInt32},
        {"int64", DataType::Int64}, {"long", DataType::Int64}, {"uint64", DataType::UInt64},
        {"bool", DataType::Bool}, {"bool_", DataType::Bool}, {"complex64", DataType::Complex64},
        {"cfloat", DataType::Complex64}, {"complex128", DataType::Complex128}, {"cdouble", DataType::Complex128},
        {"complex32", DataType::Complex32}, {"chalf", DataType::Complex32}, {"qint8", DataType::QInt8},
        {"quint8", DataType::QUInt8}, {"qint32", DataType::QInt32}, {"float8_e5m2", DataType::Float8E5M2},
        {"float8_e4m3fn", DataType::Float8E4M3FN}, {"float8_e8m0fnu", DataType::Float8E8M0},
        {"float8_e8m0", DataType::Float8E8M0}, {"hifloat8", DataType::HiFloat8},
        {"float4_e2m1fn_x2", DataType::Float4E2M1}, {"int4", DataType::Int4},
        // MindSpore's spellings (lower-cased above): Float8E4M3FN, Float8E5M2, Float8E8M0, HiFloat8
        {"float8e4m3fn", DataType::Float8E4M3FN}, {"float8e5m2", DataType::Float8E5M2},
        {"float8e8m0", DataType::Float8E8M0}, {"float8e8m0fnu", DataType::Float8E8M0},
    };
    for (const Alias &a : kAliases)
        if (s == QLatin1String(a.name))
            return int(a.type);
    return int(DataType::Undefined);
}

QString forwardTwin(const QString &entry)
{
    if (entry.endsWith(QLatin1String(".backward")))
        return entry.chopped(9) + QLatin1String(".forward");
    static const QRegularExpression re(QStringLiteral("\\.backward\\.(\\d+)$"));
    const auto m = re.match(entry);
    if (m.hasMatch())
        return entry.left(m.capturedStart()) + QLatin1String(".forward.") + m.captured(1);
    return {};
}

namespace {
// The backward counterpart of a forward module/API name (inverse of forwardTwin).
QString backwardTwin(const QString &entry)
{
    if (entry.endsWith(QLatin1String(".forward")))
        return entry.chopped(8) + QLatin1String(".backward");
    static const QRegularExpression re(QStringLiteral("\\.forward\\.(\\d+)$"));
    const auto m = re.match(entry);
    if (m.hasMatch())
        return entry.left(m.capturedStart()) + QLatin1String(".backward.") + m.captured(1);
    return {};
}

/// Entry name -> op index, as a sorted array of (hash, index): 16 bytes per entry instead of
/// a hash table node per name (a 10^6-entry dump.json).
class NameIndex
{
public:
    explicit NameIndex(const std::vector<OpRecord> &ops) : m_ops(ops)
    {
        m_keys.reserve(ops.size());
        for (size_t i = 0; i < ops.size(); ++i)
            m_keys.push_back({std::hash<std::string_view>{}(ops[i].opName.utf8()), int(i)});
        std::sort(m_keys.begin(), m_keys.end());
    }
    /// The op named `name` (UTF-8), -1 if none.
    int find(std::string_view utf8) const
    {
        const size_t h = std::hash<std::string_view>{}(utf8);
        auto it = std::lower_bound(m_keys.begin(), m_keys.end(), std::pair<size_t, int>{h, -1});
        for (; it != m_keys.end() && it->first == h; ++it)
            if (m_ops[size_t(it->second)].opName.utf8() == utf8)
                return it->second;
        return -1;
    }
    int find(const QString &name) const
    {
        const QByteArray u = name.toUtf8();
        return find(std::string_view(u.constData(), size_t(u.size())));
    }
    bool contains(const QString &name) const { return find(name) >= 0; }

private:
    const std::vector<OpRecord> &m_ops;
    std::vector<std::pair<size_t, int>> m_keys;
};

QStringList stringList(const JsonTree &t, std::uint32_t arr, StringPool *pool)
{
    QStringList out;
    const JsonNode &n = t.node(arr);
    if (n.kind != JsonNode::Array)
        return out;
    out.reserve(n.count);
    for (std::uint32_t c = n.first; c; c = t.node(c).next)
        if (t.node(c).kind == JsonNode::String) {
            const std::string_view s = t.text(t.node(c));
            out << (pool ? pool->get(s) : QString::fromUtf8(s.data(), qsizetype(s.size())));
        }
    return out;
}

// stack.json, both formats (§4). Fills op.stack for the entries it names.
void readStackJson(const QString &absFile, const QString &relFile, const NameIndex &byName,
                   IndexPart &part)
{
    FastJsonReader r;
    if (!r.open(absFile)) {
        part.errors.push_back({relFile, QStringLiteral("cannot open: %1").arg(r.error()), 0});
        return;
    }
    if (!r.beginObject()) {
        part.errors.push_back({relFile, QStringLiteral("not a stack.json object: %1").arg(r.error()), r.errorOffset()});
        return;
    }
    JsonTree tree;
    std::string key;
    bool first = true;
    QHash<QString, int> oldFormatStacks; // identical old-format stacks share one list
    for (;;) {
        const int m = r.nextMember(key, first);
        if (m == 0)
            break;
        if (m < 0 || !r.parseValue(tree)) {
            part.errors.push_back({relFile, QStringLiteral("%1 (stacks before it were kept)").arg(r.error()), r.errorOffset()});
            return;
        }
        const JsonNode &root = tree.root();
        if (root.kind != JsonNode::Array)
            continue;
        const JsonNode &firstElem = tree.node(root.first ? root.first : 0);
        if (root.count == 2 && firstElem.kind == JsonNode::Array && isNumber(key)) {
            // New format: [[entries], [lines]].
            const QStringList lines = stringList(tree, firstElem.next, nullptr);
            const int index = int(part.stacks.size());
            part.stacks.push_back(lines);
            for (std::uint32_t c = firstElem.first; c; c = tree.node(c).next) {
                if (tree.node(c).kind != JsonNode::String)
                    continue;
                const std::string_view e = tree.text(tree.node(c));
                if (const int o = byName.find(e); o >= 0)
                    part.ops[size_t(o)].stack = index;
            }
            continue;
        }
        // Old format: "entry": [lines].
        const int it = byName.find(std::string_view(key));
        if (it < 0)
            continue;
        const QStringList lines = stringList(tree, 0, nullptr);
        const QString joined = lines.join(QLatin1Char('\x1f'));
        auto s = oldFormatStacks.constFind(joined);
        if (s == oldFormatStacks.constEnd()) {
            s = oldFormatStacks.insert(joined, int(part.stacks.size()));
            part.stacks.push_back(lines);
        }
        part.ops[size_t(it)].stack = *s;
    }
}

// construct.json (§5): plain `child: parent|null` and Megatron `child: [parent, micro_step]`.
void readConstructJson(const QString &absFile, const QString &relFile, const NameIndex &byName,
                       IndexPart &part)
{
    FastJsonReader r;
    if (!r.open(absFile)) {
        part.errors.push_back({relFile, QStringLiteral("cannot open: %1").arg(r.error()), 0});
        return;
    }
    if (!r.beginObject()) {
        part.errors.push_back({relFile, QStringLiteral("not a construct.json object: %1").arg(r.error()), r.errorOffset()});
        return;
    }
    JsonTree tree;
    std::string key;
    bool first = true;
    // Parents of dumped entries go straight into their records; only keys without a record
    // (optimizer phases, entries outside the dump) are kept aside, for the twin rule below.
    std::vector<bool> listed(part.ops.size(), false);
    QHash<QString, QString> others;
    TextArena texts;
    std::unordered_map<std::string, PackedText> outside; // parents without a record, shared
    for (;;) {
        const int m = r.nextMember(key, first);
        if (m == 0)
            break;
        if (m < 0 || !r.parseValue(tree)) {
            part.errors.push_back({relFile, QStringLiteral("%1 (parents before it were kept)").arg(r.error()), r.errorOffset()});
            break;
        }
        if (key == "megatron_micro_step_number")
            continue;
        const JsonNode &root = tree.root();
        std::uint32_t p = 0;
        if (root.kind == JsonNode::Array && root.first)
            p = root.first; // Megatron [parent, micro_step]
        const JsonNode &pn = tree.node(p);
        const std::string_view parentText = pn.kind == JsonNode::String ? tree.text(pn) : std::string_view();
        const int it = byName.find(std::string_view(key));
        if (it < 0) {
            others.insert(QString::fromUtf8(key.data(), qsizetype(key.size())),
                          parentText.empty() ? QString() : QString::fromUtf8(parentText.data(), qsizetype(parentText.size())));
            continue;
        }
        PackedText parent;
        if (!parentText.empty()) {
            // Share the parent's text with its own record.
            if (const int po = byName.find(parentText); po >= 0) {
                parent = part.ops[size_t(po)].opName;
            } else {
                auto [slot, added] = outside.try_emplace(std::string(parentText));
                if (added)
                    slot->second = texts.add(parentText);
                parent = slot->second;
            }
        }
        part.ops[size_t(it)].parent = std::move(parent);
        listed[size_t(it)] = true;
    }
    // "Parent inferred": a backward node's parent is the backward twin of its forward twin's
    // parent when that node exists and the recorded parent differs (in-place module reuse).
    for (size_t i = 0; i < part.ops.size(); ++i) {
        OpRecord &op = part.ops[i];
        if (!listed[i])
            continue; // not in construct.json at all (L1): nothing to correct
        const QString fwd = forwardTwin(op.opName);
        if (fwd.isEmpty())
            continue;
        QString fwdParent;
        if (const int f = byName.find(fwd); f >= 0) {
            if (!listed[size_t(f)])
                continue;
            fwdParent = part.ops[size_t(f)].parent;
        } else if (const auto o = others.constFind(fwd); o != others.constEnd()) {
            fwdParent = *o;
        }
        if (fwdParent.isEmpty())
            continue;
        const QString expected = backwardTwin(fwdParent);
        if (expected.isEmpty() || expected == op.parent)
            continue;
        if (!byName.contains(expected) && !others.contains(expected))
            continue;
        op.parent = expected;
        part.parentInferred.push_back(int(i));
    }
}

} // namespace

bool readDumpJson(const QString &absFile, const QString &relDir, const QString &relFile, const DumpLevels &levels,
                  IndexPart &part, const JobControl *job, JsonEngine engine)
{
    auto read = [&](auto &r) {
        if (!r.open(absFile)) {
            part.errors.push_back({relFile, QStringLiteral("cannot open: %1").arg(r.error()), 0});
            return false;
        }
        DumpJsonContext ctx;
        ctx.init(relDir, relFile, levels, part, job);
        ctx.engine = engine;
        return readDumpJsonStream(r, ctx);
    };
    if (engine == JsonEngine::Tokenizer) {
        JsonStreamReader r;
        return read(r);
    }
    FastJsonReader r;
    return read(r);
}

std::uint64_t simdWindowEntries() { return t_windowEntries; }

bool readDumpJsonText(std::string text, const QString &relDir, const QString &relFile, const DumpLevels &levels,
                      IndexPart &part, JsonEngine engine)
{
    DumpJsonContext ctx;
    ctx.init(relDir, relFile, levels, part, nullptr);
    if (engine == JsonEngine::Tokenizer) {
        JsonStreamReader r;
        r.setData(std::move(text));
        return readDumpJsonStream(r, ctx);
    }
    ctx.engine = engine;
    FastJsonReader r;
    r.setData(std::move(text));
    return readDumpJsonStream(r, ctx);
}

bool looksLikeMsprobeRankDir(const QString &dir)
{
    return QFileInfo::exists(dir + QStringLiteral("/dump.json")) || QFileInfo::exists(dir + QStringLiteral("/debug.json"));
}

bool isGenerationC(const QString &dir)
{
    static const QRegularExpression re(QStringLiteral("^proc[0-9]+$"));
    return re.match(QFileInfo(dir).fileName()).hasMatch();
}

namespace {

/// The folder of the tensor files when it is not `dump_tensor_data/` beside the dump.json:
/// msprobe writes the folder it saved into as `dump_data_dir` (an absolute path on the machine
/// that dumped: MindSpore acc_check's `error_data/`, a copied or renamed dump). Relative to
/// the root: the folder of that name beside the dump.json, else the path itself when it lies
/// inside the root. Empty when dump_tensor_data/ is there or nothing else is found.
QString tensorDirOf(const QString &rootDir, const QString &dir, const QString &relDir, const QString &dumpDataDir)
{
    if (dumpDataDir.isEmpty() || QFileInfo(dir + QStringLiteral("/dump_tensor_data")).isDir())
        return {};
    QString written = dumpDataDir;
    written.replace(QLatin1Char('\\'), QLatin1Char('/'));
    while (written.endsWith(QLatin1Char('/')))
        written.chop(1);
    const QString name = written.section(QLatin1Char('/'), -1);
    if (!name.isEmpty() && name != QLatin1String("..") && name != QLatin1String(".")
        && QFileInfo(dir + QLatin1Char('/') + name).isDir())
        return joinPath(relDir, name);
    const QString root = QDir::cleanPath(rootDir) + QLatin1Char('/');
    const QString clean = QDir::cleanPath(written);
    if (clean.startsWith(root) && QFileInfo(clean).isDir())
        return clean.mid(root.size());
    return {};
}

/// Points the tensor files of `part` (written as "<relDir>/dump_tensor_data/<data_name>") at
/// `tensorDir`.
void moveTensorFiles(IndexPart &part, const QString &relDir, const QString &tensorDir)
{
    const QString from = joinPath(relDir, QStringLiteral("dump_tensor_data/"));
    const QString to = tensorDir + QLatin1Char('/');
    for (OpRecord &op : part.ops)
        for (TensorRecord &t : op.tensors) {
            if (!t.location().startsWith(from))
                continue;
            TensorFields f = t.fields();
            f.location = to + f.location.mid(from.size());
            t = TensorRecord(f);
        }
}

} // namespace

Result<IndexPart> indexRankDir(const QString &rootDir, const QString &relDir, const DumpLevels &levels,
                                   const JobControl *job)
{
    const QString dir = relDir.isEmpty() ? rootDir : rootDir + QLatin1Char('/') + relDir;
    const QString dumpJson = dir + QStringLiteral("/dump.json");
    const QString debugJson = dir + QStringLiteral("/debug.json");
    const bool hasDump = QFileInfo::exists(dumpJson), hasDebug = QFileInfo::exists(debugJson);
    if (!hasDump && !hasDebug)
        return Result<IndexPart>::failure(QStringLiteral("%1: no dump.json or debug.json").arg(dir));
    IndexPart part;
    const QString relFileDump = joinPath(relDir, QStringLiteral("dump.json"));
    if (hasDump)
        readDumpJson(dumpJson, relDir, relFileDump, levels, part, job);
    if (job && job->cancelled())
        return Result<IndexPart>::failure(QStringLiteral("indexing cancelled"));
    if (hasDebug) {
        IndexPart debug;
        JobControl debugJob; // its operators join the part after dump.json's: delivered with the part
        if (job) {
            debugJob.cancelFlag = job->cancelFlag;
            debugJob.progress = job->progress;
        }
        readDumpJson(debugJson, relDir, joinPath(relDir, QStringLiteral("debug.json")), levels, debug, job ? &debugJob : nullptr);
        if (job && job->cancelled())
            return Result<IndexPart>::failure(QStringLiteral("indexing cancelled"));
        if (!hasDump) {
            part.task = debug.task;
            part.level = debug.level;
            part.framework = debug.framework;
            part.dumpDataDir = debug.dumpDataDir;
        }
        for (OpRecord &op : debug.ops) {
            op.timestamp = part.ops.size();
            part.ops.push_back(std::move(op));
        }
        part.errors.insert(part.errors.end(), debug.errors.begin(), debug.errors.end());
    }
    if (const QString tensorDir = tensorDirOf(rootDir, dir, relDir, part.dumpDataDir); !tensorDir.isEmpty())
        moveTensorFiles(part, relDir, tensorDir);
    const QString stackJson = dir + QStringLiteral("/stack.json");
    const QString constructJson = dir + QStringLiteral("/construct.json");
    const bool hasStack = QFileInfo::exists(stackJson), hasConstruct = QFileInfo::exists(constructJson);
    std::optional<NameIndex> byNameStore;
    if (hasStack || hasConstruct)
        byNameStore.emplace(part.ops);
    if (hasStack) {
        readStackJson(stackJson, joinPath(relDir, QStringLiteral("stack.json")), *byNameStore, part);
        // Stacks are collected on forward hooks only: backward entries use their twin's.
        for (OpRecord &op : part.ops) {
            if (op.stack >= 0)
                continue;
            if (const int f = byNameStore->find(forwardTwin(op.opName)); f >= 0)
                op.stack = part.ops[size_t(f)].stack;
        }
    }
    if (hasConstruct)
        readConstructJson(constructJson, joinPath(relDir, QStringLiteral("construct.json")), *byNameStore, part);
    if (job && job->cancelled())
        return Result<IndexPart>::failure(QStringLiteral("indexing cancelled"));
    return part;
}

} // namespace msprobe
} // namespace ds
