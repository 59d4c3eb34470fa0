// TensorData: typed host buffers, dtype conversion, approximate comparison and printing.
#include "burn/tensor/data.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <limits>
#include <mutex>
#include <sstream>

#include "burn/tensor/detail/host_cache.hpp"
#include "burn/tensor/scalar.hpp"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define BURN_HOST_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define BURN_HOST_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define BURN_HOST_POISON(p, n) ((void)(p), (void)(n))
#define BURN_HOST_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace burn {

float f16_to_f32(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ffu, bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      exp = 127 - 15 + 1;
      while (!(mant & 0x400u)) {
        mant <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t f32_to_f16(float v) {
  uint32_t x;
  std::memcpy(&x, &v, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff);
  uint32_t mant = x & 0x7fffffu;
  if (exp == 255) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0));
  int32_t e = exp - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mant >> shift, rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;  // round to nearest even
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1))) ++half;  // may carry into the exponent: correct
  return static_cast<uint16_t>(half);
}

float bf16_to_f32(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t f32_to_bf16(float v) {
  uint32_t x;
  std::memcpy(&x, &v, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // keep NaN
  x += 0x7fffu + ((x >> 16) & 1u);                                                       // round to nearest even
  return static_cast<uint16_t>(x >> 16);
}

namespace detail {

namespace {
// Sanitizers watch malloc'd blocks only: everything comes from malloc there, so an overflow of a
// tensor buffer is still caught.
#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kHugePage = std::numeric_limits<size_t>::max();
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
constexpr size_t kHugePage = std::numeric_limits<size_t>::max();
#else
constexpr size_t kHugePage = size_t{2} << 20;
#endif
#else
constexpr size_t kHugePage = size_t{2} << 20;
#endif
constexpr bool kSanitized = kHugePage == std::numeric_limits<size_t>::max();
// Blocks below this come from malloc, those from kHostBlockMinBytes up to it from the small cache.
constexpr size_t kSmallMax = size_t{2} << 20;

[[noreturn]] void refused(size_t bytes) {
  const char* op = current_op();
  throw OutOfMemory(*op ? op : "TensorData", "the system refused " + std::to_string(bytes) + " bytes");
}

size_t env_bytes(const char* name, size_t fallback) {
  const char* env = std::getenv(name);
  return env ? std::strtoull(env, nullptr, 10) : fallback;
}

void unmap(void* p, size_t len) noexcept { ::munmap(p, len); }
void free_block(void* p, size_t) noexcept { std::free(p); }

// Freed blocks kept for a later block of the same length: mappings of 2 MiB and more (loading a model
// again, converting it again: the kernel then neither faults nor zeroes their pages again), and, in a
// second cache, malloc'd blocks from 64 KiB to 2 MiB in power-of-two classes (a training step's
// mid-sized buffers: glibc trims its heap's freed top between steps, and the next step faults those
// pages in again at 20-30 us a page on a VM). Bounded by a byte budget; the least recently freed go
// first. Under ASan a kept block is poisoned, so a use after free is still caught.
class MapCache {
 public:
  MapCache(size_t budget, void (*release)(void*, size_t) noexcept) : budget_(budget), release_(release) {}
  void* take(size_t len) {
    std::lock_guard lock(mutex_);
    for (size_t i = blocks_.size(); i-- > 0;) {  // the most recently freed first: likeliest in cache
      if (blocks_[i].len != len) continue;
      void* p = blocks_[i].p;
      held_ -= len;
      blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(i));
      BURN_HOST_UNPOISON(p, len);
      return p;
    }
    return nullptr;
  }
  // False when the block is not kept (the caller releases it).
  bool keep(void* p, size_t len) noexcept {
    Block evicted[8];
    size_t n_evicted = 0;
    bool kept = false;
    {
      std::lock_guard lock(mutex_);
      if (len <= budget_ && blocks_.size() < kMaxBlocks) {
        while (held_ + len > budget_ && n_evicted < std::size(evicted)) {
          evicted[n_evicted++] = blocks_.front();
          held_ -= blocks_.front().len;
          blocks_.erase(blocks_.begin());
        }
        if (held_ + len <= budget_) {
          BURN_HOST_POISON(p, len);
          blocks_.push_back({p, len});  // reserved up front: cannot throw
          held_ += len;
          kept = true;
        }
      }
    }
    for (size_t i = 0; i < n_evicted; ++i) {
      BURN_HOST_UNPOISON(evicted[i].p, evicted[i].len);
      release_(evicted[i].p, evicted[i].len);
    }
    return kept;
  }
  void trim() noexcept {
    std::lock_guard lock(mutex_);
    for (const Block& b : blocks_) {
      BURN_HOST_UNPOISON(b.p, b.len);
      release_(b.p, b.len);
    }
    blocks_.clear();
    held_ = 0;
  }
  size_t held() {
    std::lock_guard lock(mutex_);
    return held_;
  }
  size_t budget() const { return budget_; }

 private:
  struct Block {
    void* p = nullptr;
    size_t len = 0;
  };
  static constexpr size_t kMaxBlocks = 1024;
  std::mutex mutex_;
  std::vector<Block> blocks_ = [] {
    std::vector<Block> v;
    v.reserve(kMaxBlocks);
    return v;
  }();
  size_t held_ = 0;
  const size_t budget_;
  void (*const release_)(void*, size_t) noexcept;
};

// Never destroyed: blocks may be freed during static destruction.
MapCache& map_cache() {
  static auto* cache = new MapCache(env_bytes("BURN_HOST_CACHE_BYTES", size_t{256} << 20), unmap);
  return *cache;
}
MapCache& small_cache() {
  static auto* cache = new MapCache(env_bytes("BURN_HOST_SMALL_CACHE_BYTES", size_t{64} << 20), free_block);
  return *cache;
}

size_t page_rounded(size_t bytes) {
  static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

// 64-byte aligned (the cpu plugin's buffers), from malloc: what is not cached goes back to glibc.
void* aligned_block(size_t bytes) {
  void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!p) refused(bytes);
  return p;
}
}  // namespace

void* host_alloc(size_t bytes) {
  if (bytes < kHostBlockMinBytes) {
    void* p = std::malloc(std::max<size_t>(bytes, 1));
    if (!p) refused(bytes);
    return p;
  }
  if (bytes < kSmallMax) {
    MapCache& cache = small_cache();
    if (cache.budget() == 0) return aligned_block(bytes);
    const size_t cls = std::bit_ceil(bytes);
    void* p = cache.take(cls);
    if (!p) p = aligned_block(cls);
    // The class's slack past the block is not the caller's: ASan reports a write there.
    BURN_HOST_POISON(static_cast<char*>(p) + bytes, cls - bytes);
    return p;
  }
  if (bytes < kHugePage) return aligned_block(bytes);  // sanitized builds
  // Map 2 MiB more than asked, keep the 2 MiB-aligned part: the kernel backs whole aligned 2 MiB
  // ranges with huge pages (the tail past the last one gets small pages, so nothing is wasted).
  const size_t len = page_rounded(bytes);
  if (void* p = map_cache().take(len)) return p;
  size_t span = 0;
  if (__builtin_add_overflow(len, kHugePage, &span)) refused(bytes);
  void* m = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) refused(bytes);
  const auto base = reinterpret_cast<uintptr_t>(m);
  const uintptr_t start = (base + kHugePage - 1) & ~(uintptr_t{kHugePage} - 1);
  if (start > base) ::munmap(m, start - base);
  if (const uintptr_t end = base + span, used = start + len; end > used)
    ::munmap(reinterpret_cast<void*>(used), end - used);
  ::madvise(reinterpret_cast<void*>(start), len, MADV_HUGEPAGE);  // advice only: small pages if refused
  return reinterpret_cast<void*>(start);
}

void host_free(void* p, size_t bytes) noexcept {
  if (!p) return;
  if (bytes < kHostBlockMinBytes) return std::free(p);
  if (bytes < kSmallMax) {
    MapCache& cache = small_cache();
    if (cache.budget() == 0) return std::free(p);
    const size_t cls = std::bit_ceil(bytes);
    BURN_HOST_UNPOISON(static_cast<char*>(p) + bytes, cls - bytes);
    if (!cache.keep(p, cls)) std::free(p);
    return;
  }
  if (bytes < kHugePage) return std::free(p);
  const size_t len = page_rounded(bytes);
  if (!map_cache().keep(p, len)) ::munmap(p, len);
}

HostCacheStats host_cache_stats() {
  return {small_cache().held(), small_cache().budget(), map_cache().held(), map_cache().budget()};
}

void host_cache_trim() noexcept {
  small_cache().trim();
  map_cache().trim();
}

}  // namespace detail

