// burn-fuzz driver: mutations of the fixture cases and their execution (see fuzz.hpp, fuzz_main.cpp).
// A case's input tensors (shape, dtype, values, views, emptiness, device) and its attrs (integers,
// lists, floats, bools, dtype and op names) are mutated toward absurd metadata: 0, -1, huge,
// INT64_MIN/MAX, shapes whose element count wraps, nan and inf. Only a burn::Error that names its op
// may come out of the api; anything else is a failure.
#include "fuzz.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <iterator>
#include <set>
#include <sstream>
#include <typeinfo>
#include <utility>

namespace burn::conformance::fuzz {

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

namespace {

// Sizes, indices and counts that break arithmetic: wrap products, negate badly, overflow sums.
const int64_t kSpecialInts[] = {0,
                                1,
                                -1,
                                2,
                                -2,
                                3,
                                7,
                                64,
                                INT32_MAX,
                                INT32_MIN,
                                1LL << 31,
                                1LL << 32,
                                1LL << 40,
                                1LL << 62,
                                INT64_MAX,
                                INT64_MIN,
                                INT64_MAX - 1,
                                INT64_MIN + 1};

Shape absurd_shape(Rng& r);

int64_t mutate_int(Rng& r, int64_t v) {
  switch (r.below(5)) {
    case 0:
    case 1: return kSpecialInts[r.below(std::size(kSpecialInts))];
    case 2:
      return static_cast<int64_t>(static_cast<uint64_t>(v) + (r.chance(0.5) ? 1 : UINT64_MAX));  // v +- 1, wrapping
    case 3: return r.small(-8, 8);
    default: return v == INT64_MIN ? v : -v;
  }
}

json mutate_float(Rng& r, double v) {
  switch (r.below(12)) {
    case 0: return "nan";
    case 1: return "inf";
    case 2: return "-inf";
    case 3: return 0.0;
    case 4: return -0.0;
    case 5: return 1e300;
    case 6: return -1e300;
    case 7: return 1e-310;
    case 8: return -1.0;
    case 9: return 2.5;
    case 10: return static_cast<double>(kSpecialInts[r.below(std::size(kSpecialInts))]);
    default: return std::isfinite(v) ? -v * 1e10 : 1.0;
  }
}

const std::vector<std::string>& dtype_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (DType d : kAllDTypes) v.emplace_back(dtype_name(d));
    return v;
  }();
  return names;
}

// A mutable spot of an attrs tree: the value and the key it sits under ("" inside arrays).
struct Spot {
  json* value;
  std::string key;
};

void collect(json& j, const std::string& key, std::vector<Spot>& out) {
  out.push_back({&j, key});
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) collect(it.value(), it.key(), out);
  } else if (j.is_array()) {
    for (json& e : j) collect(e, key, out);
  }
}

// One mutation of one spot of `attrs`; false when the chosen spot had nothing to mutate. A flag
// turned on may ask for one more (optional) input: *turned_on tells the caller to add one.
bool mutate_attrs(json& attrs, Rng& r, bool* turned_on) {
  std::vector<Spot> spots;
  collect(attrs, "", spots);
  if (spots.size() <= 1) return false;
  Spot s = spots[1 + r.below(spots.size() - 1)];
  // Attrs of the harness, not of the api: a "pre" transform's input index, and how categorical's
  // samples are reported (a loop over "classes" classes on the host).
  if (s.key == "input" || s.key == "classes") return false;
  json& v = *s.value;
  if (v.is_number_integer()) {
    v = r.chance(0.1) ? json(mutate_float(r, static_cast<double>(v.get<int64_t>())))
                      : json(mutate_int(r, v.get<int64_t>()));
  } else if (v.is_number_float()) {
    v = r.chance(0.1) ? json(mutate_int(r, 0)) : mutate_float(r, v.get<double>());
  } else if (v.is_boolean()) {
    v = !v.get<bool>();
    *turned_on = v.get<bool>();
  } else if (v.is_string()) {
    if (s.key == "dtype")
      v = dtype_names()[r.below(dtype_names().size())];
    else if (s.key == "op")
      v = all_ops()[r.below(kOpCount)].name;
    else
      return false;  // modes and kinds: the call helpers reject unknown ones themselves
  } else if (v.is_array()) {
    switch (r.below(5)) {
      case 0:
        if (!v.empty()) v.erase(v.begin() + static_cast<std::ptrdiff_t>(r.below(v.size())));
        break;
      case 1: v.insert(v.begin() + static_cast<std::ptrdiff_t>(r.below(v.size() + 1)), json(mutate_int(r, 1))); break;
      case 2:
        if (!v.empty()) v.push_back(v[r.below(v.size())]);
        break;
      case 3: v = json::array(); break;
      case 4:
        for (int k = 0; k < 6; ++k) v.push_back(json(r.small(-2, 9)));
        break;
      default: v = absurd_shape(r).dims(); break;
    }
  } else {
    return false;
  }
  return true;
}

