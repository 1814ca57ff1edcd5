#include "msprobereader.h"

#include "dumpjsonentries.h"
#include "dumpjsonsplit.h"
#include "sidefiles.h"
#include "jsonstream.h"
#include "nameindex.h"
#include "tensor/dtype.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>

#include <algorithm>
#include <array>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>
#include <unordered_map>

#include <fcntl.h>
#include <unistd.h>

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

using namespace dumpjson;

constexpr std::uint64_t kNoStop = std::numeric_limits<std::uint64_t>::max();

QString joinPath(const QString &dir, const QString &name)
{
    return dir.isEmpty() ? name : dir + QLatin1Char('/') + name;
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
            bool firstEntry = true, reserved = false;
            size_t nextCheck = 1024;
            // After an entry (or a split file's chunk) is in part.ops (`at`: the input offset
            // after it): the reservation, progress and cancellation. false: cancelled.
            auto entryDone = [&](std::uint64_t at) {
                const size_t done = part.ops.size() - opsBefore;
                if (!reserved && done >= 1024 && r.size() > at) {
                    reserved = true;
                    // Reserve from the entry size seen so far (+25 %): push_back doubling
                    // would hold the old and the new array at once, and reserved pages
                    // that are never written cost no memory.
                    const double perEntry = double(at - dataStart) / double(done);
                    const double rest = double(r.size() - at) / std::max(perEntry, 16.0);
                    part.ops.reserve(part.ops.size() + size_t(std::min(rest * 1.25, 1e8)) + 64);
                }
                if (done < nextCheck)
                    return true;
                nextCheck = (done / 1024 + 1) * 1024;
                if (ctx.job) {
                    // every operator read so far, a worker's chunk included, in file order
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
            // A large "data" of the first dump.json layout is read on several threads.
            std::optional<DumpJsonSplit> split;
            std::uint64_t stopAt = kNoStop; // the next worker chunk's start
            if constexpr (std::is_same_v<Reader, FastJsonReader>) {
                if (ctx.engine == JsonEngine::SimdJson) {
                    simd.closing = r.memberIndent();
                    if (!simd.closing.empty()) {
                        simd.closing += "},";
                        if (part.ops.size() == opsBefore) {
                            split.emplace(r, dataStart, simd.closing, ctx);
                            if (split->active()) {
                                stopAt = split->nextStop(dataStart);
                                r.setReadAheadLimit(stopAt);
                            }
                        }
                    }
                }
            }
            for (;;) {
                if constexpr (std::is_same_v<Reader, FastJsonReader>) {
                    if (stopAt != kNoStop && r.offset() >= stopAt) {
                        // Right after an entry at a worker chunk's start: take its entries.
                        const std::uint64_t at = r.offset();
                        ChunkEntries chunk;
                        if (at == stopAt && !firstEntry && split->take(at, chunk)) {
                            for (OpRecord &o : chunk.ops) {
                                o.timestamp = part.ops.size();
                                o.levels = ctx.levels; // the worker left them empty (ChunkEntries)
                                o.dataFile = ctx.dataFile;
                                part.ops.push_back(std::move(o));
                            }
                            split->recycle(std::move(chunk.ops));
                            lastEntry.swap(chunk.lastEntry);
                            windowEntriesTaken(chunk.windowEntries);
                            r.seek(chunk.end);
                            stopAt = split->nextStop(chunk.end);
                            r.setReadAheadLimit(stopAt);
                            if (!entryDone(chunk.end))
                                return false;
                            continue;
                        }
                        stopAt = split->nextStop(at + 1);
                        r.setReadAheadLimit(stopAt);
                    }
                    if (!simd.closing.empty() && simd.failures < kSimdFailures) {
                        // In a split file, windows end at the next worker chunk at the latest.
                        const std::uint64_t left = stopAt - r.offset();
                        const int w = readEntryWindow(r, ctx, simd, records, lb, op, tree, firstEntry, lastEntry, entryDone,
                                                      left < kWindowBytes ? size_t(left) + 1 : kWindowBytes);
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

/// The lines of a stack.json stack (array `arr`), shared with the same stack read before on
/// this thread: every rank of a run runs the same code, so its rank directories hold the same
/// handful of stacks, and 1,024 ranks x 100 steps would otherwise keep 102,400 copies of each
/// (QStringList and QString are implicitly shared). Bounded: the memory is forgotten, not the
/// stacks, when a thread has seen kMaxStacks distinct ones.
QStringList sharedStack(const JsonTree &t, std::uint32_t arr)
{
    constexpr size_t kMaxStacks = 4096;
    thread_local std::unordered_map<std::string, QStringList> seen;
    std::string key;
    const JsonNode &n = t.node(arr);
    if (n.kind == JsonNode::Array)
        for (std::uint32_t c = n.first; c; c = t.node(c).next)
            if (t.node(c).kind == JsonNode::String)
                key.append(t.text(t.node(c))).push_back('\x1f');
    if (auto it = seen.find(key); it != seen.end())
        return it->second;
    if (seen.size() >= kMaxStacks)
        seen.clear();
    QStringList lines = stringList(t, arr, nullptr);
    seen.emplace(std::move(key), lines);
    return lines;
}

// stack.json, both formats (§4), as parsed before it meets a dump.json's operators: what
// depends only on the file's bytes, so that ranks with identical files share one parse.
struct StackFile
{
    struct Member
    {
        std::string key;
        bool newFormat = false;           ///< `"n": [[entries], [lines]]`, else `"entry": [lines]`
        std::vector<std::string> entries; ///< new format: the entries it names
        QStringList lines;
    };
    std::vector<Member> members; ///< in file order; members that are not arrays are left out
    bool failed = false;         ///< `error` (at `errorOffset`) after the members
    QString error;
    std::uint64_t errorOffset = 0;
};

StackFile parseStackJson(FastJsonReader &r)
{
    StackFile f;
    auto fail = [&](const QString &message) {
        f.failed = true;
        f.error = message;
        f.errorOffset = r.errorOffset();
        return f;
    };
    if (!r.beginObject())
        return fail(QStringLiteral("not a stack.json object: %1").arg(r.error()));
    JsonTree tree;
    std::string key;
    bool first = true;
    for (;;) {
        const int m = r.nextMember(key, first);
        if (m == 0)
            break;
        if (m < 0 || !r.parseValue(tree))
            return fail(QStringLiteral("%1 (stacks before it were kept)").arg(r.error()));
        const JsonNode &root = tree.root();
        if (root.kind != JsonNode::Array)
            continue;
        const JsonNode &firstElem = tree.node(root.first ? root.first : 0);
        StackFile::Member member;
        member.key = key;
        if (root.count == 2 && firstElem.kind == JsonNode::Array && isNumber(key)) {
            member.newFormat = true;
            member.lines = sharedStack(tree, firstElem.next);
            for (std::uint32_t c = firstElem.first; c; c = tree.node(c).next)
                if (tree.node(c).kind == JsonNode::String)
                    member.entries.emplace_back(tree.text(tree.node(c)));
        } else {
            member.lines = sharedStack(tree, 0);
        }
        f.members.push_back(std::move(member));
    }
    return f;
}

// Fills op.stack for the entries `f` names.
void applyStackJson(const StackFile &f, const QString &relFile, const NameIndex &byName, IndexPart &part)
{
    QHash<QString, int> oldFormatStacks; // identical old-format stacks share one list
    for (const StackFile::Member &m : f.members) {
        if (m.newFormat) {
            const int index = int(part.stacks.size());
            part.stacks.push_back(m.lines);
            for (const std::string &e : m.entries)
                if (const int o = byName.find(std::string_view(e)); o >= 0)
                    part.ops[size_t(o)].stack = index;
            continue;
        }
        const int it = byName.find(std::string_view(m.key));
        if (it < 0)
            continue;
        const QString joined = m.lines.join(QLatin1Char('\x1f'));
        auto s = oldFormatStacks.constFind(joined);
        if (s == oldFormatStacks.constEnd()) {
            s = oldFormatStacks.insert(joined, int(part.stacks.size()));
            part.stacks.push_back(m.lines);
        }
        part.ops[size_t(it)].stack = *s;
    }
    if (f.failed)
        part.errors.push_back({relFile, f.error, f.errorOffset});
}

// construct.json (§5) as parsed: plain `child: parent|null` and Megatron `child: [parent,
// micro_step]`, the parent's text ("" for none).
struct ConstructFile
{
    std::vector<std::pair<std::string, std::string>> members; ///< child, parent; file order
    bool notAnObject = false; ///< the error below and nothing else: no parent rule either
    bool failed = false;      ///< `error` (at `errorOffset`) after the members
    QString error;
    std::uint64_t errorOffset = 0;
};

ConstructFile parseConstructJson(FastJsonReader &r)
{
    ConstructFile f;
    if (!r.beginObject()) {
        f.notAnObject = f.failed = true;
        f.error = QStringLiteral("not a construct.json object: %1").arg(r.error());
        f.errorOffset = r.errorOffset();
        return f;
    }
    JsonTree tree;
    std::string key;
    bool first = true;
    for (;;) {
        const int m = r.nextMember(key, first);
        if (m == 0)
            break;
        if (m < 0 || !r.parseValue(tree)) {
            f.failed = true;
            f.error = QStringLiteral("%1 (parents before it were kept)").arg(r.error());
            f.errorOffset = r.errorOffset();
            break;
        }
        if (key == "megatron_micro_step_number")
            continue;
        const JsonNode &root = tree.root();
        std::uint32_t p = 0;
        if (root.kind == JsonNode::Array && root.first)
            p = root.first; // Megatron [parent, micro_step]
        const JsonNode &pn = tree.node(p);
        f.members.emplace_back(key, pn.kind == JsonNode::String ? std::string(tree.text(pn)) : std::string());
    }
    return f;
}

void applyConstructJson(const ConstructFile &f, const QString &relFile, const NameIndex &byName, IndexPart &part)
{
    if (f.notAnObject) {
        part.errors.push_back({relFile, f.error, f.errorOffset});
        return;
    }
    // Parents of dumped entries go straight into their records; only keys without a record
    // (optimizer phases, entries outside the dump) are kept aside, for the twin rule below.
    std::vector<bool> listed(part.ops.size(), false);
    std::unordered_map<std::string_view, std::string_view> others; // views into `f`
    TextArena &texts = threadTextArena();
    std::unordered_map<std::string_view, PackedText> outside; // parents without a record, shared
    for (const auto &[key, parentText] : f.members) {
        const int it = byName.find(std::string_view(key));
        if (it < 0) {
            others.insert_or_assign(std::string_view(key), std::string_view(parentText));
            continue;
        }
        PackedText parent;
        if (!parentText.empty()) {
            // Share the parent's text with its own record.
            if (const int po = byName.find(std::string_view(parentText)); po >= 0) {
                parent = part.ops[size_t(po)].opName;
            } else {
                auto [slot, added] = outside.try_emplace(std::string_view(parentText));
                if (added)
                    slot->second = texts.add(parentText);
                parent = slot->second;
            }
        }
        part.ops[size_t(it)].parent = std::move(parent);
        listed[size_t(it)] = true;
    }
    if (f.failed)
        part.errors.push_back({relFile, f.error, f.errorOffset});
    // "Parent inferred": a backward node's parent is the backward twin of its forward twin's
    // parent when that node exists and the recorded parent differs (in-place module reuse).
    // In UTF-8: no QString per operator of a run of millions.
    auto isOther = [&](const std::string &name) { return others.find(std::string_view(name)) != others.end(); };
    for (size_t i = 0; i < part.ops.size(); ++i) {
        OpRecord &op = part.ops[i];
        if (!listed[i])
            continue; // not in construct.json at all (L1): nothing to correct
        const std::string fwd = forwardTwinUtf8(op.opName.utf8());
        if (fwd.empty())
            continue;
        std::string_view fwdParent;
        if (const int fo = byName.find(std::string_view(fwd)); fo >= 0) {
            if (!listed[size_t(fo)])
                continue;
            fwdParent = part.ops[size_t(fo)].parent.utf8();
        } else if (const auto o = others.find(std::string_view(fwd)); o != others.end()) {
            fwdParent = o->second;
        }
        if (fwdParent.empty())
            continue;
        const std::string expected = backwardTwinUtf8(fwdParent);
        if (expected.empty() || std::string_view(expected) == op.parent.utf8())
            continue;
        if (byName.find(std::string_view(expected)) < 0 && !isOther(expected))
            continue;
        op.parent = texts.add(expected);
        part.parentInferred.push_back(int(i));
    }
}

/// A side file's parse, shared with the identical files this thread read before (the ranks of
/// a run write the same stack.json and construct.json); the file is read in one call. Missing:
/// false, nothing read. A file that cannot be read is reported as before ("cannot open: ...").
/// `folder`: the file's folder (opened by indexRankDir), -1 to go by `absFile`.
template<typename Parsed, typename Parse>
bool readSideFile(int folder, const char *name, const QString &absFile, const QString &relFile, IndexPart &part,
                  ParsedFileCache<Parsed> &cache, Parse parse, std::shared_ptr<const Parsed> &out)
{
    std::string bytes;
    const SmallFile got = folder >= 0 ? readSmallFileAt(folder, name, bytes) : readSmallFile(absFile, bytes);
    if (got == SmallFile::Missing)
        return false;
    FastJsonReader r;
    if (got == SmallFile::Failed) { // through QFile, as FastJsonReader::open says it
        if (!QFileInfo::exists(absFile))
            return false;
        if (!r.open(absFile)) {
            part.errors.push_back({relFile, QStringLiteral("cannot open: %1").arg(r.error()), 0});
            return true;
        }
        out = std::make_shared<const Parsed>(parse(r));
        return true;
    }
    out = cache.get(bytes, [&](const std::string &b) {
        r.setView(b);
        return parse(r);
    });
    return true;
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

namespace {

/// A dump.json up to this size is read in one call (from its folder's descriptor) and parsed in
/// memory; a bigger one is read by path in blocks (and split over threads, dumpjsonsplit.h).
constexpr size_t kDumpJsonInOneRead = size_t(4) << 20;

/// readDumpJson() of a file's bytes read already: the same records and errors.
bool readDumpJsonBytes(std::string bytes, const QString &relDir, const QString &relFile, const DumpLevels &levels,
                       IndexPart &part, const JobControl *job)
{
    DumpJsonContext ctx;
    ctx.init(relDir, relFile, levels, part, job);
    ctx.engine = JsonEngine::SimdJson;
    FastJsonReader r;
    r.setData(std::move(bytes));
    return readDumpJsonStream(r, ctx);
}

} // namespace

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
    // The folder is looked up once; its files are opened relative to it (a lookup of one name
    // each instead of the whole path, issue 35 item 3), and a missing file is known from its
    // open. Without the folder's descriptor, by path as before.
    const FolderFd folder(dir);
    std::string dumpBytes;
    SmallFile dumpRead = SmallFile::Failed;
    bool hasDump = false, hasDebug = false;
    if (folder) {
        dumpRead = readSmallFileAt(folder.fd(), "dump.json", dumpBytes, kDumpJsonInOneRead);
        hasDump = dumpRead == SmallFile::Read || (dumpRead == SmallFile::Failed && QFileInfo::exists(dumpJson));
        hasDebug = ::faccessat(folder.fd(), "debug.json", F_OK, 0) == 0;
    } else {
        hasDump = QFileInfo::exists(dumpJson);
        hasDebug = QFileInfo::exists(debugJson);
    }
    if (!hasDump && !hasDebug)
        return Result<IndexPart>::failure(QStringLiteral("%1: no dump.json or debug.json").arg(dir));
    IndexPart part;
    const QString relFileDump = joinPath(relDir, QStringLiteral("dump.json"));
    if (hasDump && dumpRead == SmallFile::Read)
        readDumpJsonBytes(std::move(dumpBytes), relDir, relFileDump, levels, part, job);
    else if (hasDump)
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
    // stack.json and construct.json: each read in one call and parsed once per thread for all
    // the identical files of a run's ranks (sidefiles.h).
    thread_local ParsedFileCache<StackFile> stackFiles;
    thread_local ParsedFileCache<ConstructFile> constructFiles;
    const QString relStack = joinPath(relDir, QStringLiteral("stack.json"));
    const QString relConstruct = joinPath(relDir, QStringLiteral("construct.json"));
    std::shared_ptr<const StackFile> stack;
    std::shared_ptr<const ConstructFile> construct;
    const bool hasStack = readSideFile(folder.fd(), "stack.json", dir + QStringLiteral("/stack.json"), relStack, part,
                                       stackFiles, parseStackJson, stack);
    IndexPart constructOpenError; // its errors go after stack.json's, as when it was read after it
    const bool hasConstruct = readSideFile(folder.fd(), "construct.json", dir + QStringLiteral("/construct.json"), relConstruct,
                                           constructOpenError, constructFiles, parseConstructJson, construct);
    std::optional<NameIndex> byNameStore;
    if (hasStack || hasConstruct)
        byNameStore.emplace(part.ops);
    if (stack) {
        applyStackJson(*stack, relStack, *byNameStore, part);
        // Stacks are collected on forward hooks only: backward entries use their twin's.
        for (OpRecord &op : part.ops) {
            if (op.stack >= 0)
                continue;
            if (const int f = byNameStore->find(std::string_view(forwardTwinUtf8(op.opName.utf8()))); f >= 0)
                op.stack = part.ops[size_t(f)].stack;
        }
    }
    part.errors.insert(part.errors.end(), constructOpenError.errors.begin(), constructOpenError.errors.end());
    if (construct)
        applyConstructJson(*construct, relConstruct, *byNameStore, part);
    if (job && job->cancelled())
        return Result<IndexPart>::failure(QStringLiteral("indexing cancelled"));
    return part;
}

} // namespace msprobe
} // namespace ds
