#pragma once

// The JSON of the error added per operator (compareJson; docs/COMPARE.md "JSON"): the
// report's top-level "added_error" (every operator with a compared output) and
// "added_error_ranking" (per scope, the operators that add the most error).

#include <nlohmann/json_fwd.hpp>

namespace ds {

class DumpIndex;
struct CompareResult;

nlohmann::ordered_json addedErrorJson(const DumpIndex &npu, const CompareResult &result);
nlohmann::ordered_json addedErrorRankingJson(const DumpIndex &npu, const CompareResult &result);

} // namespace ds