// ---- tensors --------------------------------------------------------------------------------------

constexpr int64_t kMaxMutatedElements = 4096;

void put(TensorData& d, int64_t i, double f, int64_t n) {
  auto* p = static_cast<uint8_t*>(d.raw()) + static_cast<size_t>(i) * dtype_size(d.dtype());
  switch (d.dtype()) {
    case DType::F32: {
      float v = static_cast<float>(f);
      std::memcpy(p, &v, 4);
      break;
    }
    case DType::F64: std::memcpy(p, &f, 8); break;
    case DType::F16: {
      uint16_t v = f32_to_f16(static_cast<float>(f));
      std::memcpy(p, &v, 2);
      break;
    }
    case DType::BF16: {
      uint16_t v = f32_to_bf16(static_cast<float>(f));
      std::memcpy(p, &v, 2);
      break;
    }
    case DType::I64: std::memcpy(p, &n, 8); break;
    case DType::I32: {
      auto v = static_cast<int32_t>(n);
      std::memcpy(p, &v, 4);
      break;
    }
    case DType::I8: *p = static_cast<uint8_t>(n); break;
    case DType::U8: *p = static_cast<uint8_t>(n); break;
    case DType::Bool: *p = n & 1; break;
  }
}

// Values that are mostly ordinary (small ints work as indices and class ids), sometimes extreme.
void fill_random(TensorData& d, Rng& r) {
  for (int64_t i = 0; i < d.num_elements(); ++i)
    put(d, i, static_cast<double>(r.small(-300, 300)) / 64.0, r.small(-2, 6));
}

void poke_extremes(TensorData& d, Rng& r) {
  static const double kFloats[] = {NAN, INFINITY, -INFINITY, -0.0, 1e38, -1e38, 1e-45, 65504.0, 1e308};
  const int64_t n = d.num_elements();
  if (n == 0) return;
  const int64_t k = 1 + static_cast<int64_t>(r.below(3));
  for (int64_t j = 0; j < k; ++j) {
    const int64_t i = static_cast<int64_t>(r.below(static_cast<size_t>(n)));
    const int64_t iv = kSpecialInts[r.below(std::size(kSpecialInts))];
    put(d, i, kFloats[r.below(std::size(kFloats))], iv);
  }
}

Shape random_shape(Rng& r, size_t rank_hint) {
  static const int64_t kDims[] = {0, 1, 1, 2, 2, 3, 3, 4, 5, 7, 16};
  const size_t rank = r.chance(0.7) ? rank_hint : static_cast<size_t>(r.below(6));
  std::vector<int64_t> dims;
  int64_t n = 1;
  for (size_t i = 0; i < rank; ++i) {
    int64_t d = kDims[r.below(std::size(kDims))];
    if (n * std::max<int64_t>(d, 1) > kMaxMutatedElements) d = 1;
    n *= std::max<int64_t>(d, 1);
    dims.push_back(d);
  }
  return Shape(std::move(dims));
}

