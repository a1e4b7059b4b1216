#pragma once
// Knob binding utilities: the `ttl.param` knobs of a module, bindings of them (one value per
// knob), and constant folding of index/i1 expressions built from `ttl.param_value`, constants and
// `arith` ops under a binding. The verifier uses them to fold `ttl.require`; the search uses them
// to instantiate templates.
#include "ttlplan/ir/KnobDomain.h"
#include "ttlplan/ir/KnobValue.h"
#include "ttlplan/ir/Operation.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace ttlplan::ir {

/// One `ttl.param @NAME = DOMAIN [{problem}]`.
struct Param {
  std::string name;     ///< without '@'
  KnobDomain domain;    ///< the values a binding may give it (KnobDomain)
  bool problem = false; ///< a problem knob (`{problem}`): the user binds it, the search never does
  Operation* op = nullptr; ///< the defining `ttl.param`

  /// True when the knob's values are symbols (the verifier rejects a mix).
  bool isSymbolic() const { return domain.isSymbolic(); }
  /// True when `value` is in the domain under `binding` (which binds the knobs the domain
  /// reads). Error: the domain does not evaluate under `binding` (the message names the knob).
  Expected<bool> allows(const KnobValue& value, const Binding& binding = {}) const;
  /// The domain's values under `binding`; Error as KnobDomain::values(), naming the knob.
  Expected<std::vector<KnobValue>> values(const Binding& binding = {}) const;
};

/// The `ttl.param` ops directly in the module body, in order (duplicates included).
std::vector<Param> collectParams(const Module& module);

/// Every problem knob of `params` (`{problem}`) is bound in `binding`; the Error names the unbound
/// ones, their domains and where they are declared, and says to bind them.
Status checkProblemKnobsBound(const std::vector<Param>& params, const Binding& binding);

/// The first param named `name`, or null.
const Param* findParam(const std::vector<Param>& params, const std::string& name);

/// The value of `value` under `binding`, when it folds to a constant: `arith.constant`,
/// `ttl.param_value` of a bound knob, and the integer `arith` ops (cmpi gives 0 or 1).
/// Division by zero or anything else (block arguments, core coordinates) gives nullopt.
std::optional<int64_t> evaluate(const Value* value, const Binding& binding);

/// The value of an op the evaluator does not fold itself (`ttl.core_x` on one core, say), or
/// nullopt when it is unknown.
using LeafEvaluator = std::function<std::optional<int64_t>(const Operation&)>;

/// evaluate(), with `leaves` asked for every op that is not a constant, a knob or `arith`, and
/// `known` giving values no op defines (loop induction variables fixed by the caller).
std::optional<int64_t> evaluate(const Value* value, const Binding& binding,
                                const LeafEvaluator& leaves,
                                const std::map<const Value*, int64_t>* known = nullptr);

/// evaluate() of every value of `values` with one memo (shared subexpressions fold once).
std::vector<std::optional<int64_t>> evaluateAll(const std::vector<const Value*>& values,
                                                const Binding& binding,
                                                const LeafEvaluator& leaves);

/// Values compiled once into a flat program, then evaluated many times (per core, per binding)
/// without walking the IR: the same results as evaluate() with a LeafEvaluator. Leaves (ops that
/// are not constants, knobs or `arith`) get slots from `leafSlot` at compile time and their values
/// per run; values no op defines (block arguments: loop induction variables) get slots from
/// `argumentSlot` the same way (without one, or where it gives nullopt, they do not fold).
class CompiledValues {
public:
  /// The slot of a leaf op, or nullopt when such an op never folds.
  using LeafSlot = std::function<std::optional<int>(const Operation&)>;
  /// The leaf slot of a block argument, or nullopt when it never folds.
  using ArgumentSlot = std::function<std::optional<int>(const Value&)>;
  CompiledValues() = default;
  CompiledValues(const std::vector<const Value*>& roots, const LeafSlot& leafSlot,
                 const ArgumentSlot& argumentSlot = {});

