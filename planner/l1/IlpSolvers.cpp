#include "ttlplan/planner/l1/IlpSolvers.h"

#include "ttlplan/planner/l1/Baselines.h"

#include <CbcHeuristic.hpp>
#include <CbcHeuristicFPump.hpp>
#include <CbcModel.hpp>
#include <CglFlowCover.hpp>
#include <CglGomory.hpp>
#include <CglMixedIntegerRounding2.hpp>
#include <CglProbing.hpp>
#include <CoinError.hpp>
#include <CoinPackedMatrix.hpp>
#include <OsiClpSolverInterface.hpp>
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <csetjmp>
#include <glpk.h>
#include <numeric>
#include <stdexcept>

namespace ttlplan::planner::l1 {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The model in solver-neutral form: columns k_0..k_{n-1}, peak, z_0..z_{p-1}; rows as
/// sparse triplets with an upper bound each (all rows are <=).
struct Model {
  int64_t lowerBound = 0; ///< live-bytes bound on the peak
  int64_t bigM = 0;
  std::vector<double> colLower, colUpper;
  std::vector<int> rowIndex, colIndex; ///< triplets
  std::vector<double> value;
  std::vector<double> rowUpper;
  int columns() const { return int(colLower.size()); }
  int rows() const { return int(rowUpper.size()); }
  void add(int row, int col, double v) {
    rowIndex.push_back(row);
    colIndex.push_back(col);
    value.push_back(v);
  }
};

/// Builds the model, or says there is nothing to solve: empty (peak 0) or trivially infeasible.
/// OutOfTime: the deadline passed while building (the model is quadratic in overlapping buffers).
enum class Trivial { No, Empty, Infeasible, OutOfTime };

Trivial buildModel(const Problem& problem, Model& m, const Deadline& deadline) {
  const std::vector<Buffer>& buffers = problem.buffers;
  size_t n = buffers.size();
  if (n == 0) return Trivial::Empty;
  m.lowerBound = maxLiveBytes(problem).bytes;
  std::optional<Solution> placed =
      placeInOrder(problem, decreasingSizeOrder(problem), Fit::First, deadline);
  if (!placed) return Trivial::OutOfTime;
  int64_t heuristic = placed->peak;
  m.bigM = problem.capacity > 0 ? std::min(problem.capacity, heuristic) : heuristic;
  if (m.lowerBound > m.bigM) return Trivial::Infeasible;
  for (const Buffer& b : buffers) {
    if (b.size > m.bigM) return Trivial::Infeasible;
    m.colLower.push_back(0);
    m.colUpper.push_back(double((m.bigM - b.size) / b.alignment));
  }
  m.colLower.push_back(double(m.lowerBound)); // peak
  m.colUpper.push_back(double(m.bigM));
  int peak = int(n);
  for (size_t i = 0; i < n; ++i) { // offset_i + size_i <= peak
    int row = m.rows();
    m.add(row, int(i), double(buffers[i].alignment));
    m.add(row, peak, -1.0);
    m.rowUpper.push_back(double(-buffers[i].size));
  }
  double M = double(m.bigM);
  for (size_t i = 0; i < n; ++i) {
    if (deadline.passed()) return Trivial::OutOfTime;
    for (size_t j = i + 1; j < n; ++j) {
      const Buffer& a = buffers[i];
      const Buffer& b = buffers[j];
      if (!(a.lower < b.upper && b.lower < a.upper)) continue;
      int z = m.columns();
      m.colLower.push_back(0);
      m.colUpper.push_back(1);
      int row = m.rows(); // a_i k_i - a_j k_j + M z <= M - s_i
      m.add(row, int(i), double(a.alignment));
      m.add(row, int(j), -double(b.alignment));
      m.add(row, z, M);
      m.rowUpper.push_back(M - double(a.size));
      row = m.rows(); // -a_i k_i + a_j k_j - M z <= -s_j
      m.add(row, int(i), -double(a.alignment));
      m.add(row, int(j), double(b.alignment));
      m.add(row, z, -M);
      m.rowUpper.push_back(-double(b.size));
    }
  }
  return Trivial::No;
}

/// What a back end found, before it becomes a Result.
struct Outcome {
  SolveStatus status = SolveStatus::Error;
  std::vector<double> k; ///< column values of k_i when a solution exists
  double objective = 0;  ///< its peak
  double bound = -1e300; ///< the solver's proven bound (or -inf)
  int64_t nodes = 0;
  std::string message;
};

/// Turns an outcome into a checked Result: offsets from k, compacted downwards (first fit in
/// the order of the solver's offsets: never raises an offset of an exact plan, and absorbs
/// rounding), statuses downgraded where the plan does not match the claim.
Result finish(const Problem& problem, const Model& m, Outcome outcome, const char* name,
              Clock::time_point start) {
  Result result;
  result.stats.solver = name;
  result.stats.nodes = outcome.nodes;
  result.status = outcome.status;
  result.message = outcome.message;
  result.lowerBound = m.lowerBound;
  if (outcome.bound > -1e299 && outcome.bound < 1e299) // a solver's bound, clamped to M
    result.lowerBound =
        std::max(result.lowerBound, std::min(m.bigM, int64_t(std::ceil(outcome.bound - 1e-6))));
  bool hasPlan = outcome.status == SolveStatus::Optimal || outcome.status == SolveStatus::Feasible;
  if (hasPlan) {
    const std::vector<Buffer>& buffers = problem.buffers;
    std::vector<int64_t> raw(buffers.size());
    for (size_t i = 0; i < buffers.size(); ++i)
      raw[i] = std::max<int64_t>(0, std::llround(outcome.k[i])) * buffers[i].alignment;
    std::vector<size_t> order(buffers.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return raw[a] < raw[b]; });
    Solution solution = placeInOrder(problem, order, Fit::First);
    int64_t claimed = int64_t(std::ceil(outcome.objective - 1e-6));
    if (outcome.status == SolveStatus::Optimal) {
      if (solution.peak > claimed) {
        result.status = SolveStatus::Feasible; // rounding cost bytes: no longer proven
        result.lowerBound = std::min(result.lowerBound, claimed);
      } else {
        result.lowerBound = solution.peak;
      }
    }
    result.lowerBound = std::min(result.lowerBound, solution.peak);
    if (Validity v = validate(problem, solution); v != Validity::Valid) {
      result.status = SolveStatus::Error;
      result.message =
          std::string(name) + " returned an invalid plan (" + std::string(toString(v)) + ")";
    } else {
      result.solution = std::move(solution);
    }
  }
  result.stats.seconds = secondsSince(start);
  return result;
}

