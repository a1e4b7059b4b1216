// The TT-Metalium API that generated code calls: one record per kernel function (and the host
// names the host program uses), with the header that declares it in the pinned tt-metal tree.
// Lowering names a kernel call `ttkernel.NAME`; codegen spells it from this record (its template
// arguments, its trailing literal, the header to include) and refuses a name or an operand count
// the record does not have, so generated code never calls an API the SDK lacks. The emulator's
// headers (codegen/emu/include/api/..., tt-metalium/...) sit at the same paths.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace ttlplan::ir::metal {

/// The tenstorrent/tt-metal tree whose headers the records follow (docs/codegen.md, "The pinned
/// TT-Metalium"): main of 2026-04-25.
inline constexpr std::string_view kPinnedCommit = "a8c5af0f5a26ef3d2b84fdfa998cab5dea376efd";
inline constexpr std::string_view kPinnedDate = "2026-04-25";

/// Which program calls a name: the same name (cb_wait_front) has a data-movement and a compute
/// declaration in different headers.
enum class ApiSide : uint8_t {
  DataMovement, ///< reader and writer kernels (BRISC, NCRISC)
  Compute,      ///< compute kernels (TRISC 0-2)
  Host,         ///< the host program
};

/// An attribute of the ttkernel op spelled as a template argument: `bcast = "COL"` is
/// `<BroadcastType::COL>`, `out_of_order = true` is `<true>`.
struct TemplateArg {
  std::string_view attribute; ///< the attribute's name
  std::string_view prefix;    ///< written before a string value ("BroadcastType::")
  /// The string values it accepts; empty: a bool attribute, spelled `true` / `false`.
  std::span<const std::string_view> values;
  bool required = true; ///< false: the argument and every later one may be left out
};

/// One API name.
struct ApiDef {
  std::string_view name;   ///< the C++ name; a kernel call is the IR op `ttkernel.NAME`
  std::string_view header; ///< declares it, as generated code includes it
  ApiSide side;
  /// Arguments the ttkernel op passes as operands (defaulted C++ parameters it leaves out are not
  /// counted); -1 for a host name, which the host emitter writes itself.
  int operands = -1;
  std::span<const TemplateArg> templateArgs; ///< in C++ order
  /// A float attribute written as the last argument (fill_tile's `value`); empty for none.
  std::string_view trailingFloat = {};
  std::string_view use; ///< what generated code uses it for (the table in docs/codegen.md)
  /// The most operands an overload takes (compute_kernel_hw_startup: 2 or 3); 0: `operands`.
  int maxOperands = 0;
};

/// Every record, data-movement names first, then compute, then host.
std::span<const ApiDef> metalApi();
/// The record of `name` on `side`, or null.
const ApiDef* lookupMetalApi(std::string_view name, ApiSide side);
std::string_view toString(ApiSide side);
/// The table of docs/codegen.md's section "API names and headers" (`ttlplan ops --metal-api`).
std::string metalApiMarkdown();

} // namespace ttlplan::ir::metal
