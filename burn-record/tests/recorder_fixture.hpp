// The fixture of the suites run once per recorder: the recorder's name and extension, and a fresh
// temporary folder per test.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <string>

namespace burn::record::test {

// Sets an environment variable for the life of the object (BURN_HDF5_INDEX in the hdf5 tests).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

struct Format {
  const char* recorder;
  const char* extension;
  int megabytes = 0;  // for the suites whose saves must take a while
};

// gtest describes a test by its recorder (`GetParam() = json`) rather than by the struct's bytes.
inline void PrintTo(const Format& f, std::ostream* os) { *os << f.recorder; }

class RecorderTest : public ::testing::TestWithParam<Format> {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("burn-record-test-" + std::to_string(::getpid()) + "-" + GetParam().recorder);
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // A path in the test's folder with the recorder's extension.
  std::string file(const std::string& stem) const { return (dir_ / (stem + GetParam().extension)).string(); }
  std::filesystem::path dir_;
};

}  // namespace burn::record::test
