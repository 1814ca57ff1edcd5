#include "comparematch.h"
#include "mappingexport.h"

#include "crossframework.h"
#include "layermapping.h"
#include "dump/levels.h"
#include "msprobenames.h"
#include "formats/readers.h"
#include "util/flatmap.h"

#include <QHash>
#include <QRegularExpression>
#include <QSet>

#include <array>
#include <deque>
#include <functional>
#include <string>
#include <unordered_map>

namespace ds {

namespace {

using Ref = DumpIndex::TensorRef;
const QChar kSep(0x1f);

bool isRowTensor(const TensorRecord &t)
{
    return t.io() == IoKind::Input || t.io() == IoKind::Output || t.io() == IoKind::Parameter;
}

QString join(const QString &scope, const QString &a, const QString &b = {})
{
    return scope + kSep + a + kSep + b;
}

} // namespace

QString opMatchKey(const OpRecord &op)
{
    if (!formatReader(op.source).opsAreFiles()) { // the bytes after the last '/' ('/' is never inside a UTF-8 sequence)
        const std::string_view path = op.relPath.utf8();
        const size_t slash = path.rfind('/');
        const std::string_view entry = slash == std::string_view::npos ? path : path.substr(slash + 1);
        return QString::fromUtf8(entry.data(), qsizetype(entry.size()));
    }
    return op.headerOpName().isEmpty() ? op.opName.toString() : op.headerOpName();
}

QString tensorMatchKey(const OpRecord &op, const TensorRecord &t)
{
    if (t.name().isEmpty())
        return ioKindName(t.io()) + QLatin1Char('.') + QString::number(t.index());
    return isMsprobeOp(op) ? msprobeTensorKey(opMatchKey(op), t) : t.name();
}

std::optional<QString> parameterOfKey(const OpRecord &op, const TensorRecord &t)
{
    static const QLatin1String prefix("parameters.");
    // Other keys are t.name(), "input…" (input_args / input_kwargs) or "<io>.<index>"
    // ("parameter.0", singular): "parameters." only when the leaf's own name starts so.
    const bool file = t.storage() == TensorStorage::PtFile || t.storage() == TensorStorage::NpyFile;
    if (!file && !t.name().startsWith(prefix))
        return std::nullopt;
    const QString key = tensorMatchKey(op, t);
    if (!key.startsWith(prefix))
        return std::nullopt;
    return key.mid(prefix.size());
}

QString tensorMatchKey(const TensorRecord &t)
{
    return t.name().isEmpty() ? ioKindName(t.io()) + QLatin1Char('.') + QString::number(t.index()) : t.name();
}

QString rowName(const OpRecord &op, const TensorRecord &t)
{
    return opMatchKey(op) + QLatin1Char('.') + tensorMatchKey(op, t);
}

std::vector<int> rowTensors(const OpRecord &op)
{
    std::vector<int> out;
    out.reserve(op.tensors.size());
    for (size_t t = 0; t < op.tensors.size(); ++t)
        if (isRowTensor(op.tensors[t]))
            out.push_back(int(t));
    if (out.size() < 2 || !isMsprobeOp(op))
        return out;
    // most entries hold their leaves in section order already
    bool sorted = true;
    for (size_t i = 1, last = size_t(msprobeSection(op.tensors[size_t(out[0])])); i < out.size() && sorted; ++i) {
        const size_t section = size_t(msprobeSection(op.tensors[size_t(out[i])]));
        sorted = section >= last;
        last = section;
    }
    if (sorted)
        return out;
    std::vector<std::pair<int, int>> sections(out.size()); // the sections once per tensor
    for (size_t i = 0; i < out.size(); ++i)
        sections[i] = {msprobeSection(op.tensors[size_t(out[i])]), out[i]};
    const auto bySection = [](const std::pair<int, int> &a, const std::pair<int, int> &b) { return a.first < b.first; };
    std::stable_sort(sections.begin(), sections.end(), bySection);
    for (size_t i = 0; i < out.size(); ++i)
        out[i] = sections[i].second;
    return out;
}

RowNamer::RowNamer(const DumpIndex &index) : m_index(index) {}

RowNamer::~RowNamer() = default;

QString RowNamer::name(const DumpIndex::TensorRef &ref)
{
    const OpRecord &op = m_index.ops[size_t(ref.op)];
    if (ref.op != m_op) {
        m_op = ref.op;
        m_opKey = opMatchKey(op);
        std::int8_t &ms = m_msprobe[size_t(op.source)];
        if (ms < 0)
            ms = isMsprobeOp(op) ? 1 : 0;
        m_opMsprobe = ms == 1;
    }
    const TensorRecord &t = op.tensors[size_t(ref.tensor)];
    const LeafInfo *leaf = t.leafInfo();
    // the key depends on the leaf alone, except msprobe leaves named after their data file
    const bool cacheable = leaf && !(m_opMsprobe && (t.storage() == TensorStorage::PtFile || t.storage() == TensorStorage::NpyFile));
    if (!cacheable)
        return m_opKey + QLatin1Char('.') + tensorMatchKey(op, t);
    const auto key = std::make_pair(leaf, m_opMsprobe);
    auto it = m_keys.find(key);
    if (it == m_keys.end())
        it = m_keys.emplace(key, tensorMatchKey(op, t)).first;
    return m_opKey + QLatin1Char('.') + it->second;
}

QString fuzzyOpName(const QString &name)
{
    QStringList tokens = name.split(QLatin1Char('.'));
    const qsizetype dir = std::max(tokens.indexOf(QLatin1String("forward")), tokens.indexOf(QLatin1String("backward")));
    const bool module = !tokens.isEmpty() && (tokens.front() == QLatin1String("Module") || tokens.front() == QLatin1String("Cell"));
    if (dir >= 2 && !module) { // Functional.conv2d.0.forward -> Functional.conv2d.forward
        tokens.removeAt(dir - 1);
        return tokens.join(QLatin1Char('.'));
    }
    if (dir >= 2 && module) { // Module.conv1.Conv2d.forward.0 -> Module.conv1.forward.0 (msprobe quirk)
        tokens.removeAt(dir - 1);
        return tokens.join(QLatin1Char('.'));
    }
    static const QRegularExpression counters(QStringLiteral("\\.\\d+(?=\\.|$)|_rank\\d+"));
    return QString(name).remove(counters);
}

bool isNpuOnlyOpType(const QString &type)
{
    static const QSet<QString> types{
        QStringLiteral("TransData"), QStringLiteral("TransDataRNN"), QStringLiteral("Cast"),
        QStringLiteral("AtomicAddrClean"), QStringLiteral("DynamicAtomicAddrClean"), QStringLiteral("MemSet"),
        QStringLiteral("MemcpyAsync"), QStringLiteral("NPUAllocFloatStatus"), QStringLiteral("NPUClearFloatStatus"),
        QStringLiteral("NPUGetFloatStatus"), QStringLiteral("Opdebug"),
    };
    return types.contains(type);
}

QString scopeKey(const DumpLevels &l)
{
    // A MindSpore jit split pairs graph with graph and pynative with pynative (msprobe's mix_compare).
    if (isJitModeName(l.part))
        return l.part + QLatin1Char('/') + l.step + QLatin1Char('/') + l.rank + QLatin1Char('/') + l.device + QLatin1Char('/') + l.dataIndex;
    return l.step + QLatin1Char('/') + l.rank + QLatin1Char('/') + l.device + QLatin1Char('/') + l.dataIndex;
}

namespace {

/// Names (operator keys, tensor keys, scopes) as small integers: the UTF-8 bytes interned once,
/// so that rows are matched on three ints instead of joined strings.
class NameTable
{
public:
    /// The id of `utf8`, added when new; the bytes must outlive the table unless `copy`.
    int intern(std::string_view utf8, bool copy) { return intern(utf8, hash(utf8), copy); }
    /// The same with hash(utf8) known.
    int intern(std::string_view utf8, size_t h, bool copy)
    {
        if (const int *id = m_ids.find(utf8, h))
            return *id;
        if (copy)
            utf8 = m_owned.emplace_back(utf8);
        bool added = false;
        return m_ids.emplace(utf8, h, int(m_ids.size()), added);
    }
    static size_t hash(std::string_view utf8) { return std::hash<std::string_view>()(utf8); }
    void prefetch(size_t h) const { m_ids.prefetch(h); }
    int intern(const QString &s) { return intern(s.toStdString(), true); }
    size_t size() const { return m_ids.size(); }
    void reserve(size_t n) { m_ids.reserve(n); }
    /// -1 when the name is not in the table.
    int find(const QString &s) const
    {
        const std::string utf8 = s.toStdString();
        const int *id = m_ids.find(utf8);
        return id ? *id : -1;
    }

private:
    FlatMap<std::string_view, int, std::hash<std::string_view>> m_ids;
    std::deque<std::string> m_owned;
};

struct Key
{
    int scope = 0, op = -1, tensor = -1;
    bool operator==(const Key &o) const { return scope == o.scope && op == o.op && tensor == o.tensor; }
    bool valid() const { return op >= 0 && tensor >= 0; }
};

/// Bench rows grouped by key, each group in bench row order; take() hands out the first unused.
/// The groups are sorted by (operator, scope, tensor) and found through their operator key (a
/// small int): no hash table.
class KeyedRows
{
public:
    /// `names`: the number of interned names (operator keys are below it).
    void build(const std::vector<Key> &keys, size_t names)
    {
        m_order.resize(keys.size());
        for (size_t i = 0; i < keys.size(); ++i)
            m_order[i] = int(i);
        std::stable_sort(m_order.begin(), m_order.end(), [&](int a, int b) {
            const Key &x = keys[size_t(a)], &y = keys[size_t(b)];
            return std::tie(x.op, x.scope, x.tensor) < std::tie(y.op, y.scope, y.tensor);
        });
        m_opFirst.assign(names + 1, 0);
        for (size_t i = 0; i < m_order.size();) {
            const Key &k = keys[size_t(m_order[i])];
            size_t e = i + 1;
            while (e < m_order.size() && keys[size_t(m_order[e])] == k)
                ++e;
            if (k.op >= 0)
                ++m_opFirst[size_t(k.op) + 1];
            m_ranges.push_back({k, int(i), int(e), int(e - i)});
            i = e;
        }
        // keys without an operator sort first (op -1): the offsets start after them
        m_skip = 0;
        while (m_skip < m_ranges.size() && m_ranges[m_skip].key.op < 0)
            ++m_skip;
        for (size_t o = 1; o < m_opFirst.size(); ++o)
            m_opFirst[o] += m_opFirst[o - 1];
    }
    /// The group of a key, -1 when no bench row has it.
    int group(const Key &key) const
    {
        if (!key.valid() || size_t(key.op) + 1 >= m_opFirst.size())
            return -1;
        const auto begin = m_ranges.begin() + qsizetype(m_skip + size_t(m_opFirst[size_t(key.op)]));
        const auto end = m_ranges.begin() + qsizetype(m_skip + size_t(m_opFirst[size_t(key.op) + 1]));
        const auto it = std::lower_bound(begin, end, key, [](const Range &r, const Key &k) {
            return std::tie(r.key.scope, r.key.tensor) < std::tie(k.scope, k.tensor);
        });
        return it != end && it->key == key ? int(it - m_ranges.begin()) : -1;
    }
    size_t groups() const { return m_ranges.size(); }
    int take(const Key &key, std::vector<char> &used, const std::function<bool(int)> &accept = {})
    {
        return take(group(key), used, accept);
    }
    int take(int group, std::vector<char> &used, const std::function<bool(int)> &accept = {})
    {
        if (group < 0)
            return -1;
        Range &g = m_ranges[size_t(group)];
        while (g.begin < g.end && used[size_t(m_order[size_t(g.begin)])]) // skip the used head
            ++g.begin;
        for (int i = g.begin; i < g.end; ++i) {
            const int r = m_order[size_t(i)];
            if (!used[size_t(r)] && (!accept || accept(r))) {
                used[size_t(r)] = 1;
                return r;
            }
        }
        return -1;
    }
    qsizetype candidates(int group) const { return group < 0 ? 0 : qsizetype(m_ranges[size_t(group)].size); }

private:
    struct Range
    {
        Key key;
        int begin = 0, end = 0, size = 0;
    };
    std::vector<int> m_order;
    std::vector<Range> m_ranges;
    std::vector<int> m_opFirst; ///< per operator key: its first group (counted after m_skip), then the end
    size_t m_skip = 0;
};

/// Per index: the interned keys of its operators and rows, computed once.
class IndexKeys
{
public:
    IndexKeys(const DumpIndex &index, NameTable &names, bool useScope, QHash<QString, int> &scopes)
        : m_index(index), m_names(names)
    {
        m_opKey.resize(index.ops.size());
        m_scope.resize(index.ops.size(), 0);
        std::unordered_map<const DumpLevels *, int> levelScope;
        // Entry names (the bytes after the last '/' of relPath) with their hashes first: each
        // one's slot is prefetched a few operators ahead of its lookup.
        std::vector<std::pair<std::string_view, size_t>> entries(index.ops.size());
        for (size_t o = 0; o < index.ops.size(); ++o)
            if (!source(index.ops[o]).opsAreFiles) {
                const std::string_view path = index.ops[o].relPath.utf8();
                const size_t slash = path.rfind('/');
                const std::string_view e = slash == std::string_view::npos ? path : path.substr(slash + 1);
                entries[o] = {e, NameTable::hash(e)};
            }
        constexpr size_t kAhead = 16;
        for (size_t o = 0; o < index.ops.size(); ++o) {
            const OpRecord &op = index.ops[o];
            const SourceInfo &src = source(op);
            if (o + kAhead < entries.size() && !entries[o + kAhead].first.empty())
                names.prefetch(entries[o + kAhead].second);
            if (!src.opsAreFiles) {
                m_opKey[o] = names.intern(entries[o].first, entries[o].second, false);
            } else {
                m_opKey[o] = names.intern(opMatchKey(op));
            }
            if (useScope) {
                const DumpLevels *l = &*op.levels;
                auto it = levelScope.find(l);
                if (it == levelScope.end()) {
                    const QString key = scopeKey(*l);
                    auto s = scopes.constFind(key);
                    if (s == scopes.cend())
                        s = scopes.insert(key, int(scopes.size()));
                    it = levelScope.emplace(l, *s).first;
                }
                m_scope[o] = it->second;
            }
        }
    }
    int opKey(size_t o) const { return m_opKey[o]; }
    int scope(size_t o) const { return m_scope[o]; }
    bool msprobe(size_t o) const { return source(m_index.ops[o]).msprobe; }
    bool opsAreFiles(size_t o) const { return source(m_index.ops[o]).opsAreFiles; }
    /// The interned tensorMatchKey(op, t).
    int tensorKey(size_t o, const TensorRecord &t)
    {
        const OpRecord &op = m_index.ops[o];
        const bool ms = msprobe(o);
        const LeafInfo *leaf = t.leafInfo();
        // the key depends on the leaf alone, except msprobe leaves named after their data file
        const bool cacheable = leaf && !(ms && (t.storage() == TensorStorage::PtFile || t.storage() == TensorStorage::NpyFile));
        if (cacheable)
            if (const int *id = m_leafKey.find({leaf, ms}))
                return *id;
        const int id = m_names.intern(tensorMatchKey(op, t));
        bool added = false;
        if (cacheable)
            m_leafKey.emplace(std::pair{leaf, ms}, id, added);
        return id;
    }

private:
    struct SourceInfo
    {
        bool known = false, opsAreFiles = false, msprobe = false;
    };
    const SourceInfo &source(const OpRecord &op) const
    {
        SourceInfo &s = m_sources[size_t(op.source)];
        if (!s.known)
            s = {true, formatReader(op.source).opsAreFiles(), isMsprobeOp(op)};
        return s;
    }
    struct PairHash
    {
        size_t operator()(const std::pair<const LeafInfo *, bool> &p) const
        {
            // the pointer's bits mixed (linear probing needs the low bits to vary)
            std::uint64_t k = reinterpret_cast<std::uintptr_t>(p.first) ^ std::uint64_t(p.second);
            k ^= k >> 33;
            k *= 0xff51afd7ed558ccdULL;
            k ^= k >> 33;
            return size_t(k);
        }
    };
    const DumpIndex &m_index;
    NameTable &m_names;
    std::vector<int> m_opKey, m_scope;
    mutable std::array<SourceInfo, 256> m_sources{};
    FlatMap<std::pair<const LeafInfo *, bool>, int, PairHash> m_leafKey;
};

/// Rule 3 of matchIndexes: the bench name an NPU entry and its rows are looked up by, from a
/// user api_mapping or cell_mapping and msprobe's built-in cross-framework table.
class NameTranslator
{
public:
    NameTranslator(const UserMapping *mapping, bool crossFramework) : m_cross(crossFramework)
    {
        if (!mapping)
            return;
        for (const auto &a : mapping->apis)
            m_apis.insert(a.msApi, &a);
        m_cells = &mapping->cells;
    }
    bool active() const { return m_cross || !m_apis.isEmpty() || (m_cells && !m_cells->empty()); }

