set(FAULTLINE_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
    -Wunused -Woverloaded-virtual -Wformat=2 -Wimplicit-fallthrough)
if(FAULTLINE_WERROR)
  list(APPEND FAULTLINE_WARNINGS -Werror)
  # GCC 12 at -O3 (Release: scripts/package.sh) raises a false -Wrestrict inside libstdc++'s
  # char_traits::copy for `"literal" + std::string&&` (GCC bug 105329 and its duplicates). The
  # warning stays visible; only that known false positive is kept from failing the build, so a
  # new expression of that shape anywhere cannot break the documented package build again.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    list(APPEND FAULTLINE_WARNINGS $<$<CONFIG:Release>:-Wno-error=restrict>)
  endif()
endif()

# faultline_library(NAME SOURCES... DEPS ...): one pipeline stage.
function(faultline_library name)
  cmake_parse_arguments(FL "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${FL_SOURCES})
  target_include_directories(${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_compile_options(${name} PRIVATE ${FAULTLINE_WARNINGS})
  target_link_libraries(${name} PUBLIC ${FL_DEPS})
endfunction()
