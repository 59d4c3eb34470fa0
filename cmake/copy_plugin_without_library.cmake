# Copies a plugin to OUT_DIR with one DT_NEEDED library renamed in place to one that does not exist (same
# length, so the ELF layout is untouched), so that loading the copy behaves as on a machine without that
# library: `burn plugins` must reject it naming the library. The vulkan and opencl plugins' fault tests use it
# (libvulkan.so.1 -> libvulkan.so.9, libOpenCL.so.1 -> libOpenCL.so.9: the host still knows the loader by name).
#   cmake -DPLUGIN=<libburn-backend-x.so> -DOUT_DIR=<dir> -DLIBRARY=libx.so.1 -DREPLACEMENT=libx.so.9
#         -P copy_plugin_without_library.cmake
find_program(PERL perl REQUIRED)
string(LENGTH "${LIBRARY}" a)
string(LENGTH "${REPLACEMENT}" b)
if(NOT a EQUAL b OR a EQUAL 0)
  message(FATAL_ERROR "LIBRARY '${LIBRARY}' and REPLACEMENT '${REPLACEMENT}' must have one, non-zero length")
endif()
file(REMOVE_RECURSE "${OUT_DIR}")
file(MAKE_DIRECTORY "${OUT_DIR}")
get_filename_component(name "${PLUGIN}" NAME)
# \Q...\E: the dots of the name are not read as a pattern.
execute_process(COMMAND ${PERL} -0777 -pe "s/\\Q${LIBRARY}\\E\\x00/${REPLACEMENT}\\x00/g or die 'no ${LIBRARY} in the plugin'"
                INPUT_FILE "${PLUGIN}" OUTPUT_FILE "${OUT_DIR}/${name}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "could not rewrite ${PLUGIN} (perl exit ${rc})")
endif()
