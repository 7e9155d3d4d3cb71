#pragma once
// roofprof report --hatchet: regions and their call-path groups (run --group-by caller) as a
// call tree in Hatchet's "literal" format (GraphFrame.from_literal): a list of root nodes, each
// {"frame": {"name", "type"}, "metrics": {...}, "children": [...]}. Metrics W (flops), Q (bytes
// at the view's level and traffic), T (seconds), P (flop/s), I (flop/byte) and calls; unknown
// ones null (NaN in Hatchet's DataFrame).
//  * A region whose calls were grouped by call path: one path of frames per group, outermost
//    first, the region's node at its end with the group's metrics; frames met by several
//    paths are one node, whose metrics are the sums over the region calls below it.
//  * Any other region: a root node with the region's metrics; its argument groups, if any, as
//    its children ("dgemm_ [m=200,n=200,k=200]").
#include <nlohmann/json.hpp>

#include "report/view.hpp"
#include "result/result.hpp"

namespace roofprof::report {

nlohmann::ordered_json hatchet_literal(const result::Run& run, const View& view);

}  // namespace roofprof::report
