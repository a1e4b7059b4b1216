#pragma once
// Tensors whose sizes are not whole tiles (docs/language.md, "Tensors of any shape"). A tensor's
// device buffer holds whole 32x32 tiles: the host fills the elements past its logical rows and
// columns with a pad value before the kernel runs and crops them on the way back. The pad value is
// derived here from the ops that read the tensor, never written by hand: a sum (reduce_sum, the K
// of a matmul, an accumulating store) over padded elements needs 0, a maximum needs -inf, and an
// elementwise op carries the padding on (exp(-inf) = 0, so softmax's sum after its maximum is exact
// when its input is padded with -inf).
//
// The analysis is an abstract interpretation of the kernel over its block values. For each value
// it tracks what the elements of each padded region may hold (a set of {0, finite, +inf, -inf,
// NaN}): region 1 holds the elements past the last logical row (in a logical column), region 2
// those past the last logical column (in a logical row), region 3 the corner. Values flow through
// CBs and pipes to a fixed point. A reduction along dims D must see its identity in every region
// padded only in D; a matmul's products over padded K must be 0. Every tensor that is read and
// has a padded dimension gets 0 or -inf; the first assignment (fewest -inf, then argument order)
// under which every such check holds wins.
#include "ttlplan/ir/Operation.h"
#include "ttlplan/ir/Params.h"
#include "ttlplan/support/Expected.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::ir {

/// The side of a tile every tensor dimension is padded to.
inline constexpr int64_t kPadTile = 32;

/// What the host writes past a tensor's logical rows and columns.
enum class PadValue {
  None,   ///< the tensor is whole tiles, or the kernel never reads it
  Zero,   ///< 0: sums, matmul's K, and anything the padding does not reach
  NegInf, ///< -inf: maxima (and softmax, whose exp turns it into 0 for the sum)
};

/// "none", "0" or "-inf".
std::string_view padValueName(PadValue pad);

/// One kernel argument under a binding.
struct TensorPadding {
  std::string name;                       ///< the argument, without '%'
  int64_t rows = 0, cols = 0;             ///< logical size in elements
  int64_t paddedRows = 0, paddedCols = 0; ///< rounded up to whole tiles
  PadValue pad = PadValue::None;          ///< None when rows and cols are whole tiles
  bool padded() const { return rows != paddedRows || cols != paddedCols; }
};

/// The padding of every argument of `kernel` (a verified `ttl.kernel`), in order. Dimensions are
/// resolved under `binding` (static ones need none). An Error, whose lines read
/// "file:line:col: error: ...", when an argument with a padded dimension is not a 2-D tensor or
/// has a dimension without a value, or when no choice of pad values keeps every reduction and
/// matmul exact (it names the op and what the padding it reads may hold under each choice).
Expected<std::vector<TensorPadding>> derivePadding(Operation& kernel, const Binding& binding);

/// For the verifier: what derivePadding reports for a kernel whose argument shapes are all
/// numbers, without the location; empty when it derives pad values or a shape has a knob.
std::string paddingProblem(Operation& kernel);

/// The kernel attribute that carries the derived pad values into the lowered IR (an array of
/// strings, padValueName per argument); set by apply-plan when some argument is padded.
inline constexpr std::string_view kPadAttribute = "ttl.pad_values";

} // namespace ttlplan::ir
