// The first divergence of each scope: which rows disagree (parameters and model inputs with
// their own rule), the origin (innermost operator, its cause and enclosing modules) and the
// chain after it. The rule is written down in docs/COMPARE.md "First divergence".
#include "compare.h"
#include "comparematch.h"

#include "msprobenames.h"
#include "formats/readers.h"

#include <QHash>
#include <QRegularExpression>
#include <QSet>
#include <algorithm>
#include <array>
#include <cstring>
#include <unordered_map>

namespace ds {

namespace {

enum class Role : std::uint8_t { Data, Parameter, ModelInput };

struct RowInfo
{
    Role role = Role::Data;
    bool bad = false;
    QString parameter;  ///< Role::Parameter: "fc1.weight" (may be empty)
    int module = -1;    ///< the module entry naming the parameter
    bool fromStack = false;
};

/// A tensor's identity as far as the NPU record tells: dtype, element count and the recorded
/// statistics (their bits), else the checksum. Invalid when the record has neither.
struct Signature
{
    bool valid = false;
    bool stats = false; ///< statistics, else checksum
    int dataType = 0;
    std::uint8_t present = 0;
    std::uint64_t count = 0;
    std::array<std::uint64_t, 4> bits{};
    const QString *typeName = nullptr; ///< the record's (its shared leaf outlives the signature)
    QString checksum;                  ///< lower-cased; only without statistics
    bool operator==(const Signature &o) const
    {
        return valid == o.valid && stats == o.stats && dataType == o.dataType && present == o.present && count == o.count
               && bits == o.bits && (typeName == o.typeName || type() == o.type()) && checksum == o.checksum;
    }
    const QString &type() const
    {
        static const QString none;
        return typeName ? *typeName : none;
    }
};

size_t qHash(const Signature &s, size_t seed = 0)
{
    return qHashMulti(seed, s.count, s.bits[0], s.bits[1], s.bits[2], s.bits[3], s.dataType, s.checksum);
}

Signature signature(const TensorRecord &t)
{
    Signature s;
    if (!t.isTensor())
        return s;
    std::uint64_t n = 1;
    for (auto d : t.shape())
        n *= d;
    s.typeName = &t.typeName();
    s.dataType = t.dataType();
    s.count = n;
    const RecordedStats r = t.recorded();
    if (r.present) {
        auto bits = [](double v) {
            std::uint64_t b;
            std::memcpy(&b, &v, sizeof b);
            return b;
        };
        s.valid = s.stats = true;
        s.present = std::uint8_t(r.present);
        s.bits = {bits(r.max), bits(r.min), bits(r.mean), bits(r.norm)};
        return s;
    }
    const QString sum = t.checksum();
    if (!sum.isEmpty()) {
        s.valid = true;
        s.checksum = sum.toLower();
    }
    return s;
}

/// The signatures seen so far: an open-addressing table of (hash, record) over the records
/// that brought each distinct signature (compared by recomputing theirs on a hash hit). Sized
/// for a scope's rows up front: no copies of signatures, no regrowth.
class SignatureSet
{
public:
    explicit SignatureSet(size_t expected)
    {
        size_t size = 1024;
        while (size < 2 * expected)
            size *= 2;
        m_slots.resize(size);
        m_records.reserve(expected);
    }
    /// Asks the cache for the slot where a signature of hash `h` (qHash) starts its probe.
    void prefetch(size_t h) const { __builtin_prefetch(&m_slots[h & (m_slots.size() - 1)]); }
    /// Adds `s` (of hash `h`), the signature of `t`; false if an equal one was there already.
    bool insert(const Signature &s, size_t h, const TensorRecord &t)
    {
        Slot &slot = m_slots[find(s, h)];
        if (slot.index >= 0)
            return false;
        slot = {h, std::int64_t(m_records.size())};
        m_records.push_back(&t);
        if (m_records.size() * 2 > m_slots.size())
            grow();
        return true;
    }

private:
    struct Slot
    {
        size_t hash = 0;
        std::int64_t index = -1;
    };
    size_t find(const Signature &s, size_t h) const
    {
        const size_t mask = m_slots.size() - 1;
        for (size_t i = h & mask;; i = (i + 1) & mask) {
            const Slot &slot = m_slots[i];
            if (slot.index < 0 || (slot.hash == h && signature(*m_records[size_t(slot.index)]) == s))
                return i;
        }
    }
    void grow()
    {
        std::vector<Slot> old(m_slots.size() * 2);
        old.swap(m_slots);
        const size_t mask = m_slots.size() - 1;
        for (const Slot &slot : old)
            if (slot.index >= 0) {
                size_t i = slot.hash & mask;
                while (m_slots[i].index >= 0)
                    i = (i + 1) & mask;
                m_slots[i] = slot;
            }
    }
    std::vector<Slot> m_slots;
    std::vector<const TensorRecord *> m_records; ///< of the index being read (outlives the set)
};

QString entryOf(const OpRecord &op) { return opMatchKey(op); }

/// The positional argument index of an input row ("input.1" -> 1), -1 for kwargs and nesting.
int argIndex(const QString &key)
{
    static const QRegularExpression re(QStringLiteral("^input\\.(\\d+)$"));
    const auto m = re.match(key);
    return m.hasMatch() ? m.captured(1).toInt() : -1;
}

/// The arguments of the first call of `function` in a line of code (the line may end before
/// the closing parenthesis), split at top-level commas.
QStringList callArguments(const QString &code, const QString &function)
{
    qsizetype at = -1;
    if (function.isEmpty()) {
        static const QRegularExpression call(QStringLiteral("[\\w.]+\\("));
        const auto m = call.match(code);
        if (m.hasMatch())
            at = m.capturedEnd() - 1;
    } else {
        const QRegularExpression call(QStringLiteral("\\b%1\\(").arg(QRegularExpression::escape(function)));
        const auto m = call.match(code);
        if (m.hasMatch())
            at = m.capturedEnd() - 1;
    }
    QStringList args;
    if (at < 0)
        return args;
    int depth = 0;
    QString cur;
    for (qsizetype i = at + 1; i < code.size(); ++i) {
        const QChar c = code[i];
        if (c == QLatin1Char('(') || c == QLatin1Char('[') || c == QLatin1Char('{'))
            ++depth;
        if (c == QLatin1Char(')') || c == QLatin1Char(']') || c == QLatin1Char('}')) {
            if (depth == 0)
                break;
            --depth;
        }
        if (c == QLatin1Char(',') && depth == 0) {
            args << cur.trimmed();
            cur.clear();
            continue;
        }
        cur += c;
    }
    if (!cur.trimmed().isEmpty())
        args << cur.trimmed();
    return args;
}

/// A frame of an msprobe stack line: "File <path>, line <n>, in <func>, \n <code>".
struct Frame
{
    QString path, code;
};

Frame frameOf(const QString &line)
{
    Frame f;
    const qsizetype nl = line.indexOf(QLatin1Char('\n'));
    const QString head = nl < 0 ? line : line.left(nl);
    f.code = nl < 0 ? QString() : line.mid(nl + 1).trimmed();
    if (head.startsWith(QLatin1String("File "))) {
        const qsizetype end = head.indexOf(QLatin1String(", line "));
        f.path = head.mid(5, end < 0 ? -1 : end - 5);
    }
    return f;
}

/// The parameter an API call reads at positional argument `index`, from its call stack:
/// `self.<p>` in the call (or, when the call passes a local name, in the caller's call in the
/// same file), and the module attribute `self.<m>(` in the first frame outside torch.
/// "m.p", or empty. A heuristic for dumps without module entries (level L1).
QString stackParameter(const DumpIndex &index, const OpRecord &op, int argument)
{
    if (argument < 0 || op.stack < 0 || size_t(op.stack) >= index.stacks.size())
        return {};
    const QStringList entry = entryOf(op).split(QLatin1Char('.'));
    if (entry.size() < 3)
        return {};
    std::vector<Frame> frames;
    for (const QString &line : index.stacks[size_t(op.stack)])
        frames.push_back(frameOf(line));
    if (frames.empty())
        return {};
    static const QRegularExpression selfAttr(QStringLiteral("^self\\.(\\w+)$")), name(QStringLiteral("^\\w+$"));
    QString param;
    QStringList args = callArguments(frames[0].code, entry[1]);
    for (size_t f = 0; f < frames.size() && argument < args.size(); ++f) {
        const QString arg = args[argument];
        if (const auto m = selfAttr.match(arg); m.hasMatch()) {
            param = m.captured(1);
            break;
        }
        if (!name.match(arg).hasMatch() || f + 1 >= frames.size() || frames[f + 1].path != frames[0].path)
            break;
        args = callArguments(frames[f + 1].code, {}); // the caller in the same file passes it on
    }
    if (param.isEmpty())
        return {};
    static const QRegularExpression moduleCall(QStringLiteral("self\\.(\\w+)\\s*\\("));
    for (size_t f = 1; f < frames.size(); ++f) {
        if (frames[f].path.contains(QLatin1String("/torch/")) || frames[f].path.contains(QLatin1String("/msprobe/")))
            continue;
        const auto m = moduleCall.match(frames[f].code);
        return m.hasMatch() ? m.captured(1) + QLatin1Char('.') + param : QString();
    }
    return {};
}

/// What findDivergences needs to know of an operator's reader.
struct SourceFlags
{
    bool known = false, msprobe = false, opsAreFiles = false;
};

SourceFlags flagsOf(const OpRecord &op) { return {true, isMsprobeOp(op), formatReader(op.source).opsAreFiles()}; }

struct OpSpan
{
    int op;
    size_t begin, end; ///< rows [begin, end)
};

} // namespace

QString divergenceCauseName(DivergenceCause c)
{
    switch (c) {
    case DivergenceCause::Output: return QStringLiteral("output");
    case DivergenceCause::Parameter: return QStringLiteral("parameter");
    case DivergenceCause::Input: return QStringLiteral("input");
    }
    return {};
}

void findDivergences(const DumpIndex &npu, CompareResult &result, Verdict level)
{
    result.divergences.clear();
    // operators (consecutive rows) grouped by scope, in row order
    std::vector<QString> order;
    QHash<QString, std::vector<OpSpan>> scopes;
    const DumpLevels *lastLevels = nullptr;
    QString lastScope;
    for (size_t i = 0; i < result.rows.size();) {
        const int op = result.rows[i].npu.op;
        const size_t begin = i;
        while (i < result.rows.size() && result.rows[i].npu.op == op)
            ++i;
        const DumpLevels *levels = &*npu.ops[size_t(op)].levels;
        if (levels != lastLevels) { // levels are shared per directory or file
            lastLevels = levels;
            lastScope = scopeKey(*levels);
        }
        const QString &scope = lastScope;
        auto it = scopes.find(scope);
        if (it == scopes.end()) {
            order.push_back(scope);
            it = scopes.insert(scope, {});
        }
        it->push_back({op, begin, i});
    }
    const Verdict statsLevel = std::min(level, Verdict::Warning);
    std::array<SourceFlags, 256> sourceFlags{};
    std::vector<RowInfo> info(result.rows.size());

    for (const QString &scope : order) {
        const std::vector<OpSpan> &spans = scopes.value(scope);
        // per operator: msprobe entry or not, forward or not, and its module name (module
        // entries only: the other entries' names are not needed as text)
        struct OpInfo
        {
            bool framework = false, forward = false;
            int module = -1; ///< index into modules
        };
        std::vector<OpInfo> opInfo(spans.size());
        std::vector<ModuleName> modules;
        struct ModuleEntry
        {
            int op = -1;
            size_t begin = 0, end = 0; ///< its rows
        };
        QHash<QString, ModuleEntry> moduleByName; // module entries of the scope by entry name (the last)
        for (size_t k = 0; k < spans.size(); ++k) {
            const OpSpan &s = spans[k];
            const OpRecord &op = npu.ops[size_t(s.op)];
            const SourceFlags &src = sourceFlags[size_t(op.source)].known ? sourceFlags[size_t(op.source)]
                                                                           : (sourceFlags[size_t(op.source)] = flagsOf(op));
            OpInfo &oi = opInfo[k];
            oi.framework = src.msprobe;
            QString entry;
            if (src.msprobe && !src.opsAreFiles) { // the entry is the path's last part (opMatchKey): read its bytes
                const std::string_view path = op.relPath.utf8();
                const size_t slash = path.rfind('/');
                const std::string_view e = slash == std::string_view::npos ? path : path.substr(slash + 1);
                // isForwardEntry on the bytes (ASCII never occurs inside a UTF-8 sequence)
                oi.forward = e.ends_with(".forward") || e.find(".forward.") != std::string_view::npos;
                if (!e.starts_with("Module.") && !e.starts_with("Cell.")) // moduleNameOf: not a module
                    continue;
                entry = QString::fromUtf8(e.data(), qsizetype(e.size()));
            } else {
                entry = entryOf(op);
                oi.forward = src.msprobe && isForwardEntry(entry);
            }
            ModuleName m = moduleNameOf(entry);
            if (!m.isModule())
                continue;
            oi.module = int(modules.size());
            modules.push_back(std::move(m));
            moduleByName.insert(entry, {s.op, s.begin, s.end});
        }

        // Pass 1, in execution order: the role of every row and whether it disagrees.
        size_t scopeRows = 0;
        for (const OpSpan &sp : spans)
            scopeRows += sp.end - sp.begin;
        SignatureSet seen(scopeRows);
        // The rows' signature hashes first: the table is far larger than the cache, so each
        // row's slot is prefetched a few rows ahead of its probe.
        std::vector<size_t> sigHash;
        sigHash.reserve(scopeRows);
        for (const OpSpan &sp : spans)
            for (size_t r = sp.begin; r < sp.end; ++r)
                sigHash.push_back(qHash(signature(npu.tensor(result.rows[r].npu))));
        constexpr size_t kAhead = 16;
        for (size_t q = 0; q < std::min(kAhead, sigHash.size()); ++q)
            seen.prefetch(sigHash[q]);
        size_t q = 0; // the row's place in sigHash
        const ModuleName noModule;
        // The module entries enclosing a parent name, innermost first, with their names (a
        // repeated one ends the chain), and the parameter rows of a module entry in row order ("weight"
        // for "parameters.weight"): found once per operator and per module entry, not per row.
        struct EnclosingModule
        {
            QString name;
            const ModuleEntry *entry;
        };
        auto enclosingModules = [&](QString parent) {
            std::vector<EnclosingModule> chain;
            while (!parent.isEmpty() && chain.size() < 256) {
                const auto found = moduleByName.constFind(parent);
                if (found == moduleByName.cend() || found->op < 0
                    || std::any_of(chain.begin(), chain.end(), [&](const EnclosingModule &e) { return e.entry == &*found; }))
                    break;
                chain.push_back({parent, &*found});
                parent = npu.ops[size_t(found->op)].parent;
            }
            return chain;
        };
        struct ParameterRow
        {
            size_t row;
            QString name;
        };
        std::unordered_map<const ModuleEntry *, std::vector<ParameterRow>> parameterRowsOf;
        auto parameterRows = [&](const ModuleEntry *e) -> const std::vector<ParameterRow> & {
            auto [it, added] = parameterRowsOf.try_emplace(e);
            if (added)
                for (size_t k = e->begin; k < e->end; ++k)
                    if (auto name = parameterOfKey(npu.ops[size_t(e->op)], npu.tensor(result.rows[k].npu)))
                        it->second.push_back({k, std::move(*name)});
            return it->second;
        };
        for (size_t k = 0; k < spans.size(); ++k) {
            const OpSpan &s = spans[k];
            const OpRecord &op = npu.ops[size_t(s.op)];
            const bool framework = opInfo[k].framework, forward = opInfo[k].forward;
            std::vector<EnclosingModule> parents; // of op.parent, found at the first row that asks
            bool parentsKnown = false;
            const ModuleName &module = opInfo[k].module >= 0 ? modules[size_t(opInfo[k].module)] : noModule;
            for (size_t r = s.begin; r < s.end; ++r, ++q) {
                if (q + kAhead < sigHash.size())
                    seen.prefetch(sigHash[q + kAhead]);
                const CompareRow &row = result.rows[r];
                const TensorRecord &t = npu.tensor(row.npu);
                RowInfo &ri = info[r];
                ri = {};
                const Signature sig = signature(t);
                bool added = false; // to `seen`
                const bool parameterKey = framework && module.isModule(); // the key is needed
                const std::optional<QString> parameter = parameterKey ? parameterOfKey(op, t) : std::nullopt;
                if (parameter) {
                    ri.role = Role::Parameter;
                    ri.parameter = (module.path.isEmpty() ? QString() : module.path + QLatin1Char('.')) + *parameter;
                    ri.module = s.op;
                } else if (forward && t.io() == IoKind::Input && sig.valid) {
                    const bool first = seen.insert(sig, sigHash[q], t); // its first use
                    added = true;
                    const QString grad = first ? msprobeRequiresGrad(t) : QString(); // read only for a first use
                    if (!module.isModule()) {
                        // an API input equal to a parameter row of an enclosing module entry is that parameter
                        if (!parentsKnown) {
                            parents = enclosingModules(op.parent);
                            parentsKnown = true;
                        }
                        for (const EnclosingModule &em : parents) {
                            for (const ParameterRow &pr : parameterRows(em.entry)) {
                                const TensorRecord &p = npu.tensor(result.rows[pr.row].npu);
                                if (p.shape() == t.shape() && signature(p) == sig) {
                                    const ModuleName mn = moduleNameOf(em.name);
                                    ri.role = Role::Parameter;
                                    ri.parameter = (mn.path.isEmpty() ? QString() : mn.path + QLatin1Char('.')) + pr.name;
                                    ri.module = em.entry->op;
                                    break;
                                }
                            }
                            if (ri.role != Role::Data)
                                break;
                        }
                        // no module entries (level L1): a first-seen requires_grad input the call stack names
                        if (ri.role == Role::Data && first && grad == QLatin1String("True") && moduleByName.isEmpty()) {
                            const QString name = stackParameter(npu, op, argIndex(tensorMatchKey(op, t)));
                            if (!name.isEmpty()) {
                                ri.role = Role::Parameter;
                                ri.parameter = name;
                                ri.fromStack = true;
                            }
                        }
                    }
                    if (ri.role == Role::Data && first && grad == QLatin1String("False"))
                        ri.role = Role::ModelInput;
                }
                if (sig.valid && !added)
                    seen.insert(sig, sigHash[q], t);
                if (!row.compared())
                    continue;
                const bool byVerdict = row.verdict >= (row.mode == CompareMode::Tensor ? level : statsLevel);
                switch (ri.role) {
                case Role::Parameter: ri.bad = !row.identical; break;
                case Role::ModelInput: ri.bad = row.dtypeDiffers || byVerdict; break;
                case Role::Data: ri.bad = byVerdict; break;
                }
            }
        }

        // Pass 2: the origin (innermost), its cause and modules, and the chain.
        auto firstBad = [&](const OpSpan &s) {
            for (size_t r = s.begin; r < s.end; ++r)
                if (info[r].bad)
                    return int(r);
            return -1;
        };
        size_t first = spans.size();
        for (size_t k = 0; k < spans.size() && first == spans.size(); ++k)
            if (firstBad(spans[k]) >= 0)
                first = k;
        if (first == spans.size())
            continue;
        auto enclosing = [&](int op) {
            std::vector<int> chain;
            for (const EnclosingModule &m : enclosingModules(npu.ops[size_t(op)].parent))
                chain.push_back(m.entry->op);
            return chain;
        };
        size_t origin = first;
        for (bool moved = true; moved;) { // a module entry gives way to a disagreeing call inside it
            moved = false;
            if (!moduleNameOf(entryOf(npu.ops[size_t(spans[origin].op)])).isModule())
                break;
            for (size_t k = first; k < spans.size(); ++k) {
                if (k == origin || firstBad(spans[k]) < 0)
                    continue;
                const std::vector<int> mods = enclosing(spans[k].op);
                if (std::find(mods.begin(), mods.end(), spans[origin].op) != mods.end()) {
                    origin = k;
                    moved = true;
                    break;
                }
            }
        }
        const OpSpan &o = spans[origin];
        Divergence d;
        d.scope = scope;
        d.levels = *npu.ops[size_t(o.op)].levels;
        d.originOp = o.op;
        d.originRow = firstBad(o);
        const RowInfo &ri = info[size_t(d.originRow)];
        const CompareRow &row = result.rows[size_t(d.originRow)];
        if (ri.role == Role::Parameter) {
            d.cause = DivergenceCause::Parameter;
            d.parameter = ri.parameter;
            d.parameterModule = ri.module;
            d.parameterFromStack = ri.fromStack;
        } else {
            d.cause = row.io == IoKind::Output ? DivergenceCause::Output : DivergenceCause::Input;
        }
        d.inputsAgree = d.cause != DivergenceCause::Input;
        d.modules = enclosing(o.op);
        for (size_t k = first; k < spans.size(); ++k)
            if (k != origin && firstBad(spans[k]) >= 0
                && std::find(d.modules.begin(), d.modules.end(), spans[k].op) == d.modules.end())
                d.chain.push_back(spans[k].op);
        result.divergences.push_back(std::move(d));
    }
    // the error each operator adds, with the roles found above (addederror.h)
    std::vector<AddedRowRole> roles(info.size());
    for (size_t r = 0; r < info.size(); ++r)
        roles[r] = {info[r].role == Role::Parameter, info[r].bad};
    result.addedErrors = computeAddedErrors(npu, result, roles);
}

} // namespace ds
