// msprobe's layer_mapping -> data_mapping conversion, ported from msprobe 26 (Ascend/msprobe,
// python/msprobe/core/compare/layer_mapping/): data_scope_parser.py (the scope of each dump.json
// entry), postprocess_pass.py (backward entries take their forward twin's scope; Megatron
// ParallelTransformer layers renumbered from 0), layer_mapping.py (the scope tries, the
// renaming walk and the api_mapping -> data_mapping step). Written anew in C++; the comments
// name the Python functions each part follows. Lines at msprobe commit 8ff00da3 (the mirror's HEAD):
//   data_scope_parser.py  DumpDataItem.set_name 72, set_layer_scope 107, set_stack_scope 136,
//                         set_full_scope 153, find_regard_scope 163, find_stack_func_list 176,
//                         get_stack_in_lines 202, get_dump_data_items 233
//   postprocess_pass.py   backward_pass 28, extract_next_item_last_number 48,
//                         replace_next_item_index 59, renumber_index_pass 72
//   layer_mapping.py      LayerTrie.insert 44, query_data 56, convert_scope 89,
//                         update_keys_in_place 140, preprocess_layer_mapping 151,
//                         convert_data_items 186, generate_data_mapping 212
//   mindspore/compare/ms_compare.py 46-47 (-lm replaces the data_mapping);
//   core/compare/acc_compare.py gen_dtype_condition 1226 (no dtype check under a data_mapping)
#include "layermapping.h"

#include "compare/comparematch.h"
#include "compare/mappingexport.h"
#include "compare/msprobenames.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>

#include <algorithm>
#include <optional>

