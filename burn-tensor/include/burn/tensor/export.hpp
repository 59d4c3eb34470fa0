// Symbol visibility for burn-tensor: the library builds with -fvisibility=hidden and exports only what is marked.
#pragma once

#define BURN_TENSOR_API __attribute__((visibility("default")))
