// CPU kernels of the embedding module ops (embedding lookup and its backward).
// Until a kernel is written here, an op runs the default composite from burn-tensor.
#include "cpu_backend.hpp"

namespace burn::cpu {

Prim CpuBackend::embedding(Prim weight, Prim indices) { return Backend::embedding(std::move(weight), std::move(indices)); }

Prim CpuBackend::embedding_backward(Prim weight, Prim grad_out, Prim indices) { return Backend::embedding_backward(std::move(weight), std::move(grad_out), std::move(indices)); }

}  // namespace burn::cpu