// A shape that no tensor can have: negative, or counting past int64 (possibly wrapping to 0 or a
// small number), or larger than any machine.
Shape absurd_shape(Rng& r) {
  static const std::vector<std::vector<int64_t>> kShapes = {{-1},
                                                            {-1, -1},
                                                            {2, -3},
                                                            {1LL << 62},
                                                            {1LL << 61, 4},
                                                            {1LL << 32, 1LL << 32},
                                                            {1LL << 32, 1LL << 32, 0},
                                                            {0, 1LL << 62, 1LL << 62},
                                                            {3, 1LL << 62},
                                                            {INT64_MAX},
                                                            {INT64_MIN},
                                                            {1LL << 40},
                                                            {2, 1LL << 62, 2},
                                                            {1LL << 33, 1LL << 31},
                                                            {6, 1LL << 32, 1LL << 32}};
  std::vector<int64_t> dims = kShapes[r.below(kShapes.size())];
  if (r.chance(0.3)) dims.push_back(mutate_int(r, 1));
  return Shape(std::move(dims));
}

// No elements, but a huge dim next to the zero one: cheap to make, and every product of dims an op
// computes (output sizes, rows, strides) meets the huge value.
TensorData empty_with_huge_dim(const TensorData& d, Rng& r) {
  static const int64_t kHuge[] = {1LL << 31, 1LL << 32, 1LL << 40, 1LL << 62, INT64_MAX};
  std::vector<int64_t> dims = random_shape(r, std::max<size_t>(d.shape().rank(), 2)).dims();
  if (dims.size() < 2) dims.resize(2, 1);
  const size_t zero = r.below(dims.size()), huge = (zero + 1 + r.below(dims.size() - 1)) % dims.size();
  dims[zero] = 0;
  dims[huge] = kHuge[r.below(std::size(kHuge))];
  for (size_t i = 0; i < dims.size(); ++i)
    if (i != zero && i != huge) dims[i] = std::min<int64_t>(dims[i], 1);  // the strides must fit int64
  return TensorData(Shape(std::move(dims)), d.dtype());
}

TensorData mutate_data(const TensorData& d, Rng& r) {
  if (r.chance(0.08)) return empty_with_huge_dim(d, r);
  switch (r.below(4)) {
    case 0: return d.convert(kAllDTypes[r.below(std::size(kAllDTypes))]);
    case 1: {
      TensorData out(random_shape(r, d.shape().rank()), d.dtype());
      fill_random(out, r);
      return out;
    }
    case 2: {
      TensorData out = d;
      poke_extremes(out, r);
      return out;
    }
    default: {  // new shape and dtype together
      TensorData out(random_shape(r, d.shape().rank()), kAllDTypes[r.below(std::size(kAllDTypes))]);
      fill_random(out, r);
      if (r.chance(0.3)) poke_extremes(out, r);
      return out;
    }
  }
}

// A view of the handle through the api: strided, flipped, expanded, offset or narrowed.
TensorHandle mutate_view(TensorHandle h, Rng& r) {
  const auto rank = static_cast<int64_t>(h.prim->shape().rank());
  if (rank == 0) return h;
  const int64_t d = r.small(0, rank - 1);
  switch (r.below(5)) {
    case 0: return api::swap_dims(std::move(h), d, r.small(0, rank - 1));
    case 1: return api::flip(std::move(h), {d});
    case 2: {
      std::vector<Slice> s(static_cast<size_t>(d), Slice::all());
      s.push_back(Slice::from(r.small(0, 1), 2));
      return api::slice(std::move(h), s);
    }
    case 3: {
      std::vector<int64_t> dims = h.prim->shape().dims();
      dims.insert(dims.begin(), r.small(0, 3));
      return api::expand(std::move(h), dims);
    }
    default: {
      const int64_t n = h.prim->shape()[static_cast<size_t>(d)];
      return n > 0 ? api::narrow(std::move(h), d, 1 % n, n - 1 % n) : h;
    }
  }
}

}  // namespace

