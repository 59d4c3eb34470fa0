// Modules as plain classes whose fields are listed once, in BURN_MODULE (docs/architecture.md §8):
//
//   struct Mlp {
//     nn::Linear fc1, fc2;
//     nn::Dropout dropout;
//     BURN_MODULE(fc1, fc2, dropout)
//     Tensor<2> forward(const Tensor<2>& x) const { return fc2.forward(dropout.forward(fc1.forward(x).relu())); }
//   };
//
// From that list come parameter paths ("fc1.weight", "blocks.3.attn.q.bias"), num_params, to_device,
// valid, no_grad, fork, cast, display and record save/load. The listed fields are Params, modules,
// and std::vector / std::optional of them; plain values (sizes, configs) are not listed, and a module
// shows them through an optional `std::string extra_repr() const`. Everything that walks a module is
// a non-template visitor in burn-nn's .cpp files; the templates here only forward to them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "burn/nn/export.hpp"
#include "burn/nn/param.hpp"
#include "burn/record/record.hpp"
#include "burn/record/recorder.hpp"

namespace burn::nn {

// What a walker is told about a module when it enters it.
struct ModuleInfo {
  const std::type_info* type = nullptr;              // nullptr for a std::vector of modules
  const void* self = nullptr;                        // the module, for extra_repr
  std::string (*extra_repr)(const void*) = nullptr;  // nullptr when the module has none
  BURN_NN_API std::string type_name() const;         // "Linear", "Mlp", "" for a vector
  std::string extra() const { return extra_repr ? extra_repr(self) : std::string(); }
};

class BURN_NN_API ModuleVisitor {
 public:
  virtual ~ModuleVisitor();
  virtual void enter(std::string_view name, const ModuleInfo& info);
  virtual void leave();
  virtual void param(std::string_view name, ParamBase& p) = 0;
};

namespace detail {
template <class M>
concept Module = requires(M& m, ModuleVisitor& v) {
  m.visit_fields(v);
};

template <class M>
ModuleInfo info_of(const M& m) {
  ModuleInfo info{&typeid(M), &m, nullptr};
  if constexpr (requires { m.extra_repr(); })
    info.extra_repr = [](const void* self) { return static_cast<const M*>(self)->extra_repr(); };
  return info;
}

// "fc1, fc2 , dropout" -> {"fc1", "fc2", "dropout"}: the names BURN_MODULE stringises.
BURN_NN_API std::vector<std::string> split_field_names(const char* list, size_t count);
}  // namespace detail

template <class T>
void visit_field(ModuleVisitor& v, std::string_view name, Param<T>& p) {
  v.param(name, p);
}
template <detail::Module M>
void visit_field(ModuleVisitor& v, std::string_view name, M& m) {
  v.enter(name, detail::info_of(m));
  m.visit_fields(v);
  v.leave();
}
template <class M>
void visit_field(ModuleVisitor& v, std::string_view name, std::vector<M>& ms) {
  v.enter(name, ModuleInfo{});
  for (size_t i = 0; i < ms.size(); ++i) visit_field(v, std::to_string(i), ms[i]);
  v.leave();
}
template <class M>
void visit_field(ModuleVisitor& v, std::string_view name, std::optional<M>& m) {
  if (m) visit_field(v, name, *m);
}

namespace detail {
template <class... F>
void visit_fields_of(ModuleVisitor& v, const std::vector<std::string>& names, F&... fields) {
  size_t i = 0;
  (visit_field(v, names[i++], fields), ...);
}
}  // namespace detail

// A module seen through its field list, so the walkers below need no template.
class ModuleRef {
 public:
  template <detail::Module M>
  ModuleRef(M& m)
      : self_(&m),
        visit_([](void* s, ModuleVisitor& v) { static_cast<M*>(s)->visit_fields(v); }),
        info_(detail::info_of(m)) {}
  // enter("", info), the fields, leave(): the root has an empty name.
  BURN_NN_API void walk(ModuleVisitor& v) const;

