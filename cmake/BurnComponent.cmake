# One call per burn component: the library, its version, its export set and its package.
#
# burn_add_component(NAME <c> [LIBRARY <lib>]
#                    [SOURCES <file>...]
#                    [PUBLIC_LIBS <lib>...] [PRIVATE_LIBS <lib>...]
#                    [FIND_DEPENDENCIES <package>...]
#                    [EXPORT_MACRO <macro>]
#                    [CONFIG_EXTRA <file.cmake.in>] [PACKAGE_FILES <file>...])
#
# Called from the component's folder after `project(burn-<c> VERSION x.y.z)`. It makes
#   - the SHARED library target burn-<lib> (libburn-<lib>.so.<major>), alias burn::<lib>, EXPORT_NAME
#     <lib>, VERSION/SOVERSION from the project() version, hidden visibility, C++20, -Wall -Wextra;
#     <lib> is <c> unless LIBRARY names a second library of the component (burn-nn's `optim`);
#     SOURCES default to every src/*.cpp of the folder (GLOB_RECURSE, CONFIGURE_DEPENDS);
#   - two generated headers, <burn/<lib>/version.hpp> (BURN_<LIB>_VERSION, _MAJOR, _MINOR, _PATCH)
#     and <burn/<lib>/export.hpp> (EXPORT_MACRO, default BURN_<LIB>_API, marks what is exported);
#   - include dirs: include/ and the generated headers for consumers (build and install), src/ for
#     the component's own sources;
#   - the install of the library, of include/**.hpp and the generated headers, and of the package
#     lib/cmake/burn-<c>/: burn-<c>Config.cmake, burn-<c>ConfigVersion.cmake (SameMajorVersion),
#     burn-<c>-targets.cmake (export set burn-<c>-targets, namespace burn::).
# The package config calls find_dependency(burn-<d> <version>) for every burn library of another
# component in PUBLIC_LIBS, and find_dependency(<package>) for each FIND_DEPENDENCIES entry (a
# non-burn package whose targets appear in PUBLIC_LIBS). PRIVATE_LIBS stay out of the package: the
# library is shared. CONFIG_EXTRA is CMake code (configured with @VAR@, @PACKAGE_BURN_PLUGIN_INSTALL_DIR@
# included) appended to the config; PACKAGE_FILES are installed next to it. The config is written
# when the folder is done, so every call of the component has contributed to it. More targets
# (a tool) join the export set with install(TARGETS ... EXPORT burn-<c>-targets).
#
# burn_add_plugin_component(KIND backend|recorder|importer|collective NAME <n> SOURCES <file>...
#                           [PRIVATE_LIBS <lib>...])
#
# The same for a component that is a plugin (project burn-<kind>-<n>, e.g. burn-backend-cpu): the
# MODULE library made by burn_add_plugin(), installed into the plugin folder, and a package
# burn-<kind>-<n> with no link target that checks the plugin file is installed and sets
# burn_<kind>_<n>_PLUGIN to its path. find_package(burn COMPONENTS <kind>-<n>) finds it.
#
# A new component is its folder, `add_subdirectory(burn-<c>)` in the top-level CMakeLists.txt, its
# headers in include/burn/<c>/, its sources in src/, and this CMakeLists.txt:
#
#   cmake_minimum_required(VERSION 3.25)
#   project(burn-nn VERSION 0.1.0 LANGUAGES CXX)
#   burn_add_component(NAME nn SOURCES ${nn_sources} PUBLIC_LIBS burn::tensor burn::autodiff)
#   burn_add_component(NAME nn LIBRARY optim SOURCES ${optim_sources} PUBLIC_LIBS burn::nn)
#   if(BURN_BUILD_TESTS)
#     add_subdirectory(tests)
#   endif()
#
# (burn-record, burn-import and burn-fusion: one call with NAME record, import, fusion; burn-train:
# NAME train, and LIBRARY data for burn::data). A decorator component (fusion) registers its
# decorators from a static initialiser and is named after them: a spec naming the decorator
# `fusion` or `fusion-<variant>` makes burn-tensor load libburn-fusion.so.<major> from its own
# folder when no such decorator is registered yet (docs/decisions.md, "Devices and plugins").
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(BURN_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake)
set(_burn_component_templates ${CMAKE_CURRENT_LIST_DIR}/package)

