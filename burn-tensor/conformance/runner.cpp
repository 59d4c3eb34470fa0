// burn-conformance: runs the PyTorch reference fixtures against one backend chain.
//   burn-conformance --backend SPEC [--filter GLOB] [--fixtures DIR] [--list] [gtest args...]
// Each case is one GoogleTest test named <group>.<case>; --filter takes "<group>/<case>" globs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "conformance.hpp"

namespace burn::conformance {
namespace {

std::string g_backend = "cpu";
// --dtype f16|bf16: every case with f32 inputs runs on them rounded to that format, against the same call
// on the rounded values in f32, rounded once (docs/decisions.md, "f16 and bf16 compute").
std::optional<DType> g_half;
std::optional<Device> g_device;
std::string g_device_error;  // why the device could not be made; every case fails with it
std::vector<Case> g_cases;

const Device& device() {
  if (!g_device && g_device_error.empty()) {
    try {
      g_device = Device::get(g_backend);
    } catch (const std::exception& e) {
      g_device_error = e.what();
    }
  }
  if (!g_device) throw std::runtime_error("cannot make device '" + g_backend + "': " + g_device_error);
  return *g_device;
}

std::string describe(const Case& c) {
  std::ostringstream os;
  os << c.group << "/" << c.name << " (op " << c.op << ", call " << c.call;
  if (!c.attrs.empty()) os << ", attrs " << c.attrs.dump();
  os << ")";
  if (!c.torch.empty()) os << "\n  torch: " << c.torch;
  return os.str();
}

// A case the --dtype run takes: an op of the table (an api composite runs several ops, each rounding once,
// so its result is not the f32 run rounded once), values to compare (no error, no statistics) and f32
// inputs, no f64 or 16-bit ones.
bool half_eligible(const Case& c) {
  if (c.op.rfind("api:", 0) == 0 || !c.error.empty() || !c.check.is_null()) return false;
  bool any_f32 = false;
  for (const json& j : c.inputs) {
    const DType d = dtype_from_json(j.at("dtype"));
    if (d == DType::F64 || d == DType::F16 || d == DType::BF16) return false;
    any_f32 = any_f32 || d == DType::F32;
  }
  return any_f32;
}

// The case's inputs with every f32 one rounded to the --dtype format, kept in it (`widen` false) or
// widened back to f32 exactly (`widen` true: the reference's inputs).
std::vector<TensorHandle> half_inputs(const Device& dev, const Case& c, bool widen) {
  std::vector<TensorHandle> hs;
  for (const json& j : c.inputs) {
    TensorData d = tensor_from_json(j);
    TensorHandle h = api::from_data(dev, d, api::kind_of(d.dtype()));
    if (d.dtype() == DType::F32) {
      h = api::cast(h, *g_half);
      if (widen) h = api::cast(h, DType::F32);
    }
    hs.push_back(std::move(h));
  }
  apply_pre(hs, c.attrs);
  return hs;
}

// A --dtype output against the reference's: float results within one unit in the last place of the
// format of the reference rounded to it (the format's epsilon relative, its smallest subnormal absolute),
// integer and bool results equal.
std::string compare_half(const TensorData& got, const TensorData& ref) {
  std::ostringstream err;
  const DType want_dt = ref.dtype() == DType::F32 ? *g_half : ref.dtype();
  if (got.dtype() != want_dt)
    err << "dtype: got " << dtype_name(got.dtype()) << ", expected " << dtype_name(want_dt) << "; ";
  if (got.shape() != ref.shape())
    err << "shape: got " << got.shape().to_string() << ", expected " << ref.shape().to_string() << "; ";
  if (!err.str().empty()) return err.str();
  if (ref.dtype() != DType::F32) return got == ref ? "" : "differs from the f32 run: " + got.to_string(20);
  const bool f16 = *g_half == DType::F16;
  const double rtol = f16 ? 0x1p-10 : 0x1p-7, atol = f16 ? 0x1p-24 : 0x1p-133;
  const ApproxReport r = got.convert(DType::F32).compare_approx(ref.convert(*g_half).convert(DType::F32), rtol, atol);
  if (r.ok) return "";
  err << "flat element " << r.worst_index << ": got " << r.worst_actual << ", the f32 run rounded gives "
      << r.worst_expected << " (rtol " << rtol << ", atol " << atol << "); " << r.message;
  return err.str();
}

class CaseTest : public testing::Test {
 public:
  explicit CaseTest(const Case* c) : c_(c) {}

