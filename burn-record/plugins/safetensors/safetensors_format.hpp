// The safetensors format (https://github.com/huggingface/safetensors, "Format"): an 8-byte
// little-endian header length N, N bytes of JSON {name: {dtype, shape, data_offsets}, "__metadata__":
// {str: str}}, then the byte buffer. One reader and one writer, shared by the `safetensors` recorder
// (burn-record) and the `safetensors` importer (burn-import). Everything is validated against the file
// before any tensor is allocated.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "burn/record/recorder.hpp"

namespace burn::record::safetensors {

// Largest header accepted (the reference implementation's limit).
inline constexpr uint64_t kMaxHeaderBytes = 100'000'000;

// `__metadata__` keys that carry burn's Metadata fields and the record's non-tensor entries; every
// other key is a free key/value (Metadata::extra).
inline constexpr const char* kFormatVersionKey = "burn.format_version";
inline constexpr const char* kBurnVersionKey = "burn.burn_version";
inline constexpr const char* kProducerKey = "burn.producer";
inline constexpr const char* kDTypePolicyKey = "burn.dtype_policy";
// A JSON array (as text) of [path, kind, value] for every int, float, bool, string and empty group.
inline constexpr const char* kValuesKey = "burn.values";

// Opens and validates `path`; RecordError(op) naming the file, the entry and the problem.
std::unique_ptr<RecordReader> open_file(const std::string& path, const std::string& op = "safetensors");

// Writes `record` to `path` (a new file; save() makes it atomic): tensors in record order, packed from
// offset 0; metadata and non-tensor entries in `__metadata__`. RecordError naming the entry for what
// the format cannot hold (names or strings that are not UTF-8, an extra key burn reserves).
void write_file(const std::string& path, const Record& record, const Metadata& metadata);

// Whether `head` (a file's first bytes) starts like a safetensors file: a plausible length, then '{'.
bool looks_like_safetensors(std::span<const uint8_t> head);

}  // namespace burn::record::safetensors
