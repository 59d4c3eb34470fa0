# burn_add_plugin(NAME name KIND backend|recorder|importer SOURCES ...): builds a plugin as a
# MODULE library named burn-<kind>-<name> in the plugin folder. Installed with the package, so a
# third party builds its plugin exactly as the in-tree ones are built.
#
# In the monorepo BURN_PLUGIN_OUTPUT_DIR is the build tree's lib/burn/plugins, so tests find the
# plugin with no environment. Outside it (after find_package(burn)) the plugin lands in the
# project's library output folder (the build folder by default); point BURN_PLUGIN_PATH at it, or
# install it into ${burn_PLUGIN_DIR}.
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
  set_target_properties(${target} PROPERTIES
    PREFIX "lib" CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
    CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON)
  if(DEFINED BURN_PLUGIN_OUTPUT_DIR)
    # Installed plugins sit in <prefix>/lib/burn/plugins, two levels below libburn-tensor.
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${BURN_PLUGIN_OUTPUT_DIR}
      INSTALL_RPATH "$ORIGIN/../..")
  endif()
endfunction()
