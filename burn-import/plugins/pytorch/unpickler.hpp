// A restricted unpickler for PyTorch checkpoints: it builds a tree of plain values (dicts, lists,
// scalars, strings) and tensor views on storages, and resolves only the globals of an allow-list
// (torch's tensor rebuild functions, its storage types, collections.OrderedDict, torch.Size). It
// never executes code: any other global is refused with an error naming it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace burn::import::pytorch {

// Element types of torch storages (burn has no i16: the reader widens those to i32).
enum class TorchDType : uint8_t { F64, F32, F16, BF16, I64, I32, I16, I8, U8, Bool };
size_t torch_dtype_size(TorchDType d);
const char* torch_dtype_name(TorchDType d);
// The typed storage class of `d` as a pickle names it ("torch.FloatStorage"), from the allow-list the
// unpickler resolves (the writer uses it, so what it writes is what the reader accepts).
std::string_view torch_storage_name(TorchDType d);

enum class PyKind : uint8_t { None, Bool, Int, Float, String, Bytes, List, Tuple, Dict, Global, Storage, Tensor };
const char* py_kind_name(PyKind k);

// The allow-listed callables a GLOBAL may name.
enum class Callable : uint8_t {
  OrderedDict,                // collections.OrderedDict, builtins.dict
  RebuildTensorV2,            // torch._utils._rebuild_tensor_v2
  RebuildTensor,              // torch._utils._rebuild_tensor
  RebuildParameter,           // torch._utils._rebuild_parameter
  RebuildParameterWithState,  // torch._utils._rebuild_parameter_with_state
  TorchSize,                  // torch.Size
  StorageType,                // torch.FloatStorage, ..., torch.UntypedStorage (dtype in PyObj::dtype)
  CodecsEncode,               // _codecs.encode(str, 'latin1'): how protocol 2 writes bytes
};

// One value of the pickle. Objects live in the Pickle's arena and refer to each other by pointer, so
// a self-referencing list neither leaks nor recurses when freed.
struct PyObj {
  PyKind kind = PyKind::None;
  int64_t i = 0;  // Int, Bool (0/1); Global: its Callable
  double f = 0;   // Float
  std::string s;  // String, Bytes; Global: "module.name"; Storage: its key
  // List, Tuple; Dict: keys and values interleaved; Tensor: [storage].
  std::vector<const PyObj*> items;
  TorchDType dtype = TorchDType::F32;  // Storage, Global (StorageType)
  // Storage: element count (of the whole storage; legacy views: of the view), location, and for a
  // legacy view the offset into its root storage (key in `s` is the root's).
  uint64_t numel = 0;
  uint64_t view_offset = 0;
  std::string location;
  // Tensor: the view on items[0].
  int64_t offset = 0;
  std::vector<int64_t> size, stride;
};

struct Pickle {
  std::deque<PyObj> arena;
  const PyObj* root = nullptr;
  size_t consumed = 0;  // bytes of the input up to and including STOP
};

// Bounds against hostile pickles (every one is far above what a real checkpoint needs).
inline constexpr size_t kMaxObjects = size_t{1} << 21;  // values created
inline constexpr size_t kMaxMemo = size_t{1} << 21;     // memo slots
inline constexpr size_t kMaxStack = size_t{1} << 21;    // stack entries, marks included
inline constexpr size_t kMaxTensorRank = 32;

// Unpickles `data` (stopping at STOP); RecordError "[pytorch] <file>: entry '<entry>': ..." for
// malformed input, a refused global (named), or a bound exceeded. `truncated`, when given, is set to
// whether the error was running out of input (more of the file may complete the pickle).
Pickle unpickle(std::span<const uint8_t> data, const std::string& file, const std::string& entry,
                bool* truncated = nullptr);

}  // namespace burn::import::pytorch
