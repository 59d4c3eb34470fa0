// Device specs: parsing (good and malformed, with positions), the device cache, decorators,
// and the errors for unknown backends and decorators.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "burn/tensor/device.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/plugin.hpp"
#include "burn/tensor/version.hpp"

namespace {

// The DeviceError message of parse_device_spec(spec), or "" when it parsed.
std::string parse_error(const std::string& spec) {
  try {
    burn::parse_device_spec(spec);
  } catch (const burn::DeviceError& e) {
    return e.what();
  }
  return {};
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(DeviceSpec, ParsesALeaf) {
  const burn::DeviceSpec s = burn::parse_device_spec("cpu");
  EXPECT_EQ(s.name, "cpu");
  EXPECT_TRUE(s.inner.empty());
  EXPECT_EQ(s.to_string(), "cpu");
}

TEST(DeviceSpec, ParsesNestingAndNormalisesWhitespace) {
  const burn::DeviceSpec s = burn::parse_device_spec(" autodiff < fusion<\tcpu > >  ");
  EXPECT_EQ(s.name, "autodiff");
  ASSERT_EQ(s.inner.size(), 1u);
  EXPECT_EQ(s.inner[0].name, "fusion");
  ASSERT_EQ(s.inner[0].inner.size(), 1u);
  EXPECT_EQ(s.inner[0].inner[0].name, "cpu");
  EXPECT_TRUE(s.inner[0].inner[0].inner.empty());
  EXPECT_EQ(s.to_string(), "autodiff<fusion<cpu>>");
}

TEST(DeviceSpec, AcceptsDigitsDashesAndUnderscores) {
  EXPECT_EQ(burn::parse_device_spec("my_dec-2<Vulkan0>").to_string(), "my_dec-2<Vulkan0>");
}

TEST(DeviceSpec, MalformedSpecsNameTheSpecAndThePosition) {
  EXPECT_EQ(parse_error("trace<cpu"), "[Device::get] malformed spec 'trace<cpu': expected '>' at position 9");
  EXPECT_NE(parse_error("").find("expected a backend or decorator name at position 0"), std::string::npos);
  EXPECT_NE(parse_error("   ").find("at position 3"), std::string::npos);
  EXPECT_NE(parse_error("<cpu>").find("expected a backend or decorator name at position 0"), std::string::npos);
  EXPECT_NE(parse_error("cpu>").find("expected '<' or end of spec at position 3"), std::string::npos);
  EXPECT_NE(parse_error("trace<>").find("expected a backend or decorator name at position 6"), std::string::npos);
  EXPECT_NE(parse_error("trace<cpu>x").find("expected '<' or end of spec at position 10"), std::string::npos);
  EXPECT_NE(parse_error("trace<cpu x>").find("expected '>' at position 10 (found 'x')"), std::string::npos);
  EXPECT_NE(parse_error("c@u").find("malformed spec 'c@u': expected '<' or end of spec at position 1 (found '@')"),
            std::string::npos);
  EXPECT_NE(parse_error("a<b,c>").find("expected '>' at position 3"), std::string::npos);
}

TEST(DeviceSpec, DeepNestingIsAnErrorNotACrash) {
  std::string spec;
  for (int i = 0; i < 10000; ++i) spec += "t<";
  spec += "cpu";
  EXPECT_NE(parse_error(spec).find("nested"), std::string::npos);
}

TEST(Device, TraceIsARegisteredDecorator) { EXPECT_TRUE(contains(burn::registered_decorators(), "trace")); }

TEST(Device, RegisterDecoratorChecksItsArguments) {
  EXPECT_THROW(burn::register_decorator("bad name", [](burn::BackendPtr b) { return b; }), burn::ValueError);
  EXPECT_THROW(burn::register_decorator("empty", burn::DecoratorFactory{}), burn::ValueError);
  burn::register_decorator("testdeco", [](burn::BackendPtr inner) { return burn::make_trace_backend(inner); });
  EXPECT_TRUE(contains(burn::registered_decorators(), "testdeco"));
  EXPECT_EQ(burn::decorator_summary("testdeco"), "");
}

// `burn devices` shows each decorator's summary next to its spec form.
TEST(Device, DecoratorSummaryIsKeptWithTheName) {
  burn::register_decorator(
      "testdeco3", [](burn::BackendPtr inner) { return burn::make_trace_backend(inner); }, "a test decorator");
  EXPECT_EQ(burn::decorator_summary("testdeco3"), "a test decorator");
  EXPECT_NE(burn::decorator_summary("trace").find("(burn-tensor)"), std::string::npos);
  EXPECT_EQ(burn::decorator_summary("no-such-decorator"), "");
}

TEST(Device, UnknownBackendThrowsPluginErrorListingWhatWasFound) {
  try {
    burn::Device::get("nope");
    FAIL() << "Device::get(\"nope\") should throw";
  } catch (const burn::PluginError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("no backend plugin named 'nope'; found: "), std::string::npos) << msg;
    EXPECT_NE(msg.find("searched: "), std::string::npos) << msg;
  }
}

TEST(Device, UnknownDecoratorThrowsPluginErrorListingTheRegisteredOnes) {
  try {
    burn::Device::get("nosuch<cpu>");
    FAIL() << "Device::get(\"nosuch<cpu>\") should throw";
  } catch (const burn::PluginError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("unknown decorator 'nosuch'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("trace"), std::string::npos) << msg;
    // It also looked for the component library that would provide it, next to libburn-tensor.
    const std::string lib = "/libburn-nosuch.so." + std::to_string(BURN_TENSOR_VERSION_MAJOR) + " does not exist";
    EXPECT_NE(msg.find(lib), std::string::npos) << msg;
  }
}

TEST(Device, ADecoratorAloneIsNotABackend) {
  try {
    burn::Device::get("trace");
    FAIL() << "Device::get(\"trace\") should throw";
  } catch (const burn::PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("'trace' is a decorator"), std::string::npos) << e.what();
  }
}

TEST(Device, MalformedSpecThrowsDeviceError) { EXPECT_THROW(burn::Device::get("trace<cpu"), burn::DeviceError); }

TEST(Device, FromNullBackendThrows) { EXPECT_THROW(burn::Device::from_backend(nullptr), burn::DeviceError); }

// The tests below need the in-tree cpu plugin and the trace decorator.

TEST(Device, SameSpecGivesTheSameDevice) {
  const burn::Device a = burn::Device::get("cpu");
  EXPECT_EQ(a, burn::Device::get(" cpu "));
  EXPECT_EQ(a.name(), "cpu");
  EXPECT_EQ(a, burn::Device::from_backend(a.backend()));
}

TEST(Device, SameSpecFromManyThreadsGivesOneDevice) {
  std::vector<burn::Device> got(8, burn::Device::from_backend(burn::Device::get("cpu").backend()));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < got.size(); ++i) {
    threads.emplace_back([&got, i] { got[i] = burn::Device::get("trace< cpu>"); });
  }
  for (auto& t : threads) t.join();
  for (const auto& d : got) EXPECT_EQ(d, got[0]);
}

