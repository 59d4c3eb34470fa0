// The safetensors reader (https://github.com/huggingface/safetensors, "Format"): an 8-byte
// little-endian header length N, N bytes of JSON {name: {dtype, shape, data_offsets}, "__metadata__"},
// then the byte buffer. Everything is validated against the file before any tensor is allocated.
#pragma once

#include <memory>
#include <string>

#include "burn/record/recorder.hpp"

namespace burn::import::safetensors {

// Largest header accepted (the reference implementation's limit).
inline constexpr uint64_t kMaxHeaderBytes = 100'000'000;

// Opens and validates `path`; RecordError naming the file, the entry and the problem.
std::unique_ptr<record::RecordReader> open_file(const std::string& path);

}  // namespace burn::import::safetensors