Result trivialResult(const Problem& problem, const Model& m, Trivial trivial, const char* name,
                     Clock::time_point start) {
  Result result;
  result.stats.solver = name;
  if (trivial == Trivial::Empty) {
    result.status = SolveStatus::Optimal;
    result.solution = Solution{};
  } else if (trivial == Trivial::OutOfTime) {
    result.status = SolveStatus::NoSolution;
    result.message = std::string(name) + " reached the time limit while building its model";
  } else {
    result.status = SolveStatus::Infeasible;
    result.lowerBound = m.lowerBound;
    result.message = "a buffer or the busiest time step needs more than the capacity";
  }
  (void)problem;
  result.stats.seconds = secondsSince(start);
  return result;
}

Outcome runCbc(const Model& m, size_t buffers, const SolveLimits& limits) {
  Outcome outcome;
  Deadline deadline = Deadline::in(limits.timeLimitSeconds);
  CoinPackedMatrix matrix(false, m.rowIndex.data(), m.colIndex.data(), m.value.data(),
                          CoinBigIndex(m.value.size()));
  matrix.setDimensions(m.rows(), m.columns());
  std::vector<double> objective(m.columns(), 0.0);
  objective[buffers] = 1.0;
  std::vector<double> rowLower(m.rows(), -COIN_DBL_MAX);
  OsiClpSolverInterface solver;
  solver.messageHandler()->setLogLevel(0);
  solver.loadProblem(matrix, m.colLower.data(), m.colUpper.data(), objective.data(),
                     rowLower.data(), m.rowUpper.data());
  for (int c = 0; c < m.columns(); ++c)
    solver.setInteger(c);
  solver.setHintParam(OsiDoReducePrint, true, OsiHintTry);

  CbcModel model(solver);
  model.setLogLevel(0);
  model.messageHandler()->setLogLevel(0);
  model.solver()->messageHandler()->setLogLevel(0);
  model.setIntegerTolerance(1e-7);
  model.setAllowableFractionGap(0.0);
  model.setAllowableGap(0.999); // the peak is integer: within one byte is optimal
  model.setUseElapsedTime(true);
  if (limits.nodeLimit > 0)
    model.setMaximumNodes(int(std::min<int64_t>(limits.nodeLimit, INT_MAX)));
  CglProbing probing;
  probing.setUsingObjective(true);
  probing.setMaxPass(1);
  probing.setMaxLook(20);
  CglGomory gomory;
  gomory.setLimit(100);
  CglMixedIntegerRounding2 mir;
  CglFlowCover flow;
  model.addCutGenerator(&probing, -1, "Probing");
  model.addCutGenerator(&gomory, -1, "Gomory");
  model.addCutGenerator(&mir, -1, "MixedIntegerRounding2");
  model.addCutGenerator(&flow, -1, "FlowCover");
  CbcRounding rounding(model);
  model.addHeuristic(&rounding);
  CbcHeuristicFPump pump(model);
  model.addHeuristic(&pump);

  // CBC checks its time limit between nodes; the LP solves inside the root node (cuts,
  // heuristics, strong branching) can take far longer on big models, so bound each LP too. Both
  // get what is left after loading the model, and the root LP's time counts against the search.
  auto boundLps = [&] {
    if (auto* clp = dynamic_cast<OsiClpSolverInterface*>(model.solver()))
      clp->getModelPtr()->setMaximumWallSeconds(deadline.secondsLeft(1e-3));
  };
  Clock::time_point start = Clock::now();
  if (deadline.isSet()) {
    if (deadline.passed()) {
      outcome.status = SolveStatus::NoSolution;
      outcome.message = "cbc reached the time limit while loading its model";
      return outcome;
    }
    boundLps();
  }
  model.initialSolve();
  if (deadline.isSet()) {
    model.setMaximumSeconds(deadline.secondsLeft(1e-3));
    boundLps();
  }
  model.branchAndBound();
  // An LP stopped by the time limit can look infeasible to CBC and prune a node wrongly: once
  // the limit is hit, neither an optimality nor an infeasibility proof is trusted, nor the bound.
  bool timedOut = limits.timeLimitSeconds > 0 &&
                  (model.isSecondsLimitReached() || secondsSince(start) >= limits.timeLimitSeconds);

  outcome.nodes = model.getNodeCount();
  const double* best = model.bestSolution();
  if (best) {
    outcome.k.assign(best, best + m.columns());
    outcome.objective = best[buffers];
  }
  if (timedOut) {
    outcome.status = best ? SolveStatus::Feasible : SolveStatus::NoSolution;
    outcome.message = best ? "cbc stopped at the time limit before proving optimality"
                           : "cbc found no plan within the time limit";
  } else if (model.isProvenInfeasible() && !best) {
    outcome.status = SolveStatus::Infeasible;
    outcome.message = "cbc proved the problem infeasible";
  } else if (best && model.isProvenOptimal()) {
    outcome.status = SolveStatus::Optimal;
    outcome.bound = outcome.objective;
  } else if (best) {
    outcome.status = SolveStatus::Feasible;
    outcome.bound = model.getBestPossibleObjValue();
    outcome.message = "cbc stopped at a limit before proving optimality";
  } else if (model.status() == 1 || model.isSecondsLimitReached() || model.isNodeLimitReached()) {
    outcome.status = SolveStatus::NoSolution;
    outcome.bound = model.getBestPossibleObjValue();
    outcome.message = "cbc found no plan within the limits";
  } else {
    outcome.status = SolveStatus::Error;
    outcome.message = "cbc stopped with status " + std::to_string(model.status()) + " and no plan";
  }
  return outcome;
}

