// The `json` recorder: a human-readable record for debugging and small configs. Written by a
// streaming writer (exact shortest number text, entries in order), read with nlohmann::ordered_json;
// the layout is specified in burn-record/README.md.
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "burn/record/file.hpp"
#include "burn/record/recorder.hpp"

namespace {

using namespace burn;
using namespace burn::record;
using Json = nlohmann::ordered_json;

constexpr const char* kOp = "json";
constexpr const char* kFormat = "burn-record-json";
constexpr int64_t kVersion = 1;

// dtype names of the format (independent of DType's numbering).
constexpr std::pair<DType, const char*> kDTypeNames[] = {
    {DType::F32, "f32"}, {DType::F64, "f64"}, {DType::F16, "f16"}, {DType::BF16, "bf16"}, {DType::I64, "i64"},
    {DType::I32, "i32"}, {DType::I8, "i8"},   {DType::U8, "u8"},   {DType::Bool, "bool"}};

const char* dtype_text(DType d) {
  for (const auto& [t, n] : kDTypeNames) {
    if (t == d) return n;
  }
  return "?";
}

// ---- writing ----

class Writer {
 public:
  Writer(const std::string& path) : file_(path, kOp), path_(path) { buf_.reserve(1 << 16); }

  void raw(std::string_view s) {
    buf_.append(s);
    if (buf_.size() >= (1 << 16)) flush();
  }
  void string(std::string_view s, std::string_view entry) {
    if (!valid_utf8(s)) throw record_error(kOp, path_, entry, "text is not valid UTF-8; JSON can hold text only");
    buf_ += '"';
    for (char ch : s) {
      const auto c = static_cast<unsigned char>(ch);
      if (c == '"')
        buf_ += "\\\"";
      else if (c == '\\')
        buf_ += "\\\\";
      else if (c == '\n')
        buf_ += "\\n";
      else if (c == '\t')
        buf_ += "\\t";
      else if (c < 0x20 || c == 0x7f) {
        char esc[8];
        std::snprintf(esc, sizeof esc, "\\u%04x", c);
        buf_ += esc;
      } else {
        buf_ += ch;
      }
    }
    buf_ += '"';
    if (buf_.size() >= (1 << 16)) flush();
  }
  // Shortest text that reads back to the same value; non-finite values as strings.
  template <typename F>
  void number(F v) {
    if (std::isnan(v)) return raw("\"nan\"");
    if (std::isinf(v)) return raw(v > 0 ? "\"inf\"" : "\"-inf\"");
    // "-0" would read back as the integer 0 and lose the sign.
    if (v == 0 && std::signbit(v)) return raw("-0.0");
    char text[64];
    const auto r = std::to_chars(text, text + sizeof text, v);
    raw(std::string_view(text, static_cast<size_t>(r.ptr - text)));
  }
  void integer(int64_t v) {
    char text[32];
    const auto r = std::to_chars(text, text + sizeof text, v);
    raw(std::string_view(text, static_cast<size_t>(r.ptr - text)));
  }
  RecordError fail(std::string_view entry, const std::string& problem) const {
    return record_error(kOp, path_, entry, problem);
  }
  void flush() {
    file_.write(buf_.data(), buf_.size());
    buf_.clear();
  }
  void close() {
    flush();
    file_.close();
  }

