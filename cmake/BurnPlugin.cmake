# burn_add_plugin(NAME name KIND backend|recorder|importer|collective SOURCES ...): builds a plugin as
# a MODULE library named burn-<kind>-<name> in the plugin folder, linked to burn::tensor (and to
# burn::record for a recorder, burn::import for an importer, burn::collective for a collective).
# Installed with the package, so a third party builds its plugin exactly as the in-tree ones are built.
#
# In the monorepo BURN_PLUGIN_OUTPUT_DIR is the build tree's lib/burn/plugins, so tests find the
# plugin with no environment. Outside it (after find_package(burn)) the plugin lands in the
# project's library output folder (the build folder by default); point BURN_PLUGIN_PATH at it, or
# install it into ${burn_PLUGIN_DIR}.
#
# Plugins link with --no-undefined: a symbol the plugin uses but nobody defines (a kernel declared
# and never written) fails the link instead of the dlopen on a user's machine. Sanitizers: GCC's
# driver, given -fsanitize=... on the link line (CMAKE_CXX_FLAGS and the linker flags are there),
# links the shared sanitizer runtime into the plugin, so __asan_*/__ubsan_* resolve and the check
# stays on (the asan preset). Clang puts the runtime in the executable only, and a sanitizer given
# only as a compile option never reaches the link: there the plugin legitimately leaves those
# symbols undefined, so the check is off; the non-sanitizer builds link the same sources with it.
# Set BURN_PLUGIN_NO_UNDEFINED to ON or OFF to override the choice.

# Sets `out` to whether plugins of this directory link with --no-undefined (see above).
function(burn_plugin_no_undefined out)
  if(DEFINED BURN_PLUGIN_NO_UNDEFINED)
    set(${out} ${BURN_PLUGIN_NO_UNDEFINED} PARENT_SCOPE)
    return()
  endif()
  # Only ELF linkers (GNU ld, gold, lld) take --no-undefined for a module; Apple's and MSVC's differ.
  if(APPLE OR WIN32)
    set(${out} OFF PARENT_SCOPE)
    return()
  endif()
  string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
  set(link_flags "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${config}} ${CMAKE_MODULE_LINKER_FLAGS}")
  get_directory_property(compile_options COMPILE_OPTIONS)
  set(on ON)
  if("${link_flags} ${compile_options}" MATCHES "-fsanitize=")
    if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU" OR NOT link_flags MATCHES "-fsanitize=")
      set(on OFF)
    endif()
  endif()
  set(${out} ${on} PARENT_SCOPE)
endfunction()

function(burn_add_plugin)
  cmake_parse_arguments(ARG "" "NAME;KIND" "SOURCES" ${ARGN})
  if(NOT ARG_NAME OR NOT ARG_KIND OR NOT ARG_SOURCES)
    message(FATAL_ERROR "burn_add_plugin: NAME, KIND and SOURCES are required")
  endif()
  if(NOT TARGET burn::tensor)
    message(FATAL_ERROR "burn_add_plugin: burn::tensor is not defined; call find_package(burn REQUIRED COMPONENTS tensor) first")
  endif()
  set(target burn-${ARG_KIND}-${ARG_NAME})
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE burn::tensor)
  # A recorder implements burn-record's Recorder interface, so it links that library too.
  if(ARG_KIND STREQUAL "recorder")
    if(NOT TARGET burn::record)
      message(FATAL_ERROR "burn_add_plugin(KIND recorder): burn::record is not defined; call find_package(burn REQUIRED COMPONENTS record) first")
    endif()
    target_link_libraries(${target} PRIVATE burn::record)
  endif()
  # An importer implements burn-import's Importer interface (and returns burn-record readers).
  if(ARG_KIND STREQUAL "importer")
    if(NOT TARGET burn::import)
      message(FATAL_ERROR "burn_add_plugin(KIND importer): burn::import is not defined; call find_package(burn REQUIRED COMPONENTS import) first")
    endif()
    target_link_libraries(${target} PRIVATE burn::import)
  endif()
  # A collective engine implements burn-collective's Engine and Transport interfaces.
  if(ARG_KIND STREQUAL "collective")
    if(NOT TARGET burn::collective)
      message(FATAL_ERROR "burn_add_plugin(KIND collective): burn::collective is not defined; call find_package(burn REQUIRED COMPONENTS collective) first")
    endif()
    target_link_libraries(${target} PRIVATE burn::collective)
  endif()
  set_target_properties(${target} PROPERTIES
    PREFIX "lib" CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
    CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON)
  burn_plugin_no_undefined(no_undefined)
  if(no_undefined)
    target_link_options(${target} PRIVATE "LINKER:--no-undefined")
  endif()
  if(DEFINED BURN_PLUGIN_OUTPUT_DIR)
    # Installed plugins sit in <prefix>/lib/burn/plugins, two levels below libburn-tensor.
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${BURN_PLUGIN_OUTPUT_DIR}
      INSTALL_RPATH "$ORIGIN/../..")
    # Tests that go over every plugin of the folder (burn-tensor/tests/plugin_elf_test.cpp) depend on these.
    set_property(GLOBAL APPEND PROPERTY BURN_IN_TREE_PLUGIN_TARGETS ${target})
  endif()
endfunction()
