// The GPU backends' disk caches of compiled kernels: where they live, how a key is hashed, how a file is
// read and written (atomically: a reader sees the old file or the new one, never a part).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace burn::gpu {

// 64-bit FNV-1a of `s`, continuing from `h`: stable across builds and machines (a file name).
uint64_t fnv1a(std::string_view s, uint64_t h = 14695981039346656037ull);
// `v` as `digits` lowercase hex digits.
std::string hex(uint64_t v, int digits = 16);
// The cache folder of a backend: $<env> when set ("off" or "0": none, an empty string), else
// $XDG_CACHE_HOME/burn-cpp/<backend>, else $HOME/.cache/burn-cpp/<backend>.
std::string cache_dir(const char* env, std::string_view backend);
// The whole file, empty when it cannot be read.
std::vector<char> read_file(const std::string& path);
// Writes a temporary file beside `path`, fsyncs it and renames it over `path`; false (and nothing left
// behind) when any step fails.
bool write_file_atomically(const std::string& path, const void* bytes, size_t size);

// A cache file's bytes behind a header that says they are whole (a magic, the payload's length and its
// FNV-1a), so that a truncated or altered file is never handed to a driver, which may crash on it.
std::vector<char> seal(const void* bytes, size_t size);
// The payload of a sealed file; empty when the file is truncated, altered or not sealed.
std::string_view unseal(const std::vector<char>& file);

}  // namespace burn::gpu