    struct Entry
    {
        QString name;                               ///< the bench entry name to look up
        const UserMapping::ApiEntry *api = nullptr; ///< the user api_mapping entry that renamed it
        MatchSource source = MatchSource::None;     ///< None: not translated
        bool cellKeyed = false;                     ///< a cell_mapping key renamed the cell
    };
    Entry entry(const QString &npu) const
    {
        Entry e{npu, nullptr, MatchSource::None};
        const qsizetype first = npu.indexOf(QLatin1Char('.'));
        const qsizetype second = first > 0 ? npu.indexOf(QLatin1Char('.'), first + 1) : -1;
        const QString api = second > 0 ? npu.left(second) : npu;
        if (const auto it = m_apis.constFind(api); it != m_apis.cend()) {
            e.name = npu;
            e.name.replace(e.name.indexOf(api), api.size(), (*it)->ptApi); // msprobe: replace(ms_api, pt_api, 1)
            e.api = *it;
            e.source = MatchSource::User;
            return e;
        }
        if (m_cross) {
            e.name = msToPtEntryName(npu);
            if (e.name != npu)
                e.source = MatchSource::Mapping;
        }
        if (m_cells && !m_cells->empty() && npu.startsWith(QLatin1String("Cell."))) {
            e.name = cellName(e.name, &e.cellKeyed);
            e.source = MatchSource::User;
        }
        return e;
    }
    /// The bench tensor key of `tensor` under a user api_mapping entry; empty when the entry
    /// does not list it (msprobe: "abandoned", the row pairs nothing).
    static QString tensorKey(const UserMapping::ApiEntry &a, const QString &tensor)
    {
        struct Section { QLatin1String prefix; const QStringList &ms, &pt; };
        const Section sections[] = {{QLatin1String("input."), a.msArgs, a.ptArgs},
                                    {QLatin1String("output."), a.msOutput, a.ptOutput},
                                    {QLatin1String("parameters."), a.msParameters, a.ptParameters}};
        for (const Section &s : sections)
            if (tensor.startsWith(s.prefix)) {
                const qsizetype i = s.ms.indexOf(tensor.mid(s.prefix.size()));
                return i < 0 || i >= s.pt.size() ? QString() : s.prefix + s.pt[i];
            }
        return {};
    }

private:
    /// msprobe's process_cell_mapping: the first "Cell" becomes "Module"; the cell name (between
    /// the type and forward/backward/parameters_grad) is mapped whole, else each key found in it
    /// is replaced once, in file order.
    QString cellName(const QString &entry, bool *keyed) const
    {
        QString name = entry;
        name.replace(name.indexOf(QLatin1String("Cell")), 4, QStringLiteral("Module"));
        static const QRegularExpression dir(QStringLiteral("\\.(?:forward|backward|parameters_grad)(?:\\.|$)"));
        const qsizetype start = name.indexOf(QLatin1Char('.')) + 1;
        const auto m = dir.match(name, start);
        if (start <= 0 || !m.hasMatch())
            return name;
        const QString cell = name.mid(start, m.capturedStart() - start);
        QString mapped = cell;
        bool whole = false;
        for (const auto &[k, v] : *m_cells)
            if (k == cell) {
                mapped = v;
                whole = true;
                break;
            }
        if (!whole)
            for (const auto &[k, v] : *m_cells)
                if (const qsizetype at = mapped.indexOf(k); at >= 0) {
                    mapped.replace(at, k.size(), v);
                    whole = true;
                }
        *keyed = whole;
        return name.left(start) + mapped + name.mid(m.capturedStart());
    }