// ---- GLPK ------------------------------------------------------------------------------------

struct GlpkCallback {
  Deadline deadline; ///< GLPK's tm_lim is in whole milliseconds and checked between nodes
  int64_t nodeLimit = 0;
  int64_t nodes = 0;
  double bound = -1e300;
};

extern "C" void glpkCallback(glp_tree* tree, void* info) {
  auto* state = static_cast<GlpkCallback*>(info);
  int active = 0, current = 0, total = 0;
  glp_ios_tree_size(tree, &active, &current, &total);
  state->nodes = total;
  if (int best = glp_ios_best_node(tree); best != 0)
    state->bound = std::max(state->bound, glp_ios_node_bound(tree, best));
  if ((state->nodeLimit > 0 && total >= state->nodeLimit) || state->deadline.passed())
    glp_ios_terminate(tree);
}

struct GlpkJump {
  std::jmp_buf buffer;
};

extern "C" void glpkErrorHook(void* info) {
  std::longjmp(static_cast<GlpkJump*>(info)->buffer, 1);
}

struct GlpkRaw {
  int ret = 0;
  int mipStatus = 0;
  double objective = 0;
};

/// Every GLPK call lives here, behind setjmp: GLPK reports internal errors through the hook
/// (which would otherwise abort the process). Only trivially destructible locals below setjmp.
/// Returns false when GLPK failed internally (its environment is freed then).
/// The limits are in `callback` (its deadline and node limit).
bool glpkSolve(const Model& m, size_t buffers, GlpkCallback& callback, std::vector<double>& values,
               GlpkRaw& raw, std::vector<int>& ia, std::vector<int>& ja, std::vector<double>& ar) {
  GlpkJump jump;
  glp_prob* volatile prob = nullptr;
  if (setjmp(jump.buffer)) {
    glp_error_hook(nullptr, nullptr);
    glp_free_env(); // after an error GLPK requires this; it also frees `prob`
    return false;
  }
  glp_error_hook(glpkErrorHook, &jump);
  glp_term_out(GLP_OFF);
  prob = glp_create_prob();
  glp_set_obj_dir(prob, GLP_MIN);
  glp_add_rows(prob, m.rows());
  for (int r = 0; r < m.rows(); ++r)
    glp_set_row_bnds(prob, r + 1, GLP_UP, 0.0, m.rowUpper[r]);
  glp_add_cols(prob, m.columns());
  for (int c = 0; c < m.columns(); ++c) {
    bool binary = c > int(buffers);
    if (binary) {
      glp_set_col_kind(prob, c + 1, GLP_BV);
    } else {
      glp_set_col_kind(prob, c + 1, GLP_IV);
      if (m.colUpper[c] > m.colLower[c])
        glp_set_col_bnds(prob, c + 1, GLP_DB, m.colLower[c], m.colUpper[c]);
      else
        glp_set_col_bnds(prob, c + 1, GLP_FX, m.colLower[c], m.colLower[c]);
    }
  }
  glp_set_obj_coef(prob, int(buffers) + 1, 1.0);
  glp_load_matrix(prob, int(m.value.size()), ia.data(), ja.data(), ar.data());
  // The LP relaxation first, under the limit: glp_intopt's presolver would solve it with no
  // limit at all (seconds on big models), then the search with what is left.
  auto milliseconds = [&] {
    return int(std::clamp(callback.deadline.secondsLeft() * 1000.0, 1.0, double(INT_MAX)));
  };
  glp_smcp simplex;
  glp_init_smcp(&simplex);
  simplex.msg_lev = GLP_MSG_OFF;
  simplex.presolve = GLP_OFF; // glp_intopt below needs the optimal basis it leaves
  if (callback.deadline.isSet()) simplex.tm_lim = milliseconds();
  raw.ret = glp_simplex(prob, &simplex);
  if (raw.ret == 0 && glp_get_status(prob) == GLP_OPT) {
    glp_iocp parm;
    glp_init_iocp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_OFF;
    parm.cb_func = glpkCallback;
    parm.cb_info = &callback;
    if (callback.deadline.isSet()) {
      parm.tm_lim = milliseconds();
      // The default branching rule (Driebeck-Tomlin) evaluates a tableau row per fractional
      // column at every node, which is not checked against tm_lim and took seconds past a 1 s
      // limit on minimalloc's F benchmark (bench/time_limits.sh); the most fractional column
      // costs nothing.
      parm.br_tech = GLP_BR_MFV;
    }
    raw.ret = glp_intopt(prob, &parm);
  } else if (raw.ret == 0 &&
             (glp_get_status(prob) == GLP_NOFEAS || glp_get_prim_stat(prob) == GLP_NOFEAS)) {
    raw.ret = GLP_ENOPFS; // the relaxation has no feasible point: neither has the ILP
  } else if (raw.ret == 0) {
    raw.ret = GLP_EFAIL;
  }
  raw.mipStatus = glp_mip_status(prob);
  raw.objective = glp_mip_obj_val(prob);
  if (raw.mipStatus == GLP_OPT || raw.mipStatus == GLP_FEAS)
    for (int c = 0; c < m.columns(); ++c)
      values[c] = glp_mip_col_val(prob, c + 1);
  glp_delete_prob(prob);
  glp_error_hook(nullptr, nullptr);
  glp_free_env(); // this thread's GLPK state: the library holds no other GLPK objects
  return true;
}

