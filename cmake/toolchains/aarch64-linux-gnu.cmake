# Cross-compiling faultline for arm64 (aarch64) Linux with Debian's crossbuild-essential-arm64,
# against a private sysroot of Debian's arm64 packages (scripts/test-arm64.sh builds it; docs/arm64.md).
#
#   cmake -S . -B build-arm64 -G Ninja \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
#     -DFAULTLINE_SYSROOT=$PWD/build-arm64/sysroot
#
# FAULTLINE_SYSROOT (or the environment variable of that name): the root into which the arm64
# .debs were unpacked (usr/include, usr/lib/aarch64-linux-gnu, ...). Tests run under qemu-user
# (CMAKE_CROSSCOMPILING_EMULATOR) with that root as the guest's library prefix.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

if(NOT FAULTLINE_SYSROOT AND DEFINED ENV{FAULTLINE_SYSROOT})
  set(FAULTLINE_SYSROOT $ENV{FAULTLINE_SYSROOT})
endif()
if(NOT FAULTLINE_SYSROOT)
  message(FATAL_ERROR "aarch64 toolchain: set FAULTLINE_SYSROOT to the arm64 sysroot "
                      "(scripts/test-arm64.sh makes one in build-arm64/sysroot)")
endif()
# try_compile projects inherit the variable through this list
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES FAULTLINE_SYSROOT)

set(CMAKE_SYSROOT ${FAULTLINE_SYSROOT})
set(CMAKE_FIND_ROOT_PATH ${FAULTLINE_SYSROOT})
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)  # host tools (python3, sh, pkg-config)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config (libhs, libarchive, ...) reads only the sysroot's .pc files and prefixes their paths.
set(ENV{PKG_CONFIG_DIR} "")
set(ENV{PKG_CONFIG_LIBDIR}
    "${FAULTLINE_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${FAULTLINE_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} ${FAULTLINE_SYSROOT})

# Run what was built (tests, `faultline rules test`) under qemu-user with the sysroot's loader
# and libraries.
find_program(FAULTLINE_QEMU NAMES qemu-aarch64-static qemu-aarch64 REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR ${FAULTLINE_QEMU} -L ${FAULTLINE_SYSROOT})
