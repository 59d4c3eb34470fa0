// Test-only fault injection (BURN_OPENCL_FAULT, docs/environment.md): makes the runtime act as if the
// driver failed at one point, for the faults PoCL cannot be made to give (a lost device, a refused buffer,
// a program that does not build). The fault replaces the return value of the OpenCL call the plugin makes
// there, so the plugin's own handling runs. Read at each check, so a test can set and unset it around one
// call. Errors from an injected fault say so.
#pragma once

#include <string>

namespace burn::opencl {

enum class Fault {
  device_lost,       // an enqueue (a kernel, a write) returns CL_INVALID_COMMAND_QUEUE (nothing is enqueued)
  device_lost_wait,  // the command runs, then the wait for it (a blocking read, clFinish, clWaitForEvents)
                     // returns CL_OUT_OF_RESOURCES
  alloc,             // clCreateBuffer of more than 16 MiB returns CL_MEM_OBJECT_ALLOCATION_FAILURE
  compile,           // every program built from source from now on gets a line the compiler rejects
};

// Whether $BURN_OPENCL_FAULT (a `,`-separated list: device-lost, device-lost-wait, alloc, compile) names `f`.
bool fault_injected(Fault f);

// " (injected by BURN_OPENCL_FAULT=...)": appended to the message of an injected fault.
std::string injected_note();

}  // namespace burn::opencl
