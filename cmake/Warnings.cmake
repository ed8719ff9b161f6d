set(FAULTLINE_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
    -Wunused -Woverloaded-virtual -Wformat=2 -Wimplicit-fallthrough)
if(FAULTLINE_WERROR)
  list(APPEND FAULTLINE_WARNINGS -Werror)
endif()

# faultline_library(NAME SOURCES... DEPS ...): one pipeline stage.
function(faultline_library name)
  cmake_parse_arguments(FL "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${FL_SOURCES})
  target_include_directories(${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_compile_options(${name} PRIVATE ${FAULTLINE_WARNINGS})
  target_link_libraries(${name} PUBLIC ${FL_DEPS})
endfunction()
