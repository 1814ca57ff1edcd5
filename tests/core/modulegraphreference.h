#pragma once

#include "dumpgraph/modulegraph.h"

namespace ds {
namespace reference {

/// buildModuleGraphs as it was before the graph was built by node index (the test's oracle).
std::vector<GraphModel> buildModuleGraphsByInputStrings(const DumpIndex &index);

} // namespace reference
} // namespace ds