Outcome runGlpk(const Model& m, size_t buffers, const SolveLimits& limits) {
  Outcome outcome;
  // GLPK arrays are 1-based.
  std::vector<int> ia(m.value.size() + 1), ja(m.value.size() + 1);
  std::vector<double> ar(m.value.size() + 1);
  for (size_t t = 0; t < m.value.size(); ++t) {
    ia[t + 1] = m.rowIndex[t] + 1;
    ja[t + 1] = m.colIndex[t] + 1;
    ar[t + 1] = m.value[t];
  }
  std::vector<double> values(m.columns(), 0.0);
  GlpkCallback callback;
  callback.deadline = Deadline::in(limits.timeLimitSeconds);
  callback.nodeLimit = limits.nodeLimit;
  GlpkRaw raw;
  if (!glpkSolve(m, buffers, callback, values, raw, ia, ja, ar)) {
    outcome.message = "glpk failed internally";
    return outcome;
  }
  outcome.nodes = callback.nodes;
  outcome.bound = callback.bound;
  bool hasPlan = raw.mipStatus == GLP_OPT || raw.mipStatus == GLP_FEAS;
  if (hasPlan) {
    outcome.k = values;
    outcome.objective = raw.objective;
  }
  if (raw.ret == 0 && raw.mipStatus == GLP_OPT) {
    outcome.status = SolveStatus::Optimal;
    outcome.bound = raw.objective;
  } else if ((raw.ret == 0 && raw.mipStatus == GLP_NOFEAS) || raw.ret == GLP_ENOPFS) {
    outcome.status = SolveStatus::Infeasible;
    outcome.message = "glpk proved the problem infeasible";
  } else if (raw.ret == 0 || raw.ret == GLP_ETMLIM || raw.ret == GLP_ESTOP ||
             raw.ret == GLP_EMIPGAP) {
    outcome.status = hasPlan ? SolveStatus::Feasible : SolveStatus::NoSolution;
    outcome.message = hasPlan ? "glpk stopped at a limit before proving optimality"
                              : "glpk found no plan within the limits";
  } else {
    outcome.message = "glpk failed (glp_intopt returned " + std::to_string(raw.ret) + ")";
  }
  return outcome;
}

