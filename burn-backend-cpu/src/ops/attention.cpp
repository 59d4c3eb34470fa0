// CPU kernels of the attention module ops (scaled dot-product attention).
// Until a kernel is written here, an op runs the default composite from burn-tensor.
#include "cpu_backend.hpp"

namespace burn::cpu {

Prim CpuBackend::attention(Prim query, Prim key, Prim value, Prim mask, const AttentionOptions& options) { return Backend::attention(std::move(query), std::move(key), std::move(value), std::move(mask), options); }

}  // namespace burn::cpu