TEST(Device, DecoratorsWrapTheCachedInnerDevice) {
  const burn::Device cpu = burn::Device::get("cpu");
  const burn::Device traced = burn::Device::get("trace<cpu>");
  EXPECT_NE(traced, cpu);
  EXPECT_EQ(traced.name(), "trace<cpu>");
  EXPECT_EQ(cpu.trace(), traced);
  EXPECT_EQ(cpu.wrap("trace"), traced);
  EXPECT_NE(traced->query_interface("trace"), nullptr);
  EXPECT_EQ(traced.trace(), burn::Device::get("trace<trace<cpu>>"));
}

TEST(Device, WrappingAnUncachedBackendWrapsThatBackend) {
  const burn::Device custom = burn::Device::from_backend(burn::make_trace_backend(burn::Device::get("cpu").backend()));
  const burn::Device traced = custom.trace();
  EXPECT_NE(traced, burn::Device::get("trace<trace<cpu>>"));
  EXPECT_EQ(traced.name(), "trace<trace<cpu>>");
}

TEST(Device, DefaultDeviceIsCpuOrBurnDevice) {
  unsetenv("BURN_DEVICE");
  EXPECT_EQ(burn::Device::default_device(), burn::Device::get("cpu"));
  setenv("BURN_DEVICE", "trace<cpu>", 1);
  EXPECT_EQ(burn::Device::default_device(), burn::Device::get("trace<cpu>"));
  unsetenv("BURN_DEVICE");
}

TEST(Device, RegisteredDecoratorIsUsedBySpec) {
  burn::register_decorator("testdeco2", [](burn::BackendPtr inner) { return burn::make_trace_backend(inner); });
  const burn::Device d = burn::Device::get("testdeco2<cpu>");
  EXPECT_EQ(d, burn::Device::get("testdeco2 <cpu>"));
  EXPECT_NE(d, burn::Device::get("trace<cpu>"));
}

}  // namespace

namespace {

TEST(DeviceSpec, AnAddressLeafRunsToTheClosingBracket) {
  const burn::DeviceSpec s = burn::parse_device_spec("autodiff< remote<tcp://127.0.0.1:7000> >");
  ASSERT_EQ(s.inner.size(), 1u);
  ASSERT_EQ(s.inner[0].inner.size(), 1u);
  EXPECT_EQ(s.inner[0].inner[0].name, "tcp://127.0.0.1:7000");
  EXPECT_EQ(s.to_string(), "autodiff<remote<tcp://127.0.0.1:7000>>");
  EXPECT_EQ(burn::parse_device_spec("remote<tcp://[::1]:7000>").inner[0].name, "tcp://[::1]:7000");
  EXPECT_NE(parse_error("remote<tcp://>").find("expected a host and port after '://' at position 13"),
            std::string::npos);
  EXPECT_NE(parse_error("remote<tcp://a b>").find("expected '>' at position 15 (found 'b')"), std::string::npos);
}

TEST(Device, AnAddressIsGivenToTheDecoratorRegisteredForIt) {
  static std::string seen;
  burn::register_address_decorator("testaddr", [](const std::string& address) {
    seen = address;
    return burn::Device::get("cpu").backend();
  });
  EXPECT_TRUE(contains(burn::registered_address_decorators(), "testaddr"));
  EXPECT_EQ(burn::Device::get("testaddr<tcp://h:1>"), burn::Device::get("cpu"));
  EXPECT_EQ(seen, "tcp://h:1");
  try {
    burn::Device::get("tcp://h:1");
    ADD_FAILURE() << "an address alone made a device";
  } catch (const burn::DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("is an address, not a backend"), std::string::npos) << e.what();
  }
  // A decorator of backends takes no address.
  EXPECT_THROW(burn::Device::get("trace<tcp://h:1>"), burn::PluginError);
}

}  // namespace
