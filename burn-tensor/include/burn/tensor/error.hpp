// The one exception hierarchy of burn-cpp. Messages read "[op] what: values".
#pragma once

#include <stdexcept>
#include <string>

#include "burn/tensor/export.hpp"

namespace burn {

class BURN_TENSOR_API Error : public std::runtime_error {
 public:
  Error(const std::string& op, const std::string& message);
  const std::string& op() const noexcept { return op_; }

 private:
  std::string op_;
};

#define BURN_DECLARE_ERROR(Name)                                                    \
  class BURN_TENSOR_API Name : public Error {                                       \
   public:                                                                          \
    Name(const std::string& op, const std::string& message) : Error(op, message) {} \
  };
BURN_DECLARE_ERROR(ShapeError)   // incompatible or invalid shapes and ranks
BURN_DECLARE_ERROR(DTypeError)   // wrong or mismatched element types
BURN_DECLARE_ERROR(IndexError)   // out-of-range dims, indices, slices
BURN_DECLARE_ERROR(DeviceError)  // tensors from different devices, bad device specs
BURN_DECLARE_ERROR(ValueError)   // invalid argument values (negative step, p outside [0,1])
BURN_DECLARE_ERROR(Unsupported)  // a feature or dtype a backend does not provide
BURN_DECLARE_ERROR(PluginError)  // plugin loading and rejection
BURN_DECLARE_ERROR(RecordError)  // saving and loading records
BURN_DECLARE_ERROR(OutOfMemory)  // a buffer the machine cannot give (too large, or the allocator refused)
#undef BURN_DECLARE_ERROR

// The tensor op the calling thread is in, set by the tensor api on entry, so that an error raised
// deep in a backend that does not know the op (a failed allocation) can still name it.
BURN_TENSOR_API const char* current_op() noexcept;
BURN_TENSOR_API void set_current_op(const char* op) noexcept;

}  // namespace burn