# Writes <package>Config.cmake from <template> (configured; @VAR@ substitution) with the text of
# `extra` in place of @BURN_CONFIG_EXTRA@, and its SameMajorVersion version file; installs both
# into lib/cmake/<package>.
function(burn_write_package package version template extra)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/package/${package})
  set(dest ${BURN_CMAKE_INSTALL_DIR}/${package})
  file(READ ${template} text)
  string(REPLACE "@BURN_CONFIG_EXTRA@" "${extra}" text "${text}")
  # Written as an input so that the extra text is configured together with the template; only
  # when changed, so that a re-configure does not touch the package files.
  set(in ${out}/${package}Config.cmake.in)
  set(old "")
  if(EXISTS ${in})
    file(READ ${in} old)
  endif()
  if(NOT old STREQUAL text)
    file(WRITE ${in} "${text}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${template})
  configure_package_config_file(${in} ${out}/${package}Config.cmake
    INSTALL_DESTINATION ${dest} PATH_VARS BURN_PLUGIN_INSTALL_DIR)
  write_basic_package_version_file(${out}/${package}ConfigVersion.cmake
    VERSION ${version} COMPATIBILITY SameMajorVersion)
  install(FILES ${out}/${package}Config.cmake ${out}/${package}ConfigVersion.cmake DESTINATION ${dest})
endfunction()

# The component's project() must be burn-<expected>, with a version: the package and the soname
# are named and versioned from it.
function(_burn_check_project fn expected)
  if(NOT PROJECT_NAME STREQUAL "burn-${expected}")
    message(FATAL_ERROR "${fn}(${expected}): call it from the folder of project(burn-${expected}), "
                        "not from project(${PROJECT_NAME})")
  endif()
  if(PROJECT_VERSION STREQUAL "")
    message(FATAL_ERROR "${fn}(${expected}): project(burn-${expected}) needs a VERSION x.y.z")
  endif()
endfunction()

# Per package, kept in global properties until the folder is done:
#   BURN_PACKAGE_<p>_VERSION, _LIBRARIES, _BURN_DEPENDENCIES (packages), _DEPENDENCIES, _EXTRA.
# BURN_COMPONENTS lists every component, for the umbrella package's "known components" message.
function(burn_add_component)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "NAME;LIBRARY;EXPORT_MACRO;CONFIG_EXTRA"
                        "SOURCES;PUBLIC_LIBS;PRIVATE_LIBS;FIND_DEPENDENCIES;PACKAGE_FILES")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "burn_add_component: unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_LIBRARY)
    set(ARG_LIBRARY ${ARG_NAME})
  endif()
  foreach(n IN ITEMS "${ARG_NAME}" "${ARG_LIBRARY}")
    if(NOT n MATCHES "^[a-z][a-z0-9_]*$")
      message(FATAL_ERROR "burn_add_component: '${n}' must be a lowercase identifier (tensor, nn, ...)")
    endif()
  endforeach()
  set(c ${ARG_NAME})
  set(lib ${ARG_LIBRARY})
  set(package burn-${c})
  set(target burn-${lib})
  _burn_check_project(burn_add_component ${c})
  string(TOUPPER ${lib} LIB)
  if(NOT ARG_EXPORT_MACRO)
    set(ARG_EXPORT_MACRO BURN_${LIB}_API)
  endif()
  if(NOT ARG_SOURCES)
    file(GLOB_RECURSE ARG_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp)
    if(NOT ARG_SOURCES)
      message(FATAL_ERROR "burn_add_component(${c}): no SOURCES and no src/*.cpp in ${CMAKE_CURRENT_SOURCE_DIR}")
    endif()
  endif()

  add_library(${target} SHARED ${ARG_SOURCES})
  add_library(burn::${lib} ALIAS ${target})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${target} EXPORT_NAME ${lib}
    VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
    BURN_PACKAGE ${package})
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  target_link_libraries(${target} PUBLIC ${ARG_PUBLIC_LIBS} PRIVATE ${ARG_PRIVATE_LIBS})

  # Generated headers: the version this library was built as, and its export macro.
  set(gen ${CMAKE_CURRENT_BINARY_DIR}/include)
  set(BURN_LIBRARY ${target})
  set(BURN_LIBRARY_PREFIX BURN_${LIB})
  set(BURN_LIBRARY_EXPORT_MACRO ${ARG_EXPORT_MACRO})
  configure_file(${_burn_component_templates}/burn_version.hpp.in ${gen}/burn/${lib}/version.hpp @ONLY)
  configure_file(${_burn_component_templates}/burn_export.hpp.in ${gen}/burn/${lib}/export.hpp @ONLY)
  target_include_directories(${target}
    PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include> $<BUILD_INTERFACE:${gen}>
           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)

  install(TARGETS ${target} EXPORT ${package}-targets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES ${gen}/burn/${lib}/version.hpp ${gen}/burn/${lib}/export.hpp
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/burn/${lib})
  if(ARG_PACKAGE_FILES)
    install(FILES ${ARG_PACKAGE_FILES} DESTINATION ${BURN_CMAKE_INSTALL_DIR}/${package})
  endif()

  # What the package must find for a consumer of this library: the other burn packages it links
  # publicly (a library of the same package needs nothing) and the listed other packages.
  set(prefix BURN_PACKAGE_${package})
  foreach(dep IN LISTS ARG_PUBLIC_LIBS)
    if(dep MATCHES "^burn::")
      get_target_property(real ${dep} ALIASED_TARGET)
      get_target_property(dep_package ${real} BURN_PACKAGE)
      if(NOT dep_package)
        message(FATAL_ERROR "burn_add_component(${c}): ${dep} is not a library made by burn_add_component")
      endif()
      if(NOT dep_package STREQUAL package)
        set_property(GLOBAL APPEND PROPERTY ${prefix}_BURN_DEPENDENCIES ${dep_package})
      endif()
    endif()
  endforeach()
  set_property(GLOBAL APPEND PROPERTY ${prefix}_DEPENDENCIES ${ARG_FIND_DEPENDENCIES})
  if(ARG_CONFIG_EXTRA)
    set_property(GLOBAL APPEND PROPERTY ${prefix}_EXTRA ${ARG_CONFIG_EXTRA})
  endif()
  set_property(GLOBAL APPEND PROPERTY ${prefix}_LIBRARIES ${lib})

  # Once per component: headers, export set, and the package written when the folder is done.
  get_property(known GLOBAL PROPERTY ${prefix}_VERSION SET)
  if(NOT known)
    set_property(GLOBAL PROPERTY ${prefix}_VERSION ${PROJECT_VERSION})
    set_property(GLOBAL APPEND PROPERTY BURN_COMPONENTS ${c})
    if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/include)
      install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")
    endif()
    install(EXPORT ${package}-targets NAMESPACE burn:: FILE ${package}-targets.cmake
            DESTINATION ${BURN_CMAKE_INSTALL_DIR}/${package})
    # DEFER evaluates its arguments when the call runs, so the package name is spelled out now.
    cmake_language(EVAL CODE "cmake_language(DEFER CALL _burn_write_component_package [[${package}]])")
  endif()
