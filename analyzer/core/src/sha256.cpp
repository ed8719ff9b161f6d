#include "faultline/core/sha256.hpp"

#include <openssl/evp.h>

#include <stdexcept>
#include <utility>

namespace faultline {

namespace {

// Fetched once: EVP_sha256() would make every EVP_DigestInit_ex2 look the algorithm up again
// in the provider (OpenSSL 3), which is most of the cost of hashing a short message.
const EVP_MD* md() {
  static EVP_MD* const m = [] {
    EVP_MD* p = EVP_MD_fetch(nullptr, "SHA2-256", nullptr);
    if (p == nullptr) throw std::runtime_error("sha256: OpenSSL has no SHA2-256");
    return p;
  }();
  return m;
}

[[noreturn]] void fail(const char* what) {
  throw std::runtime_error(std::string("sha256: OpenSSL ") + what + " failed");
}

std::string to_hex(const std::array<uint8_t, 32>& d) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(64);
  for (uint8_t b : d) {
    s.push_back(kHex[b >> 4]);
    s.push_back(kHex[b & 15]);
  }
  return s;
}

}  // namespace

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr) fail("EVP_MD_CTX_new");
  if (EVP_DigestInit_ex2(ctx_, md(), nullptr) != 1) {
    EVP_MD_CTX_free(ctx_);
    fail("EVP_DigestInit_ex2");
  }
}

Sha256::~Sha256() {
  EVP_MD_CTX_free(ctx_);
}

Sha256::Sha256(const Sha256& o) : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr) fail("EVP_MD_CTX_new");
  if (EVP_MD_CTX_copy_ex(ctx_, o.ctx_) != 1) {
    EVP_MD_CTX_free(ctx_);
    fail("EVP_MD_CTX_copy_ex");
  }
}

Sha256& Sha256::operator=(const Sha256& o) {
  if (this != &o) {
    Sha256 t(o);
    std::swap(ctx_, t.ctx_);
  }
  return *this;
}

Sha256::Sha256(Sha256&& o) noexcept : ctx_(std::exchange(o.ctx_, nullptr)) {}

Sha256& Sha256::operator=(Sha256&& o) noexcept {
  std::swap(ctx_, o.ctx_);
  return *this;
}

void Sha256::update(const void* data, size_t len) {
  if (len == 0) return;
  if (EVP_DigestUpdate(ctx_, data, len) != 1) fail("EVP_DigestUpdate");
}

std::array<uint8_t, 32> Sha256::digest() {
  std::array<uint8_t, 32> out{};
  unsigned n = 0;
  if (EVP_DigestFinal_ex(ctx_, out.data(), &n) != 1 || n != out.size()) fail("EVP_DigestFinal_ex");
  return out;
}

std::string Sha256::hex() {
  return to_hex(digest());
}

std::string sha256_hex(std::string_view data) {
  std::array<uint8_t, 32> out{};
  unsigned n = 0;
  if (EVP_Digest(data.data(), data.size(), out.data(), &n, md(), nullptr) != 1 || n != out.size())
    fail("EVP_Digest");
  return to_hex(out);
}

}  // namespace faultline
