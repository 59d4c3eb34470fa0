// KernelChoice (src/kernel_choice.hpp), the run-time choice the conv, int8 and f16/bf16 kernel families share, on
// a made-up family of three variants whose availability the test sets: the default is the widest available, the
// environment variable is read once at the first get(), and its errors name the variable, the value and the choices.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "burn/tensor/error.hpp"
#include "kernel_choice.hpp"

namespace burn::cpu {
namespace {

constexpr const char* kEnv = "KERNEL_CHOICE_TEST_VARIANT";  // not a BURN_ variable: this test's own
bool g_available[3] = {true, true, true};

const char* name(int v) { return v == 0 ? "narrow" : v == 1 ? "middle" : "wide"; }
bool available(int v) { return g_available[v]; }
const char* requirement(int v) { return v == 2 ? "WIDE-UNITS" : "MIDDLE-UNITS"; }

constexpr KernelChoiceSpec kSpec{kEnv, "set_test_variant", "test variant", "test kernels", 3,
                                 name, available,          requirement};

class CpuKernelChoice : public ::testing::Test {
 protected:
  void SetUp() override {
    g_available[0] = g_available[1] = g_available[2] = true;
    unsetenv(kEnv);
  }
  void TearDown() override { unsetenv(kEnv); }
};

TEST_F(CpuKernelChoice, DefaultIsTheWidestVariantTheCpuRuns) {
  EXPECT_EQ(KernelChoice(kSpec).get(), 2);
  g_available[2] = false;
  EXPECT_EQ(KernelChoice(kSpec).get(), 1);
  g_available[1] = false;
  EXPECT_EQ(KernelChoice(kSpec).get(), 0);
}

TEST_F(CpuKernelChoice, TheVariableIsReadOnceAtTheFirstGet) {
  setenv(kEnv, "middle", 1);
  KernelChoice choice(kSpec);
  EXPECT_EQ(choice.get(), 1);
  setenv(kEnv, "narrow", 1);
  EXPECT_EQ(choice.get(), 1);
}

TEST_F(CpuKernelChoice, AnUnknownNameIsAValueErrorListingTheChoices) {
  setenv(kEnv, "huge", 1);
  KernelChoice choice(kSpec);
  try {
    choice.get();
    FAIL() << "no error for an unknown name";
  } catch (const ValueError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(kEnv), std::string::npos) << what;
    EXPECT_NE(what.find("unknown test variant 'huge'; expected narrow, middle or wide"), std::string::npos) << what;
  }
}

TEST_F(CpuKernelChoice, AVariantTheCpuLacksIsUnsupportedNamingWhatItNeeds) {
  g_available[2] = false;
  setenv(kEnv, "wide", 1);
  try {
    KernelChoice(kSpec).get();
    FAIL() << "no error for a variant the CPU lacks";
  } catch (const Unsupported& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'wide' asks for test kernels this CPU lacks (WIDE-UNITS)"), std::string::npos) << what;
  }
}

TEST_F(CpuKernelChoice, SetForcesAVariantAndReturnsTheOneInUse) {
  KernelChoice choice(kSpec);
  EXPECT_EQ(choice.set(0), 2);
  EXPECT_EQ(choice.get(), 0);
  EXPECT_EQ(choice.set(1), 0);
  EXPECT_EQ(choice.get(), 1);
  g_available[2] = false;
  try {
    choice.set(2);
    FAIL() << "set() forced a variant the CPU lacks";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("this CPU cannot run the wide test kernels"), std::string::npos) << e.what();
  }
  EXPECT_EQ(choice.get(), 1);
}

}  // namespace
}  // namespace burn::cpu
