// expect_error: the check of the error tests (errors_test.cpp, hardening_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <initializer_list>
#include <string>

namespace burn::testing {

// Runs `fn`, expects exception type E, and checks that every fragment appears in the message.
template <typename E, typename Fn>
void expect_error(Fn&& fn, std::initializer_list<const char*> fragments) {
  try {
    fn();
    FAIL() << "no exception thrown";
  } catch (const E& e) {
    std::string msg = e.what();
    for (const char* f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << "'" << f << "' not in: " << msg;
  } catch (const std::exception& e) {
    FAIL() << "wrong exception type: " << e.what();
  }
}

}  // namespace burn::testing
