#pragma once
// Seeded random L1 placement problems, shared by the tests and the benchmarks. The generator uses
// its own integer arithmetic (no std:: distributions), so a seed gives the same problem with any
// standard library.
#include "ttlplan/planner/l1/Problem.h"

#include <cstdint>

namespace ttlplan::planner::l1 {

struct RandomProblemParams {
  int buffers = 8;          ///< number of buffers
  int64_t horizon = 0;      ///< time steps; 0 means 2 * buffers
  int64_t maxLifetime = 0;  ///< longest lifetime; 0 means horizon / 2 (at least 1)
  int64_t minSize = 1;      ///< smallest size in bytes
  int64_t maxSize = 100;    ///< largest size in bytes
  int64_t maxAlignment = 1; ///< alignments are powers of two up to this (1: no alignment)
  int64_t capacity = 0;     ///< copied into the problem (0: unbounded)
};

/// The problem for `seed`: buffer i is named "b<i>"; lifetimes, sizes and alignments are uniform
/// over the ranges in `params` (alignment: a power of two, each equally likely).
Problem randomProblem(uint64_t seed, const RandomProblemParams& params = {});

} // namespace ttlplan::planner::l1