 private:
  OutputFile file_;
  std::string path_;
  std::string buf_;
};

void write_values(Writer& w, const TensorData& t) {
  const size_t n = static_cast<size_t>(t.num_elements());
  const uint8_t* p = t.bytes().data();
  w.raw("[");
  for (size_t i = 0; i < n; ++i) {
    if (i) w.raw(", ");
    switch (t.dtype()) {
      case DType::F32: {
        float v;
        std::memcpy(&v, p + 4 * i, 4);
        w.number(v);
        break;
      }
      case DType::F64: {
        double v;
        std::memcpy(&v, p + 8 * i, 8);
        w.number(v);
        break;
      }
      // Half types as the float they denote: exact, and read back to the same bits.
      case DType::F16: {
        uint16_t v;
        std::memcpy(&v, p + 2 * i, 2);
        w.number(f16_to_f32(v));
        break;
      }
      case DType::BF16: {
        uint16_t v;
        std::memcpy(&v, p + 2 * i, 2);
        w.number(bf16_to_f32(v));
        break;
      }
      case DType::I64: {
        int64_t v;
        std::memcpy(&v, p + 8 * i, 8);
        w.integer(v);
        break;
      }
      case DType::I32: {
        int32_t v;
        std::memcpy(&v, p + 4 * i, 4);
        w.integer(v);
        break;
      }
      case DType::I8: w.integer(static_cast<int8_t>(p[i])); break;
      case DType::U8: w.integer(p[i]); break;
      case DType::Bool: w.raw(p[i] ? "true" : "false"); break;
    }
  }
  w.raw("]");
}

void indent(Writer& w, size_t depth) { w.raw(std::string(2 * depth, ' ')); }

void write_entries(Writer& w, const Record& r, const std::string& prefix, size_t depth) {
  w.raw("{");
  bool first = true;
  for (const auto& e : r.entries()) {
    const std::string path = prefix.empty() ? e.name : prefix + "." + e.name;
    w.raw(first ? "\n" : ",\n");
    first = false;
    indent(w, depth + 1);
    w.string(e.name, path);
    w.raw(": {\"kind\": \"");
    w.raw(entry_kind_name(e.value.kind()));
    w.raw("\"");
    switch (e.value.kind()) {
      case EntryKind::Group:
        w.raw(", \"entries\": ");
        write_entries(w, e.value.group(), path, depth + 1);
        break;
      case EntryKind::Tensor: {
        const TensorData& t = e.value.tensor();
        if (t.shape().rank() > kMaxRank) {
          throw w.fail(path, "rank " + std::to_string(t.shape().rank()) + " exceeds " + std::to_string(kMaxRank));
        }
        w.raw(", \"dtype\": \"");
        w.raw(dtype_text(t.dtype()));
        w.raw("\", \"shape\": [");
        for (size_t i = 0; i < t.shape().rank(); ++i) {
          if (i) w.raw(", ");
          w.integer(t.shape()[i]);
        }
        w.raw("], \"values\": ");
        write_values(w, t);
        break;
      }
      case EntryKind::Int:
        w.raw(", \"value\": ");
        w.integer(e.value.as_int());
        break;
      case EntryKind::Float:
        w.raw(", \"value\": ");
        w.number(e.value.as_float());
        break;
      case EntryKind::Bool: w.raw(e.value.as_bool() ? ", \"value\": true" : ", \"value\": false"); break;
      case EntryKind::String:
        w.raw(", \"value\": ");
        w.string(e.value.as_string(), path);
        break;
    }
    w.raw("}");
  }
  if (!first) {
    w.raw("\n");
    indent(w, depth);
  }
  w.raw("}");
}

// ---- reading ----

struct Node {
  EntryInfo info;
  const Json* json = nullptr;  // the entry's object
};

class JsonReader final : public RecordReader {
 public:
  explicit JsonReader(std::string path) : path_(std::move(path)) {
    InputFile in(path_, kOp);
    std::string text(static_cast<size_t>(in.size()), '\0');
    if (!text.empty()) in.read_at(text.data(), text.size(), 0, "");
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw fail("", "the file is empty");
    try {
      doc_ = Json::parse(text);
    } catch (const Json::exception& e) {
      throw fail("", std::string("not valid JSON: ") + e.what());
    }
    text.clear();
    text.shrink_to_fit();
    if (!doc_.is_object()) throw fail("", "the top level is not a JSON object");
    const Json* format = member(doc_, "format", "");
    if (!format->is_string() || format->get_ref<const std::string&>() != kFormat) {
      throw fail("", "\"format\" is not \"" + std::string(kFormat) + "\": not a burn json record");
    }
    const Json* version = member(doc_, "version", "");
    if (!version->is_number_integer() || version->get<int64_t>() != kVersion) {
      throw fail("",
                 "unsupported version " + version->dump() + "; this reader knows version " + std::to_string(kVersion));
    }
    read_metadata(*member(doc_, "metadata", ""));
    read_group(*member(doc_, "entries", ""), "", 0);
  }

