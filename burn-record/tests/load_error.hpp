// Errors as messages: loading a file (for the suites that damage files and check what the readers say)
// and any call.
#pragma once

#include <functional>
#include <string>
#include <utility>

#include "burn/record/recorder.hpp"

namespace burn::record::test {

// The RecordError message of loading `path` with `recorder`, or "" when it loaded (into `loaded`,
// when given). Any other exception escapes, failing the test that called it.
inline std::string load_error(const std::string& path, const std::string& recorder, Record* loaded = nullptr) {
  try {
    Record r = load(path, {.recorder = recorder});
    if (loaded) *loaded = std::move(r);
  } catch (const RecordError& e) {
    return e.what();
  }
  return "";
}

// The message of the burn::Error `f` throws, or "" when it throws none.
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace burn::record::test
