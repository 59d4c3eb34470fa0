# Copies the vulkan plugin to OUT_DIR with its dependency on the Vulkan loader renamed to a library that
# does not exist (DT_NEEDED libvulkan.so.1 -> libvulkan.so.9, same length), so that loading the copy
# behaves as on a machine without libvulkan1: `burn plugins` must reject it naming the loader.
#   cmake -DPLUGIN=<libburn-backend-vulkan.so> -DOUT_DIR=<dir> -P copy_without_loader.cmake
find_program(PERL perl REQUIRED)
file(REMOVE_RECURSE "${OUT_DIR}")
file(MAKE_DIRECTORY "${OUT_DIR}")
get_filename_component(name "${PLUGIN}" NAME)
execute_process(COMMAND ${PERL} -0777 -pe "s/libvulkan\\.so\\.1\\x00/libvulkan.so.9\\x00/g or die 'no libvulkan.so.1 in the plugin'"
                INPUT_FILE "${PLUGIN}" OUTPUT_FILE "${OUT_DIR}/${name}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "could not rewrite ${PLUGIN} (perl exit ${rc})")
endif()
