// Helpers of the plugin-host suites: load() as a message, records by path, a scratch folder.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "burn/tensor/error.hpp"
#include "burn/tensor/plugin.hpp"

namespace burn_test {

namespace fs = std::filesystem;
using burn::plugins::PluginRecord;

inline std::string canonical(const std::string& p) { return fs::canonical(p).string(); }

// The PluginError message of load(path), or "" when it loaded.
inline std::string load_error(const std::string& path) {
  try {
    burn::plugins::load(path);
  } catch (const burn::PluginError& e) {
    return e.what();
  }
  return {};
}

inline const PluginRecord* find_record(const std::vector<PluginRecord>& records, const std::string& path) {
  const std::string c = canonical(path);
  for (const auto& r : records) {
    if (r.path == c) return &r;
  }
  return nullptr;
}

inline bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// What load(path) throws for a file the host rejects with `reason`.
inline std::string rejection(const std::string& path, const std::string& reason) {
  return "[plugins] cannot load plugin '" + path + "': " + reason;
}

// A fresh folder for files made by one test, removed when the test ends.
struct ScratchDir {
  fs::path dir = fs::path(testing::TempDir()) / ("burn-plugin-host-" + std::to_string(getpid()));
  ScratchDir() { fs::create_directories(dir); }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string write(const std::string& name, const std::string& bytes) const {
    const fs::path p = dir / name;
    FILE* f = std::fopen(p.c_str(), "wb");
    EXPECT_NE(f, nullptr) << p;
    if (f) {
      std::fwrite(bytes.data(), 1, bytes.size(), f);
      std::fclose(f);
    }
    return p.string();
  }
};

}  // namespace burn_test
