// burn-fuzz internals: a structure-aware mutational fuzzer of the tensor api whose seeds are the
// conformance fixture cases. The driver (fuzz.cpp) is run by the time-budgeted ctest runner
// (fuzz_main.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "conformance.hpp"

namespace burn::conformance::fuzz {

// Every random choice of one execution, from a generator seeded per execution so that any one
// execution replays alone. (A libFuzzer target would draw these choices from its input bytes.)
class Rng {
 public:
  explicit Rng(uint64_t seed) : gen_(seed) {}
  uint64_t next() { return gen_(); }
  size_t below(size_t n) { return n ? static_cast<size_t>(next() % n) : 0; }
  bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1.0p-53 < p; }
  int64_t small(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(below(static_cast<size_t>(hi - lo + 1))); }

 private:
  std::mt19937_64 gen_;
};

uint64_t splitmix(uint64_t x);

struct Outcome {
  enum class Kind { Ok, BurnError, Skipped, Failure } kind = Kind::Ok;
  std::string detail;  // the error kind, why it was skipped, or what failed
};

class Driver {
 public:
  // `devices` should be trace<...> chains: their counters say which ops were reached.
  Driver(std::vector<Case> cases, std::vector<Device> devices);

  size_t case_count() const { return cases_.size(); }
  // Indices of one value-checked case per op: run unmutated, they reach every op a fixture covers.
  const std::vector<size_t>& seed_cases() const { return seed_cases_; }
  // Called with an execution's text (case, device, attrs, inputs) just before it runs, for crash and
  // hang reports.
  using OnStart = std::function<void(const std::string&)>;
  // Runs case `i` unmutated on the first device.
  Outcome run_case(size_t i, const OnStart& on_start);
  // One mutated execution, every choice drawn from `rng`.
  Outcome run_mutated(Rng& rng, const OnStart& on_start);
  // Ops of burn::all_ops() that no device has run yet.
  std::vector<std::string> unreached_ops() const;
  // Calls of call_table() that no fixture case uses: api functions outside the op table (linalg,
  // signal, index composites) are fuzzed through their cases, so a call without one is never run.
  std::vector<std::string> undriven_calls() const;

 private:
  struct Input {
    TensorData data;
    enum class Form { Plain, View, Empty, OtherDevice } form = Form::Plain;
  };
  const std::vector<TensorData>& decoded(size_t i);
  Outcome execute(const Case& c, const Device& dev, const std::vector<Input>& inputs, const json& attrs, Rng* views,
                  const OnStart& on_start);

  std::vector<Case> cases_;
  std::vector<Device> devices_;
  Device other_;  // a device none of the inputs live on: ops must refuse a mix with DeviceError
  std::vector<std::vector<TensorData>> decoded_;
  std::vector<bool> decoded_ok_;
  std::vector<size_t> seed_cases_;
  std::map<std::string, std::vector<size_t>> by_op_;
  std::vector<std::string> ops_;
};

}  // namespace burn::conformance::fuzz