  /// The knob names the program reads, by knob slot.
  const std::vector<std::string>& knobs() const { return knobs_; }
  /// The knob slots' values under `binding` (nullopt: unbound or a symbol).
  std::vector<std::optional<int64_t>> knobValues(const Binding& binding) const;
  /// Evaluates every root: out[i] is roots[i]'s value. `leaves[j]` is leaf slot j's value.
  void run(const std::vector<std::optional<int64_t>>& knobValues,
           const std::vector<std::optional<int64_t>>& leaves,
           std::vector<std::optional<int64_t>>& out) const;
  /// run() into `values`, every instruction's value (re-used between runs: no allocation once
  /// sized); root i's value is values[rootInstruction(i)].
  void runAll(const std::vector<std::optional<int64_t>>& knobValues,
              const std::vector<std::optional<int64_t>>& leaves,
              std::vector<std::optional<int64_t>>& values) const;
  /// runAll() of only `instructions` (ascending) into `values`, which holds every instruction's
  /// value from an earlier run: what changes when only some leaves do (leafMasks()).
  void runSome(const std::vector<int>& instructions,
               const std::vector<std::optional<int64_t>>& knobValues,
               const std::vector<std::optional<int64_t>>& leaves,
               std::vector<std::optional<int64_t>>& values) const;
  /// Per instruction, the leaf slots it depends on: bit j for slot j (slots 63 and up share
  /// bit 63).
  std::vector<uint64_t> leafMasks() const;
  int rootInstruction(size_t root) const { return roots_[root]; }
  size_t numRoots() const { return roots_.size(); }
  size_t size() const { return program_.size(); }

  enum class Code : uint8_t {
    Unknown,
    Constant,
    Knob,
    Leaf,
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
    MinU,
    MaxU,
    Cmp,
    DivU,
    RemU,
    DivS,
    RemS
  };
  struct Instruction {
    Code code = Code::Unknown;
    int64_t value = 0; ///< Constant: the number; Knob/Leaf: the slot; Cmp: the predicate
    int a = -1;        ///< operand instructions
    int b = -1;
  };
  /// Instruction `i` (operands before their users; Instruction::a and ::b index this program).
  const Instruction& instruction(size_t i) const { return program_[i]; }

private:
  int compile(const Value* value, int depth, const LeafSlot& leafSlot,
              const ArgumentSlot& argumentSlot, std::unordered_map<const Value*, int>& seen);
  void runOne(size_t i, const std::vector<std::optional<int64_t>>& knobValues,
              const std::vector<std::optional<int64_t>>& leaves,
              std::vector<std::optional<int64_t>>& v) const;

  std::vector<Instruction> program_; ///< operands before their users
  std::vector<int> roots_;           ///< instruction of each root
  std::vector<std::string> knobs_;
};

/// The knobs `value` depends on through `ttl.param_value` (transitively through `arith`).
void collectKnobs(const Value* value, std::set<std::string>& knobs);

/// The condition of a `ttl.require` under `binding`: true/false, or nullopt when it does not fold.
std::optional<bool> foldRequire(const Operation& require, const Binding& binding);

/// A dimension under `binding`: its number, the knob's (or expression's) integer value, or
/// nullopt (`?`, unbound, a symbol, an expression that does not evaluate).
std::optional<int64_t> resolveDim(const Dim& dim, const Binding& binding);

/// A tile type's data type under `binding`: fixed, or its knob's bound symbol when that names a
/// data type; nullopt otherwise.
std::optional<DataType> resolveDataType(const Type& tile, const Binding& binding);

/// Number of bindings of `knobs` when each has a list domain (the product of their lengths),
/// saturating at `cap + 1`; nullopt when a domain is computed (range, divisors).
std::optional<uint64_t> countListBindings(const std::vector<const Param*>& knobs, uint64_t cap);

/// Calls `visit` for each binding of `knobs` that extends `base` (Cartesian product in the order
/// of `knobs`, first knob slowest; each domain evaluated under `base` and the knobs before it, so
/// a knob must come after the knobs its domain reads), until it returns false. A prefix under
/// which a domain is empty or does not evaluate has no bindings. The bindings passed include
/// `base`. Returns false when stopped early.
bool forEachBinding(const std::vector<const Param*>& knobs, const Binding& base,
                    const std::function<bool(const Binding&)>& visit);

} // namespace ttlplan::ir
