// msprobe's mapping files (api_mapping, cell_mapping, layer_mapping, data_mapping YAML), read
// with yaml-cpp: msprobe reads them with PyYAML's safe_load, so flow lists ([0, 1]), quoting,
// comments and anchors all occur in real files; a line-by-line subset would refuse them.
#include "usermapping.h"

#include <QHash>
#include <yaml-cpp/yaml.h>

namespace ds {

namespace {

using R = Result<UserMapping>;

QString text(const YAML::Node &n)
{
    return n.IsDefined() && n.IsScalar() ? QString::fromStdString(n.Scalar()) : QString();
}

QString where(const QString &fileName, const YAML::Mark &m)
{
    return m.is_null() ? fileName : QStringLiteral("%1:%2:%3").arg(fileName).arg(m.line + 1).arg(m.column + 1);
}

bool isRowName(const QString &name)
{
    static const QString sections[] = {QStringLiteral(".input."), QStringLiteral(".output."), QStringLiteral(".parameters."),
                                       QStringLiteral(".parameters_grad.")};
    for (const QString &s : sections)
        if (name.contains(s))
            return true;
    return false;
}

bool hasDirection(const QString &name)
{
    const QStringList tokens = name.split(QLatin1Char('.'));
    return tokens.contains(QLatin1String("forward")) || tokens.contains(QLatin1String("backward"))
           || tokens.contains(QLatin1String("parameters_grad"));
}

/// A `{cell}.{Class}` or class-string key of a cell_mapping: no direction token, no '/', the
/// last token a class name (upper-case first letter).
bool looksLikeCell(const QString &key)
{
    if (key.isEmpty() || key.contains(QLatin1Char('/')) || hasDirection(key))
        return false;
    const QString last = key.section(QLatin1Char('.'), -1);
    return !last.isEmpty() && last.front().isUpper();
}

QStringList indexList(const YAML::Node &n, bool &ok)
{
    QStringList out;
    ok = true;
    if (!n)
        return out;
    if (!n.IsSequence()) {
        ok = false;
        return out;
    }
    for (const auto &e : n) {
        if (!e.IsScalar()) {
            ok = false;
            return {};
        }
        out << text(e);
    }
    return out;
}

void readApiEntry(const YAML::Node &e, int i, const QString &fileName, UserMapping &m)
{
    const QString entry = QStringLiteral("%1: api_mapping entry %2").arg(where(fileName, e.Mark())).arg(i + 1);
    if (!e.IsMap()) {
        m.warnings << QStringLiteral("%1: not a map of ms_api, pt_api and index lists; not used").arg(entry);
        return;
    }
    UserMapping::ApiEntry a;
    a.msApi = text(e["ms_api"]);
    a.ptApi = text(e["pt_api"]);
    if (a.msApi.isEmpty() || a.ptApi.isEmpty()) {
        m.warnings << QStringLiteral("%1: needs ms_api and pt_api; not used").arg(entry);
        return;
    }
    const QString named = QStringLiteral("%1 (%2 -> %3)").arg(entry, a.msApi, a.ptApi);
    struct Section { const char *ms, *pt, *altMs, *altPt; QStringList *msList, *ptList; };
    const Section sections[] = {
        {"ms_args", "pt_args", nullptr, nullptr, &a.msArgs, &a.ptArgs},
        // msprobe 26 reads ms_output / pt_output; its documentation writes ms_outputs / pt_outputs
        {"ms_output", "pt_output", "ms_outputs", "pt_outputs", &a.msOutput, &a.ptOutput},
        {"ms_parameters", "pt_parameters", nullptr, nullptr, &a.msParameters, &a.ptParameters},
        {"ms_parameters_grad", "pt_parameters_grad", nullptr, nullptr, &a.msParametersGrad, &a.ptParametersGrad},
    };
    for (const Section &s : sections) {
        // (a missing key of a const map is an invalid node: never assigned to, only tested)
        const YAML::Node ms = e[s.ms].IsDefined() || !s.altMs ? e[s.ms] : e[s.altMs];
        const YAML::Node pt = e[s.pt].IsDefined() || !s.altPt ? e[s.pt] : e[s.altPt];
        bool okMs = false, okPt = false;
        *s.msList = indexList(ms, okMs);
        *s.ptList = indexList(pt, okPt);
        if (!okMs || !okPt) {
            m.warnings << QStringLiteral("%1: %2 / %3 must be lists of indexes; not used").arg(named, QLatin1String(s.ms), QLatin1String(s.pt));
            return;
        }
        if (s.msList->size() != s.ptList->size()) {
            m.warnings << QStringLiteral("%1: %2 has %3 indexes and %4 has %5 (msprobe: \"the number of parameters is equal\"); "
                                         "not used")
                              .arg(named, QLatin1String(s.ms)).arg(s.msList->size()).arg(QLatin1String(s.pt)).arg(s.ptList->size());
            return;
        }
    }
    m.apis.push_back(std::move(a));
}

} // namespace

QString mappingKindName(MappingKind k)
{
    switch (k) {
    case MappingKind::Auto: return QStringLiteral("auto");
    case MappingKind::Flat: return QStringLiteral("flat");
    case MappingKind::Api: return QStringLiteral("api_mapping");
    case MappingKind::Cell: return QStringLiteral("cell_mapping");
    case MappingKind::Data: return QStringLiteral("data_mapping");
    case MappingKind::Layer: return QStringLiteral("layer_mapping");
    }
    return {};
}

bool parseMappingKind(const QString &t, MappingKind &out)
{
    for (MappingKind k : {MappingKind::Auto, MappingKind::Flat, MappingKind::Api, MappingKind::Cell, MappingKind::Data,
                          MappingKind::Layer}) {
        const QString name = mappingKindName(k);
        if (t == name || (name.endsWith(QLatin1String("_mapping")) && t == name.chopped(8))) {
            out = k;
            return true;
        }
    }
    return false;
}

namespace {

R parseMsprobeNodes(const YAML::Node &root, const QString &fileName, MappingKind kind);

} // namespace

R UserMapping::parseMsprobeYaml(const QByteArray &bytes, const QString &fileName, MappingKind kind)
{
    YAML::Node root;
    try {
        root = YAML::Load(bytes.toStdString());
    } catch (const YAML::Exception &e) {
        return R::failure(QStringLiteral("%1: not valid YAML: %2").arg(where(fileName, e.mark), QString::fromStdString(e.msg)));
    }
    try {
        return parseMsprobeNodes(root, fileName, kind);
    } catch (const YAML::Exception &e) { // a node of an unexpected type
        return R::failure(QStringLiteral("%1: unexpected content: %2").arg(where(fileName, e.mark), QString::fromStdString(e.msg)));
    }
}

namespace {

R parseMsprobeNodes(const YAML::Node &root, const QString &fileName, MappingKind kind)
{
    UserMapping m;
    m.fileName = fileName;
    if (!root || root.IsNull())
        return R::failure(QStringLiteral("%1: the mapping file is empty").arg(fileName));
    const bool apiShaped = root.IsSequence() || (root.IsMap() && root["ms_api"]);
    if (kind == MappingKind::Auto && apiShaped)
        kind = MappingKind::Api;
    if (kind == MappingKind::Api) {
        if (root.IsMap() && root["ms_api"]) {
            readApiEntry(root, 0, fileName, m);
        } else if (root.IsSequence()) {
            int i = 0;
            for (const auto &e : root)
                readApiEntry(e, i++, fileName, m);
        } else {
            return R::failure(QStringLiteral("%1: an api_mapping is a list of {ms_api, pt_api, ms_args, pt_args, ...} maps")
                                  .arg(where(fileName, root.Mark())));
        }
        m.kind = MappingKind::Api;
        return m;
    }
    if (!root.IsMap())
        return R::failure(QStringLiteral("%1: expected a map of names (`npu name: bench name`)").arg(where(fileName, root.Mark())));
    bool nested = false, scalars = false;
    for (const auto &e : root) {
        (e.second.IsMap() ? nested : scalars) = true;
        if (!e.first.IsScalar() || (!e.second.IsMap() && !e.second.IsScalar()))
            return R::failure(QStringLiteral("%1: expected `npu name: bench name` or `Layer: {ms name: pt name}`")
                                  .arg(where(fileName, e.first.Mark())));
    }
    if (kind == MappingKind::Auto && nested && !scalars)
        kind = MappingKind::Layer;
    if (kind == MappingKind::Layer) {
        m.kind = MappingKind::Layer;
        for (const auto &e : root) {
            const QString layer = text(e.first);
            if (!e.second.IsMap()) {
                m.warnings << QStringLiteral("%1: layer \"%2\" is not a map of `ms name: pt name`; not used")
                                  .arg(where(fileName, e.first.Mark()), layer);
                continue;
            }
            UserMapping::LayerEntry l{layer, {}};
            for (const auto &n : e.second) {
                if (!n.first.IsScalar() || !n.second.IsScalar() || text(n.first).isEmpty() || text(n.second).isEmpty()) {
                    m.warnings << QStringLiteral("%1: layer \"%2\": an entry is not `ms name: pt name`; not used")
                                      .arg(where(fileName, n.first.Mark()), layer);
                    continue;
                }
                l.names.emplace_back(text(n.first), text(n.second));
            }
            m.layers.push_back(std::move(l));
        }
        return m;
    }
    std::vector<std::pair<QString, QString>> pairs;
    QHash<QString, std::pair<size_t, int>> firstAt; // key -> its pair and line (1-based)
    bool allRows = true, allCells = true;
    for (const auto &e : root) {
        const QString k = text(e.first), v = text(e.second);
        if (k.isEmpty() || v.isEmpty() || !e.second.IsScalar()) {
            m.warnings << QStringLiteral("%1: \"%2\" has no bench name; not used").arg(where(fileName, e.first.Mark()), k);
            continue;
        }
        if (const auto seen = firstAt.constFind(k); seen != firstAt.cend()) {
            // msprobe reads the file with PyYAML, whose map keeps a repeated key's last value
            m.warnings << QStringLiteral("%1: \"%2\" is given again (first on line %3): its last value \"%4\" is used, as "
                                         "msprobe's YAML reader does; \"%5\" is not used")
                              .arg(where(fileName, e.first.Mark()), k)
                              .arg(seen->second)
                              .arg(v, pairs[seen->first].second);
            pairs[seen->first].second = v;
            allCells = allCells && looksLikeCell(v);
            continue;
        }
        firstAt.insert(k, {pairs.size(), e.first.Mark().line + 1});
        allRows = allRows && isRowName(k);
        allCells = allCells && looksLikeCell(k) && looksLikeCell(v);
        pairs.emplace_back(k, v);
    }
    if (kind == MappingKind::Auto)
        kind = pairs.empty() ? MappingKind::Flat : allRows ? MappingKind::Data : allCells ? MappingKind::Cell : MappingKind::Flat;
    m.kind = kind;
    if (kind == MappingKind::Cell)
        m.cells = std::move(pairs);
    else
        m.names = std::move(pairs);
    return m;
}

} // namespace

} // namespace ds
