#include "nodestatus.h"

#include <algorithm>

namespace ds {

NodeStatusColumn liftOpStatus(const DumpMapping &mapping, int graph, NodeStatusRole role,
                              const std::unordered_map<int, double> &opValues, StatusWorst worst,
                              std::vector<char> *undefined)
{
    NodeStatusColumn out;
    out.role = role;
    if (graph < 0 || size_t(graph) >= mapping.nodeOps.size())
        return out;
    const auto &nodes = mapping.nodeOps[size_t(graph)];
    out.values.assign(nodes.size(), std::numeric_limits<double>::quiet_NaN());
    if (undefined)
        undefined->assign(nodes.size(), 0);
    for (size_t n = 0; n < nodes.size(); ++n) {
        bool any = false, nan = false;
        double v = worst == StatusWorst::Highest ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
        for (int op : nodes[n]) {
            const auto it = opValues.find(op);
            if (it == opValues.end())
                continue;
            if (std::isnan(it->second)) {
                nan = true;
                continue;
            }
            any = true;
            v = worst == StatusWorst::Highest ? std::max(v, it->second) : std::min(v, it->second);
        }
        if (nan && undefined)
            (*undefined)[n] = 1;
        if (any && !nan)
            out.values[n] = v;
    }
    return out;
}

int StatusBands::level(double value, bool undefined) const
{
    if (undefined)
        return int(edges.size()) + 1;
    if (std::isnan(value))
        return 0;
    const int below = int(std::upper_bound(edges.begin(), edges.end(), value) - edges.begin()); // edges <= value
    return descending ? int(edges.size()) + 1 - below : below + 1;
}

} // namespace ds