namespace ds {

namespace {

const QString kTopLayer = QStringLiteral("TopLayer");   // Const.TOP_LAYER
const QString kParamsGrad = QStringLiteral("parameters_grad");
const QChar kSep = QLatin1Char('.');

bool isLayerType(const QString &apiType) // DumpDataItem.layernames: {Cell, Module}
{
    return apiType == QLatin1String("Cell") || apiType == QLatin1String("Module");
}

/// DumpDataItem: one dump.json entry and the scope path it is filed under.
struct Item
{
    QString name, apiType, apiName, typeName, state;
    QString layerScope, frameScope, fullScope;
};

/// The function name of a stack line "File <path>, line <n>, in <func>, \n <code>", or empty
/// when msprobe skips the line (get_stack_in_lines: msprobe's own and MindSpeed's files,
/// construct and __call__ frames).
QString stackFunction(const QString &line)
{
    if (line.isEmpty())
        return {};
    const QStringList fields = line.split(QLatin1Char(','));
    const QString &file = fields.front();
    if (file.contains(QLatin1String("msprobe")) || file.contains(QLatin1String("MindSpeed")) || fields.size() < 3)
        return {};
    const QString &func = fields[2];
    if (func.contains(QLatin1String("construct")) || func.contains(QLatin1String("__call__")))
        return {};
    const QStringList words = func.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    return words.size() > 1 ? words[1] : QString();
}

/// DumpDataItem.set_stack_scope -> find_regard_scope + find_stack_func_list: between the last
/// "Template" line (msprobe's API wrapper) and the first line after it that enters the model
/// (MindSpore: "construct"; PyTorch: "in forward," / "in backward,"), the framework frame
/// called first (the last of the leading lines in site-packages/torch or mindspore).
QString frameScope(const QStringList &lines, bool mindspore)
{
    static const QRegularExpression ptEnd(QStringLiteral("in (for|back)ward,"));
    qsizetype start = -1, end = lines.size();
    for (qsizetype i = 0; i < lines.size(); ++i) {
        if (lines[i].contains(QLatin1String("Template"))) {
            start = i;
        } else if (start >= 0 && (mindspore ? lines[i].contains(QLatin1String("construct")) : ptEnd.match(lines[i]).hasMatch())) {
            end = i;
            break;
        }
    }
    static const QLatin1String frameFiles[] = {QLatin1String("site-packages/torch"), QLatin1String("package/torch"),
                                               QLatin1String("site-packages/mindspore"), QLatin1String("package/mindspore")};
    QString frame;
    for (qsizetype i = start + 1; i < end; ++i) {
        const QString file = lines[i].section(QLatin1Char(','), 0, 0);
        const bool framework = std::any_of(std::begin(frameFiles), std::end(frameFiles), [&](QLatin1String f) { return file.contains(f); });
        if (!framework)
            break; // the first user line ends the framework's entrance
        frame = lines[i];
    }
    return stackFunction(frame);
}

/// DumpDataItem.set_name / set_layer_scope / set_stack_scope / set_full_scope. False for a
/// name of fewer than four fields (msprobe stops with INVALID_DATA_ERROR).
bool makeItem(const DumpIndex &index, const OpRecord &op, bool mindspore, Item &item)
{
    item.name = opMatchKey(op);
    const QStringList parts = item.name.split(kSep);
    const qsizetype n = parts.size();
    if (n < 4)
        return false;
    if (parts[n - 1] == kParamsGrad) { // old dump.json: <...>.<name>.<Type>.parameters_grad
        item.apiType = kParamsGrad;
        item.apiName = parts[n - 3];
        item.typeName = parts[n - 2];
        item.state = kParamsGrad;
    } else if (parts[n - 2] == kParamsGrad && !parts[n - 1].isEmpty()
               && std::all_of(parts[n - 1].cbegin(), parts[n - 1].cend(), [](QChar c) { return c.isDigit(); })) {
        item.apiType = kParamsGrad;
        item.apiName = parts[n - 4];
        item.typeName = parts[n - 3];
        item.state = kParamsGrad;
    } else {
        item.apiType = parts[0];
        item.typeName = parts[n - 3];
        if (isLayerType(item.apiType)) { // Cell.<path>.<name>.<Type>.<forward|backward>.<n>
            item.apiName = parts[n - 4];
            item.state = parts[n - 2];
        } else { // <Api>.<name>.<n>.<forward|backward>
            item.apiName = item.typeName;
            item.state = parts[n - 1];
        }
    }
    // set_layer_scope: a layer's own path without its name, else the parent's path (with its
    // name) from construct.json, else the top layer
    QStringList scope;
    if (isLayerType(item.apiType))
        scope = parts.mid(0, n - 4) + parts.mid(n - 3);
    else if (item.apiType == kParamsGrad)
        scope = parts;
    else if (!op.parent.isEmpty())
        scope = QString(op.parent).split(kSep);
    item.layerScope = scope.isEmpty() ? kTopLayer : scope.mid(0, std::max<qsizetype>(0, scope.size() - 3)).join(kSep);
    // set_stack_scope: layers, Primitive and Jit entries have none
    const bool noStack = isLayerType(item.apiType) || item.apiType == QLatin1String("Primitive") || item.apiType == QLatin1String("Jit");
    if (!noStack && op.stack >= 0 && size_t(op.stack) < index.stacks.size())
        item.frameScope = frameScope(index.stacks[size_t(op.stack)], mindspore);
    QStringList full{item.layerScope};
    if (!item.frameScope.isEmpty())
        full << item.frameScope;
    full << item.apiName;
    item.fullScope = full.join(kSep);
    return true;
}

/// backward_pass: a backward entry (stack.json records forward calls only) takes the scope of
/// its forward twin, when the dump holds it.
void backwardPass(std::vector<Item> &items)
{
    QHash<QString, size_t> byName;
    for (size_t i = 0; i < items.size(); ++i)
        byName.insert(items[i].name, i);
    for (Item &item : items) {
        QStringList parts = item.name.split(kSep);
        const qsizetype n = parts.size();
        if (n < 2 || (parts[n - 2] != QLatin1String("backward") && parts[n - 1] != QLatin1String("backward")))
            continue;
        for (qsizetype i = n - 2; i < n; ++i)
            parts[i].replace(QLatin1String("backward"), QLatin1String("forward"));
        const auto f = byName.constFind(parts.join(kSep));
        if (f == byName.cend())
            continue;
        item.frameScope = items[*f].frameScope;
        item.fullScope = items[*f].fullScope;
        item.layerScope = items[*f].layerScope;
    }
}

/// extract_next_item_last_number, also giving the component itself.
std::optional<qint64> nextItem(const QString &scope, const QString &prefix, QString *item)
{
    if (!scope.startsWith(prefix + kSep))
        return std::nullopt;
    const qsizetype from = prefix.size() + 1;
    qsizetype to = scope.indexOf(kSep, from);
    if (to < 0)
        to = scope.size();
    const QString next = scope.mid(from, to - from);
    if (next.isEmpty() || next.contains(QLatin1Char(' ')))
        return std::nullopt; // \S+? needs one non-space character
    static const QRegularExpression digits(QStringLiteral("\\d+"));
    QString last;
    for (auto it = digits.globalMatch(next); it.hasNext();)
        last = it.next().captured();
    if (last.isEmpty())
        return std::nullopt;
    if (item)
        *item = next;
    return last.toLongLong();
}

/// postprocess_pass: msprobe renumbers the `layers` of Megatron's ParallelTransformer (MindSpore
/// numbers the layers of a pipeline stage globally, PyTorch from 0).
void renumberPass(std::vector<Item> &items)
{
    QStringList types, full, layer;
    for (const Item &item : items) {
        types << item.typeName;
        full << item.fullScope;
        layer << item.layerScope;
    }
    renumberIndexes(types, full, layer, QStringLiteral("ParallelTransformer"), QStringLiteral("layers"));
    for (size_t i = 0; i < items.size(); ++i)
        items[i].fullScope = full[qsizetype(i)];
}

/// LayerTrie: a node per scope component; its type is that of the last entry filed at it.
struct Trie
{
    struct Node
    {
        QString typeName;
        QHash<QString, int> children;
        QHash<QString, QStringList> items; ///< direction ("forward", "backward", ...) -> entry names in dump order
    };
    std::vector<Node> nodes{Node{kTopLayer, {}, {}}};

