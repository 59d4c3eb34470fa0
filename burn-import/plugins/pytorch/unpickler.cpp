// The restricted unpickler: a stack machine over the pickle opcodes torch.save writes (protocols 2 to
// 5), applying REDUCE/NEWOBJ/BUILD only to the allow-listed callables. Every length is checked against
// the bytes left, and the objects, memo slots and stack entries are bounded before anything grows.
#include "unpickler.hpp"

#include <cstring>
#include <string_view>
#include <unordered_map>

#include "burn/record/file.hpp"

namespace burn::import::pytorch {

size_t torch_dtype_size(TorchDType d) {
  switch (d) {
    case TorchDType::F64:
    case TorchDType::I64: return 8;
    case TorchDType::F32:
    case TorchDType::I32: return 4;
    case TorchDType::F16:
    case TorchDType::BF16:
    case TorchDType::I16: return 2;
    case TorchDType::I8:
    case TorchDType::U8:
    case TorchDType::Bool: return 1;
  }
  return 1;
}

const char* torch_dtype_name(TorchDType d) {
  static const char* const names[] = {"float64", "float32", "float16", "bfloat16", "int64",
                                      "int32",   "int16",   "int8",    "uint8",    "bool"};
  return names[static_cast<size_t>(d)];
}

const char* py_kind_name(PyKind k) {
  static const char* const names[] = {"None", "bool",  "int",  "float",  "str",     "bytes",
                                      "list", "tuple", "dict", "global", "storage", "tensor"};
  return names[static_cast<size_t>(k)];
}

namespace {

struct Allowed {
  std::string_view name;
  Callable callable;
  TorchDType dtype;
};

// The allow-list. Storage types carry their element type; torch 2's untyped storage holds bytes.
constexpr Allowed kAllowed[] = {
    {"collections.OrderedDict", Callable::OrderedDict, TorchDType::F32},
    {"builtins.dict", Callable::OrderedDict, TorchDType::F32},
    {"torch._utils._rebuild_tensor_v2", Callable::RebuildTensorV2, TorchDType::F32},
    {"torch._utils._rebuild_tensor", Callable::RebuildTensor, TorchDType::F32},
    {"torch._utils._rebuild_parameter", Callable::RebuildParameter, TorchDType::F32},
    {"torch._utils._rebuild_parameter_with_state", Callable::RebuildParameterWithState, TorchDType::F32},
    {"torch.Size", Callable::TorchSize, TorchDType::F32},
    {"_codecs.encode", Callable::CodecsEncode, TorchDType::F32},
    {"torch.DoubleStorage", Callable::StorageType, TorchDType::F64},
    {"torch.FloatStorage", Callable::StorageType, TorchDType::F32},
    {"torch.HalfStorage", Callable::StorageType, TorchDType::F16},
    {"torch.BFloat16Storage", Callable::StorageType, TorchDType::BF16},
    {"torch.LongStorage", Callable::StorageType, TorchDType::I64},
    {"torch.IntStorage", Callable::StorageType, TorchDType::I32},
    {"torch.ShortStorage", Callable::StorageType, TorchDType::I16},
    {"torch.CharStorage", Callable::StorageType, TorchDType::I8},
    {"torch.ByteStorage", Callable::StorageType, TorchDType::U8},
    {"torch.BoolStorage", Callable::StorageType, TorchDType::Bool},
    {"torch.UntypedStorage", Callable::StorageType, TorchDType::U8},
    {"torch.storage.UntypedStorage", Callable::StorageType, TorchDType::U8},
};

}  // namespace

std::string_view torch_storage_name(TorchDType d) {
  for (const Allowed& a : kAllowed) {
    if (a.callable == Callable::StorageType && a.dtype == d && a.name.find("Untyped") == std::string_view::npos)
      return a.name;
  }
  return {};
}

namespace {

class Machine {
 public:
  Machine(std::span<const uint8_t> data, const std::string& file, const std::string& entry, bool* truncated)
      : data_(data), file_(file), entry_(entry), truncated_(truncated) {}

