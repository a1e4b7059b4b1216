// ttlplan CPU emulator: Program of TT-Metalium's tt-metalium/program.hpp (move-only, as there).
#pragma once

#include <memory>

namespace ttlplan::emu {
struct ProgramImpl;
}

namespace tt::tt_metal {

class Program {
public:
  Program();
  Program(Program&&) = default;
  Program& operator=(Program&&) = default;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  const std::shared_ptr<ttlplan::emu::ProgramImpl>& impl() const { return impl_; }

private:
  std::shared_ptr<ttlplan::emu::ProgramImpl> impl_;
};

} // namespace tt::tt_metal