  void TestBody() override {
    const Case& c = *c_;
    auto it = call_table().find(c.call);
    ASSERT_NE(it, call_table().end()) << "unknown call '" << c.call << "' in " << describe(c);
    if (g_half) {
      run_half(it->second);
      return;
    }
    if (!c.error.empty()) {
      std::vector<TensorHandle> inputs;
      ASSERT_TRUE(inputs_ok(inputs));
      run_error_case(it->second, inputs);
      return;
    }
    // Pass 1: the runner keeps the inputs, so the backend must not write into them.
    {
      std::vector<TensorHandle> kept;
      ASSERT_TRUE(inputs_ok(kept));
      std::vector<TensorData> before;
      for (const TensorHandle& h : kept) before.push_back(api::into_data(h));
      std::vector<TensorHandle> copy = kept;
      run_and_compare(it->second, copy, "inputs shared");
      for (size_t i = 0; i < kept.size(); ++i)
        EXPECT_TRUE(api::into_data(kept[i]) == before[i])
            << "input " << i << " was modified by the op\n  " << describe(c);
    }
    // Pass 2: the call holds the only handles, so the backend may reuse their buffers.
    {
      std::vector<TensorHandle> owned;
      ASSERT_TRUE(inputs_ok(owned));
      run_and_compare(it->second, owned, "inputs moved");
    }
  }

 private:
  bool inputs_ok(std::vector<TensorHandle>& out) {
    try {
      out = make_inputs(device(), *c_);
      return true;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "making the inputs threw: " << e.what() << "\n  " << describe(*c_);
      return false;
    }
  }

  void run_and_compare(const CallFn& fn, std::vector<TensorHandle>& inputs, const char* pass) {
    const Case& c = *c_;
    std::vector<TensorData> outs;
    try {
      std::vector<TensorHandle> hs = fn(device(), inputs, c.attrs);
      inputs.clear();
      for (const TensorHandle& h : hs) outs.push_back(api::into_data(h));
    } catch (const burn::Error& e) {
      FAIL() << "[" << pass << "] " << error_kind(e) << " thrown: " << e.what() << "\n  " << describe(c);
    } catch (const std::exception& e) {
      FAIL() << "[" << pass << "] exception thrown: " << e.what() << "\n  " << describe(c);
    }
    ASSERT_EQ(outs.size(), c.expected.size()) << "[" << pass << "] number of outputs differs\n  " << describe(c);
    for (size_t i = 0; i < outs.size(); ++i) {
      std::string msg = compare_output(outs[i], c.expected[i], c);
      EXPECT_TRUE(msg.empty()) << "[" << pass << "] output " << i << ": " << msg << "\n  " << describe(c);
    }
  }

  // The --dtype run: twice, as the f32 run (inputs kept and unmodified; inputs moved).
  void run_half(const CallFn& fn) {
    const Case& c = *c_;
    std::vector<TensorData> ref;
    try {
      std::vector<TensorHandle> in = half_inputs(device(), c, /*widen=*/true);
      for (const TensorHandle& h : fn(device(), in, c.attrs)) ref.push_back(api::into_data(h));
    } catch (const std::exception& e) {
      FAIL() << "the f32 reference run threw: " << e.what() << "\n  " << describe(c);
    }
    for (const char* pass : {"inputs shared", "inputs moved"}) {
      std::vector<TensorHandle> kept, in;
      std::vector<TensorData> before, outs;
      try {
        kept = half_inputs(device(), c, /*widen=*/false);
        if (pass[7] == 's')
          for (const TensorHandle& h : kept) before.push_back(api::into_data(h));
        in = kept;
        if (pass[7] == 'm') kept.clear();
        for (const TensorHandle& h : fn(device(), in, c.attrs)) outs.push_back(api::into_data(h));
      } catch (const std::exception& e) {
        FAIL() << "[" << pass << "] " << dtype_name(*g_half) << " run threw: " << e.what() << "\n  " << describe(c);
      }
      for (size_t i = 0; i < before.size(); ++i)
        EXPECT_TRUE(api::into_data(kept[i]) == before[i])
            << "input " << i << " was modified by the op\n  " << describe(c);
      ASSERT_EQ(outs.size(), ref.size()) << "[" << pass << "] number of outputs differs\n  " << describe(c);
      for (size_t i = 0; i < outs.size(); ++i) {
        const std::string msg = compare_half(outs[i], ref[i]);
        EXPECT_TRUE(msg.empty()) << "[" << pass << "] " << dtype_name(*g_half) << " output " << i << ": " << msg
                                 << "\n  " << describe(c);
      }
    }
  }

  void run_error_case(const CallFn& fn, std::vector<TensorHandle>& inputs) {
    const Case& c = *c_;
    try {
      // Reading the outputs back makes deferred (fused, asynchronous) backends raise too.
      for (const TensorHandle& h : fn(device(), inputs, c.attrs)) (void)api::into_data(h);
    } catch (const burn::Error& e) {
      EXPECT_EQ(error_kind(e), c.error) << "wrong error type; message: " << e.what() << "\n  " << describe(c);
      return;
    } catch (const std::exception& e) {
      FAIL() << "expected burn::" << c.error << ", got a non-burn exception: " << e.what() << "\n  " << describe(c);
    }
    FAIL() << "expected burn::" << c.error << ", but the call succeeded\n  " << describe(c);
  }