  const std::string& path() const override { return path_; }
  const Metadata& metadata() const override { return metadata_; }
  const std::vector<EntryInfo>& entries() const override { return infos_; }

 protected:
  Value read_leaf(const EntryInfo& info) override {
    const Json& j = *nodes_.at(static_cast<size_t>(&info - infos_.data())).json;
    switch (info.kind) {
      case EntryKind::Tensor: return Value(read_tensor_values(info, *member(j, "values", info.path)));
      case EntryKind::Int: return Value(j.at("value").get<int64_t>());
      case EntryKind::Float: return Value(number_of(j.at("value"), info.path));
      case EntryKind::Bool: return Value(j.at("value").get<bool>());
      case EntryKind::String: return Value(j.at("value").get<std::string>());
      case EntryKind::Group: break;
    }
    throw fail(info.path, "not a leaf");
  }

 private:
  RecordError fail(std::string_view entry, const std::string& problem) const {
    return record_error(kOp, path_, entry, problem);
  }

  const Json* member(const Json& obj, const char* key, std::string_view entry) const {
    if (!obj.is_object()) throw fail(entry, "expected a JSON object");
    const auto it = obj.find(key);
    if (it == obj.end()) throw fail(entry, std::string("missing \"") + key + "\"");
    return &*it;
  }

  std::string text_member(const Json& obj, const char* key) const {
    const Json* v = member(obj, key, "");
    if (!v->is_string()) throw fail("", std::string("metadata \"") + key + "\" is not a string");
    return v->get<std::string>();
  }

  void read_metadata(const Json& m) {
    const Json* fv = member(m, "format_version", "");
    if (!fv->is_number_unsigned() || fv->get<uint64_t>() > std::numeric_limits<uint32_t>::max()) {
      throw fail("", "metadata \"format_version\" is not a 32-bit unsigned integer");
    }
    metadata_.format_version = fv->get<uint32_t>();
    metadata_.burn_version = text_member(m, "burn_version");
    metadata_.producer = text_member(m, "producer");
    metadata_.dtype_policy = text_member(m, "dtype_policy");
    const Json* extra = member(m, "extra", "");
    if (!extra->is_object()) throw fail("", "metadata \"extra\" is not an object");
    for (const auto& [k, v] : extra->items()) {
      if (!v.is_string()) throw fail("", "metadata extra \"" + k + "\" is not a string");
      metadata_.extra.emplace_back(k, v.get<std::string>());
    }
  }

