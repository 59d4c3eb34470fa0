// OpenCL error names for messages.
#include "runtime/cl.hpp"

#include "burn/tensor/error.hpp"

namespace burn::opencl {

std::string cl_error_name(cl_int code) {
  const char* name = "unknown OpenCL error";
  switch (code) {
#define BURN_CL_ERR(e) \
  case e: name = #e; break;
    BURN_CL_ERR(CL_DEVICE_NOT_FOUND)
    BURN_CL_ERR(CL_DEVICE_NOT_AVAILABLE)
    BURN_CL_ERR(CL_COMPILER_NOT_AVAILABLE)
    BURN_CL_ERR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    BURN_CL_ERR(CL_OUT_OF_RESOURCES)
    BURN_CL_ERR(CL_OUT_OF_HOST_MEMORY)
    BURN_CL_ERR(CL_BUILD_PROGRAM_FAILURE)
    BURN_CL_ERR(CL_INVALID_VALUE)
    BURN_CL_ERR(CL_INVALID_PLATFORM)
    BURN_CL_ERR(CL_INVALID_DEVICE)
    BURN_CL_ERR(CL_INVALID_CONTEXT)
    BURN_CL_ERR(CL_INVALID_COMMAND_QUEUE)
    BURN_CL_ERR(CL_INVALID_MEM_OBJECT)
    BURN_CL_ERR(CL_INVALID_BINARY)
    BURN_CL_ERR(CL_INVALID_BUILD_OPTIONS)
    BURN_CL_ERR(CL_INVALID_PROGRAM)
    BURN_CL_ERR(CL_INVALID_PROGRAM_EXECUTABLE)
    BURN_CL_ERR(CL_INVALID_KERNEL_NAME)
    BURN_CL_ERR(CL_INVALID_KERNEL)
    BURN_CL_ERR(CL_INVALID_ARG_INDEX)
    BURN_CL_ERR(CL_INVALID_ARG_VALUE)
    BURN_CL_ERR(CL_INVALID_ARG_SIZE)
    BURN_CL_ERR(CL_INVALID_KERNEL_ARGS)
    BURN_CL_ERR(CL_INVALID_WORK_GROUP_SIZE)
    BURN_CL_ERR(CL_INVALID_GLOBAL_WORK_SIZE)
    BURN_CL_ERR(CL_INVALID_EVENT_WAIT_LIST)
    BURN_CL_ERR(CL_INVALID_BUFFER_SIZE)
    BURN_CL_ERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    BURN_CL_ERR(CL_PLATFORM_NOT_FOUND_KHR)
#undef BURN_CL_ERR
    default: break;
  }
  return std::string(name) + " (" + std::to_string(code) + ")";
}

void cl_check(cl_int code, const char* op, const char* call) {
  if (code != CL_SUCCESS) throw DeviceError(op, std::string("OpenCL ") + call + " failed: " + cl_error_name(code));
}

}  // namespace burn::opencl
