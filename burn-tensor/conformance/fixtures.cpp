// burn-conformance: reading fixture files and tensors, building inputs, comparing outputs.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "conformance.hpp"

namespace burn::conformance {

namespace {

std::string fmt_index(const Shape& shape, int64_t flat) {
  if (flat < 0) return "?";
  std::vector<int64_t> idx(shape.rank());
  for (size_t d = shape.rank(); d-- > 0;) {
    int64_t n = shape[d] > 0 ? shape[d] : 1;
    idx[d] = flat % n;
    flat /= n;
  }
  std::ostringstream os;
  os << "[";
  for (size_t d = 0; d < idx.size(); ++d) os << (d ? ", " : "") << idx[d];
  os << "]";
  return os.str();
}

// Integer and bool elements read straight from the bytes: exact, independent of convert().
std::vector<int64_t> ints_of(const TensorData& d) {
  std::vector<int64_t> out(static_cast<size_t>(d.num_elements()));
  const uint8_t* p = d.bytes().data();
  for (size_t i = 0; i < out.size(); ++i) {
    switch (d.dtype()) {
      case DType::I64: {
        int64_t v;
        std::memcpy(&v, p + 8 * i, 8);
        out[i] = v;
        break;
      }
      case DType::I32: {
        int32_t v;
        std::memcpy(&v, p + 4 * i, 4);
        out[i] = v;
        break;
      }
      case DType::I8: out[i] = static_cast<int8_t>(p[i]); break;
      case DType::U8:
      case DType::Bool: out[i] = p[i]; break;
      default: throw std::logic_error("ints_of on a float tensor");
    }
  }
  return out;
}

std::string small_dump(const TensorData& got, const TensorData& want) {
  if (got.num_elements() > 64) return "";
  return "\n  got:      " + got.to_string() + "\n  expected: " + want.to_string();
}

std::string check_statistics(const TensorData& got, const json& check) {
  std::vector<double> v = got.to_f64_vec();
  std::ostringstream err;
  if (check.contains("range")) {
    double lo = check["range"][0].get<double>(), hi = check["range"][1].get<double>();
    for (size_t i = 0; i < v.size(); ++i)
      if (!(v[i] >= lo && v[i] <= hi)) {
        err << "element " << i << " = " << v[i] << " is outside [" << lo << ", " << hi << "]; ";
        break;
      }
  }
  if (check.contains("values_in")) {
    std::vector<double> allowed = check["values_in"].get<std::vector<double>>();
    for (size_t i = 0; i < v.size(); ++i)
      if (std::find(allowed.begin(), allowed.end(), v[i]) == allowed.end()) {
        err << "element " << i << " = " << v[i] << " is not one of the allowed values; ";
        break;
      }
  }
  double mean = 0;
  for (double x : v) mean += x;
  mean /= v.empty() ? 1.0 : static_cast<double>(v.size());
  if (check.contains("mean")) {
    double m = check["mean"][0].get<double>(), tol = check["mean"][1].get<double>();
    if (!(std::abs(mean - m) <= tol)) err << "mean " << mean << " is not within " << tol << " of " << m << "; ";
  }
  if (check.contains("std")) {
    double var = 0;
    for (double x : v) var += (x - mean) * (x - mean);
    double sd = std::sqrt(var / std::max<double>(1.0, static_cast<double>(v.size()) - 1));
    double s = check["std"][0].get<double>(), tol = check["std"][1].get<double>();
    if (!(std::abs(sd - s) <= tol)) err << "std " << sd << " is not within " << tol << " of " << s << "; ";
  }
  return err.str();
}

}  // namespace

double f64_from_json(const json& v);

// Large outputs are stored at sampled flat positions only (ends, thread-chunk boundaries, random).
static std::string compare_sampled(const TensorData& got, const json& expected, const Case& c) {
  const auto idx = expected.at("sample_index").get<std::vector<int64_t>>();
  const json& data = expected.at("sample_data");
  const bool exact = !is_float(got.dtype());
  std::vector<double> g = exact ? std::vector<double>() : got.to_f64_vec();
  std::vector<int64_t> gi = exact ? ints_of(got) : std::vector<int64_t>();
  int64_t bad = 0, worst = -1;
  double worst_excess = -1, worst_got = 0, worst_want = 0;
  for (size_t k = 0; k < idx.size(); ++k) {
    const size_t i = static_cast<size_t>(idx[k]);
    if (exact) {
      const int64_t w = data[k].is_boolean() ? (data[k].get<bool>() ? 1 : 0) : data[k].get<int64_t>();
      if (gi[i] != w) {
        if (bad++ == 0) worst = idx[k], worst_got = static_cast<double>(gi[i]), worst_want = static_cast<double>(w);
      }
      continue;
    }
    const double w = f64_from_json(data[k]), a = g[i];
    if (std::isnan(w) && std::isnan(a)) continue;
    const double err = std::abs(a - w), tol = c.atol + c.rtol * std::abs(w);
    const bool ok = (a == w) || err <= tol;
    if (!ok) {
      ++bad;
      const double excess = std::isnan(err) ? std::numeric_limits<double>::infinity() : err - tol;
      if (excess > worst_excess) worst_excess = excess, worst = idx[k], worst_got = a, worst_want = w;
    }
  }
  if (bad == 0) return "";
  std::ostringstream err;
  err << bad << " of " << idx.size() << " sampled elements differ; worst at " << fmt_index(got.shape(), worst)
      << " (flat " << worst << "): got " << worst_got << ", expected " << worst_want << " (rtol " << c.rtol << ", atol "
      << c.atol << ")";
  return err.str();
}

double f64_from_json(const json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    throw std::runtime_error("bad number string '" + s + "'");
  }
  if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
  return v.get<double>();
}

