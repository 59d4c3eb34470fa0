// Damaging files in place, for the suites that flip bits and cut files (burn-record's and
// burn-import's corruption tests).
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <utility>

#include "file_bytes.hpp"

namespace burn::record::test {

// A damaged copy of a good file, changed in place: a flipped bit is one byte written (and written
// back), a cut is a truncation (cuts come longest first). Rewriting whole files made these suites
// spend seconds in the file system.
class DamagedCopy {
 public:
  DamagedCopy(std::string path, std::string good) : path_(std::move(path)), good_(std::move(good)) {
    test::write_bytes(path_, good_);
    fd_ = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
    EXPECT_GE(fd_, 0) << path_;
  }
  ~DamagedCopy() { ::close(fd_); }
  DamagedCopy(const DamagedCopy&) = delete;
  DamagedCopy& operator=(const DamagedCopy&) = delete;
  const std::string& path() const { return path_; }
  // Runs `check` on the file with `bit` flipped, then restores the byte.
  template <class Check>
  void with_flip(uint64_t bit, Check check) {
    put(bit / 8, static_cast<char>(good_[bit / 8] ^ (1u << (bit % 8))));
    check();
    put(bit / 8, good_[bit / 8]);
  }
  void cut(size_t n) { EXPECT_EQ(::ftruncate(fd_, static_cast<off_t>(n)), 0) << path_; }

 private:
  void put(size_t at, char byte) { EXPECT_EQ(::pwrite(fd_, &byte, 1, static_cast<off_t>(at)), 1) << path_; }
  std::string path_, good_;
  int fd_ = -1;
};

}  // namespace burn::record::test