// ---- the driver -----------------------------------------------------------------------------------

// Inputs larger than this after their views (an expand to 2^40 elements is a cheap view, but a
// reduction over it loops for hours without allocating) are not run: hangs are what we look for.
constexpr int64_t kMaxViewElements = 1 << 18;

Driver::Driver(std::vector<Case> cases, std::vector<Device> devices)
    : cases_(std::move(cases)), devices_(std::move(devices)), other_(Device::get("cpu")) {
  decoded_.resize(cases_.size());
  decoded_ok_.resize(cases_.size(), false);
  for (size_t i = 0; i < cases_.size(); ++i) {
    if (!call_table().count(cases_[i].call)) continue;
    by_op_[cases_[i].op].push_back(i);
  }
  for (auto& [op, list] : by_op_) {
    ops_.push_back(op);
    // The first case of the op that is not an error case reaches the op itself.
    auto ok = std::find_if(list.begin(), list.end(), [&](size_t i) { return cases_[i].error.empty(); });
    seed_cases_.push_back(ok != list.end() ? *ok : list.front());
  }
}

const std::vector<TensorData>& Driver::decoded(size_t i) {
  if (!decoded_ok_[i]) {
    for (const json& j : cases_[i].inputs) decoded_[i].push_back(tensor_from_json(j));
    decoded_ok_[i] = true;
  }
  return decoded_[i];
}

std::vector<std::string> Driver::unreached_ops() const {
  std::vector<uint64_t> counts(kOpCount, 0);
  for (const Device& d : devices_) {
    auto* tc = static_cast<TraceCounters*>(d->query_interface("trace"));
    if (!tc) continue;
    for (const OpInfo& info : all_ops()) counts[static_cast<size_t>(info.id)] += tc->count(info.id);
  }
  std::vector<std::string> out;
  for (const OpInfo& info : all_ops())
    if (counts[static_cast<size_t>(info.id)] == 0) out.push_back(std::string(group_name(info.group)) + "/" + info.name);
  return out;
}

std::vector<std::string> Driver::undriven_calls() const {
  std::set<std::string> used;
  for (const Case& c : cases_) used.insert(c.call);
  std::vector<std::string> out;
  for (const auto& [name, fn] : call_table())
    if (!used.count(name)) out.push_back(name);
  return out;
}

Outcome Driver::run_case(size_t i, const OnStart& on_start) {
  std::vector<Input> inputs;
  for (const TensorData& d : decoded(i)) inputs.push_back({d, Input::Form::Plain});
  return execute(cases_[i], devices_.front(), inputs, cases_[i].attrs, nullptr, on_start);
}