template <typename Run>
Result solveIlp(const Problem& problem, const SolveLimits& limits, const char* name, Run run) {
  Clock::time_point start = Clock::now();
  Result result = guardedSolve<Result>(name, [&] {
    try {
      if (Validity v = validate(problem, Solution{std::vector<int64_t>(problem.buffers.size(), 0)});
          v == Validity::InvalidProblem) {
        Result invalid;
        invalid.stats.solver = name;
        invalid.message = "invalid problem (a size <= 0, upper <= lower or alignment < 1)";
        return invalid;
      }
      // The model build and the solver share the limit.
      Deadline deadline = Deadline::in(limits.timeLimitSeconds);
      Model m;
      if (Trivial trivial = buildModel(problem, m, deadline); trivial != Trivial::No)
        return trivialResult(problem, m, trivial, name, start);
      Outcome outcome = run(m, problem.buffers.size(), within(limits, deadline));
      return finish(problem, m, std::move(outcome), name, start);
    } catch (const CoinError& e) { // COIN-OR's exceptions are not std::exceptions
      throw std::runtime_error(e.message());
    }
  });
  result.stats.seconds = secondsSince(start);
  return result;
}

} // namespace

Result solveCbc(const Problem& problem, const SolveLimits& limits) {
  return solveIlp(problem, limits, "cbc", runCbc);
}

Result solveGlpk(const Problem& problem, const SolveLimits& limits) {
  return solveIlp(problem, limits, "glpk", runGlpk);
}

} // namespace ttlplan::planner::l1