  Pickle run() {
    while (true) {
      if (pos_ >= data_.size()) short_input("the pickle ends without STOP");
      op_pos_ = pos_;
      const uint8_t op = data_[pos_++];
      if (op == '.') break;
      step(op);
    }
    if (stack_.size() != 1 || !marks_.empty()) {
      fail("STOP with " + std::to_string(stack_.size()) + " values on the stack (1 expected)");
    }
    out_.root = stack_.back();
    out_.consumed = pos_;
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw record::record_error("pytorch", file_, entry_, "pickle byte " + std::to_string(op_pos_) + ": " + problem);
  }

  [[noreturn]] void short_input(const std::string& problem) const {
    if (truncated_) *truncated_ = true;
    fail(problem);
  }

  // ---- reading the opcode stream ----
  const uint8_t* take(uint64_t n) {
    if (n > data_.size() - pos_) {
      short_input("needs " + std::to_string(n) + " bytes, " + std::to_string(data_.size() - pos_) + " are left");
    }
    const uint8_t* p = data_.data() + pos_;
    pos_ += static_cast<size_t>(n);
    return p;
  }
  uint64_t le(int bytes) {
    const uint8_t* p = take(static_cast<uint64_t>(bytes));
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
  }
  std::string text_line() {
    const size_t start = pos_;
    while (pos_ < data_.size() && data_[pos_] != '\n') ++pos_;
    if (pos_ >= data_.size()) short_input("a text argument without its newline");
    std::string s(reinterpret_cast<const char*>(data_.data() + start), pos_ - start);
    ++pos_;
    return s;
  }