    int child(int node, const QString &name) const { return nodes[size_t(node)].children.value(name, -1); }
    void insert(const Item &item) // LayerTrie.insert: the path without its first component
    {
        const QStringList parts = item.fullScope.split(kSep);
        int node = 0;
        for (qsizetype i = 1; i < parts.size(); ++i) {
            int c = child(node, parts[i]);
            if (c < 0) {
                c = int(nodes.size());
                nodes[size_t(node)].children.insert(parts[i], c);
                nodes.push_back(Node{parts[i], {}, {}});
            }
            node = c;
        }
        nodes[size_t(node)].items[item.state] << item.name;
        nodes[size_t(node)].typeName = item.typeName;
    }
    QString query(const QString &scope, const QString &state, qsizetype index) const // LayerTrie.query_data
    {
        const QStringList parts = scope.split(kSep);
        int node = 0;
        for (qsizetype i = 1; i < parts.size() && node >= 0; ++i)
            node = child(node, parts[i]);
        if (node < 0 || index < 0)
            return {};
        const QStringList names = nodes[size_t(node)].items.value(state);
        return index < names.size() ? names[index] : QString();
    }
};

/// preprocess_layer_mapping: per layer type, per first component of a key, the renames
/// longest first. A "Cell" layer is the top layer (update_keys_in_place: it replaces "TopLayer").
struct Rule
{
    QString origin, target;
    qsizetype level = 1;
    size_t entry = 0; ///< index into the flattened entries (for the unused-entry warnings)
};
using Rules = QHash<QString, QHash<QString, std::vector<Rule>>>;

struct Entry
{
    QString layer, key, value;
};

/// The items of the first dump.json of an index (dump order), passes applied. Empty with
/// `why` set when msprobe derives nothing (no stack.json or construct.json content).
std::vector<Item> itemsOf(const DumpIndex &index, QString &why)
{
    std::vector<Item> items;
    QString dataFile;
    bool mindspore = index.producerFrameworks.contains(QLatin1String("mindspore"));
    for (const OpRecord &op : index.ops) {
        if (!isMsprobeOp(op))
            continue;
        if (dataFile.isEmpty())
            dataFile = op.dataFile;
        if (QString(op.dataFile) != dataFile)
            continue;
        Item item;
        if (makeItem(index, op, mindspore, item))
            items.push_back(std::move(item));
    }
    if (dataFile.isEmpty()) {
        why = QStringLiteral("no msprobe dump.json");
        return {};
    }
    // get_dump_data_items: nothing without a stack.json and a construct.json of content
    const QString dir = QFileInfo(index.absolute(dataFile)).absolutePath();
    for (const char *file : {"stack.json", "construct.json"}) {
        const QFileInfo f(dir + QLatin1Char('/') + QLatin1String(file));
        if (!f.exists() || f.size() <= 2) {
            why = QStringLiteral("%1 has no %2").arg(QDir::toNativeSeparators(dir), QLatin1String(file));
            return {};
        }
    }
    backwardPass(items);
    renumberPass(items);
    return items;
}

} // namespace

std::optional<qint64> nextItemNumber(const QString &scope, const QString &prefix)
{
    return nextItem(scope, prefix, nullptr);
}

void renumberIndexes(const QStringList &typeNames, QStringList &fullScopes, const QStringList &layerScopes,
                     const QString &typeName, const QString &suffix)
{
    QStringList prefixes;
    for (qsizetype i = 0; i < typeNames.size(); ++i)
        if (typeNames[i] == typeName) {
            const QString p = suffix.isEmpty() ? layerScopes[i] : fullScopes[i] + kSep + suffix;
            if (!prefixes.contains(p))
                prefixes << p;
        }
    // every prefix's smallest number first, then the renumbering (as msprobe: its prefix_dict)
    std::vector<std::optional<qint64>> least(size_t(prefixes.size()));
    for (qsizetype p = 0; p < prefixes.size(); ++p)
        for (const QString &scope : std::as_const(fullScopes))
            if (const auto k = nextItem(scope, prefixes[p], nullptr))
                least[size_t(p)] = least[size_t(p)] ? std::min(*least[size_t(p)], *k) : *k;
    for (qsizetype p = 0; p < prefixes.size(); ++p) {
        const QString &prefix = prefixes[p];
        if (!least[size_t(p)])
            continue;
        for (QString &scope : fullScopes) { // replace_next_item_index
            QString next;
            if (const auto k = nextItem(scope, prefix, &next))
                scope = prefix + kSep + QString::number(*k - *least[size_t(p)]) + scope.mid(prefix.size() + 1 + next.size());
        }
    }
}

LayerMappingResult layerMappingToDataMapping(const DumpIndex &npu, const DumpIndex &bench,
                                             const std::vector<UserMapping::LayerEntry> &layers, const QString &fileName)
{
    LayerMappingResult result;
    const QString file = fileName.isEmpty() ? QString() : QLatin1Char(' ') + fileName;
    // the entries, "Cell" read as "TopLayer" (and replacing it), then the rules
    const bool hasCell = std::any_of(layers.cbegin(), layers.cend(), [](const auto &l) { return l.layer == QLatin1String("Cell"); });
    std::vector<Entry> entries;
    Rules rules;
    for (const auto &l : layers) {
        const bool replaced = hasCell && l.layer == kTopLayer;
        const QString layer = l.layer == QLatin1String("Cell") ? kTopLayer : l.layer;
        for (const auto &[key, value] : l.names) {
            if (replaced) {
                result.warnings << QStringLiteral("mapping%1: layer_mapping \"%2: %3\": the file also has a \"Cell\" layer, which "
                                                  "msprobe reads as TopLayer instead; not used")
                                       .arg(file, l.layer, key);
                continue;
            }
            const QStringList keyParts = key.split(kSep);
            rules[layer][keyParts.front()].push_back({key, value.section(QLatin1Char('('), 0, 0), keyParts.size(), entries.size()});
            entries.push_back({l.layer, key, value});
        }
    }
    for (auto &byPrefix : rules)
        for (auto &list : byPrefix)
            std::stable_sort(list.begin(), list.end(), [](const Rule &a, const Rule &b) { return a.level > b.level; });

    QString why;
    const std::vector<Item> npuItems = itemsOf(npu, why);
    const std::vector<Item> benchItems = why.isEmpty() ? itemsOf(bench, why) : std::vector<Item>();
    if (!why.isEmpty()) {
        result.warnings << QStringLiteral("mapping%1: the layer_mapping pairs nothing: %2 (msprobe derives its data_mapping "
                                          "from dump.json, stack.json and construct.json)")
                               .arg(file, why);
        return result;
    }
    Trie npuTrie, benchTrie;
    for (const Item &item : npuItems)
        npuTrie.insert(item);
    for (const Item &item : benchItems)
        benchTrie.insert(item);

    // convert_scope: walk the NPU path from the top layer; at each node, the longest rename of
    // the node's type that the next components spell replaces them, else the component stays
    std::vector<char> used(entries.size(), 0);
    for (const Item &item : npuItems) {
        const QStringList parts = item.fullScope.split(kSep);
        QString scope = kTopLayer;
        int node = 0;
        qsizetype i = 0;
        while (i < parts.size() - 1 && node >= 0) {
            const QString &next = parts[i + 1];
            qsizetype step = 1;
            QString target = next;
            const auto byPrefix = rules.constFind(npuTrie.nodes[size_t(node)].typeName);
            if (byPrefix != rules.cend())
                for (const Rule &r : byPrefix->value(next))
                    if (parts.mid(i + 1, r.level).join(kSep) == r.origin) {
                        target = r.target;
                        step = r.level;
                        used[r.entry] = 1;
                        break;
                    }
            scope += kSep + target;
            for (qsizetype s = 0; s < step && node >= 0; ++s)
                node = npuTrie.child(node, parts[++i]);
        }
        // the entry's position among its node's entries of the same direction
        qsizetype position = -1;
        if (node >= 0)
            position = npuTrie.nodes[size_t(node)].items.value(item.state).lastIndexOf(item.name);
        const QString benchName = benchTrie.query(scope, item.state, position);
        result.apiMapping.emplace_back(item.name, benchName.isEmpty() ? QString(kNoCounterpart) : benchName);
    }
    for (size_t e = 0; e < entries.size(); ++e)
        if (!used[e])
            result.warnings << QStringLiteral("mapping%1: layer_mapping \"%2: %3\" -> \"%4\": no NPU entry's scope has \"%3\" "
                                              "right inside a %2 layer; not used")
                                   .arg(file, entries[e].layer, entries[e].key, entries[e].value);

    // generate_data_mapping: each NPU row to the bench entry's row of the same suffix
    QHash<QString, int> npuOps, benchOps;
    for (size_t o = 0; o < npu.ops.size(); ++o)
        if (isMsprobeOp(npu.ops[o]))
            npuOps.insert(opMatchKey(npu.ops[o]), int(o));
    for (size_t o = 0; o < bench.ops.size(); ++o)
        if (isMsprobeOp(bench.ops[o]))
            benchOps.insert(opMatchKey(bench.ops[o]), int(o));
    auto rows = [](const OpRecord &op) {
        QStringList suffixes;
        for (const int t : rowTensors(op))
            suffixes << kSep + tensorMatchKey(op, op.tensors[size_t(t)]);
        return suffixes;
    };
    for (const auto &[npuName, benchName] : result.apiMapping) {
        const auto n = npuOps.constFind(npuName);
        if (n == npuOps.cend())
            continue;
        const auto b = benchOps.constFind(benchName);
        const QStringList benchRows = b == benchOps.cend() ? QStringList() : rows(bench.ops[size_t(*b)]);
        for (const QString &suffix : rows(npu.ops[size_t(*n)]))
            result.dataMapping.emplace_back(npuName + suffix,
                                            benchRows.contains(suffix) ? benchName + suffix : QString(kNoCounterpart));
    }
    return result;
}

} // namespace ds
