// File helpers shared by the sources of burn::data (private to the library).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace burn::data::detail {

// The whole file; DataError naming `op` and the path when it cannot be opened or read.
std::vector<uint8_t> read_file(const std::string& path, const char* op);
// "a.csv: 3 items" style helpers keep the messages uniform.
std::string quoted(const std::string& path);

}  // namespace burn::data::detail