  void read_group(const Json& entries, const std::string& prefix, size_t depth) {
    if (!entries.is_object()) throw fail(prefix, "\"entries\" is not an object");
    if (depth >= kMaxDepth) throw fail(prefix, "groups nest deeper than " + std::to_string(kMaxDepth) + " levels");
    for (const auto& [name, j] : entries.items()) {
      const std::string path = prefix.empty() ? name : prefix + "." + name;
      if (name.find('.') != std::string::npos) throw fail(path, "a name inside a group cannot contain '.'");
      try {
        check_path(path, kOp);
      } catch (const RecordError& e) {
        const std::string what = e.what();  // "[json] <problem>"
        throw fail(path, "invalid name: " + what.substr(std::min(what.size(), what.find("] ") + 2)));
      }
      const Json* kind = member(j, "kind", path);
      if (!kind->is_string()) throw fail(path, "\"kind\" is not a string");
      const std::string& k = kind->get_ref<const std::string&>();
      Node node;
      node.info.path = path;
      node.json = &j;
      if (k == "group") {
        node.info.kind = EntryKind::Group;
        push(std::move(node));
        read_group(*member(j, "entries", path), path, depth + 1);
        continue;
      }
      if (k == "tensor") {
        node.info.kind = EntryKind::Tensor;
        check_tensor(node.info, j);
      } else if (k == "int") {
        node.info.kind = EntryKind::Int;
        const Json* v = member(j, "value", path);
        if (!v->is_number_integer() || (v->is_number_unsigned() && v->get<uint64_t>() > INT64_MAX)) {
          throw fail(path, "\"value\" is not a 64-bit integer");
        }
        node.info.bytes = 8;
      } else if (k == "float") {
        node.info.kind = EntryKind::Float;
        number_of(*member(j, "value", path), path);
        node.info.bytes = 8;
      } else if (k == "bool") {
        node.info.kind = EntryKind::Bool;
        if (!member(j, "value", path)->is_boolean()) throw fail(path, "\"value\" is not true or false");
        node.info.bytes = 1;
      } else if (k == "string") {
        node.info.kind = EntryKind::String;
        const Json* v = member(j, "value", path);
        if (!v->is_string()) throw fail(path, "\"value\" is not a string");
        node.info.bytes = v->get_ref<const std::string&>().size();
      } else {
        throw fail(path, "unknown kind \"" + k.substr(0, 40) + "\"");
      }
      push(std::move(node));
    }
  }

  void push(Node node) {
    infos_.push_back(node.info);
    nodes_.push_back(std::move(node));
  }

  void check_tensor(EntryInfo& info, const Json& j) {
    const Json* dt = member(j, "dtype", info.path);
    if (!dt->is_string()) throw fail(info.path, "\"dtype\" is not a string");
    bool known = false;
    for (const auto& [t, n] : kDTypeNames) {
      if (dt->get_ref<const std::string&>() == n) {
        info.dtype = t;
        known = true;
      }
    }
    if (!known) throw fail(info.path, "unknown dtype \"" + dt->get<std::string>().substr(0, 40) + "\"");
    const Json* shape = member(j, "shape", info.path);
    if (!shape->is_array()) throw fail(info.path, "\"shape\" is not an array");
    if (shape->size() > kMaxRank) {
      throw fail(info.path, "rank " + std::to_string(shape->size()) + " exceeds " + std::to_string(kMaxRank));
    }
    uint64_t count = 1;
    std::vector<int64_t> dims;
    for (const auto& d : *shape) {
      if (!d.is_number_integer()) throw fail(info.path, "a dim of \"shape\" is not an integer");
      if (d.is_number_unsigned() ? d.get<uint64_t>() > INT64_MAX : d.get<int64_t>() < 0) {
        throw fail(info.path, "dim " + d.dump() + " of \"shape\" is negative or too large");
      }
      dims.push_back(d.get<int64_t>());
      if (!checked_mul(count, static_cast<uint64_t>(dims.back()), &count)) {
        throw fail(info.path, "the element count of shape " + shape->dump() + " overflows");
      }
    }
    const Json* values = member(j, "values", info.path);
    if (!values->is_array()) throw fail(info.path, "\"values\" is not an array");
    if (values->size() != count) {
      throw fail(info.path, std::to_string(values->size()) + " values for shape " + Shape(dims).to_string() + " (" +
                                std::to_string(count) + " elements)");
    }
    info.shape = Shape(std::move(dims));
    info.bytes = count * dtype_size(info.dtype);
  }

  double number_of(const Json& v, std::string_view entry) const {
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {
      const auto& s = v.get_ref<const std::string&>();
      if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
      if (s == "inf") return std::numeric_limits<double>::infinity();
      if (s == "-inf") return -std::numeric_limits<double>::infinity();
    }
    throw fail(entry, "value " + v.dump().substr(0, 40) + " is not a number (or \"nan\", \"inf\", \"-inf\")");
  }