static int64_t i64_from_json(const json& v) {
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  if (v.is_number_integer()) return v.get<int64_t>();
  return static_cast<int64_t>(f64_from_json(v));
}

DType dtype_from_json(const json& j) { return parse_dtype(j.get<std::string>()); }
Shape shape_from_json(const json& j) { return Shape(j.get<std::vector<int64_t>>()); }

// A large input made from a formula instead of data; gen_fixtures.py's Gen computes the same doubles.
static TensorData generated(const json& gen, const Shape& shape, DType dt) {
  if (gen.at("kind").get<std::string>() != "lcg") throw std::runtime_error("unknown tensor generator " + gen.dump());
  const double scale = gen.at("scale").get<double>(), offset = gen.value("offset", 0.0);
  const int64_t n = shape.num_elements();
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const double k = static_cast<double>((i * 7919 + 13) % 2001 - 1000);
    const double scaled = k * scale;  // two roundings, as numpy: no fused multiply-add
    v[static_cast<size_t>(i)] = scaled + offset;
  }
  json data = json::array();
  for (double x : v) data.push_back(x);
  json spec = {{"dtype", std::string(dtype_name(dt))}, {"shape", shape.dims()}, {"data", std::move(data)}};
  return tensor_from_json(spec);
}

TensorData tensor_from_json(const json& j) {
  DType dt = dtype_from_json(j.at("dtype"));
  Shape shape = shape_from_json(j.at("shape"));
  TensorData d(shape, dt);
  if (j.contains("gen")) return generated(j.at("gen"), shape, dt);
  const json& data = j.at("data");
  if (static_cast<int64_t>(data.size()) != shape.num_elements())
    throw std::runtime_error("tensor data has " + std::to_string(data.size()) + " values for shape " +
                             shape.to_string());
  uint8_t* p = static_cast<uint8_t*>(d.raw());
  for (size_t i = 0; i < data.size(); ++i) {
    const json& v = data[i];
    switch (dt) {
      case DType::F32: {
        float x = static_cast<float>(f64_from_json(v));
        std::memcpy(p + 4 * i, &x, 4);
        break;
      }
      case DType::F64: {
        double x = f64_from_json(v);
        std::memcpy(p + 8 * i, &x, 8);
        break;
      }
      case DType::F16: {
        uint16_t x = f32_to_f16(static_cast<float>(f64_from_json(v)));
        std::memcpy(p + 2 * i, &x, 2);
        break;
      }
      case DType::BF16: {
        uint16_t x = f32_to_bf16(static_cast<float>(f64_from_json(v)));
        std::memcpy(p + 2 * i, &x, 2);
        break;
      }
      case DType::I64: {
        int64_t x = i64_from_json(v);
        std::memcpy(p + 8 * i, &x, 8);
        break;
      }
      case DType::I32: {
        int32_t x = static_cast<int32_t>(i64_from_json(v));
        std::memcpy(p + 4 * i, &x, 4);
        break;
      }
      case DType::I8: p[i] = static_cast<uint8_t>(static_cast<int8_t>(i64_from_json(v))); break;
      case DType::U8: p[i] = static_cast<uint8_t>(i64_from_json(v)); break;
      case DType::Bool: p[i] = i64_from_json(v) != 0 ? 1 : 0; break;
    }
  }
  return d;
}

Scalar scalar_from_json(const json& j) {
  if (j.is_boolean()) return Scalar(j.get<bool>());
  if (j.is_number_integer()) return Scalar(j.get<int64_t>());
  return Scalar(f64_from_json(j));
}

