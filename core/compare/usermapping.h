#pragma once

#include "util/error.h"

#include <QString>
#include <QStringList>
#include <cstdint>
#include <utility>
#include <vector>

namespace ds {

/// What a mapping file holds. Auto: decided from the content (UserMapping::parse).
///   Flat:  DumpScope's own file (JSON forms below, or YAML `npu name: bench name` lines)
///   Api:   msprobe's api_mapping: a list of {ms_api, pt_api, ms_args, pt_args, ms_output,
///          pt_output, ...} (a single such map is taken as a list of one)
///   Cell:  msprobe's cell_mapping: `{cell}.{Class}: {module}.{Class}` or `string: string`
///   Data:  msprobe's data_mapping: `NPU row name: bench row name`
///   Layer: msprobe's layer_mapping: `Layer: {ms name: pt name, ...}` (applied as the data_mapping
///          msprobe derives from it: layermapping.h)
enum class MappingKind : std::uint8_t { Auto, Flat, Api, Cell, Data, Layer };
QString mappingKindName(MappingKind k); ///< "auto", "flat", "api_mapping", "cell_mapping", "data_mapping", "layer_mapping"
/// Parses mappingKindName() and the short forms "api", "cell", "data", "layer"; false otherwise.
bool parseMappingKind(const QString &text, MappingKind &out);

/// A user's NPU -> bench name mapping (compare.md §2.4). Names are operator names (the
/// matching key of an operator: CANN op name, msprobe entry name) or full row names
/// (`<op>.<tensor>`, e.g. "Functional.linear.0.forward.input_args.0", "fc/MatMul.output.0").
///
/// JSON, any of:
///   {"npu name": "bench name", ...}
///   {"map": {"npu": "bench", ...}, "groups": [{"npu": ["a", "b"], "bench": ["c"]}]}
///   [{"npu_key": "a", "bench_key": "b", "source": "user"}, ...]
/// YAML (.yaml/.yml): only lines `npu name: bench name` (quotes optional, # comments).
///
/// A group maps N NPU operators to M bench operators: the inputs of the first NPU operator
/// compare with the inputs of the first bench operator, the outputs of the last with the
/// outputs of the last; the other tensors of the group have no counterpart (FUSED_AWAY).
struct UserMapping
{
    struct Group
    {
        QStringList npu, bench;
        bool operator==(const Group &) const = default;
    };
    /// One entry of msprobe's api_mapping: the NPU (MindSpore) API and its bench (PyTorch) API,
    /// "Functional.dense" / "Functional.linear", and per section the argument indexes that
    /// correspond (ms_args[i] <-> pt_args[i]); rows of a section not listed pair nothing.
    struct ApiEntry
    {
        QString msApi, ptApi;
        QStringList msArgs, ptArgs, msOutput, ptOutput, msParameters, ptParameters, msParametersGrad, ptParametersGrad;
        bool operator==(const ApiEntry &) const = default;
    };
    struct LayerEntry
    {
        QString layer;
        std::vector<std::pair<QString, QString>> names; ///< ms name -> pt name inside the layer
        bool operator==(const LayerEntry &) const = default;
    };
    MappingKind kind = MappingKind::Flat;
    QString fileName; ///< the file read (warnings name it)
    std::vector<std::pair<QString, QString>> names;
    std::vector<Group> groups;
    std::vector<ApiEntry> apis;                     ///< kind Api
    std::vector<std::pair<QString, QString>> cells; ///< kind Cell, file order
    std::vector<LayerEntry> layers;                 ///< kind Layer
    /// Entries of the file that were not taken (malformed), each naming the file, the entry and why.
    QStringList warnings;

    /// The same entries (the file they were read from and its warnings aside).
    bool operator==(const UserMapping &o) const
    {
        return names == o.names && groups == o.groups && apis == o.apis && cells == o.cells && layers == o.layers;
    }
    bool isEmpty() const { return names.empty() && groups.empty() && apis.empty() && cells.empty() && layers.empty(); }
    static Result<UserMapping> load(const QString &path, MappingKind kind = MappingKind::Auto);
    /// `fileName` names the source in error messages and picks YAML for .yaml/.yml; `kind`
    /// forces how the content is read (Auto: msprobe's api/cell/layer/data_mapping when the
    /// YAML has their shape, else DumpScope's flat file).
    static Result<UserMapping> parse(const QByteArray &text, const QString &fileName, MappingKind kind = MappingKind::Auto);
    /// msprobe's YAML mapping files (msprobemapping.cpp), with yaml-cpp. Flat for plain
    /// `name: name` maps that are neither cell nor data mappings (unless `kind` says).
    static Result<UserMapping> parseMsprobeYaml(const QByteArray &text, const QString &fileName, MappingKind kind);

    /// Maps NPU operators to bench operators (both in execution order): one name on each side
    /// gives a name entry, more give a group. Earlier entries of these NPU operators (their
    /// operator name, one of their row names `<op>.<tensor>`, a group holding one of them) are
    /// dropped first. Nothing happens when either list is empty.
    void assign(const QStringList &npu, const QStringList &bench);
    /// Entries in display order: the names, then the groups.
    size_t entryCount() const { return names.size() + groups.size(); }
    void removeEntry(size_t i);
    /// True when an entry names the NPU operator `op` (or one of its rows).
    bool mentionsNpu(const QString &op) const;

    /// The text of a mapping file that parse() reads back to the same entries: YAML lines
    /// `npu name: bench name` for .yaml/.yml (names only: groups need JSON), else JSON
    /// {"map": {npu: bench, ...}, "groups": [{"npu": [...], "bench": [...]}]} (map keys sorted).
    /// Fails, saying why, for what the format cannot hold.
    Result<QByteArray> serialize(const QString &fileName) const;
    /// serialize() written atomically to `path`.
    Result<bool> save(const QString &path) const;
};

} // namespace ds
