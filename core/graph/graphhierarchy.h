#pragma once

#include "graph/graph.h"

#include <QString>
#include <vector>

namespace ds {

/// What a box of the display hierarchy stands for.
enum class GroupKind : std::uint8_t {
    Scope, ///< a name scope of the graph (Graph::groups, same GroupId)
    Fold,  ///< siblings that share a name pattern, folded into one box ("atomic_addr_clean* ×120")
    Page,  ///< consecutive members of a crowded container ("calls 2001–4000 of 200000")
};

/// One group of the display hierarchy: a name scope, or a fold of pattern siblings.
struct HierarchyGroup
{
    GroupKind kind = GroupKind::Scope;
    QString label;   ///< box label: the scope's last component, or the fold's pattern ("trans_TransData_*")
    QString path;    ///< scope path; a fold: its container's path + '/' + the pattern (unique)
    GroupId parent;  ///< invalid at the top level (a fold's parent is the container it was made in)
    std::vector<GroupId> childGroups;
    std::vector<NodeId> nodes; ///< direct members
    int depth = 0;
    int nodeCount = 0;   ///< operators below (recursive)
    int memberCount = 0; ///< direct members (child groups + nodes)
    int firstNode = -1;  ///< smallest NodeId value below: the order of siblings
    QString commonType;  ///< the type every operator below shares ("" when they differ or for scopes of groups)
    bool operator==(const HierarchyGroup &) const = default;
};

/// How siblings are folded (see GraphHierarchy::build).
struct FoldOptions
{
    bool enabled = true;
    int minPattern = 6;      ///< operators sharing a name pattern and a type fold from this many
    int minGroupPattern = 8; ///< scopes sharing a name pattern fold from this many
    int minPrefix = 10;      ///< siblings sharing only a leading word fold from this many
    int minWholeScope = 12;  ///< a fold may take every member of a scope only from this many
    /// Fold only runs of siblings that are adjacent in graph order (module graphs: the call
    /// order is the meaning, folding calls around others would draw false cycles).
    bool consecutiveOnly = false;
    /// With consecutiveOnly: a container left with more direct members than this after folding
    /// is split into pages of this many consecutive members (0: never), so that opening any
    /// box lays out at most a page.
    int pageSize = 2000;
    bool operator==(const FoldOptions &) const = default;
};

/// The boxes a graph is drawn with: the name-scope groups of the Graph (same GroupId values,
/// [0, scopeGroups)), plus fold groups appended after them. Plain data, built once per graph
/// on a worker thread and shared read-only.
struct GraphHierarchy
{
    std::vector<HierarchyGroup> groups;
    std::vector<GroupId> topGroups;
    std::vector<NodeId> topNodes;
    std::vector<GroupId> nodeGroup; ///< per node: its innermost group (invalid at the top level)
    int scopeGroups = 0;            ///< groups [0, scopeGroups) are Graph::groups

    const HierarchyGroup &group(GroupId g) const { return groups[g.index()]; }
    /// The groups containing a node, outermost first.
    std::vector<GroupId> ancestors(NodeId node) const;
    /// The groups containing a group (not itself), outermost first.
    std::vector<GroupId> ancestors(GroupId group) const;
    int foldCount() const { return int(groups.size()) - scopeGroups; }

    /// Builds the hierarchy of `graph`'s name scopes and folds crowds of siblings inside every
    /// container (the top level and every scope):
    /// 1. siblings whose name pattern (foldPattern) is the same, operators also of the same
    ///    type, `minPattern` (scopes: `minGroupPattern`) or more of them:
    ///    `atomic_addr_clean0_71`, `atomic_addr_clean0_72` ... -> "atomic_addr_clean*";
    /// 2. of what is left, siblings sharing their first word (up to '_', '.', '/', '-' or a
    ///    digit), `minPrefix` or more: `update_conv1`, `update_fc` ... -> "update*".
    /// A crowd is folded only when its members are parallel: no path leads from one to
    /// another (`atomic_addr_clean` sources, weight transforms, optimizer updates; a chain of
    /// repeated blocks is the model's structure and stays); with consecutiveOnly, a run of a
    /// call-order chain (no path between two members leaves the run: no false cycle).
    /// Otherwise the crowd's sources (no input inside the container) and its sinks are
    /// folded apart when each is large enough. A fold never takes all members of a scope with fewer than minWholeScope
    /// members (the scope box already is that box).
    /// 3. with consecutiveOnly, a container still over `pageSize` direct members is split into
    ///    pages of consecutive members (GroupKind::Page, "calls 1–2000 of 200000").
    static GraphHierarchy build(const Graph &graph, const FoldOptions &options = {});
};

/// The name pattern of a label: trailing numbers (with their '_', '.' or '-') removed, inner
/// digit runs replaced by '#', then '*': "atomic_addr_clean0_71" -> "atomic_addr_clean*",
/// "Module.layers.3.Block.forward.0" -> "Module.layers.#.Block.forward*".
QString foldPattern(const QString &label);
/// The first word of a label (letters before '_', '.', '/', '-' or a digit), or "".
QString leadingWord(const QString &label);

} // namespace ds
