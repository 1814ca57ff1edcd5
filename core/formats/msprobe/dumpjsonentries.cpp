#include "dumpjsonentries.h"

#include <algorithm>

namespace ds::msprobe {

namespace {
thread_local std::uint64_t t_windowEntries = 0;
} // namespace

std::uint64_t simdWindowEntries() { return t_windowEntries; }

namespace dumpjson {

void windowEntriesTaken(std::uint64_t n) { t_windowEntries += n; }

TextArena &threadTextArena()
{
    thread_local TextArena arena;
    return arena;
}

namespace {
struct ThreadLeaves
{
    std::unique_ptr<LeafPool> pool;
    int holders = 0;
};
thread_local ThreadLeaves t_leaves;
} // namespace

LeafPool &holdThreadLeafPool()
{
    if (!t_leaves.pool)
        t_leaves.pool = std::make_unique<LeafPool>();
    ++t_leaves.holders;
    return *t_leaves.pool;
}

void releaseThreadLeafPool()
{
    if (--t_leaves.holders == 0 && t_leaves.pool && t_leaves.pool->size() > kThreadLeaves)
        t_leaves.pool.reset(); // its leaves live on in the records that hold them
}

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

} // namespace dumpjson
} // namespace ds::msprobe
