// A fresh temporary folder per test, removed at the end.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>

namespace burn::data::test {

struct TmpDir {
  std::filesystem::path path;
  TmpDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = std::filesystem::temp_directory_path() /
           ("burn-data-" + std::to_string(::getpid()) + "-" + info->test_suite_name() + "-" + info->name());
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TmpDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Runs `f` and returns the message of the DataError it throws (fails the test when it throws none).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const burn::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no burn::Error thrown";
  return "";
}

}  // namespace burn::data::test
