// The OpenCL headers at the 1.2 API (what every ICD and PoCL provide), and the error helpers of the plugin.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <string>

namespace burn::opencl {

// "CL_OUT_OF_RESOURCES (-5)".
std::string cl_error_name(cl_int code);
// DeviceError naming `op`, the OpenCL call and the error when `code` is not CL_SUCCESS.
void cl_check(cl_int code, const char* op, const char* call);

}  // namespace burn::opencl