TensorData::TensorData(Shape shape, DType dtype)
    : shape_(std::move(shape)), dtype_(dtype), bytes_(checked_bytes(shape_, dtype_size(dtype), "TensorData"), 0) {}

TensorData::TensorData(Shape shape, DType dtype, const std::vector<uint8_t>& bytes)
    : shape_(std::move(shape)), dtype_(dtype) {
  const size_t want = checked_bytes(shape_, dtype_size(dtype_), "TensorData");
  if (bytes.size() != want)
    throw ShapeError("TensorData", "shape " + shape_.to_string() + " of " + std::string(dtype_name(dtype_)) +
                                       " needs " + std::to_string(want) + " bytes, got " +
                                       std::to_string(bytes.size()));
  bytes_.assign(bytes.begin(), bytes.end());
}

TensorData TensorData::uninitialized(Shape shape, DType dtype) {
  TensorData d;
  d.bytes_.resize(checked_bytes(shape, dtype_size(dtype), "TensorData"));  // default-initialised: not zeroed
  d.shape_ = std::move(shape);
  d.dtype_ = dtype;
  return d;
}

void TensorData::check_count(size_t n, const Shape& shape) {
  const int64_t want = checked_num_elements(shape, "TensorData");
  if (n != static_cast<size_t>(want))
    throw ShapeError("TensorData", std::to_string(n) + " values do not fill shape " + shape.to_string() + " (" +
                                       std::to_string(want) + " elements)");
}

