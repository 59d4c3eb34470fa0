// A third-party recorder: one line per entry, "<path> <kind> <dtype> <dims> <hex bytes>", for
// tensors, ints and groups. It shows the whole contract: a Recorder, a RecordReader and
// BURN_RECORDER_PLUGIN; save() makes the write atomic, the helpers of file.hpp check reads.
#include <sstream>

#include <burn/record/file.hpp>
#include <burn/record/recorder.hpp>

namespace {

using namespace burn;
using namespace burn::record;

std::string hex(const HostBytes& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (uint8_t b : bytes) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s.empty() ? "-" : s;
}

class TextReader final : public RecordReader {
 public:
  explicit TextReader(std::string path) : path_(std::move(path)) {
    InputFile in(path_, "text");
    std::string text(in.size(), '\0');
    if (!text.empty()) in.read_at(text.data(), text.size(), 0, "");
    std::istringstream lines(text);
    std::string magic;
    if (!(lines >> magic) || magic != "burn-text-record-1") throw record_error("text", path_, "", "bad magic");
    std::string p, kind, dtype, dims, data;
    while (lines >> p >> kind >> dtype >> dims >> data) {
      EntryInfo e;
      e.path = p;
      e.kind = kind == "group" ? EntryKind::Group : kind == "int" ? EntryKind::Int : EntryKind::Tensor;
      if (e.kind == EntryKind::Tensor) {
        e.dtype = parse_dtype(dtype);
        std::vector<int64_t> d;
        std::istringstream ds(dims);
        for (std::string x; std::getline(ds, x, ',');) {
          if (!x.empty() && x != "-") d.push_back(std::stoll(x));
        }
        e.shape = Shape(d);
        e.bytes = static_cast<uint64_t>(e.shape.num_elements()) * dtype_size(e.dtype);
      }
      if (data != "-" && data.size() != 2 * e.bytes && e.kind == EntryKind::Tensor) {
        throw record_error("text", path_, p, "wrong data length");
      }
      entries_.push_back(e);
      data_.push_back(data);
    }
  }
  const std::string& path() const override { return path_; }
  const Metadata& metadata() const override { return metadata_; }
  const std::vector<EntryInfo>& entries() const override { return entries_; }

 protected:
  Value read_leaf(const EntryInfo& info) override {
    const std::string& d = data_[static_cast<size_t>(&info - entries_.data())];
    if (info.kind == EntryKind::Int) return Value(static_cast<int64_t>(std::stoll(d)));
    std::vector<uint8_t> bytes(info.bytes);
    for (size_t i = 0; i < bytes.size(); ++i)
      bytes[i] = static_cast<uint8_t>(std::stoi(d.substr(2 * i, 2), nullptr, 16));
    return Value(TensorData(info.shape, info.dtype, std::move(bytes)));
  }

 private:
  std::string path_;
  Metadata metadata_;
  std::vector<EntryInfo> entries_;
  std::vector<std::string> data_;
};

class TextRecorder final : public Recorder {
 public:
  std::string name() const override { return "text"; }
  std::vector<std::string> extensions() const override { return {".txtrec"}; }
  void write(const std::string& path, const Record& record, const Metadata&, const SaveOptions&) const override {
    std::string out = "burn-text-record-1\n";
    for (const auto& f : record.flatten()) {
      const Value& v = *f.value;
      if (v.kind() == EntryKind::Group) {
        out += f.path + " group - - -\n";
      } else if (v.kind() == EntryKind::Int) {
        out += f.path + " int - - " + std::to_string(v.as_int()) + "\n";
      } else if (v.kind() == EntryKind::Tensor) {
        std::string dims;
        for (int64_t d : v.tensor().shape()) dims += std::to_string(d) + ",";
        out += f.path + " tensor " + std::string(dtype_name(v.tensor().dtype())) + " " + (dims.empty() ? "-" : dims) +
               " " + hex(v.tensor().bytes()) + "\n";
      } else {
        throw record_error("text", path, f.path, "this sample recorder stores tensors, ints and groups only");
      }
    }
    OutputFile file(path, "text");
    file.write(out.data(), out.size());
    file.close();
  }
  std::unique_ptr<RecordReader> open(const std::string& path) const override {
    return std::make_unique<TextReader>(path);
  }
};

std::unique_ptr<Recorder> make_recorder() { return std::make_unique<TextRecorder>(); }
int32_t score() { return 5; }

}  // namespace

BURN_RECORDER_PLUGIN("text", "1.0.0", make_recorder, score)
