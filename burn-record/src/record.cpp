// Record, Value and Metadata: the ordered tree of named entries and path access through it.
#include "burn/record/record.hpp"

#include <algorithm>

#include "burn/tensor/error.hpp"

namespace burn::record {

std::string_view entry_kind_name(EntryKind k) {
  switch (k) {
    case EntryKind::Group: return "group";
    case EntryKind::Tensor: return "tensor";
    case EntryKind::Int: return "int";
    case EntryKind::Float: return "float";
    case EntryKind::Bool: return "bool";
    case EntryKind::String: return "string";
  }
  return "unknown";
}

namespace {

// Shown in messages: long or binary names are cut so that an error about a 1 MB name stays readable.
std::string shown(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 80)) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  if (s.size() > 80) out += "... (" + std::to_string(s.size()) + " bytes)";
  return out;
}

// Splits "a.b.c" into views of its segments (the path is checked first).
std::vector<std::string_view> segments(std::string_view path) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    const size_t dot = path.find('.', start);
    out.push_back(path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) return out;
    start = dot + 1;
  }
}

}  // namespace

void check_path(std::string_view path, const char* op) {
  if (path.empty()) throw RecordError(op, "empty entry name");
  if (path.size() > kMaxNameLength) {
    throw RecordError(op, "entry name '" + shown(path) + "' is " + std::to_string(path.size()) +
                              " bytes long; the limit is " + std::to_string(kMaxNameLength));
  }
  size_t depth = 1, segment = 0;
  for (size_t i = 0; i < path.size(); ++i) {
    const auto c = static_cast<unsigned char>(path[i]);
    if (c == '.') {
      if (segment == 0) throw RecordError(op, "entry name '" + shown(path) + "' has an empty segment");
      segment = 0;
      if (++depth > kMaxDepth) {
        throw RecordError(
            op, "entry name '" + shown(path) + "' nests deeper than " + std::to_string(kMaxDepth) + " levels");
      }
      continue;
    }
    if (c < 0x20 || c == 0x7f || c == '/') {
      throw RecordError(op, "entry name '" + shown(path) + "' has a forbidden character (code " + std::to_string(c) +
                                ") at byte " + std::to_string(i));
    }
    ++segment;
  }
  if (segment == 0) throw RecordError(op, "entry name '" + shown(path) + "' has an empty segment");
}

const std::string* Metadata::find(std::string_view key) const {
  for (const auto& [k, v] : extra) {
    if (k == key) return &v;
  }
  return nullptr;
}

void Metadata::set(std::string key, std::string value) {
  for (auto& [k, v] : extra) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  extra.emplace_back(std::move(key), std::move(value));
}

// ---- Value ----

Value::Value() : kind_(EntryKind::Group), group_(std::make_unique<Record>()) {}
Value::Value(TensorData t) : kind_(EntryKind::Tensor), tensor_(std::move(t)) {}
Value::Value(int64_t v) : kind_(EntryKind::Int), int_(v) {}
Value::Value(double v) : kind_(EntryKind::Float), float_(v) {}
Value::Value(bool v) : kind_(EntryKind::Bool), int_(v ? 1 : 0) {}
Value::Value(std::string s) : kind_(EntryKind::String), string_(std::move(s)) {}
Value::Value(Record r) : kind_(EntryKind::Group), group_(std::make_unique<Record>(std::move(r))) {}

Value::Value(const Value& o)
    : kind_(o.kind_),
      tensor_(o.tensor_),
      int_(o.int_),
      float_(o.float_),
      string_(o.string_),
      group_(o.group_ ? std::make_unique<Record>(*o.group_) : nullptr) {}
Value::Value(Value&& o) noexcept = default;
Value& Value::operator=(const Value& o) {
  if (this != &o) *this = Value(o);
  return *this;
}
Value& Value::operator=(Value&& o) noexcept = default;
Value::~Value() = default;

void Value::check(EntryKind want) const {
  if (kind_ != want) {
    throw RecordError("record", "value is a " + std::string(entry_kind_name(kind_)) + ", not a " +
                                    std::string(entry_kind_name(want)));
  }
}

const TensorData& Value::tensor() const {
  check(EntryKind::Tensor);
  return tensor_;
}
TensorData& Value::tensor() {
  check(EntryKind::Tensor);
  return tensor_;
}
int64_t Value::as_int() const {
  check(EntryKind::Int);
  return int_;
}
double Value::as_float() const {
  check(EntryKind::Float);
  return float_;
}
bool Value::as_bool() const {
  check(EntryKind::Bool);
  return int_ != 0;
}
const std::string& Value::as_string() const {
  check(EntryKind::String);
  return string_;
}
const Record& Value::group() const {
  check(EntryKind::Group);
  return *group_;
}
Record& Value::group() {
  check(EntryKind::Group);
  return *group_;
}

