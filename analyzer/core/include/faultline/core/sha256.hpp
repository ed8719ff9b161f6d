// Streaming SHA-256 (FIPS 180-4), used to tie the database back to the bundle and its members.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace faultline {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t len);
  void update(std::string_view s) { update(s.data(), s.size()); }
  std::array<uint8_t, 32> digest();  // finalizes; the object must not be updated afterwards
  std::string hex();                 // finalizes, lowercase hex

 private:
  void block(const uint8_t* p);
  std::array<uint32_t, 8> h_{};
  std::array<uint8_t, 64> buf_{};
  size_t buf_len_ = 0;
  uint64_t total_ = 0;
};

std::string sha256_hex(std::string_view data);

}  // namespace faultline
