// PyTorch .pt/.pth files (torch.save's zip layout and its legacy sequential one) as a lazy
// burn-record reader: open() reads the pickle and validates every tensor view against its storage;
// read() reads one tensor's bytes. Used by the pytorch importer plugin, its tests and its fuzzer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "burn/record/recorder.hpp"

namespace burn::import::pytorch {

// Bounds of the reader, beyond the unpickler's (unpickler.hpp).
inline constexpr uint64_t kMaxPickleBytes = uint64_t{256} << 20;  // data.pkl, and the legacy headers
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
inline constexpr size_t kMaxEntries = size_t{1} << 18;  // entries of the record
inline constexpr size_t kMaxVisits = size_t{1} << 20;   // values walked (shared ones each time)
#else
// Fuzz builds: the same checks, reached in a fraction of a second under the sanitizers.
inline constexpr size_t kMaxEntries = size_t{1} << 14;
inline constexpr size_t kMaxVisits = size_t{1} << 16;
#endif

// Opens `path`; `top_level_key` non-empty: only the value under that key of the top-level dict.
// RecordError naming the file, the entry and the problem for damaged or refused files.
std::unique_ptr<record::RecordReader> open_file(const std::string& path, const std::string& top_level_key);

// Whether `head` (a file's first bytes) starts like a torch.save file (zip with a data.pkl, or the
// legacy magic-number pickle).
bool looks_like_pytorch(std::span<const uint8_t> head);

}  // namespace burn::import::pytorch