bool Value::operator==(const Value& o) const {
  if (kind_ != o.kind_) return false;
  switch (kind_) {
    case EntryKind::Group: return *group_ == *o.group_;
    // Bit for bit: NaN payloads and -0.0 must survive a round trip.
    case EntryKind::Tensor:
      return tensor_.dtype() == o.tensor_.dtype() && tensor_.shape() == o.tensor_.shape() &&
             tensor_.bytes() == o.tensor_.bytes();
    case EntryKind::Int:
    case EntryKind::Bool: return int_ == o.int_;
    case EntryKind::Float: return std::memcmp(&float_, &o.float_, sizeof float_) == 0;
    case EntryKind::String: return string_ == o.string_;
  }
  return false;
}

// ---- Record ----

Record::Record() = default;
Record::Record(const Record& o) = default;
Record::Record(Record&& o) noexcept = default;
Record& Record::operator=(const Record& o) = default;
Record& Record::operator=(Record&& o) noexcept = default;
Record::~Record() = default;

Value* Record::child(std::string_view name) {
  const auto it = index_.find(std::string(name));
  return it == index_.end() ? nullptr : &entries_[it->second].value;
}

void Record::set(std::string_view path, Value value) {
  check_path(path, "record.set");
  const auto parts = segments(path);
  Record* r = this;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    Value* v = r->child(parts[i]);
    if (!v) {
      r->index_.emplace(std::string(parts[i]), r->entries_.size());
      r->entries_.push_back(Entry{std::string(parts[i]), Value()});
      v = &r->entries_.back().value;
    } else if (v->kind() != EntryKind::Group) {
      throw RecordError("record.set", "cannot set '" + std::string(path) + "': '" +
                                          std::string(path.substr(0, parts[i].data() + parts[i].size() - path.data())) +
                                          "' is a " + std::string(entry_kind_name(v->kind())) + ", not a group");
    }
    r = &v->group();
  }
  if (Value* existing = r->child(parts.back())) {
    *existing = std::move(value);
    return;
  }
  r->index_.emplace(std::string(parts.back()), r->entries_.size());
  r->entries_.push_back(Entry{std::string(parts.back()), std::move(value)});
}

Value* Record::find_mut(std::string_view path) {
  if (path.empty()) return nullptr;
  Record* r = this;
  Value* v = nullptr;
  size_t start = 0;
  for (;;) {
    const size_t dot = path.find('.', start);
    const std::string_view part = path.substr(start, dot == std::string_view::npos ? dot : dot - start);
    v = r->child(part);
    if (!v) return nullptr;
    if (dot == std::string_view::npos) return v;
    if (v->kind() != EntryKind::Group) return nullptr;
    r = &v->group();
    start = dot + 1;
  }
}

const Value* Record::find(std::string_view path) const { return const_cast<Record*>(this)->find_mut(path); }

Value& Record::at(std::string_view path) {
  if (Value* v = find_mut(path)) return *v;
  // Name the longest prefix that exists, so a typo deep in a module path is easy to spot.
  std::string found;
  for (size_t dot = path.find('.'); dot != std::string_view::npos; dot = path.find('.', dot + 1)) {
    if (find_mut(path.substr(0, dot))) found = std::string(path.substr(0, dot));
  }
  throw RecordError("record",
                    "no entry '" + shown(path) + "'" + (found.empty() ? std::string() : " ('" + found + "' exists)"));
}

const Value& Record::at(std::string_view path) const { return const_cast<Record*>(this)->at(path); }

bool Record::erase(std::string_view path) {
  const size_t dot = path.rfind('.');
  Record* parent = this;
  if (dot != std::string_view::npos) {
    Value* p = find_mut(path.substr(0, dot));
    if (!p || p->kind() != EntryKind::Group) return false;
    parent = &p->group();
  }
  const std::string name(dot == std::string_view::npos ? path : path.substr(dot + 1));
  const auto it = parent->index_.find(name);
  if (it == parent->index_.end()) return false;
  parent->entries_.erase(parent->entries_.begin() + static_cast<std::ptrdiff_t>(it->second));
  parent->index_.clear();
  for (size_t i = 0; i < parent->entries_.size(); ++i) parent->index_.emplace(parent->entries_[i].name, i);
  return true;
}

namespace {

void flatten_into(const Record& r, const std::string& prefix, std::vector<FlatEntry>& out) {
  for (const auto& e : r.entries()) {
    std::string path = prefix.empty() ? e.name : prefix + "." + e.name;
    out.push_back(FlatEntry{path, &e.value});
    if (e.value.kind() == EntryKind::Group) flatten_into(e.value.group(), path, out);
  }
}

}  // namespace

std::vector<FlatEntry> Record::flatten() const {
  std::vector<FlatEntry> out;
  flatten_into(*this, "", out);
  return out;
}

size_t Record::tensor_count() const {
  size_t n = 0;
  for (const auto& f : flatten()) n += f.value->kind() == EntryKind::Tensor;
  return n;
}

uint64_t Record::tensor_bytes() const {
  uint64_t n = 0;
  for (const auto& f : flatten()) {
    if (f.value->kind() == EntryKind::Tensor) n += f.value->tensor().bytes().size();
  }
  return n;
}

bool Record::operator==(const Record& o) const { return entries_ == o.entries_ && metadata_ == o.metadata_; }

}  // namespace burn::record