  const Case* c_;
};

void register_cases() {
  for (const Case& c : g_cases) {
    if (g_half && !half_eligible(c)) continue;
    testing::RegisterTest(c.group.c_str(), c.name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                          [&c]() -> testing::Test* { return new CaseTest(&c); });
  }
}

std::string exe_dir() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : p.parent_path().string();
}

std::string to_gtest_filter(std::string glob) {
  // Our names are <group>/<case>; gtest's are <group>.<case>.
  for (char& ch : glob)
    if (ch == '/') ch = '.';
  return glob;
}

// gtest's filter syntax, so that the runner can say when --filter selects nothing before it runs:
// ':'-separated globs ('*', '?'), then optionally '-' and globs to exclude.
bool glob_match(const char* pat, const char* s) {
  for (; *pat; ++pat, ++s) {
    if (*pat == '*') {
      for (;; ++s) {
        if (glob_match(pat + 1, s)) return true;
        if (!*s) return false;
      }
    }
    if (!*s || (*pat != '?' && *pat != *s)) return false;
  }
  return !*s;
}

bool any_glob_matches(const std::string& globs, const std::string& name) {
  size_t start = 0;
  while (start <= globs.size()) {
    const size_t end = std::min(globs.find(':', start), globs.size());
    if (glob_match(globs.substr(start, end - start).c_str(), name.c_str())) return true;
    start = end + 1;
  }
  return false;
}

bool filter_selects(const std::string& gtest_filter, const std::string& name) {
  const size_t dash = gtest_filter.find('-');
  const std::string positive = gtest_filter.substr(0, dash);
  const std::string negative = dash == std::string::npos ? "" : gtest_filter.substr(dash + 1);
  return any_glob_matches(positive.empty() ? "*" : positive, name) && !any_glob_matches(negative, name);
}

std::string group_list() {
  std::set<std::string> groups;
  for (const Case& c : g_cases) groups.insert(c.group);
  std::string out;
  for (const auto& g : groups) out += (out.empty() ? "" : ", ") + g;
  return out;
}

void usage(std::ostream& os) {
  os << "usage: burn-conformance --backend SPEC [--filter GLOB] [--fixtures DIR] [--list] [gtest options]\n"
        "  --backend SPEC   device spec, e.g. cpu, \"trace<cpu>\", \"autodiff<fusion<cpu>>\" (default cpu)\n"
        "  --filter GLOB    run the cases matching GLOB (\"numeric/*\", \"*/sum_*\"; ':' separates, '-' excludes)\n"
        "  --fixtures DIR   fixture folder (default <exe>/../share/burn/conformance/fixtures)\n"
        "  --list           print the cases (group/name, op, call) and exit; with --filter, the matching ones\n"
        "  --skip-unavailable  exit 77 (ctest: skipped) when the backend's plugin cannot run here\n"
        "  --dtype f16|bf16 run the cases with f32 inputs on them rounded to that format, against the same call\n"
        "                   on the rounded values in f32, rounded once (within one unit in the last place)\n"
        "A --filter that matches no case is an error (exit 1).\n";
}

}  // namespace

// Every op of the table must be exercised by at least one case; a new op without fixtures fails here.
TEST(Coverage, EveryOpHasACase) {
  std::set<std::string> covered;
  for (const Case& c : g_cases) covered.insert(c.op);
  std::vector<std::string> missing;
  for (const OpInfo& info : all_ops())
    if (!covered.count(info.name)) missing.push_back(std::string(group_name(info.group)) + "/" + info.name);
  std::ostringstream os;
  for (const auto& m : missing) os << " " << m;
  EXPECT_TRUE(missing.empty()) << missing.size() << " op(s) of burn::all_ops() have no conformance case:" << os.str();
}

// A case's "op" must name an op of the table (or an api function); catches typos in the fixtures.
TEST(Coverage, CaseOpsExist) {
  std::vector<std::string> bad;
  for (const Case& c : g_cases)
    if (c.op.rfind("api:", 0) != 0 && !find_op(c.op)) bad.push_back(c.group + "/" + c.name + " (" + c.op + ")");
  for (const Case& c : g_cases)
    if (!call_table().count(c.call)) bad.push_back(c.group + "/" + c.name + " (call " + c.call + ")");
  std::ostringstream os;
  for (const auto& b : bad) os << "\n  " << b;
  EXPECT_TRUE(bad.empty()) << "cases naming unknown ops or calls:" << os.str();
}

}  // namespace burn::conformance

