// burn inspect FILE [--json] [--stats]: the format, metadata and every entry (name, dtype, shape) of
// any importable file; --stats adds sum, min and max in f64, one tensor in memory at a time.
#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>

#include "burn/import/load.hpp"
#include "burn/tensor/error.hpp"
#include "run_tool.hpp"

namespace po = boost::program_options;
using burn::record::EntryKind;

namespace {

struct Stats {
  double sum = 0, min = 0, max = 0;
  bool any = false;  // false for empty tensors (no min/max)
};

Stats stats_of(const burn::TensorData& t) {
  Stats s;
  const std::vector<double> v = t.to_f64_vec();
  if (v.empty()) return s;
  s.any = true;
  s.min = std::numeric_limits<double>::infinity();
  s.max = -s.min;
  for (double x : v) {
    s.sum += x;
    s.min = std::min(s.min, x);
    s.max = std::max(s.max, x);
  }
  return s;
}

std::string shape_text(const burn::Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.rank(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::string scalar_text(const burn::record::Value& v) {
  switch (v.kind()) {
    case EntryKind::Int: return std::to_string(v.as_int());
    case EntryKind::Float: return nlohmann::json(v.as_float()).dump();
    case EntryKind::Bool: return v.as_bool() ? "true" : "false";
    case EntryKind::String: return nlohmann::json(v.as_string()).dump();
    default: return "";
  }
}

nlohmann::ordered_json scalar_json(const burn::record::Value& v) {
  switch (v.kind()) {
    case EntryKind::Int: return v.as_int();
    case EntryKind::Float: return v.as_float();
    case EntryKind::Bool: return v.as_bool();
    case EntryKind::String: return v.as_string();
    default: return nullptr;
  }
}

// NaN and infinities as JSON strings (JSON has no such numbers).
nlohmann::ordered_json number(double x) {
  if (std::isfinite(x)) return x;
  return std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf");
}

int run(int argc, char** argv) {
  po::options_description visible("burn inspect FILE [options]\n\nShows a weights file's format, metadata and entries");
  visible.add_options()("help,h", "this help")("json", "print one JSON document")(
      "stats", "add each tensor's sum, min and max (computed in f64; reads every tensor)")(
      "from", po::value<std::string>(), "importer or recorder name (default: by extension, then content)")(
      "top-level-key", po::value<std::string>(), "show only the entries below this key");
  po::options_description all;
  all.add(visible).add_options()("file", po::value<std::string>());
  po::positional_options_description pos;
  pos.add("file", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << visible << "\n";
    return 0;
  }
  if (!vm.count("file")) {
    std::cerr << "burn inspect: no FILE given\n" << visible << "\n";
    return 2;
  }
  const std::string path = vm["file"].as<std::string>();
  const bool json = vm.count("json") > 0, stats = vm.count("stats") > 0;
  burn::import::LoadOptions options;
  if (vm.count("from")) options.import.importer = vm["from"].as<std::string>();
  if (vm.count("top-level-key")) options.import.top_level_key = vm["top-level-key"].as<std::string>();
  auto reader = burn::import::open(path, options);
  const std::string format = burn::import::format_of(path, options.import);
  const burn::record::Metadata& m = reader->metadata();

  nlohmann::ordered_json doc;
  doc["file"] = path;
  doc["format"] = format;
  nlohmann::ordered_json meta;
  meta["producer"] = m.producer;
  meta["format_version"] = m.format_version;
  meta["burn_version"] = m.burn_version;
  meta["dtype_policy"] = m.dtype_policy;
  meta["extra"] = nlohmann::ordered_json::object();
  for (const auto& [k, v] : m.extra) meta["extra"][k] = v;
  doc["metadata"] = meta;
  doc["entries"] = nlohmann::ordered_json::array();
  size_t tensors = 0;
  uint64_t bytes = 0;
  std::vector<std::string> lines;
  for (const auto& e : reader->entries()) {
    if (e.kind == EntryKind::Group) continue;
    nlohmann::ordered_json j;
    j["name"] = e.path;
    j["kind"] = std::string(burn::record::entry_kind_name(e.kind));
    std::string line = e.path;
    if (e.kind == EntryKind::Tensor) {
      ++tensors;
      bytes += e.bytes;
      j["dtype"] = std::string(burn::dtype_name(e.dtype));
      j["shape"] = e.shape.dims();
      j["bytes"] = e.bytes;
      line += "  " + std::string(burn::dtype_name(e.dtype)) + " " + shape_text(e.shape);
      if (stats) {
        const Stats s = stats_of(reader->read_tensor(e.path));
        j["sum"] = number(s.sum);
        j["min"] = s.any ? number(s.min) : nlohmann::ordered_json(nullptr);
        j["max"] = s.any ? number(s.max) : nlohmann::ordered_json(nullptr);
        char buf[160];
        if (s.any)
          std::snprintf(buf, sizeof buf, "  sum=%.9g min=%.9g max=%.9g", s.sum, s.min, s.max);
        else
          std::snprintf(buf, sizeof buf, "  sum=0 (empty)");
        line += buf;
      }
    } else {
      const burn::record::Value v = reader->read(e.path);  // scalars and strings are small
      j["value"] = scalar_json(v);
      line += "  " + j["kind"].get<std::string>() + " = " + scalar_text(v);
    }
    doc["entries"].push_back(std::move(j));
    lines.push_back(std::move(line));
  }
  doc["tensors"] = tensors;
  doc["tensor_bytes"] = bytes;
  if (json) {
    std::cout << doc.dump(1) << "\n";
    return 0;
  }
  std::cout << "file: " << path << "\nformat: " << format << "\nmetadata:\n  producer: " << m.producer
            << "\n  format_version: " << m.format_version << "\n";
  if (!m.burn_version.empty()) std::cout << "  burn_version: " << m.burn_version << "\n";
  std::cout << "  dtype_policy: " << m.dtype_policy << "\n";
  for (const auto& [k, v] : m.extra) std::cout << "  " << k << ": " << v << "\n";
  std::cout << "entries: " << lines.size() << " (" << tensors << " tensors, " << bytes << " bytes)\n";
  for (const auto& l : lines) std::cout << "  " << l << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return burn::tools::run_tool("burn inspect", run, argc, argv); }
