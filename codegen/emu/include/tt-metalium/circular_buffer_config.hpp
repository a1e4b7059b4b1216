// ttlplan CPU emulator: TT-Metalium's tt-metalium/circular_buffer_config.hpp. As in TT-Metalium
// there is no way to give a CB its address: the program places its CBs itself, one after another
// in creation order from the unreserved base, each start aligned (docs/emulator.md).
#pragma once

#include "tt-metalium/tt_backend_api_types.hpp"

#include <cstdint>
#include <map>

namespace tt::tt_metal {

class CircularBufferConfig {
public:
  CircularBufferConfig(uint32_t total_size,
                       const std::map<uint8_t, tt::DataFormat>& data_format_spec)
      : total_size_(total_size), data_formats_(data_format_spec) {}
  CircularBufferConfig& set_page_size(uint8_t buffer_index, uint32_t page_size) {
    page_sizes_[buffer_index] = page_size;
    return *this;
  }
  uint32_t total_size() const { return total_size_; }
  const std::map<uint8_t, tt::DataFormat>& data_formats() const { return data_formats_; }
  const std::map<uint8_t, uint32_t>& page_sizes() const { return page_sizes_; }

private:
  uint32_t total_size_;
  std::map<uint8_t, tt::DataFormat> data_formats_;
  std::map<uint8_t, uint32_t> page_sizes_;
};

} // namespace tt::tt_metal