int main(int argc, char** argv) {
  using namespace burn::conformance;
  std::string fixtures = exe_dir() + "/../share/burn/conformance/fixtures";
  std::optional<std::string> filter;
  bool list = false;
  bool skip_unavailable = false;
  std::vector<std::string> rest = {argv[0]};
  auto value_of = [&](int& i, const char* flag) -> std::optional<std::string> {
    std::string a = argv[i];
    std::string f = flag;
    if (a == f) {
      if (i + 1 >= argc) {
        std::cerr << "burn-conformance: " << f << " needs a value\n";
        std::exit(2);
      }
      return std::string(argv[++i]);
    }
    if (a.rfind(f + "=", 0) == 0) return a.substr(f.size() + 1);
    return std::nullopt;
  };
  for (int i = 1; i < argc; ++i) {
    if (auto v = value_of(i, "--backend")) {
      g_backend = *v;
    } else if (auto v2 = value_of(i, "--filter")) {
      filter = *v2;
    } else if (auto v3 = value_of(i, "--fixtures")) {
      fixtures = *v3;
    } else if (auto v4 = value_of(i, "--dtype")) {
      if (*v4 != "f16" && *v4 != "bf16") {
        std::cerr << "burn-conformance: --dtype takes f16 or bf16, got '" << *v4 << "'\n";
        return 2;
      }
      g_half = burn::parse_dtype(*v4);
    } else if (std::strcmp(argv[i], "--list") == 0) {
      list = true;
    } else if (std::strcmp(argv[i], "--skip-unavailable") == 0) {
      skip_unavailable = true;
    } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      usage(std::cout);
      return 0;
    } else {
      rest.emplace_back(argv[i]);
    }
  }
  try {
    g_cases = load_cases(fixtures);
  } catch (const std::exception& e) {
    std::cerr << "burn-conformance: " << e.what() << "\n";
    return 2;
  }
  // A filter that selects nothing is a typo, not a pass (gtest alone would report 0 tests, passed).
  if (filter) {
    const std::string f = to_gtest_filter(*filter);
    bool any = std::any_of(g_cases.begin(), g_cases.end(),
                           [&](const Case& c) { return filter_selects(f, c.group + "." + c.name); });
    // The TEST()s of this file (Coverage.*) are registered already; the cases are not yet.
    const testing::UnitTest& ut = *testing::UnitTest::GetInstance();
    for (int i = 0; i < ut.total_test_suite_count(); ++i) {
      const testing::TestSuite& suite = *ut.GetTestSuite(i);
      for (int j = 0; j < suite.total_test_count(); ++j)
        any = any || filter_selects(f, std::string(suite.name()) + "." + suite.GetTestInfo(j)->name());
    }
    if (!any) {
      std::cerr << "burn-conformance: --filter '" << *filter << "' matched no case of the " << g_cases.size() << " in "
                << fixtures
                << "\n  case names are <group>/<case>, e.g. 'numeric/*' or '*/sum_*'; groups: " << group_list()
                << "\n  (--list prints every case)\n";
      return 1;
    }
  }
  if (list) {
    size_t listed = 0;
    for (const Case& c : g_cases) {
      if (filter && !filter_selects(to_gtest_filter(*filter), c.group + "." + c.name)) continue;
      ++listed;
      std::cout << c.group << "/" << c.name << "  op=" << c.op << "  call=" << c.call
                << (c.error.empty() ? "" : "  error=" + c.error) << "\n";
    }
    std::cout << listed << " cases\n";
    return 0;
  }
  try {
    (void)device();
  } catch (const burn::PluginError& e) {
    // A backend this machine cannot run (no Vulkan device): ctest counts exit 77 as skipped.
    std::cerr << "burn-conformance: " << e.what() << "\n";
    if (skip_unavailable) std::cerr << "burn-conformance: skipped: backend " << g_backend << " is not available\n";
    return skip_unavailable ? 77 : 1;
  } catch (const std::exception& e) {
    std::cerr << "burn-conformance: " << e.what() << "\n";
    return 1;
  }
  if (filter) rest.push_back("--gtest_filter=" + to_gtest_filter(*filter));
  std::vector<char*> args;
  for (auto& s : rest) args.push_back(s.data());
  int n = static_cast<int>(args.size());
  args.push_back(nullptr);
  testing::InitGoogleTest(&n, args.data());
  register_cases();
  std::cout << "burn-conformance: backend " << g_backend << ", " << g_cases.size() << " cases from " << fixtures;
  if (g_half)
    std::cout << "; in " << burn::dtype_name(*g_half) << ": the "
              << std::count_if(g_cases.begin(), g_cases.end(), half_eligible)
              << " cases of table ops with f32 inputs and values to compare";
  std::cout << "\n";
  return RUN_ALL_TESTS();
}