std::vector<Case> load_cases(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) throw std::runtime_error("fixture folder not found: " + dir.string());
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<Case> cases;
  for (const auto& f : files) {
    std::ifstream in(f);
    json doc;
    try {
      doc = json::parse(in);
    } catch (const json::exception& e) {
      throw std::runtime_error(f.string() + ": " + e.what());
    }
    std::string group = doc.value("group", f.stem().string());
    for (const json& jc : doc.at("cases")) {
      Case c;
      c.group = group;
      c.name = jc.at("name").get<std::string>();
      c.op = jc.at("op").get<std::string>();
      c.call = jc.at("call").get<std::string>();
      c.inputs = jc.value("inputs", json::array());
      c.attrs = jc.value("attrs", json::object());
      c.expected = jc.value("expected", json::array());
      c.error = jc.value("error", std::string());
      c.check = jc.value("check", json());
      c.rtol = jc.value("rtol", 0.0);
      c.atol = jc.value("atol", 0.0);
      c.torch = jc.value("torch", std::string());
      c.raw = jc;
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

std::vector<TensorHandle> make_inputs(const Device& dev, const Case& c) {
  std::vector<TensorHandle> hs;
  for (const json& j : c.inputs) {
    TensorData d = tensor_from_json(j);
    hs.push_back(api::from_data(dev, d, api::kind_of(d.dtype())));
  }
  apply_pre(hs, c.attrs);
  return hs;
}

void apply_pre(std::vector<TensorHandle>& hs, const json& attrs) {
  // Views made through the api, so that ops see strided, offset, expanded or flipped inputs.
  if (attrs.contains("pre")) {
    for (const json& p : attrs["pre"]) {
      size_t i = p.at("input").get<size_t>();
      const std::string kind = p.at("kind").get<std::string>();
      TensorHandle& h = hs.at(i);
      if (kind == "transpose") {
        h = api::swap_dims(h, p.at("a").get<int64_t>(), p.at("b").get<int64_t>());
      } else if (kind == "permute") {
        h = api::permute(h, p.at("axes").get<std::vector<int64_t>>());
      } else if (kind == "expand") {
        h = api::expand(h, p.at("dims").get<std::vector<int64_t>>());
      } else if (kind == "flip") {
        h = api::flip(h, p.at("axes").get<std::vector<int64_t>>());
      } else if (kind == "slice") {
        std::vector<Slice> s;
        for (const json& r : p.at("ranges"))
          s.push_back(Slice::range(r.at(0).get<int64_t>(), r.at(1).get<int64_t>(), r.at(2).get<int64_t>()));
        h = api::slice(h, s);
      } else {
        throw std::runtime_error("unknown pre transform '" + kind + "'");
      }
    }
  }
}

std::string error_kind(const burn::Error& e) {
  if (dynamic_cast<const ShapeError*>(&e)) return "ShapeError";
  if (dynamic_cast<const DTypeError*>(&e)) return "DTypeError";
  if (dynamic_cast<const IndexError*>(&e)) return "IndexError";
  if (dynamic_cast<const DeviceError*>(&e)) return "DeviceError";
  if (dynamic_cast<const ValueError*>(&e)) return "ValueError";
  if (dynamic_cast<const Unsupported*>(&e)) return "Unsupported";
  if (dynamic_cast<const PluginError*>(&e)) return "PluginError";
  if (dynamic_cast<const RecordError*>(&e)) return "RecordError";
  if (dynamic_cast<const OutOfMemory*>(&e)) return "OutOfMemory";
  return "Error";
}

std::string compare_output(const TensorData& got, const json& expected, const Case& c) {
  DType want_dt = dtype_from_json(expected.at("dtype"));
  Shape want_shape = shape_from_json(expected.at("shape"));
  std::ostringstream err;
  if (got.dtype() != want_dt)
    err << "dtype: got " << dtype_name(got.dtype()) << ", expected " << dtype_name(want_dt) << "; ";
  if (got.shape() != want_shape)
    err << "shape: got " << got.shape().to_string() << ", expected " << want_shape.to_string() << "; ";
  if (!err.str().empty()) return err.str();
  if (c.check.is_string() && c.check.get<std::string>() == "shape_dtype") return "";
  if (c.check.is_object()) return check_statistics(got, c.check);

  if (expected.contains("sample_index")) return compare_sampled(got, expected, c);
  TensorData want = tensor_from_json(expected);
  if (is_float(want_dt)) {
    ApproxReport r = got.compare_approx(want, c.rtol, c.atol);
    if (r.ok) return "";
    err << "worst element " << fmt_index(want_shape, r.worst_index) << " (flat " << r.worst_index << "): got "
        << r.worst_actual << ", expected " << r.worst_expected << ", error " << r.worst_error << " (rtol " << c.rtol
        << ", atol " << c.atol << "); " << r.message << small_dump(got, want);
    return err.str();
  }
  std::vector<int64_t> g = ints_of(got), w = ints_of(want);
  int64_t mismatches = 0, first = -1;
  for (size_t i = 0; i < w.size(); ++i)
    if (g[i] != w[i]) {
      if (first < 0) first = static_cast<int64_t>(i);
      ++mismatches;
    }
  if (mismatches == 0) return "";
  err << mismatches << " of " << w.size() << " elements differ; first at " << fmt_index(want_shape, first) << " (flat "
      << first << "): got " << g[first] << ", expected " << w[first] << small_dump(got, want);
  return err.str();
}

}  // namespace burn::conformance