    bool m_cross = false;
    QHash<QString, const UserMapping::ApiEntry *> m_apis;
    const std::vector<std::pair<QString, QString>> *m_cells = nullptr;
};

} // namespace

MatchResult matchIndexes(const DumpIndex &npu, const DumpIndex &bench, const MatchOptions &given)
{
    // msprobe's layer_mapping: turned into the data_mapping msprobe derives from it
    // (ms_compare.py: generate_data_mapping_by_layer_mapping), then used as a data_mapping
    MatchOptions options = given;
    std::optional<UserMapping> derived;
    LayerMappingResult layerMapping;
    if (given.mapping && !given.mapping->layers.empty()) {
        layerMapping = layerMappingToDataMapping(npu, bench, given.mapping->layers, given.mapping->fileName);
        derived = *given.mapping;
        derived->kind = MappingKind::Data;
        derived->names.insert(derived->names.end(), layerMapping.dataMapping.cbegin(), layerMapping.dataMapping.cend());
        options.mapping = &*derived;
    }
    MatchResult result;
    bool useScope = false;
    {
        std::unordered_map<const DumpLevels *, bool> seen;
        QString first;
        bool any = false;
        for (const auto &op : bench.ops) {
            if (!seen.emplace(&*op.levels, true).second)
                continue;
            const QString k = scopeKey(*op.levels);
            if (!any) {
                first = k;
                any = true;
            } else if (k != first) {
                useScope = true;
                break;
            }
        }
    }

    NameTable nameTable;
    nameTable.reserve(npu.ops.size() + bench.ops.size() + 1024); // mostly operator keys, a few hundred tensor keys
    QHash<QString, int> scopes;
    IndexKeys benchKeys(bench, nameTable, useScope, scopes);
    IndexKeys npuKeys(npu, nameTable, useScope, scopes);

    // Bench rows: exact keys (scope, entry, tensor); fuzzy keys (scope, fuzzy entry, tensor)
    // with --fuzzy; row names "<entry>.<tensor>" for user mappings of rows.
    std::vector<Ref> refs;
    std::vector<Key> exactKeys, fuzzyKeys;
    QHash<QString, std::vector<int>> byRowName;
    const bool rowNames = options.mapping && !options.mapping->names.empty();
    std::unordered_map<int, int> fuzzyOf; // entry key -> fuzzy entry key
    // msprobe's data_mapping names bench rows as msprobe compares them (backward calls renumbered)
    const std::vector<QString> benchEntryNames = rowNames && options.mapping->kind == MappingKind::Data
                                                     ? msprobeCompareEntryNames(bench)
                                                     : std::vector<QString>();
    for (size_t o = 0; o < bench.ops.size(); ++o) {
        const OpRecord &op = bench.ops[o];
        const int scope = benchKeys.scope(o), key = benchKeys.opKey(o);
        int fuzzyKey = -1;
        if (options.fuzzy) {
            auto it = fuzzyOf.find(key);
            if (it == fuzzyOf.end())
                it = fuzzyOf.emplace(key, nameTable.intern(fuzzyOpName(opMatchKey(op)))).first;
            fuzzyKey = it->second;
        }
        for (const int t : rowTensors(op)) {
            const TensorRecord &tr = op.tensors[size_t(t)];
            const int r = int(refs.size());
            refs.push_back({int(o), t});
            const int tk = benchKeys.tensorKey(o, tr);
            exactKeys.push_back({scope, key, tk});
            if (options.fuzzy)
                fuzzyKeys.push_back({scope, fuzzyKey, tk});
            if (rowNames) {
                const QString scopeText = useScope ? scopeKey(*op.levels) : QString();
                const QString entry = benchEntryNames.empty() ? opMatchKey(op) : benchEntryNames[o];
                byRowName[join(scopeText, entry + QLatin1Char('.') + tensorMatchKey(op, tr))].push_back(r);
            }
        }
    }
    KeyedRows exact, fuzzy;
    exact.build(exactKeys, nameTable.size());
    if (options.fuzzy)
        fuzzy.build(fuzzyKeys, nameTable.size());
    std::vector<char> used(refs.size(), 0);
    auto takeByName = [&](const QString &key) {
        const auto it = byRowName.constFind(key);
        if (it == byRowName.cend())
            return -1;
        for (int r : *it)
            if (!used[size_t(r)]) {
                used[size_t(r)] = 1;
                return r;
            }
        return -1;
    };

    // User names and groups.
    QHash<QString, QString> names;
    if (options.mapping)
        for (const auto &[n, b] : options.mapping->names)
            names.insert(n, b);
    struct GroupRole { const UserMapping::Group *group; bool first, last; };
    QHash<QString, GroupRole> groupOf;
    QSet<QString> fusedBench; // bench operators fused into an NPU operator
    if (options.mapping)
        for (const auto &g : options.mapping->groups) {
            for (qsizetype i = 0; i < g.npu.size(); ++i)
                groupOf.insert(g.npu[i], {&g, i == 0, i == g.npu.size() - 1});
            for (const QString &b : g.bench)
                fusedBench.insert(b);
        }
    QSet<QString> seenNames;
    // Entries that did not pair a row they name: the rows whose bench side was already paired
    // with another NPU row, and those whose bench operator has no such row (the row was then
    // matched as without the entry, and a warning says so).
    struct Unused
    {
        QStringList taken, noRow; ///< NPU row names; "bench row" in taken
    };
    QHash<QString, Unused> unused;
    // NPU entries a cell_mapping key renamed whose rows found no bench row: "<entry>" -> its
    // bench name and the rows (the bench row taken by another pair, or not in the bench dump)
    std::map<QString, std::pair<QString, Unused>> cellUnused;
    QStringList groupTaken; // group rows whose bench row another NPU row had already paired

    // The NPU rows' keys, their bench groups, and how often each group's key occurs among the
    // NPU rows (ambiguous matches are noted).
    std::vector<Key> npuRowKeys;
    std::vector<int> npuRowGroups, npuOccurrences(exact.groups(), 0);
    std::vector<std::vector<int>> npuRows(npu.ops.size());
    for (size_t o = 0; o < npu.ops.size(); ++o) {
        const OpRecord &op = npu.ops[o];
        npuRows[o] = rowTensors(op);
        for (const int t : npuRows[o]) {
            const Key k{npuKeys.scope(o), npuKeys.opKey(o), npuKeys.tensorKey(o, op.tensors[size_t(t)])};
            const int g = exact.group(k);
            npuRowKeys.push_back(k);
            npuRowGroups.push_back(g);
            if (g >= 0)
                ++npuOccurrences[size_t(g)];
        }
    }
    result.rows.reserve(npuRowKeys.size());

    const bool mapped = options.mapping != nullptr;
    const NameTranslator translator(options.mapping, options.crossFramework);
    const bool translating = translator.active();

    // Rule 4: exact names when the streams line up (the fast path), else aligned by structure.
    OpAlignment alignment;
    std::unordered_map<int, int> regionFirst, regionLast; // NPU op -> bench op at a region's ends
    if (options.align && !translating && !npu.ops.empty() && !bench.ops.empty()) {
        bool linesUp = npu.ops.size() == bench.ops.size();
        for (size_t o = 0; linesUp && o < npu.ops.size(); ++o)
            linesUp = npuKeys.opKey(o) == benchKeys.opKey(o) && npuKeys.scope(o) == benchKeys.scope(o);
        bool framework = true;
        for (size_t o = 0; framework && !linesUp && o < npu.ops.size(); ++o)
            framework = npuKeys.msprobe(o) && !npuKeys.opsAreFiles(o);
        for (size_t o = 0; framework && !linesUp && o < bench.ops.size(); ++o)
            framework = benchKeys.msprobe(o) && !benchKeys.opsAreFiles(o);
        if (!linesUp && framework) {
            std::vector<int> npuScope(npu.ops.size()), benchScope(bench.ops.size());
            for (size_t o = 0; o < npu.ops.size(); ++o)
                npuScope[o] = npuKeys.scope(o);
            for (size_t o = 0; o < bench.ops.size(); ++o)
                benchScope[o] = benchKeys.scope(o);
            alignment = alignOpStreams(npu, bench, npuScope, benchScope);
            for (const StructureRegion &r : alignment.regions)
                if (!r.npuOps.empty() && !r.benchOps.empty() && !r.module.isEmpty()) { // inside a module both record
                    regionFirst.emplace(r.npuOps.front(), r.benchOps.front());
                    regionLast.emplace(r.npuOps.back(), r.benchOps.back());
                }
        }
    }
    std::vector<int> regionOf; // NPU op -> index of its structure region, -1
    if (alignment.active) {
        regionOf.assign(npu.ops.size(), -1);
        for (size_t i = 0; i < alignment.regions.size(); ++i)
            for (const int o : alignment.regions[i].npuOps)
                regionOf[size_t(o)] = int(i);
    }
    QSet<const UserMapping::ApiEntry *> apisUsed;
    QSet<QString> cellsTranslated; // NPU entries a cell_mapping renamed
    size_t rowIndex = 0;
    for (size_t o = 0; o < npu.ops.size(); ++o) {
        const OpRecord &op = npu.ops[o];
        const int scope = npuKeys.scope(o);
        const QString key = mapped || options.fuzzy || translating ? opMatchKey(op) : QString();
        const NameTranslator::Entry translated = translating && npuKeys.msprobe(o) ? translator.entry(key) : NameTranslator::Entry{};
        if (translated.api)
            apisUsed.insert(translated.api);
        const auto group = mapped ? groupOf.constFind(key) : groupOf.cend();
        for (const int t : npuRows[o]) {
            const TensorRecord &tr = op.tensors[size_t(t)];
            const int exactGroup = npuRowGroups[rowIndex];
            const Key exactKey = npuRowKeys[rowIndex++];
            MatchedRow row;
            row.npu = {int(o), t};
            auto found = [&](int r, MatchSource s) {
                if (r < 0)
                    return false;
                row.bench = refs[size_t(r)];
                row.source = s;
                return true;
            };
            auto keyOf = [&](const QString &entry, const QString &tensor) {
                return Key{scope, nameTable.find(entry), nameTable.find(tensor)};
            };
            if (group != groupOf.cend()) {
                seenNames.insert(key);
                const bool in = tr.io() != IoKind::Output && group->first, out = tr.io() == IoKind::Output && group->last;
                const QString target = out ? group->group->bench.back() : group->group->bench.front();
                const Key targetKey = keyOf(target, tensorMatchKey(op, tr));
                if ((in || out) && !found(exact.take(targetKey, used), MatchSource::User) && exact.group(targetKey) >= 0)
                    groupTaken << QStringLiteral("%1 (%2 -> %3): %1.%4 (%5.%4)")
                                      .arg(key, group->group->npu.join(QLatin1Char('+')), group->group->bench.join(QLatin1Char('+')),
                                           tensorMatchKey(op, tr), target);
                if (row.source == MatchSource::None) {
                    row.hasReason = true;
                    row.reason = ReasonCode::FusedAway;
                    row.notes << QStringLiteral("inside mapping group %1 -> %2; intermediate result not available")
                                     .arg(group->group->npu.join(QLatin1Char('+')), group->group->bench.join(QLatin1Char('+')));
                }
                result.rows.push_back(std::move(row));
                continue;
            }
            if (mapped) {
                const QString tk = tensorMatchKey(op, tr), name = key + QLatin1Char('.') + tk;
                const QString scopeText = useScope ? scopeKey(*op.levels) : QString();
                const QString noCounterpart = names.value(name, names.value(key));
                if (noCounterpart == kNoCounterpart && (names.contains(name) || names.contains(key))) {
                    // msprobe's N/A: the entry says this row has no bench counterpart
                    seenNames.insert(names.contains(name) ? name : key);
                    row.hasReason = true;
                    row.reason = ReasonCode::UnmatchedBench;
                    row.notes << QStringLiteral("mapping: no counterpart (N/A)");
                    result.rows.push_back(std::move(row));
                    continue;
                }
                if (names.contains(name)) {
                    seenNames.insert(name);
                    const QString target = join(scopeText, names.value(name));
                    if (found(takeByName(target), MatchSource::User)) {
                        row.dataMapped = options.mapping->kind == MappingKind::Data;
                    } else {
                        if (byRowName.contains(target))
                            unused[name].taken << name + QStringLiteral(" (") + names.value(name) + QLatin1Char(')');
                        else
                            unused[name].noRow << name;
                    }
                } else if (names.contains(key)) {
                    seenNames.insert(key);
                    const Key target = keyOf(names.value(key), tk);
                    if (!found(exact.take(target, used), MatchSource::User)) {
                        if (exact.group(target) >= 0)
                            unused[key].taken << name + QStringLiteral(" (") + names.value(key) + QLatin1Char('.') + tk + QLatin1Char(')');
                        else
                            unused[key].noRow << name;
                    }
                }
            }
            if (row.source == MatchSource::None && translated.source != MatchSource::None) {
                // rule 3: the translated name only (msprobe replaces the compare key)
                const QString tk = tensorMatchKey(op, tr);
                const QString benchTensor = translated.api ? NameTranslator::tensorKey(*translated.api, tk) : tk;
                if (benchTensor.isEmpty()) {
                    row.notes << QStringLiteral("api_mapping %1 -> %2 lists no counterpart of %3")
                                     .arg(translated.api->msApi, translated.api->ptApi, tk);
                } else if (found(exact.take(keyOf(translated.name, benchTensor), used), translated.source)) {
                    if (translated.source == MatchSource::User && !translated.api)
                        cellsTranslated.insert(key);
                } else if (translated.api && exact.group(keyOf(translated.name, benchTensor)) >= 0) {
                    unused[translated.api->msApi].taken << key + QLatin1Char('.') + tk + QStringLiteral(" (") + translated.name
                                                                + QLatin1Char('.') + benchTensor + QLatin1Char(')');
                } else if (translated.cellKeyed) {
                    auto &[benchName, u] = cellUnused[key];
                    benchName = translated.name;
                    (exact.group(keyOf(translated.name, benchTensor)) >= 0 ? u.taken : u.noRow)
                        << key + QLatin1Char('.') + tk + QStringLiteral(" (") + translated.name + QLatin1Char('.') + benchTensor + QLatin1Char(')');
                }
                if (row.source == MatchSource::None) {
                    row.hasReason = true;
                    row.reason = ReasonCode::UnmatchedBench;
                }
                result.rows.push_back(std::move(row));
                continue;
            }
            if (row.source == MatchSource::None && alignment.active) {
                const int b = alignment.benchOf[o];
                if (b >= 0) {
                    found(exact.take(Key{scope, benchKeys.opKey(size_t(b)), exactKey.tensor}, used),
                          benchKeys.opKey(size_t(b)) == npuKeys.opKey(o) ? MatchSource::Exact : MatchSource::Aligned);
                } else {
                    const bool output = tr.io() == IoKind::Output;
                    const auto &ends = output ? regionLast : regionFirst;
                    const auto end = (output || tr.io() == IoKind::Input) ? ends.find(int(o)) : ends.end();
                    if (end != ends.end()
                        && found(exact.take(Key{scope, benchKeys.opKey(size_t(end->second)), exactKey.tensor}, used,
                                            [&](int c) { return bench.tensor(refs[size_t(c)]).shape() == tr.shape(); }),
                                 MatchSource::Aligned))
                        row.notes << QStringLiteral("aligned by structure: %1 of the region in %2")
                                         .arg(output ? QStringLiteral("output") : QStringLiteral("input"),
                                              alignment.regions[size_t(regionOf[o])].module.isEmpty()
                                                  ? QStringLiteral("the top level")
                                                  : alignment.regions[size_t(regionOf[o])].module);
                    else
                        row.notes << QStringLiteral("structure: only on the NPU side here (aligned by structure)");
                }
            } else if (row.source == MatchSource::None && found(exact.take(exactGroup, used), MatchSource::Exact)) {
                const qsizetype k = exact.candidates(exactGroup);
                if (k != npuOccurrences[size_t(exactGroup)])
                    row.notes << QStringLiteral("ambiguous match (%1 candidates); paired in execution order").arg(k);
            }
            if (row.source == MatchSource::None && npuKeys.opsAreFiles(o) && tr.io() == IoKind::Output
                && !tr.originalOpName().isEmpty() && tr.originalOpName() != opMatchKey(op)) {
                const int idx = tr.originalOutputIndex() >= 0 ? tr.originalOutputIndex() : int(tr.index());
                if (found(exact.take(keyOf(tr.originalOpName(), QStringLiteral("output.%1").arg(idx)), used), MatchSource::Mapping))
                    row.notes << QStringLiteral("compared with original operator %1 output %2").arg(tr.originalOpName()).arg(idx);
            }
            if (row.source == MatchSource::None && options.fuzzy) {
                const Key fk{scope, nameTable.find(fuzzyOpName(key)), exactKey.tensor};
                const int r = fuzzy.take(fk, used, [&](int c) { return bench.tensor(refs[size_t(c)]).shape() == tr.shape(); });
                if (found(r, MatchSource::Fuzzy) && opMatchKey(bench.op(row.bench)) != key)
                    row.notes << QStringLiteral("Fuzzy matching data, the comparison accuracy may be affected.");
            }
            if (row.source == MatchSource::None) {
                row.hasReason = true;
                row.reason = isNpuOnlyOpType(op.opType) ? ReasonCode::NpuOnly : ReasonCode::UnmatchedBench;
            }
            result.rows.push_back(std::move(row));
        }
    }

    QSet<QString> originals;
    for (const auto &op : npu.ops)
        for (const auto &tr : op.tensors)
            if (!tr.originalOpName().isEmpty() && tr.originalOpName() != opMatchKey(op))
                originals.insert(tr.originalOpName());
    const bool checkFused = !fusedBench.isEmpty() || !originals.isEmpty();
    for (size_t r = 0; r < refs.size(); ++r) {
        if (used[r])
            continue;
        bool fused = false;
        if (checkFused) {
            const QString key = opMatchKey(bench.op(refs[r]));
            fused = fusedBench.contains(key) || (originals.contains(key) && !names.contains(key));
        }
        result.benchOnly.push_back({refs[r], fused ? ReasonCode::FusedAway : ReasonCode::UnmatchedBench});
    }
    result.aligned = alignment.active;
    result.structure = std::move(alignment.regions);
    if (options.mapping) {
        const QString file = options.mapping->fileName.isEmpty() ? QString() : QLatin1Char(' ') + options.mapping->fileName;
        result.warnings << options.mapping->warnings;
        // user api_mapping entries: an NPU API the dump does not call, a bench API it does not
        // hold, rows whose target an exact pair or another entry had taken
        QSet<QString> benchApis, npuEntries;
        for (const OpRecord &op : bench.ops)
            benchApis.insert(opMatchKey(op).section(QLatin1Char('.'), 0, 1));
        for (const OpRecord &op : npu.ops)
            npuEntries.insert(opMatchKey(op));
        for (const auto &a : options.mapping->apis) {
            if (!apisUsed.contains(&a))
                result.warnings << QStringLiteral("mapping%1: api_mapping \"%2\" -> \"%3\": the NPU dump calls no \"%2\"; not used")
                                       .arg(file, a.msApi, a.ptApi);
            else if (!benchApis.contains(a.ptApi))
                result.warnings << QStringLiteral("mapping%1: api_mapping \"%2\" -> \"%3\": the bench dump calls no \"%3\"; "
                                                  "its rows pair nothing")
                                       .arg(file, a.msApi, a.ptApi);
            const auto u = unused.constFind(a.msApi);
            if (u != unused.cend() && !u->taken.isEmpty())
                result.warnings << QStringLiteral("mapping%1: api_mapping \"%2\" -> \"%3\": %4: the bench row is already paired "
                                                  "with another NPU row; not paired")
                                       .arg(file, a.msApi, a.ptApi, u->taken.size() == 1 ? u->taken.front()
                                                                    : QStringLiteral("%1 and %2 more").arg(u->taken.front()).arg(u->taken.size() - 1));
        }
        for (const auto &[k, v] : options.mapping->cells) {
            const bool named = std::any_of(npuEntries.cbegin(), npuEntries.cend(), [&](const QString &e) {
                return e.startsWith(QLatin1String("Cell.")) && e.contains(k);
            });
            if (!named)
                result.warnings << QStringLiteral("mapping%1: cell_mapping \"%2\" -> \"%3\": no Cell entry of the NPU dump holds "
                                                  "\"%2\"; not used")
                                       .arg(file, k, v);
        }
        auto some = [](const QStringList &l) {
            return l.size() == 1 ? l.front() : QStringLiteral("%1 and %2 more").arg(l.front()).arg(l.size() - 1);
        };
        for (const auto &[entry, at] : cellUnused) {
            const auto &[benchName, u] = at;
            if (!u.taken.isEmpty())
                result.warnings << QStringLiteral("mapping%1: cell_mapping renames \"%2\" to \"%3\": %4: the bench row is already "
                                                  "paired with another NPU row; not paired")
                                       .arg(file, entry, benchName, some(u.taken));
            if (!u.noRow.isEmpty())
                result.warnings << QStringLiteral("mapping%1: cell_mapping renames \"%2\" to \"%3\": %4: the bench dump has no such "
                                                  "row; not paired")
                                       .arg(file, entry, benchName, some(u.noRow));
        }
        result.warnings << layerMapping.warnings;
        // what the bench dump holds, for the entries' bench names
        QSet<QString> benchOps, benchRows;
        for (const OpRecord &op : bench.ops)
            benchOps.insert(opMatchKey(op));
        for (const Ref &r : refs) {
            const OpRecord &op = bench.ops[size_t(r.op)];
            benchRows.insert((benchEntryNames.empty() ? opMatchKey(op) : benchEntryNames[size_t(r.op)]) + QLatin1Char('.')
                             + tensorMatchKey(op, op.tensors[size_t(r.tensor)]));
        }
        auto rows = [](const QStringList &l) {
            return l.size() == 1 ? l.front() : QStringLiteral("%1 and %2 more").arg(l.front()).arg(l.size() - 1);
        };
        for (const auto &[n, b] : options.mapping->names) {
            if (!seenNames.contains(n))
                result.warnings << QStringLiteral("mapping%1: \"%2\" names no operator or row of the NPU dump; not used").arg(file, n);
            if (b != kNoCounterpart && !benchOps.contains(b) && !benchRows.contains(b)) {
                result.warnings << QStringLiteral("mapping%1: \"%2\" -> \"%3\": the bench dump has no operator or row \"%3\"; "
                                                  "not used")
                                       .arg(file, n, b);
                continue;
            }
            const auto u = unused.constFind(n);
            if (u == unused.cend())
                continue;
            if (!u->taken.isEmpty())
                result.warnings << QStringLiteral("mapping%1: \"%2\" -> \"%3\": %4: the bench row is already paired with another "
                                                  "NPU row; matched as without the entry")
                                       .arg(file, n, b, rows(u->taken));
            if (!u->noRow.isEmpty())
                result.warnings << QStringLiteral("mapping%1: \"%2\" -> \"%3\": %4: \"%3\" has no such row; matched as without "
                                                  "the entry")
                                       .arg(file, n, b, rows(u->noRow));
        }
        for (auto it = groupOf.cbegin(); it != groupOf.cend(); ++it)
            if (!seenNames.contains(it.key()))
                result.warnings << QStringLiteral("mapping group%1: \"%2\" names no operator of the NPU dump").arg(file, it.key());
        for (const QString &t : std::as_const(groupTaken))
            result.warnings << QStringLiteral("mapping group%1: %2: the bench row is already paired with another NPU row; "
                                              "not paired")
                                   .arg(file, t);
        for (const auto &g : options.mapping->groups)
            for (const QString &b : g.bench)
                if (!benchOps.contains(b))
                    result.warnings << QStringLiteral("mapping group%1: bench \"%2\" (group %3 -> %4) names no operator of the bench "
                                                      "dump")
                                           .arg(file, b, g.npu.join(QLatin1Char('+')), g.bench.join(QLatin1Char('+')));
        result.warnings.removeDuplicates();
        result.warnings.sort();
    }
    return result;
}

} // namespace ds
