# Compile flags of the fuzzing build (included by the top CMakeLists.txt before any target when
# FAULTLINE_FUZZ=ON): coverage instrumentation for libFuzzer plus ASan and UBSan, on every target.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "FAULTLINE_FUZZ=ON needs clang (libFuzzer): configure with "
                      "CC=clang-14 CXX=clang++-14 (see docs/fuzzing.md)")
endif()
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                    -fno-sanitize-recover=undefined)
add_link_options(-fsanitize=address,undefined)