Outcome Driver::run_mutated(Rng& rng, const OnStart& on_start) {
  const std::vector<size_t>& of_op = by_op_.at(ops_[rng.below(ops_.size())]);
  const size_t ci = of_op[rng.below(of_op.size())];
  const Case& c = cases_[ci];
  const Device& dev = devices_[rng.below(devices_.size())];
  json attrs = c.attrs;
  std::vector<Input> inputs;
  for (const TensorData& d : decoded(ci)) inputs.push_back({d, Input::Form::Plain});

  const int mutations = 1 + static_cast<int>(rng.chance(0.5)) + static_cast<int>(rng.chance(0.25));
  for (int k = 0; k < mutations; ++k) {
    const size_t what = rng.below(12);
    if (what < 5 || inputs.empty()) {
      bool turned_on = false;
      if (mutate_attrs(attrs, rng, &turned_on) && turned_on && !inputs.empty()) {
        // The optional inputs the flag now asks for (bias, mask, weight, running mean and var): the
        // call must find something, or the harness rather than the api would fail.
        for (int e = 0; e < 2; ++e) {
          TensorData extra(random_shape(rng, inputs.front().data.shape().rank()), inputs.front().data.dtype());
          fill_random(extra, rng);
          inputs.push_back({std::move(extra), Input::Form::Plain});
        }
      }
      continue;
    }
    Input& in = inputs[rng.below(inputs.size())];
    if (what < 9) {
      in.data = mutate_data(in.data, rng);
    } else if (what == 9) {
      in.form = Input::Form::View;
    } else if (what == 10) {
      in.form = rng.chance(0.5) ? Input::Form::Empty : Input::Form::OtherDevice;
    } else {
      // TensorData is public api too: a shape int64 cannot count must be refused, never wrapped.
      const Shape s = absurd_shape(rng);
      try {
        TensorData t(s, in.data.dtype());
        __int128 strided = 1, n = 1;  // what checked_num_elements promises, recomputed without overflow
        bool negative = false;
        for (int64_t d : s) {
          negative = negative || d < 0;
          strided *= std::max<int64_t>(d, 1);
          n *= d;
          if (strided > INT64_MAX) break;
        }
        if (negative || strided > INT64_MAX || static_cast<__int128>(t.bytes().size()) != n * dtype_size(t.dtype()))
          return {Outcome::Kind::Failure, "TensorData accepted the shape " + s.to_string() + " with " +
                                              std::to_string(t.bytes().size()) + " bytes"};
      } catch (const burn::Error&) {
      }
    }
  }
  return execute(c, dev, inputs, attrs, &rng, on_start);
}

Outcome Driver::execute(const Case& c, const Device& dev, const std::vector<Input>& inputs, const json& attrs,
                        Rng* views, const OnStart& on_start) {
  if (on_start) {
    std::ostringstream os;
    os << c.group << "/" << c.name << " (call " << c.call << ") on " << dev.name() << "\n  attrs: " << attrs.dump()
       << "\n  inputs:";
    static const char* forms[] = {"", " (view)", " (empty handle)", " (other device)"};
    for (const Input& in : inputs)
      os << " " << dtype_name(in.data.dtype()) << in.data.shape().to_string() << forms[static_cast<int>(in.form)];
    on_start(os.str());
  }
  try {
    std::vector<TensorHandle> hs;
    for (const Input& in : inputs) {
      const Kind kind = api::kind_of(in.data.dtype());
      switch (in.form) {
        case Input::Form::Empty: hs.emplace_back(); break;
        case Input::Form::OtherDevice: hs.push_back(api::from_data(other_, in.data, kind)); break;
        default: hs.push_back(api::from_data(dev, in.data, kind)); break;
      }
    }
    apply_pre(hs, attrs);
    for (size_t i = 0; i < inputs.size() && views; ++i)
      if (inputs[i].form == Input::Form::View && hs[i].prim) hs[i] = mutate_view(std::move(hs[i]), *views);
    for (const TensorHandle& h : hs)
      if (h.prim && h.prim->shape().num_elements() > kMaxViewElements)
        return {Outcome::Kind::Skipped, "an input view is too large to run quickly"};
    const CallFn& fn = call_table().at(c.call);
    std::vector<TensorHandle> outs = fn(dev, hs, attrs);
    for (const TensorHandle& h : outs)
      if (h.prim) (void)api::into_data(h);  // deferred backends raise here; views get materialised
    return {};
  } catch (const burn::Error& e) {
    if (e.op().empty()) return {Outcome::Kind::Failure, error_kind(e) + " without an op: " + e.what()};
    return {Outcome::Kind::BurnError, error_kind(e)};
  } catch (const json::exception& e) {
    return {Outcome::Kind::Skipped, std::string("the mutated attrs no longer decode: ") + e.what()};
  } catch (const std::exception& e) {
    return {Outcome::Kind::Failure, std::string("non-burn exception ") + typeid(e).name() + ": " + e.what()};
  } catch (...) {
    return {Outcome::Kind::Failure, "an exception that is not a std::exception"};
  }
}

}  // namespace burn::conformance::fuzz
