// burn convert IN OUT: any importable file (an importer's format or a burn-record file) into any
// recorder's format, written atomically by burn::record::save, then read back and verified (names,
// kinds, shapes, dtypes and a checksum of every tensor's bytes).
#include <unistd.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "burn/import/load.hpp"
#include "burn/record/recorder.hpp"
#include "burn/tensor/error.hpp"
#include "run_tool.hpp"

namespace po = boost::program_options;
using burn::record::EntryKind;

namespace {

// FNV-1a over the bytes: enough to tell a value that came back different.
uint64_t checksum(const burn::TensorData& t) {
  uint64_t h = 1469598103934665603ull;
  const auto* p = static_cast<const uint8_t*>(t.raw());
  for (size_t i = 0; i < t.bytes().size(); ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

// A one-line bar on stderr, only when stderr is a terminal.
class Progress {
 public:
  explicit Progress(bool on) : on_(on) {}
  void show(const char* phase, size_t done, size_t total) {
    if (!on_ || total == 0) return;
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(kWidth * done / total);
    std::fprintf(stderr, "\r%-8s [%.*s%*s] %zu/%zu", phase, filled, "##############################", kWidth - filled,
                 "", done, total);
    if (done == total) std::fputc('\n', stderr);
    std::fflush(stderr);
  }

 private:
  bool on_;
};

burn::record::Precision precision_of(const std::string& s) { return burn::record::parse_precision(s); }

int run(int argc, char** argv) {
  po::options_description visible(
      "burn convert IN OUT [options]\n\nConverts a weights file (PyTorch, safetensors, ONNX initializers, Burn's\n"
      ".mpk/.bpk, burn-record .bpz/.h5/.json) into a burn-record file, then verifies it");
  visible.add_options()("help,h", "this help")("from", po::value<std::string>(),
                                               "importer or recorder reading IN (default: by extension, then content)")(
      "to", po::value<std::string>(), "recorder writing OUT: zstd, hdf5, json (default: by OUT's extension)")(
      "precision", po::value<std::string>()->default_value("keep"), "float tensors as f32|f16|bf16|f64|keep")(
      "remap", po::value<std::vector<std::string>>()->composing(),
      "REGEX=REPLACEMENT applied to every key ($1: a capture); repeat for several rules, applied in order")(
      "top-level-key", po::value<std::string>(), "convert only the entries below this key")(
      "select", po::value<std::string>(), "keep only the keys (after remapping) this regex matches")("quiet,q",
                                                                                                     "no progress bar");
  po::options_description all;
  all.add(visible).add_options()("in", po::value<std::string>())("out", po::value<std::string>());
  po::positional_options_description pos;
  pos.add("in", 1).add("out", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << visible << "\n";
    return 0;
  }
  if (!vm.count("in") || !vm.count("out")) {
    std::cerr << "burn convert: IN and OUT are required\n" << visible << "\n";
    return 2;
  }
  const std::string in = vm["in"].as<std::string>(), out = vm["out"].as<std::string>();
  burn::import::LoadOptions lo;
  if (vm.count("from")) lo.import.importer = vm["from"].as<std::string>();
  if (vm.count("top-level-key")) lo.import.top_level_key = vm["top-level-key"].as<std::string>();
  if (vm.count("select")) lo.select = vm["select"].as<std::string>();
  if (vm.count("remap")) {
    for (const auto& r : vm["remap"].as<std::vector<std::string>>()) lo.remap.push_back(burn::import::parse_remap(r));
  }
  burn::record::SaveOptions so;
  if (vm.count("to")) so.recorder = vm["to"].as<std::string>();
  so.precision = precision_of(vm["precision"].as<std::string>());
  std::optional<burn::DType> target;
  if (so.precision != burn::record::Precision::Keep) {
    target = burn::parse_dtype(burn::record::precision_name(so.precision));
  }
  Progress progress(!vm.count("quiet") && ::isatty(STDERR_FILENO));
  const auto t0 = std::chrono::steady_clock::now();

  auto reader = burn::import::open(in, lo);
  const std::string format = burn::import::format_of(in, lo.import);
  // The record as it will be stored (precision applied here, so the checksums are of what is written).
  burn::record::Record rec;
  rec.metadata() = reader->metadata();
  if (rec.metadata().producer.empty()) rec.metadata().producer = format;
  std::vector<const burn::record::EntryInfo*> leaves;
  for (const auto& e : reader->entries()) {
    if (e.kind != EntryKind::Group) leaves.push_back(&e);
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    burn::record::Value v = reader->read(leaves[i]->path);
    if (target && v.kind() == EntryKind::Tensor && burn::is_float(v.tensor().dtype()) &&
        v.tensor().dtype() != *target) {
      v = burn::record::Value(v.tensor().convert(*target));
    }
    rec.set(leaves[i]->path, std::move(v));
    progress.show("reading", i + 1, leaves.size());
  }
  reader.reset();
  burn::record::save(out, rec, so);

  // Read back through the recorder that wrote it and compare every entry.
  burn::record::LoadOptions back_options;
  back_options.recorder = so.recorder;
  auto back = burn::record::open(out, back_options);
  const auto flat = rec.flatten();
  size_t checked = 0, tensors = 0;
  uint64_t bytes = 0;
  for (size_t i = 0; i < flat.size(); ++i) {
    const auto& [path, value] = flat[i];
    if (value->kind() == EntryKind::Group) continue;
    const burn::record::EntryInfo* info = back->find(path);
    if (!info) throw burn::RecordError("convert", out + ": entry '" + path + "' is missing after writing");
    const burn::record::Value got = back->read(path);
    if (got.kind() != value->kind()) {
      throw burn::RecordError("convert", out + ": entry '" + path + "' came back as a " +
                                             std::string(burn::record::entry_kind_name(got.kind())));
    }
    if (value->kind() == EntryKind::Tensor) {
      const auto& a = value->tensor();
      const auto& b = got.tensor();
      if (a.shape() != b.shape() || a.dtype() != b.dtype() || checksum(a) != checksum(b)) {
        throw burn::RecordError("convert", out + ": tensor '" + path + "' came back different (dtype " +
                                               std::string(burn::dtype_name(b.dtype())) + ", checksum mismatch)");
      }
      ++tensors;
      bytes += b.bytes().size();
    } else if (!(got == *value)) {
      throw burn::RecordError("convert", out + ": entry '" + path + "' came back with another value");
    }
    ++checked;
    progress.show("verify", checked, leaves.size());
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("converted %s (%s) -> %s: %zu entries (%zu tensors, %llu bytes), verified, %.2f s\n", in.c_str(),
              format.c_str(), out.c_str(), checked, tensors, static_cast<unsigned long long>(bytes), secs);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return burn::tools::run_tool("burn convert", run, argc, argv); }