void TensorData::check_size(size_t elem_size, const char* op) const {
  // bytes() is writable, so a caller may have resized the buffer behind the shape's back.
  if (bytes_.size() != static_cast<size_t>(num_elements()) * elem_size)
    throw ShapeError(op, "data of shape " + shape_.to_string() + " holds " + std::to_string(bytes_.size()) +
                             " bytes, not " + std::to_string(num_elements()) + " elements of " +
                             std::to_string(elem_size) + " bytes");
}

void TensorData::check_dtype(DType want, const char* op) const {
  if (want != dtype_)
    throw DTypeError(op, "data is " + std::string(dtype_name(dtype_)) + ", requested " + std::string(dtype_name(want)));
}

double TensorData::value_f64(int64_t i) const {
  const size_t w = dtype_size(dtype_);
  if (i < 0 || static_cast<size_t>(i) >= bytes_.size() / w)
    throw IndexError("TensorData::value_f64", "element " + std::to_string(i) + " is out of range for " +
                                                  std::to_string(bytes_.size() / w) + " elements");
  const uint8_t* p = bytes_.data() + static_cast<size_t>(i) * w;
  switch (dtype_) {
    case DType::F32: {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DType::F64: {
      double v;
      std::memcpy(&v, p, 8);
      return v;
    }
    case DType::F16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return f16_to_f32(v);
    }
    case DType::BF16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return bf16_to_f32(v);
    }
    case DType::I64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return static_cast<double>(v);
    }
    case DType::I32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DType::I8: return static_cast<int8_t>(*p);
    case DType::U8: return *p;
    case DType::Bool: return *p ? 1.0 : 0.0;
  }
  return 0;
}

