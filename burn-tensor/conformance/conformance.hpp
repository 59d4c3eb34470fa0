// burn-conformance internals: a fixture case, its JSON decoding, and the table that maps a case's
// "call" to the burn::api function it exercises.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "burn/tensor/api.hpp"
#include "burn/tensor/backend.hpp"
#include "burn/tensor/data.hpp"
#include "burn/tensor/device.hpp"

namespace burn::conformance {

using nlohmann::json;

// One fixture case, as written by gen_fixtures.py.
struct Case {
  std::string group;  // the fixture file: an op group of the op table
  std::string name;   // unique within its group
  std::string op;     // the op-table op it covers, or "api:<function>"
  std::string call;   // the key into call_table()
  json inputs = json::array();
  json attrs = json::object();
  json expected = json::array();
  std::string error;  // the burn::Error subclass expected instead of outputs; empty when none
  json check;         // "shape_dtype" or statistical checks (random); null for a value comparison
  double rtol = 0, atol = 0;
  std::string torch;  // the reference expression, for messages
  json raw;           // the whole case, for suites with fields of their own (gradcheck's "grads")
};

// Reads every <group>.json of a folder; throws std::runtime_error naming the file on bad JSON.
std::vector<Case> load_cases(const std::filesystem::path& dir);

// JSON tensors and scalars: {"dtype","shape","data"}; "nan", "inf", "-inf" strings for floats.
TensorData tensor_from_json(const json& j);
Scalar scalar_from_json(const json& j);
DType dtype_from_json(const json& j);
Shape shape_from_json(const json& j);
double f64_from_json(const json& v);

// The handle inputs of a case on a device, after the "pre" transforms of its attrs (views).
std::vector<TensorHandle> make_inputs(const Device& dev, const Case& c);
// The "pre" transforms of `attrs` applied to inputs already on a device (make_inputs, the fuzzer).
void apply_pre(std::vector<TensorHandle>& inputs, const json& attrs);

// A "call": the api function run on the inputs with the attrs; returns every output.
using CallFn = std::function<std::vector<TensorHandle>(const Device&, std::vector<TensorHandle>&, const json&)>;
const std::map<std::string, CallFn>& call_table();

// The calls of each op group, one source file per group (calls_<group>.cpp).
using CallTable = std::map<std::string, CallFn>;
// Api families outside the op table (composites with no backend op of their own) keep the same
// shape: calls_<family>.cpp with add_<family>_calls, registered by call_table() like the groups.
#define BURN_API_FAMILIES(G) G(linalg) G(signal)
#define BURN_G_DECLARE(g) void add_##g##_calls(CallTable& t);
BURN_OP_GROUPS(BURN_G_DECLARE)
BURN_API_FAMILIES(BURN_G_DECLARE)
#undef BURN_G_DECLARE

// The name of the most derived burn::Error subclass of e ("ShapeError", ...).
std::string error_kind(const burn::Error& e);

// Compares an output with its expected JSON tensor; returns an empty string when it matches, else
// a message naming the worst element.
std::string compare_output(const TensorData& got, const json& expected, const Case& c);

}  // namespace burn::conformance