 private:
  void* self_;
  void (*visit_)(void*, ModuleVisitor&);
  ModuleInfo info_;
};

// A parameter with its full path, as the walkers list them.
struct NamedParam {
  std::string path;
  ParamBase* param;
};

// Loading a record into a module (PyTorch's load_state_dict).
struct ModuleLoadOptions {
  // Throw a RecordError listing every missing, unexpected and mismatched entry instead of loading
  // what matches (PyTorch's strict=True).
  bool strict = true;
  // Read tensors below this group of the record ("model" of a checkpoint holding model and optimizer).
  std::string prefix;
  // Keep the record's parameter ids (default), so optimizer state saved with them still applies.
  bool keep_ids = true;
};

struct LoadReport {
  std::vector<std::string> loaded;      // parameter paths read from the record
  std::vector<std::string> missing;     // parameters the record lacks (kept as they were)
  std::vector<std::string> unexpected;  // tensor entries no parameter reads
  std::vector<std::string> mismatched;  // "fc1.weight: record [3, 4], module [4, 3]"
  bool ok() const { return missing.empty() && unexpected.empty() && mismatched.empty(); }
  BURN_NN_API std::string to_string() const;
};

// The group of a module record holding each parameter's id (Int entries at the parameter's path).
inline constexpr std::string_view kParamIdsGroup = "_param_ids";

namespace detail {
BURN_NN_API std::vector<NamedParam> named_params(ModuleRef m);
BURN_NN_API int64_t num_params(ModuleRef m);
BURN_NN_API void to_device(ModuleRef m, const Device& d);
BURN_NN_API void valid(ModuleRef m);
BURN_NN_API void set_require_grad(ModuleRef m, bool require);
BURN_NN_API void cast(ModuleRef m, DType dtype);
BURN_NN_API std::string display(ModuleRef m);
BURN_NN_API record::Record into_record(ModuleRef m);
BURN_NN_API LoadReport load_record(ModuleRef m, const record::Record& rec, const ModuleLoadOptions& options);
BURN_NN_API void save(ModuleRef m, const std::string& path, const record::SaveOptions& options);
BURN_NN_API LoadReport load(ModuleRef m, const std::string& path, const ModuleLoadOptions& options);
}  // namespace detail

// Every parameter and buffer with its path, in field order. Pointers into `m`.
template <detail::Module M>
std::vector<NamedParam> named_params(M& m) {
  return detail::named_params(m);
}
// Trainable scalars (buffers are not counted, as PyTorch's sum of parameters()).
template <detail::Module M>
int64_t num_params(const M& m) {
  return detail::num_params(const_cast<M&>(m));  // the counter only reads
}
// A copy on another device; trainable parameters stay tracked on an autodiff device (Burn's fork).
template <detail::Module M>
M to_device(M m, const Device& d) {
  detail::to_device(m, d);
  return m;
}
template <detail::Module M>
M fork(M m, const Device& d) {
  detail::to_device(m, d);
  return m;
}
// The device valid() moves a module on `d` to: the innermost device under every autodiff layer
// (cpu for autodiff<autodiff<cpu>>), where dropout and batch norm evaluate; `d` itself when it has none.
BURN_NN_API Device valid_device(const Device& d);
// The same module on valid_device() of its parameters' device, for evaluation (Burn's valid()).
template <detail::Module M>
M valid(M m) {
  detail::valid(m);
  return m;
}
// A copy whose parameters are not tracked (frozen): no gradient reaches them.
template <detail::Module M>
M no_grad(M m) {
  detail::set_require_grad(m, false);
  return m;
}
// A copy whose trainable parameters are tracked again.
template <detail::Module M>
M with_grad(M m) {
  detail::set_require_grad(m, true);
  return m;
}
// A copy with float parameters and buffers in `dtype`.
template <detail::Module M>
M cast(M m, DType dtype) {
  detail::cast(m, dtype);
  return m;
}
// A tree of sub-modules with their settings, parameter shapes and counts (like print(model)).
template <detail::Module M>
std::string display(const M& m) {
  return detail::display(const_cast<M&>(m));  // the printer only reads
}
template <detail::Module M>
record::Record into_record(const M& m) {
  return detail::into_record(const_cast<M&>(m));  // the writer only reads
}
template <detail::Module M>
LoadReport load_record(M& m, const record::Record& rec, const ModuleLoadOptions& options = {}) {
  return detail::load_record(m, rec, options);
}
// Through the recorder chosen by the file's extension (burn::record::save).
template <detail::Module M>
void save(const M& m, const std::string& path, const record::SaveOptions& options = {}) {
  detail::save(const_cast<M&>(m), path, options);
}
template <detail::Module M>
LoadReport load(M& m, const std::string& path, const ModuleLoadOptions& options = {}) {
  return detail::load(m, path, options);
}

}  // namespace burn::nn

// The one list of a module's fields, inside the class; also gives the module member forwards of
// the functions above (m.num_params(), m.to_device(d), m.valid(), m.save(path), ...).
#define BURN_MODULE(...)                                                                                    \
  void visit_fields(::burn::nn::ModuleVisitor& burn_visitor_) {                                             \
    static const ::std::vector<::std::string> burn_names_ =                                                 \
        ::burn::nn::detail::split_field_names(#__VA_ARGS__, ::burn::nn::detail::count_fields(__VA_ARGS__)); \
    ::burn::nn::detail::visit_fields_of(burn_visitor_, burn_names_ __VA_OPT__(, ) __VA_ARGS__);             \
  }                                                                                                         \
  BURN_MODULE_METHODS

// The member forwards alone, for a module that writes its own visit_fields (Sequential).
#define BURN_MODULE_METHODS                                                                                   \
  int64_t num_params() const { return ::burn::nn::num_params(*this); }                                        \
  auto to_device(const ::burn::Device& d) const { return ::burn::nn::to_device(*this, d); }                   \
  auto fork(const ::burn::Device& d) const { return ::burn::nn::fork(*this, d); }                             \
  auto valid() const { return ::burn::nn::valid(*this); }                                                     \
  auto no_grad() const { return ::burn::nn::no_grad(*this); }                                                 \
  auto cast(::burn::DType dtype) const { return ::burn::nn::cast(*this, dtype); }                             \
  ::std::string display() const { return ::burn::nn::display(*this); }                                        \
  ::burn::record::Record into_record() const { return ::burn::nn::into_record(*this); }                       \
  ::burn::nn::LoadReport load_record(const ::burn::record::Record& rec,                                       \
                                     const ::burn::nn::ModuleLoadOptions& options = {}) {                     \
    return ::burn::nn::load_record(*this, rec, options);                                                      \
  }                                                                                                           \
  void save(const ::std::string& path, const ::burn::record::SaveOptions& options = {}) const {               \
    ::burn::nn::save(*this, path, options);                                                                   \
  }                                                                                                           \
  ::burn::nn::LoadReport load(const ::std::string& path, const ::burn::nn::ModuleLoadOptions& options = {}) { \
    return ::burn::nn::load(*this, path, options);                                                            \
  }

namespace burn::nn::detail {
template <class... F>
constexpr size_t count_fields(const F&...) {
  return sizeof...(F);
}
}  // namespace burn::nn::detail