std::vector<double> TensorData::to_f64_vec() const {
  check_size(dtype_size(dtype_), "to_f64_vec");
  std::vector<double> out(static_cast<size_t>(num_elements()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = value_f64(static_cast<int64_t>(i));
  return out;
}

namespace {

// Integer targets go through int64 so that i64 values beyond 2^53 survive an int->int conversion.
int64_t value_i64(const TensorData& d, int64_t i) {
  const uint8_t* p = d.bytes().data() + static_cast<size_t>(i) * dtype_size(d.dtype());
  switch (d.dtype()) {
    case DType::I64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
    case DType::I32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DType::I8: return static_cast<int8_t>(*p);
    case DType::U8:
    case DType::Bool: return *p;
    default: return Scalar::saturate(d.value_f64(i));  // as the cpu cast: a plain cast of 1e30 is undefined
  }
}

void store(uint8_t* p, DType to, double f, int64_t i) {
  switch (to) {
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
    case DType::I64: std::memcpy(p, &i, 8); break;
    case DType::I32: {
      int32_t v = static_cast<int32_t>(i);
      std::memcpy(p, &v, 4);
      break;
    }
    case DType::I8: *p = static_cast<uint8_t>(static_cast<int8_t>(i)); break;
    case DType::U8: *p = static_cast<uint8_t>(i); break;
    case DType::Bool: *p = f != 0.0 ? 1 : 0; break;
  }
}

}  // namespace

TensorData TensorData::convert(DType to) const {
  if (to == dtype_) return *this;
  check_size(dtype_size(dtype_), "convert");
  TensorData out = uninitialized(shape_, to);  // every element is stored below
  size_t w = dtype_size(to);
  for (int64_t k = 0; k < num_elements(); ++k)
    store(out.bytes_.data() + static_cast<size_t>(k) * w, to, value_f64(k), is_int(to) ? value_i64(*this, k) : 0);
  return out;
}

TensorData TensorData::reshape(Shape shape) const {
  if (checked_num_elements(shape, "TensorData::reshape") != num_elements())
    throw ShapeError("TensorData::reshape", "cannot reshape " + shape_.to_string() + " to " + shape.to_string());
  TensorData out = *this;
  out.shape_ = std::move(shape);
  return out;
}

ApproxReport TensorData::compare_approx(const TensorData& expected, double rtol, double atol) const {
  ApproxReport r;
  if (shape_ != expected.shape_) {
    r.ok = false;
    r.message = "shape " + shape_.to_string() + " differs from expected " + expected.shape_.to_string();
    return r;
  }
  double worst_excess = 0;
  for (int64_t i = 0; i < num_elements(); ++i) {
    double a = value_f64(i), e = expected.value_f64(i);
    if (std::isnan(a) && std::isnan(e)) continue;
    if (a == e) continue;  // equal infinities
    double err = std::fabs(a - e), tol = atol + rtol * std::fabs(e);
    bool bad = !(err <= tol);
    double excess = std::isnan(err) || std::isinf(err) ? std::numeric_limits<double>::infinity() : err - tol;
    if (bad && (r.ok || excess > worst_excess)) {
      r.ok = false;
      worst_excess = excess;
      r.worst_index = i;
      r.worst_actual = a;
      r.worst_expected = e;
      r.worst_error = err;
    }
  }
  if (!r.ok) {
    std::ostringstream os;
    os << std::setprecision(9) << "element " << r.worst_index << " is " << r.worst_actual << ", expected "
       << r.worst_expected << " (|diff| " << r.worst_error << " > atol " << atol << " + rtol " << rtol
       << " * |expected|)";
    r.message = os.str();
  }
  return r;
}

void TensorData::assert_approx_eq(const TensorData& expected, double rtol, double atol) const {
  ApproxReport r = compare_approx(expected, rtol, atol);
  if (!r.ok) throw ValueError("assert_approx_eq", r.message);
}

bool TensorData::operator==(const TensorData& o) const {
  return shape_ == o.shape_ && dtype_ == o.dtype_ && bytes_ == o.bytes_;
}

namespace {

// Ints print exactly: through a double, INT64_MAX became 2^63 and its cast back was undefined.
void print_value(std::ostringstream& os, const TensorData& d, int64_t at) {
  if (d.dtype() == DType::Bool)
    os << (d.value_f64(at) != 0 ? "true" : "false");
  else if (is_int(d.dtype()))
    os << value_i64(d, at);
  else
    os << std::setprecision(6) << d.value_f64(at);
}

void print_rec(std::ostringstream& os, const TensorData& d, const std::vector<int64_t>& strides, size_t dim,
               int64_t base, bool summarise, int edge, int indent) {
  const Shape& s = d.shape();
  os << '[';
  int64_t n = s[dim];
  for (int64_t i = 0; i < n; ++i) {
    if (summarise && n > 2 * static_cast<int64_t>(edge) && i == edge) {
      if (edge == 0)
        os << "...";  // nothing follows
      else
        os << (dim + 1 == s.rank() ? "..., " : "...,\n" + std::string(indent + 1, ' '));
      i = n - edge - 1;
      continue;
    }
    if (dim + 1 == s.rank()) {
      print_value(os, d, base + i * strides[dim]);
    } else {
      print_rec(os, d, strides, dim + 1, base + i * strides[dim], summarise, edge, indent + 1);
    }
    if (i + 1 < n) os << (dim + 1 == s.rank() ? ", " : ",\n" + std::string(indent + 1, ' '));
  }
  os << ']';
}

}  // namespace

std::string TensorData::to_string(int64_t threshold, int edge_items) const {
  check_size(dtype_size(dtype_), "TensorData::to_string");
  std::ostringstream os;
  if (shape_.rank() == 0) {
    print_value(os, *this, 0);
  } else if (num_elements() == 0) {
    os << "[]";
  } else {
    print_rec(os, *this, contiguous_strides(shape_), 0, 0, num_elements() > threshold, std::max(edge_items, 0), 0);
  }
  return os.str();
}

}  // namespace burn
