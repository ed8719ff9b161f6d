// Streaming SHA-256 (FIPS 180-4), used to tie the database back to the bundle and its members.
// OpenSSL's libcrypto does the work (EVP): it picks SHA-NI on x86_64 and the ARMv8 crypto
// extensions on arm64 at run time (docs/performance.md, "SHA-256").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX, kept out of this header

namespace faultline {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256& o);  // copies the running state
  Sha256& operator=(const Sha256& o);
  Sha256(Sha256&& o) noexcept;
  Sha256& operator=(Sha256&& o) noexcept;

  void update(const void* data, size_t len);
  void update(std::string_view s) { update(s.data(), s.size()); }
  std::array<uint8_t, 32> digest();  // finalizes; the object must not be updated afterwards
  std::string hex();                 // finalizes, lowercase hex

 private:
  evp_md_ctx_st* ctx_ = nullptr;
};

std::string sha256_hex(std::string_view data);

}  // namespace faultline
