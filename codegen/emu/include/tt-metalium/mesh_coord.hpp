// ttlplan CPU emulator: TT-Metalium's tt-metalium/mesh_coord.hpp, for the 1x1 mesh.
#pragma once

#include <cstdint>

namespace tt::tt_metal::distributed {

class MeshShape {
public:
  MeshShape(uint32_t rows, uint32_t cols) : rows_(rows), cols_(cols) {}
  uint32_t operator[](int dim) const { return dim == 0 ? rows_ : cols_; }
  uint32_t mesh_size() const { return rows_ * cols_; }

private:
  uint32_t rows_, cols_;
};

class MeshCoordinate {
public:
  MeshCoordinate(uint32_t c0, uint32_t c1) : c0_(c0), c1_(c1) {}
  uint32_t operator[](int dim) const { return dim == 0 ? c0_ : c1_; }

private:
  uint32_t c0_, c1_;
};

class MeshCoordinateRange {
public:
  MeshCoordinateRange(const MeshCoordinate& start, const MeshCoordinate& end)
      : start_(start), end_(end) {}
  explicit MeshCoordinateRange(const MeshShape& shape)
      : start_(0, 0), end_(shape[0] - 1, shape[1] - 1) {}
  const MeshCoordinate& start_coord() const { return start_; }
  const MeshCoordinate& end_coord() const { return end_; }

private:
  MeshCoordinate start_, end_;
};

} // namespace tt::tt_metal::distributed
