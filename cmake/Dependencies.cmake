# All dependencies come from Debian 12 packages (see scripts/install-deps.sh).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)

# Hyperscan on x86_64, Vectorscan (API-compatible, same pkg-config name "libhs") on arm64.
pkg_check_modules(HS REQUIRED IMPORTED_TARGET libhs)
pkg_check_modules(ARCHIVE REQUIRED IMPORTED_TARGET libarchive)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(SQLITE REQUIRED IMPORTED_TARGET sqlite3)
pkg_check_modules(PCRE2 REQUIRED IMPORTED_TARGET libpcre2-8)
# SHA-256 of bundles and members: libcrypto picks SHA-NI / the ARMv8 crypto extensions itself.
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
find_package(yaml-cpp REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(CLI11 REQUIRED)
if(FAULTLINE_TESTS)
  find_package(Catch2 REQUIRED)
endif()

# yaml-cpp 0.7 exports the target "yaml-cpp" without namespace; newer ones "yaml-cpp::yaml-cpp".
if(TARGET yaml-cpp::yaml-cpp)
  set(FAULTLINE_YAML yaml-cpp::yaml-cpp)
else()
  set(FAULTLINE_YAML yaml-cpp)
endif()