  template <typename I>
  I integer_of(const Json& v, std::string_view entry) const {
    const bool ok =
        v.is_number_integer() &&
        (v.is_number_unsigned() ? v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<I>::max())
                                : v.get<int64_t>() >= static_cast<int64_t>(std::numeric_limits<I>::min()) &&
                                      v.get<int64_t>() <= static_cast<int64_t>(std::numeric_limits<I>::max()));
    if (!ok) throw fail(entry, "value " + v.dump().substr(0, 40) + " is not an integer of the tensor's dtype");
    return static_cast<I>(v.get<int64_t>());
  }

  TensorData read_tensor_values(const EntryInfo& info, const Json& values) const {
    TensorData t(info.shape, info.dtype);
    uint8_t* p = t.bytes().data();
    size_t i = 0;
    for (const auto& v : values) {
      switch (info.dtype) {
        case DType::F32: {
          const float f = static_cast<float>(number_of(v, info.path));
          std::memcpy(p + 4 * i, &f, 4);
          break;
        }
        case DType::F64: {
          const double f = number_of(v, info.path);
          std::memcpy(p + 8 * i, &f, 8);
          break;
        }
        case DType::F16: {
          const uint16_t h = f32_to_f16(static_cast<float>(number_of(v, info.path)));
          std::memcpy(p + 2 * i, &h, 2);
          break;
        }
        case DType::BF16: {
          const uint16_t h = f32_to_bf16(static_cast<float>(number_of(v, info.path)));
          std::memcpy(p + 2 * i, &h, 2);
          break;
        }
        case DType::I64: {
          const auto x = integer_of<int64_t>(v, info.path);
          std::memcpy(p + 8 * i, &x, 8);
          break;
        }
        case DType::I32: {
          const auto x = integer_of<int32_t>(v, info.path);
          std::memcpy(p + 4 * i, &x, 4);
          break;
        }
        case DType::I8: p[i] = static_cast<uint8_t>(integer_of<int8_t>(v, info.path)); break;
        case DType::U8: p[i] = integer_of<uint8_t>(v, info.path); break;
        case DType::Bool:
          if (!v.is_boolean()) throw fail(info.path, "value " + v.dump().substr(0, 40) + " is not true or false");
          p[i] = v.get<bool>() ? 1 : 0;
          break;
      }
      ++i;
    }
    return t;
  }

  std::string path_;
  Json doc_;
  Metadata metadata_;
  std::vector<EntryInfo> infos_;
  std::vector<Node> nodes_;  // parallel to infos_
};

class JsonRecorder final : public Recorder {
 public:
  std::string name() const override { return "json"; }
  std::vector<std::string> extensions() const override { return {".json"}; }

  void write(const std::string& path, const Record& record, const Metadata& m, const SaveOptions&) const override {
    Writer w(path);
    w.raw("{\n  \"format\": \"");
    w.raw(kFormat);
    w.raw("\",\n  \"version\": ");
    w.integer(kVersion);
    w.raw(",\n  \"metadata\": {\"format_version\": ");
    w.integer(m.format_version);
    w.raw(", \"burn_version\": ");
    w.string(m.burn_version, "");
    w.raw(", \"producer\": ");
    w.string(m.producer, "");
    w.raw(", \"dtype_policy\": ");
    w.string(m.dtype_policy, "");
    w.raw(", \"extra\": {");
    for (size_t i = 0; i < m.extra.size(); ++i) {
      if (i) w.raw(", ");
      w.string(m.extra[i].first, "");
      w.raw(": ");
      w.string(m.extra[i].second, "");
    }
    w.raw("}},\n  \"entries\": ");
    write_entries(w, record, "", 1);
    w.raw("\n}\n");
    w.close();
  }

  std::unique_ptr<RecordReader> open(const std::string& path) const override {
    return std::make_unique<JsonReader>(path);
  }
};

std::unique_ptr<Recorder> make_recorder() { return std::make_unique<JsonRecorder>(); }
int32_t recorder_score() { return 10; }

}  // namespace

BURN_RECORDER_PLUGIN("json", BURN_RECORD_VERSION, make_recorder, recorder_score)
