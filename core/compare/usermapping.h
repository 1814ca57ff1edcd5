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
    };
    std::vector<std::pair<QString, QString>> names;
    std::vector<Group> groups;

    bool isEmpty() const { return names.empty() && groups.empty(); }
    static Result<UserMapping> load(const QString &path);
    /// `fileName` names the source in error messages and picks YAML for .yaml/.yml.
    static Result<UserMapping> parse(const QByteArray &text, const QString &fileName);
};

} // namespace ds