  // ---- objects and the stack ----
  PyObj* make(PyKind k) {
    if (out_.arena.size() >= kMaxObjects) fail("more than " + std::to_string(kMaxObjects) + " objects");
    PyObj& o = out_.arena.emplace_back();
    o.kind = k;
    return &o;
  }
  void push(const PyObj* o) {
    if (stack_.size() >= kMaxStack) fail("the stack grows beyond " + std::to_string(kMaxStack) + " entries");
    stack_.push_back(o);
  }
  const PyObj* pop() {
    if (stack_.size() <= floor()) fail("pops an empty stack");
    const PyObj* o = stack_.back();
    stack_.pop_back();
    return o;
  }
  const PyObj* top() {
    if (stack_.size() <= floor()) fail("reads an empty stack");
    return stack_.back();
  }
  size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  // The values pushed since the last MARK, which is removed.
  std::vector<const PyObj*> pop_mark() {
    if (marks_.empty()) fail("no MARK to pop to");
    const size_t at = marks_.back();
    marks_.pop_back();
    std::vector<const PyObj*> items(stack_.begin() + static_cast<ptrdiff_t>(at), stack_.end());
    stack_.resize(at);
    return items;
  }
  // Containers are filled in place although the stack holds const pointers: they are ours (arena).
  PyObj* mutable_obj(const PyObj* o, PyKind want, const char* op) {
    if (o->kind != want)
      fail(std::string(op) + " on a " + py_kind_name(o->kind) + " (" + py_kind_name(want) + " expected)");
    return const_cast<PyObj*>(o);
  }
  PyObj* int_obj(int64_t v) {
    PyObj* o = make(PyKind::Int);
    o->i = v;
    return o;
  }
  PyObj* str_obj(PyKind k, uint64_t n) {
    const uint8_t* p = take(n);
    PyObj* o = make(k);
    o->s.assign(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
    return o;
  }
  const PyObj* none() {
    if (!none_) none_ = make(PyKind::None);
    return none_;
  }
  void put(uint64_t slot) {
    if (slot >= kMaxMemo)
      fail("memo slot " + std::to_string(slot) + " beyond the bound of " + std::to_string(kMaxMemo));
    if (memo_.size() >= kMaxMemo && !memo_.count(slot)) fail("more than " + std::to_string(kMaxMemo) + " memo slots");
    memo_[slot] = top();
  }
  void get(uint64_t slot) {
    const auto it = memo_.find(slot);
    if (it == memo_.end()) fail("memo slot " + std::to_string(slot) + " is empty");
    push(it->second);
  }
  int64_t long_bytes(uint64_t n) {
    if (n > 8) fail("an integer of " + std::to_string(n) + " bytes (at most 8 are read)");
    const uint8_t* p = take(n);
    uint64_t v = 0;
    for (uint64_t i = n; i-- > 0;) v = (v << 8) | p[i];
    if (n > 0 && n < 8 && (p[n - 1] & 0x80)) v |= ~uint64_t{0} << (8 * n);  // sign-extend
    return static_cast<int64_t>(v);
  }

  void global(std::string module, std::string name) {
    const std::string full = module + "." + name;
    for (const Allowed& a : kAllowed) {
      if (a.name == full) {
        PyObj* o = make(PyKind::Global);
        o->s = full;
        o->i = static_cast<int64_t>(a.callable);
        o->dtype = a.dtype;
        return push(o);
      }
    }
    fail("global '" + full +
         "' is not on the allow-list (only tensors, storages and plain containers are read; pickled "
         "classes and code are refused)");
  }

  // The code points (all below 256) of UTF-8 text, one byte each.
  std::string latin1(const std::string& utf8) {
    std::string out;
    for (size_t i = 0; i < utf8.size(); ++i) {
      const auto c = static_cast<uint8_t>(utf8[i]);
      if (c < 0x80) {
        out += static_cast<char>(c);
      } else if ((c & 0xe0) == 0xc0 && c <= 0xc3 && i + 1 < utf8.size() && (utf8[i + 1] & 0xc0) == 0x80) {
        out += static_cast<char>(((c & 0x1f) << 6) | (utf8[++i] & 0x3f));
      } else {
        fail("_codecs.encode of text that is not latin-1");
      }
    }
    return out;
  }

  static bool is_callable(const PyObj* o, Callable c) {
    return o->kind == PyKind::Global && o->i == static_cast<int64_t>(c);
  }

  std::vector<int64_t> int_tuple(const PyObj* o, const char* what) {
    if (o->kind != PyKind::Tuple && o->kind != PyKind::List) {
      fail(std::string(what) + " is a " + py_kind_name(o->kind) + ", not a tuple");
    }
    if (o->items.size() > kMaxTensorRank) {
      fail(std::string(what) + " has " + std::to_string(o->items.size()) + " dims (at most " +
           std::to_string(kMaxTensorRank) + ")");
    }
    std::vector<int64_t> v;
    for (const PyObj* x : o->items) {
      if (x->kind != PyKind::Int) fail(std::string(what) + " holds a " + py_kind_name(x->kind));
      v.push_back(x->i);
    }
    return v;
  }

  const PyObj* rebuild_tensor(const std::vector<const PyObj*>& a, const std::string& fn) {
    if (a[0]->kind != PyKind::Storage) fail(fn + ": its first argument is a " + py_kind_name(a[0]->kind));
    if (a[1]->kind != PyKind::Int) fail(fn + ": the storage offset is a " + py_kind_name(a[1]->kind));
    PyObj* t = make(PyKind::Tensor);
    t->items = {a[0]};
    t->dtype = a[0]->dtype;
    t->offset = a[1]->i;
    t->size = int_tuple(a[2], "the size");
    t->stride = int_tuple(a[3], "the stride");
    if (t->size.size() != t->stride.size()) {
      fail(fn + ": " + std::to_string(t->size.size()) + " sizes and " + std::to_string(t->stride.size()) + " strides");
    }
    return t;
  }

  const PyObj* apply(const PyObj* fn, const PyObj* args) {
    if (fn->kind != PyKind::Global) fail(std::string("REDUCE calls a ") + py_kind_name(fn->kind));
    if (args->kind != PyKind::Tuple) fail("REDUCE of " + fn->s + " with a " + py_kind_name(args->kind));
    const auto& a = args->items;
    const auto arity = [&](size_t lo, size_t hi) {
      if (a.size() < lo || a.size() > hi) {
        fail(fn->s + " called with " + std::to_string(a.size()) + " arguments (" + std::to_string(lo) +
             (hi > lo ? " to " + std::to_string(hi) : std::string()) + " expected)");
      }
    };
    switch (static_cast<Callable>(fn->i)) {
      case Callable::OrderedDict: {
        arity(0, 1);
        PyObj* d = make(PyKind::Dict);
        if (a.size() == 1) {  // OrderedDict([(k, v), ...])
          if (a[0]->kind != PyKind::List && a[0]->kind != PyKind::Tuple)
            fail(fn->s + " of a " + py_kind_name(a[0]->kind));
          for (const PyObj* kv : a[0]->items) {
            if (kv->kind != PyKind::Tuple || kv->items.size() != 2) fail(fn->s + " of an item that is not a pair");
            d->items.push_back(kv->items[0]);
            d->items.push_back(kv->items[1]);
          }
        }
        return d;
      }
      case Callable::RebuildTensorV2: arity(6, 7); return rebuild_tensor(a, fn->s);
      case Callable::RebuildTensor: arity(4, 4); return rebuild_tensor(a, fn->s);
      case Callable::RebuildParameter:
      case Callable::RebuildParameterWithState:
        arity(3, 4);
        if (a[0]->kind != PyKind::Tensor) fail(fn->s + " of a " + py_kind_name(a[0]->kind));
        return a[0];
      case Callable::TorchSize: {
        arity(1, 1);
        PyObj* t = make(PyKind::Tuple);
        for (int64_t v : int_tuple(a[0], "torch.Size's argument")) t->items.push_back(int_obj(v));
        return t;
      }
      case Callable::CodecsEncode: {
        arity(2, 2);
        if (a[0]->kind != PyKind::String || a[1]->kind != PyKind::String ||
            (a[1]->s != "latin1" && a[1]->s != "latin-1")) {
          fail(fn->s + " other than of a str to 'latin1'");
        }
        PyObj* b = make(PyKind::Bytes);
        b->s = latin1(a[0]->s);
        return b;
      }
      case Callable::StorageType: break;
    }
    fail(fn->s + " is only allowed in a storage reference, not called");
  }

  // ('storage', <storage type>, key, location, numel[, view metadata]) from torch.save's persistent_id.
  const PyObj* persistent_load(const PyObj* pid) {
    if (pid->kind != PyKind::Tuple || pid->items.size() < 5 || pid->items.size() > 6) {
      fail("a persistent id that is not ('storage', type, key, location, size[, view])");
    }
    const auto& a = pid->items;
    if (a[0]->kind != PyKind::String || a[0]->s != "storage") fail("a persistent id that is not a storage");
    if (!is_callable(a[1], Callable::StorageType)) fail("a storage whose type is not a storage type");
    if (a[2]->kind != PyKind::String) fail("a storage key that is not a string");
    if (a[3]->kind != PyKind::String) fail("a storage location that is not a string");
    if (a[4]->kind != PyKind::Int || a[4]->i < 0) fail("storage '" + a[2]->s + "': its size is not a count");
    PyObj* s = make(PyKind::Storage);
    s->s = a[2]->s;
    s->dtype = a[1]->dtype;
    s->location = a[3]->s;
    s->i = a[4]->i;  // the stored storage's element count
    s->numel = static_cast<uint64_t>(a[4]->i);
    if (a.size() == 6 && a[5]->kind != PyKind::None) {
      // Legacy files: (view key, offset, size) of a view on the root storage `key`.
      const PyObj* v = a[5];
      if (v->kind != PyKind::Tuple || v->items.size() != 3 || v->items[1]->kind != PyKind::Int ||
          v->items[2]->kind != PyKind::Int || v->items[1]->i < 0 || v->items[2]->i < 0) {
        fail("storage '" + s->s + "': malformed view metadata");
      }
      uint64_t end = 0;
      s->view_offset = static_cast<uint64_t>(v->items[1]->i);
      s->numel = static_cast<uint64_t>(v->items[2]->i);
      if (!record::checked_add(s->view_offset, s->numel, &end) || end > static_cast<uint64_t>(s->i)) {
        fail("storage '" + s->s + "': a view [" + std::to_string(s->view_offset) + ", +" + std::to_string(s->numel) +
             ") outside its " + std::to_string(s->i) + " elements");
      }
    }
    return s;
  }

  void step(uint8_t op) {
    switch (op) {
      case 0x80: {  // PROTO
        const uint64_t v = le(1);
        if (v < 2 || v > 5) fail("pickle protocol " + std::to_string(v) + " (2 to 5 are read)");
        return;
      }
      case 0x95: le(8); return;  // FRAME: a length hint only
      case '(':
        if (marks_.size() >= kMaxStack) fail("too many MARKs");
        marks_.push_back(stack_.size());
        return;
      case '0': pop(); return;
      case '1': pop_mark(); return;
      case '2': push(top()); return;
      case 'N': return push(none());
      case 0x88:
      case 0x89: {
        PyObj* o = make(PyKind::Bool);
        o->i = op == 0x88;
        return push(o);
      }
      case 'J': return push(int_obj(static_cast<int32_t>(static_cast<uint32_t>(le(4)))));
      case 'K': return push(int_obj(static_cast<int64_t>(le(1))));
      case 'M': return push(int_obj(static_cast<int64_t>(le(2))));
      case 0x8a: return push(int_obj(long_bytes(le(1))));
      case 0x8b: return push(int_obj(long_bytes(le(4))));
      case 'I': {  // protocol 0 INT: "01"/"00" are booleans
        const std::string t = text_line();
        if (t == "01" || t == "00") {
          PyObj* o = make(PyKind::Bool);
          o->i = t == "01";
          return push(o);
        }
        char* end = nullptr;
        errno = 0;
        const long long v = std::strtoll(t.c_str(), &end, 10);
        if (t.empty() || *end != '\0' || errno) fail("a malformed INT '" + t.substr(0, 32) + "'");
        return push(int_obj(v));
      }
      case 'G': {
        const uint8_t* p = take(8);
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | p[i];  // big-endian
        PyObj* o = make(PyKind::Float);
        std::memcpy(&o->f, &bits, 8);
        return push(o);
      }
      case 0x8c: return push(str_obj(PyKind::String, le(1)));
      case 'X': return push(str_obj(PyKind::String, le(4)));
      case 0x8d: return push(str_obj(PyKind::String, le(8)));
      case 'U': return push(str_obj(PyKind::String, le(1)));  // Python 2 str
      case 'T': {
        const int32_t n = static_cast<int32_t>(static_cast<uint32_t>(le(4)));
        if (n < 0) fail("a BINSTRING of negative length");
        return push(str_obj(PyKind::String, static_cast<uint64_t>(n)));
      }
      case 'C': return push(str_obj(PyKind::Bytes, le(1)));
      case 'B': return push(str_obj(PyKind::Bytes, le(4)));
      case 0x8e:
      case 0x96: return push(str_obj(PyKind::Bytes, le(8)));
      case '}': return push(make(PyKind::Dict));
      case ']':
      case 0x8f: return push(make(PyKind::List));  // a set is read as a list
      case ')': return push(make(PyKind::Tuple));
      case 'd': {
        std::vector<const PyObj*> items = pop_mark();
        if (items.size() % 2) fail("DICT with an odd number of items");
        PyObj* d = make(PyKind::Dict);
        d->items = std::move(items);
        return push(d);
      }
      case 'l':
      case 't':
      case 0x91: {
        std::vector<const PyObj*> items = pop_mark();
        PyObj* o = make(op == 't' ? PyKind::Tuple : PyKind::List);
        o->items = std::move(items);
        return push(o);
      }
      case 0x85:
      case 0x86:
      case 0x87: {
        const size_t n = op - 0x84u;
        PyObj* o = make(PyKind::Tuple);
        o->items.resize(n);
        for (size_t i = n; i-- > 0;) o->items[i] = pop();
        return push(o);
      }
      case 'a': {
        const PyObj* v = pop();
        mutable_obj(top(), PyKind::List, "APPEND")->items.push_back(v);
        return;
      }
      case 'e':
      case 0x90: {
        std::vector<const PyObj*> items = pop_mark();
        PyObj* l = mutable_obj(top(), PyKind::List, op == 'e' ? "APPENDS" : "ADDITEMS");
        l->items.insert(l->items.end(), items.begin(), items.end());
        return;
      }
      case 's': {
        const PyObj* v = pop();
        const PyObj* k = pop();
        PyObj* d = mutable_obj(top(), PyKind::Dict, "SETITEM");
        d->items.push_back(k);
        d->items.push_back(v);
        return;
      }
      case 'u': {
        std::vector<const PyObj*> items = pop_mark();
        if (items.size() % 2) fail("SETITEMS with an odd number of items");
        PyObj* d = mutable_obj(top(), PyKind::Dict, "SETITEMS");
        d->items.insert(d->items.end(), items.begin(), items.end());
        return;
      }
      case 'q': return put(le(1));
      case 'r': return put(le(4));
      case 0x94: return put(memo_.size());
      case 'p': {
        const std::string t = text_line();
        char* end = nullptr;
        const unsigned long long v = std::strtoull(t.c_str(), &end, 10);
        if (t.empty() || *end != '\0') fail("a malformed PUT");
        return put(v);
      }
      case 'h': return get(le(1));
      case 'j': return get(le(4));
      case 'g': {
        const std::string t = text_line();
        char* end = nullptr;
        const unsigned long long v = std::strtoull(t.c_str(), &end, 10);
        if (t.empty() || *end != '\0') fail("a malformed GET");
        return get(v);
      }
      case 'c': {
        std::string module = text_line();
        std::string name = text_line();
        return global(std::move(module), std::move(name));
      }
      case 0x93: {
        const PyObj* name = pop();
        const PyObj* module = pop();
        if (module->kind != PyKind::String || name->kind != PyKind::String) fail("STACK_GLOBAL of non-strings");
        return global(module->s, name->s);
      }
      case 'R': {
        const PyObj* args = pop();
        const PyObj* fn = pop();
        return push(apply(fn, args));
      }
      case 0x81:
      case 0x92: {              // NEWOBJ, NEWOBJ_EX: only for the allowed dict types
        if (op == 0x92) pop();  // kwargs
        const PyObj* args = pop();
        const PyObj* cls = pop();
        if (!is_callable(cls, Callable::OrderedDict)) {
          fail(std::string("NEWOBJ of ") +
               (cls->kind == PyKind::Global ? "'" + cls->s + "'" : py_kind_name(cls->kind)));
        }
        (void)args;
        return push(make(PyKind::Dict));
      }
      case 'b': {  // BUILD: attribute state of a dict (a state_dict's _metadata) or a tensor is dropped
        const PyObj* state = pop();
        const PyObj* obj = top();
        (void)state;
        if (obj->kind != PyKind::Dict && obj->kind != PyKind::Tensor)
          fail(std::string("BUILD of a ") + py_kind_name(obj->kind));
        return;
      }
      case 'Q': return push(persistent_load(pop()));
      case 'P': fail("a text persistent id (PERSID): torch writes BINPERSID");
      case 'i':
      case 'o': fail("INST/OBJ: instantiating classes is refused");
      case 0x82:
      case 0x83:
      case 0x84: fail("an extension-registry code (EXT1/2/4) is refused");
      case 0x97:
      case 0x98: fail("out-of-band buffers are not read");
      default: {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", op);
        fail(std::string("unknown or unsupported opcode ") + hex);
      }
    }
  }

  std::span<const uint8_t> data_;
  const std::string& file_;
  const std::string& entry_;
  size_t pos_ = 0, op_pos_ = 0;
  Pickle out_;
  std::vector<const PyObj*> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, const PyObj*> memo_;
  const PyObj* none_ = nullptr;
  bool* truncated_;
};

}  // namespace

Pickle unpickle(std::span<const uint8_t> data, const std::string& file, const std::string& entry, bool* truncated) {
  if (truncated) *truncated = false;
  return Machine(data, file, entry, truncated).run();
}

}  // namespace burn::import::pytorch
