#pragma once
// The HTML report (`--html FILE` on plan, cost and tune; docs/reports.md): one self-contained
// page, inline SVG and CSS, no script, no font or file from the network, that reads top to bottom:
// a summary, the trade-offs, and per kernel the L1 map, the CB table, the core grid, the multicast
// rectangles, the DST sub-block rounds and the cost breakdown; for tune the scatter of every
// evaluated point with the Pareto front and the top K. The page is a view of the reports' JSON
// (docs/architecture.md, "Reports are data first"), so it needs nothing but those documents.
#include <nlohmann/json.hpp>
#include <string>

namespace ttlplan::report {

struct PageInput {
  std::string command; ///< "plan", "cost" or "tune": the page's title
  /// lower::toJson of the plan, with search::cost::addCostToPlanJson when it was costed
  /// ("status": "planned"; docs/schema/plan.schema.json).
  nlohmann::json plan;
  nlohmann::json cost; ///< search::cost::toJson of the same plan, or null
  /// `tune --json`'s object with "points" ([{predicted_ns, l1_bytes, bound}]) and "pareto"
  /// (indices into points), or null.
  nlohmann::json tune;
  int deviceRows = 0; ///< the device's compute grid, so that idle cores show; 0: the kernels'
  int deviceCols = 0;
};

/// The page. Missing or malformed parts of the documents leave their section out with a note;
/// it never throws.
std::string renderHtml(const PageInput& input);

/// The page of `plan --target pto` / `cost --target pto` (docs/pto.md): `plan` is
/// lower::toJson of the pto plan, `cost` driver::ptoCostJson of it or null. Per kernel: each
/// on-chip memory's slots, the buffers and event ids, and with a cost each pipe's busy cycles
/// per work item and the instructions.
std::string renderPtoHtml(const std::string& command, const nlohmann::json& plan,
                          const nlohmann::json& cost);

} // namespace ttlplan::report
