// The hand-written SHA-256 faultline used before OpenSSL (bench only, see handwritten.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace bench {

using std::size_t;

class HandSha256 {
 public:
  HandSha256();
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

extern bool hand_portable_only;  // true: never the SHA-NI path (what non-x86 machines ran)
bool hand_sha_ni();              // whether the hand-written code takes its SHA-NI path on this CPU

}  // namespace bench