endfunction()

function(_burn_write_component_package package)
  set(prefix BURN_PACKAGE_${package})
  foreach(p IN ITEMS VERSION LIBRARIES BURN_DEPENDENCIES DEPENDENCIES EXTRA)
    get_property(${p} GLOBAL PROPERTY ${prefix}_${p})
  endforeach()
  list(REMOVE_DUPLICATES BURN_DEPENDENCIES)
  list(REMOVE_DUPLICATES DEPENDENCIES)
  set(deps "")
  foreach(dep IN LISTS BURN_DEPENDENCIES)
    get_property(v GLOBAL PROPERTY BURN_PACKAGE_${dep}_VERSION)
    string(APPEND deps "find_dependency(${dep} ${v} CONFIG HINTS \"\${CMAKE_CURRENT_LIST_DIR}/..\")\n")
  endforeach()
  foreach(dep IN LISTS DEPENDENCIES)
    string(APPEND deps "find_dependency(${dep})\n")
  endforeach()
  set(extra "")
  foreach(f IN LISTS EXTRA)
    file(READ ${f} text)
    string(APPEND extra "${text}")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${f})
  endforeach()
  # Substituted into BurnComponentConfig.cmake.in.
  set(BURN_PACKAGE ${package})
  set(BURN_CONFIG_DEPENDENCIES "${deps}")
  list(GET LIBRARIES 0 BURN_PACKAGE_FIRST_LIBRARY)
  list(TRANSFORM LIBRARIES PREPEND "burn::")
  list(JOIN LIBRARIES ", " BURN_PACKAGE_TARGETS)
  burn_write_package(${package} ${VERSION} ${_burn_component_templates}/BurnComponentConfig.cmake.in
                     "${extra}")
endfunction()

function(burn_add_plugin_component)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "NAME;KIND" "SOURCES;PRIVATE_LIBS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "burn_add_plugin_component: unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  set(c ${ARG_KIND}-${ARG_NAME})
  set(target burn-${c})
  _burn_check_project(burn_add_plugin_component ${c})
  burn_add_plugin(NAME ${ARG_NAME} KIND ${ARG_KIND} SOURCES ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE ${ARG_PRIVATE_LIBS})
  install(TARGETS ${target} LIBRARY DESTINATION ${BURN_PLUGIN_INSTALL_DIR})

  # Substituted into BurnPluginConfig.cmake.in.
  set(BURN_PACKAGE ${target})
  string(MAKE_C_IDENTIFIER ${target} BURN_PLUGIN_VARIABLE)
  get_target_property(prefix ${target} PREFIX)
  set(BURN_PLUGIN_FILE ${prefix}${target}${CMAKE_SHARED_MODULE_SUFFIX})
  get_property(BURN_TENSOR_PACKAGE_VERSION GLOBAL PROPERTY BURN_PACKAGE_burn-tensor_VERSION)
  burn_write_package(${target} ${PROJECT_VERSION} ${_burn_component_templates}/BurnPluginConfig.cmake.in "")
  set_property(GLOBAL APPEND PROPERTY BURN_COMPONENTS ${c})
endfunction()
