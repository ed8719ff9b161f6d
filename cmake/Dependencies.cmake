# All dependencies come from Debian 12 packages (see scripts/install-deps.sh).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)

# Hyperscan on x86_64, Vectorscan (API-compatible, same pkg-config name "libhs") on arm64.
pkg_check_modules(HS REQUIRED IMPORTED_TARGET libhs)
# Which of the two libhs is (`faultline --version` names it; docs/arm64.md). They install the same
# pkg-config module, headers (hs/hs.h, no macro of their own) and soname (libhs.so.5), and
# hs_version() gives only a number, so what tells them apart is, in this order:
#   1. the Debian -dev package that installed them under HS_PREFIX's root: its dpkg .list file
#      (an installed host) or its /usr/share/doc directory (also left by `dpkg-deb -x` into the
#      cross sysroot, which has no dpkg database); used only when exactly one of the two is there;
#   2. the target processor: Hyperscan builds for x86 only;
#   3. the version: Intel's last open Hyperscan is 5.4.2, Vectorscan's releases after it are 5.4.3+.
# Else hyperscan. -DFAULTLINE_REGEX_ENGINE=hyperscan|vectorscan overrides (e.g. a source build in
# /usr/local, which no package owns).
set(FAULTLINE_REGEX_ENGINE "auto" CACHE STRING "libhs is: auto (detect), hyperscan or vectorscan")
set_property(CACHE FAULTLINE_REGEX_ENGINE PROPERTY STRINGS auto hyperscan vectorscan)
set(FL_HS_ENGINE "${FAULTLINE_REGEX_ENGINE}")
set(FL_HS_HOW "set by FAULTLINE_REGEX_ENGINE")
if(FL_HS_ENGINE STREQUAL "auto")
  get_filename_component(FL_HS_ROOT "${HS_PREFIX}/.." ABSOLUTE)
  set(FL_HS_OWNERS "")
  foreach(lib hyperscan vectorscan)
    file(GLOB FL_HS_LISTS "${FL_HS_ROOT}/var/lib/dpkg/info/lib${lib}-dev.list"
         "${FL_HS_ROOT}/var/lib/dpkg/info/lib${lib}-dev:*.list")
    if(FL_HS_LISTS OR IS_DIRECTORY "${HS_PREFIX}/share/doc/lib${lib}-dev")
      list(APPEND FL_HS_OWNERS ${lib})
    endif()
  endforeach()
  list(LENGTH FL_HS_OWNERS FL_HS_N)
  if(FL_HS_N EQUAL 1)
    set(FL_HS_ENGINE ${FL_HS_OWNERS})
    set(FL_HS_HOW "package lib${FL_HS_OWNERS}-dev under ${FL_HS_ROOT}")
  elseif(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64|i[3-6]86|x86)$")
    set(FL_HS_ENGINE vectorscan)
    set(FL_HS_HOW "target ${CMAKE_SYSTEM_PROCESSOR}: Hyperscan is x86-only")
  elseif(HS_VERSION VERSION_GREATER 5.4.2)
    set(FL_HS_ENGINE vectorscan)
    set(FL_HS_HOW "version ${HS_VERSION} > 5.4.2")
  else()
    set(FL_HS_ENGINE hyperscan)
    set(FL_HS_HOW "assumed: no package says, x86 target, version ${HS_VERSION}")
  endif()
elseif(NOT FL_HS_ENGINE MATCHES "^(hyperscan|vectorscan)$")
  message(FATAL_ERROR "FAULTLINE_REGEX_ENGINE: auto, hyperscan or vectorscan, not '${FL_HS_ENGINE}'")
endif()
message(STATUS "libhs ${HS_VERSION} is ${FL_HS_ENGINE} (${FL_HS_HOW})")
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
