#pragma once

#include "util/error.h"

#include <QString>
#include <QStringList>
#include <utility>
#include <vector>

namespace ds {

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
    std::vector<std::pair<QString, QString>> names;
    std::vector<Group> groups;

    bool operator==(const UserMapping &) const = default;
    bool isEmpty() const { return names.empty() && groups.empty(); }
    static Result<UserMapping> load(const QString &path);
    /// `fileName` names the source in error messages and picks YAML for .yaml/.yml.
    static Result<UserMapping> parse(const QByteArray &text, const QString &fileName);

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
