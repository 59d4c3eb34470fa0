// The `zstd` recorder (.bpz), burn-record's compact default: a header, the entries' data cut into
// 1 MiB chunks each compressed on its own (in parallel) and hashed with XXH3-64, then an index.
// Any entry reads on its own; every size, offset, code and hash is checked before use. The byte
// layout is specified in burn-record/README.md ("The zstd format").
#include <zstd.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <new>
#include <thread>
#include <unordered_map>

#include "../bytes.hpp"
#include "../pool.hpp"
#include "burn/record/file.hpp"
#include "burn/record/recorder.hpp"

namespace {

using namespace burn;
using namespace burn::record;
using namespace burn::record::plugin_detail;

constexpr const char* kOp = "zstd";
constexpr unsigned char kMagic[8] = {0x89, 'B', 'P', 'Z', '\r', '\n', 0x1a, '\n'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderSize = 64;
constexpr uint32_t kChunkSize = 1u << 20;    // raw bytes per chunk (the last one of an entry may be shorter)
constexpr uint64_t kAheadBytes = 16u << 20;  // tensors read together when read in order (read_ahead())
constexpr int kDefaultLevel = 1;
// Fuzz builds skip checksum comparisons so the fuzzer reaches the checks behind them.
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
constexpr bool kFuzzing = true;
#else
constexpr bool kFuzzing = false;
#endif
// kRaw: chunks as they are. kZstd: each chunk one zstd frame. kShuffle: each chunk's bytes split into
// planes by position within an element (all exponent bytes together, ...), each plane one zstd frame
// or raw: float mantissas are noise that zstd cannot shrink, their exponents compress well.
enum Codec : uint8_t { kRaw = 0, kZstd = 1, kShuffle = 2 };
// A plane is compressed only when its byte entropy promises at least this gain; zstd is not even
// tried on noise (most of a float's bytes), which keeps saves fast, and loads copy such planes.
constexpr double kMinGain = 0.10;

// dtype codes of the format (independent of DType's numbering).
constexpr DType kDTypeCodes[] = {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I64,
                                 DType::I32, DType::I8,  DType::U8,  DType::Bool};

uint8_t dtype_code(DType d) {
  for (uint8_t i = 0; i < std::size(kDTypeCodes); ++i) {
    if (kDTypeCodes[i] == d) return i;
  }
  return 0xff;
}

uint64_t hash(const void* p, size_t n) { return XXH3_64bits(p, n); }

// The raw bytes of a leaf as written: tensor data, 8-byte little-endian numbers, 1-byte bools, text.
struct Leaf {
  const uint8_t* external = nullptr;  // tensor data or text, owned by the record
  uint64_t size = 0;
  uint8_t scalar[8] = {};  // numbers and bools, held here (so a copied Leaf stays valid)
  const uint8_t* data() const { return external ? external : scalar; }
};

Leaf leaf_bytes(const Value& v) {
  Leaf l;
  switch (v.kind()) {
    case EntryKind::Tensor:
      l.external = v.tensor().bytes().data();
      l.size = v.tensor().bytes().size();
      break;
    case EntryKind::Int:
    case EntryKind::Float: {
      uint64_t bits = static_cast<uint64_t>(v.kind() == EntryKind::Int ? v.as_int() : 0);
      if (v.kind() == EntryKind::Float) {
        const double d = v.as_float();
        std::memcpy(&bits, &d, 8);
      }
      for (int i = 0; i < 8; ++i) l.scalar[i] = static_cast<uint8_t>(bits >> (8 * i));
      l.size = 8;
      break;
    }
    case EntryKind::Bool:
      l.scalar[0] = v.as_bool() ? 1 : 0;
      l.size = 1;
      break;
    case EntryKind::String:
      l.external = reinterpret_cast<const uint8_t*>(v.as_string().data());
      l.size = v.as_string().size();
      break;
    case EntryKind::Group: break;
  }
  return l;
}

uint64_t chunk_count_of(uint64_t raw) { return (raw + kChunkSize - 1) / kChunkSize; }

// Order-0 entropy of a byte plane in bits per byte, from every 16th byte: a cheap bound on what zstd's
// entropy stage can gain, enough to decide whether to try (16K samples of a 1 MiB chunk's f32 plane
// bias it by about 0.01 bit against the 0.8 bit margin; a plane that then gains too little is stored raw).
double byte_entropy(const uint8_t* p, size_t n) {
  uint32_t hist[256] = {};
  size_t count = 0;
  for (size_t i = 0; i < n; i += 16, ++count) ++hist[p[i]];
  double h = 0;
  for (uint32_t c : hist) {
    if (c) {
      const double q = static_cast<double>(c) / static_cast<double>(count);
      h -= q * std::log2(q);
    }
  }
  return h;
}

// planes[b * m + i] = bytes[w * i + b] for m = n / w elements of w bytes, and back. Written so that
// GCC vectorises both at -O3 (a byte transpose: about 10 GB/s here).
template <size_t W>
void shuffle_w(const uint8_t* __restrict src, uint8_t* __restrict dst, size_t m) {
  for (size_t i = 0; i < m; ++i) {
    for (size_t b = 0; b < W; ++b) dst[b * m + i] = src[W * i + b];
  }
}
// From W separate planes (raw ones are read where they lie in the file's bytes).
template <size_t W>
void unshuffle_w(const uint8_t* const* planes, uint8_t* __restrict dst, size_t m) {
  if constexpr (W == 2) {
    const uint8_t* __restrict a = planes[0];
    const uint8_t* __restrict b = planes[1];
    for (size_t i = 0; i < m; ++i) {
      dst[2 * i] = a[i];
      dst[2 * i + 1] = b[i];
    }
  } else if constexpr (W == 4) {
    const uint8_t* __restrict a = planes[0];
    const uint8_t* __restrict b = planes[1];
    const uint8_t* __restrict c = planes[2];
    const uint8_t* __restrict d = planes[3];
    size_t i = 0;
#ifdef __SSE2__
    // Streaming stores: dst is a fresh tensor, not read soon; writing around the cache saves
    // reading each line in before it is overwritten.
    if (reinterpret_cast<uintptr_t>(dst) % 16 == 0) {
      auto load = [](const uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); };
      for (; i + 16 <= m; i += 16) {
        const __m128i va = load(a + i), vb = load(b + i), vc = load(c + i), vd = load(d + i);
        const __m128i ab_lo = _mm_unpacklo_epi8(va, vb), ab_hi = _mm_unpackhi_epi8(va, vb);
        const __m128i cd_lo = _mm_unpacklo_epi8(vc, vd), cd_hi = _mm_unpackhi_epi8(vc, vd);
        auto* out = reinterpret_cast<__m128i*>(dst + 4 * i);
        _mm_stream_si128(out, _mm_unpacklo_epi16(ab_lo, cd_lo));
        _mm_stream_si128(out + 1, _mm_unpackhi_epi16(ab_lo, cd_lo));
        _mm_stream_si128(out + 2, _mm_unpacklo_epi16(ab_hi, cd_hi));
        _mm_stream_si128(out + 3, _mm_unpackhi_epi16(ab_hi, cd_hi));
      }
      _mm_sfence();
    }
#endif
    for (; i < m; ++i) {
      dst[4 * i] = a[i];
      dst[4 * i + 1] = b[i];
      dst[4 * i + 2] = c[i];
      dst[4 * i + 3] = d[i];
    }
  } else {
    for (size_t i = 0; i < m; ++i) {
      for (size_t k = 0; k < W; ++k) dst[W * i + k] = planes[k][i];
    }
  }
}
void shuffle(const uint8_t* src, uint8_t* dst, size_t n, size_t w) {
  switch (w) {
    case 2: shuffle_w<2>(src, dst, n / 2); break;
    case 4: shuffle_w<4>(src, dst, n / 4); break;
    case 8: shuffle_w<8>(src, dst, n / 8); break;
    default: std::memcpy(dst, src, n);
  }
}
void unshuffle(const uint8_t* const* planes, uint8_t* dst, size_t n, size_t w) {
  switch (w) {
    case 2: unshuffle_w<2>(planes, dst, n / 2); break;
    case 4: unshuffle_w<4>(planes, dst, n / 4); break;
    case 8: unshuffle_w<8>(planes, dst, n / 8); break;
    default: std::memcpy(dst, planes[0], n);
  }
}

// ---- writing ----

struct WriteEntry {
  std::string path;
  const Value* value;
  Leaf leaf;
  uint8_t codec = kRaw;
  uint64_t offset = 0;
  std::vector<uint32_t> stored;  // per chunk
  std::vector<uint64_t> hashes;  // per chunk
};

struct Item {
  size_t entry;
  size_t chunk;
};

// A compression context for `level`. Byte planes at level 1 (the default) get zstd's fast strategy
// with a 64-entry hash table and 7-byte minimum matches: an exponent plane is low-entropy bytes with
// few long repeats, so nearly all of it goes to the literals' Huffman stage, and short matches only
// cost time. On f32 weights normal(0, 0.02) that plane compresses to 34% instead of level 1's 39%,
// 3.6x faster, and decodes 2.2x faster (the frames are ordinary zstd frames: any reader decodes them).
ZSTD_CCtx* make_cctx(int level, bool planes) {
  ZSTD_CCtx* ctx = ZSTD_createCCtx();
  if (!ctx) throw std::bad_alloc();
  ZSTD_CCtx_setParameter(ctx, ZSTD_c_compressionLevel, level);
  if (planes && level == 1) {
    ZSTD_CCtx_setParameter(ctx, ZSTD_c_strategy, ZSTD_fast);
    ZSTD_CCtx_setParameter(ctx, ZSTD_c_hashLog, 6);
    ZSTD_CCtx_setParameter(ctx, ZSTD_c_minMatch, 7);
  }
  return ctx;
}

size_t compress(ZSTD_CCtx* ctx, char* dst, size_t cap, const void* src, size_t n, const std::string& path,
                std::string_view entry) {
  const size_t r = ZSTD_compress2(ctx, dst, cap, src, n);
  if (ZSTD_isError(r)) throw record_error(kOp, path, entry, std::string("compression failed: ") + ZSTD_getErrorName(r));
  return r;
}

// A kShuffle chunk: w little-endian u32 plane sizes (0: the plane is stored raw), then the planes.
size_t compress_planes(ZSTD_CCtx* ctx, std::string& out, std::string& planes, const uint8_t* src, size_t n, size_t w,
                       const std::string& path, std::string_view entry) {
  planes.resize(n);
  auto* p = reinterpret_cast<uint8_t*>(planes.data());
  shuffle(src, p, n, w);
  const size_t m = n / w;
  out.resize(4 * w + w * ZSTD_compressBound(m));
  size_t at = 4 * w;
  for (size_t b = 0; b < w; ++b) {
    const uint8_t* plane = p + b * m;
    uint32_t stored = 0;
    if (m > 0 && byte_entropy(plane, m) < 8.0 * (1.0 - kMinGain)) {
      const size_t c = compress(ctx, out.data() + at, out.size() - at, plane, m, path, entry);
      if (c < static_cast<size_t>(static_cast<double>(m) * (1.0 - kMinGain))) stored = static_cast<uint32_t>(c);
    }
    if (stored == 0) std::memcpy(out.data() + at, plane, m);
    at += stored ? stored : m;
    for (int k = 0; k < 4; ++k) out[4 * b + k] = static_cast<char>((stored >> (8 * k)) & 0xff);
  }
  return at;
}

void write_file(const std::string& path, const Record& record, const Metadata& m, const SaveOptions& options) {
  const int level = options.compression_level < 0 ? kDefaultLevel : options.compression_level;
  if (level > ZSTD_maxCLevel()) {
    throw record_error(
        kOp, path, "",
        "compression level " + std::to_string(level) + " exceeds zstd's maximum " + std::to_string(ZSTD_maxCLevel()));
  }
  std::vector<WriteEntry> entries;
  std::vector<Item> items;
  for (const auto& f : record.flatten()) {
    WriteEntry e{f.path, f.value, leaf_bytes(*f.value), kRaw, 0, {}, {}};
    // Tensors are compressed unless level 0 (multi-byte elements by planes); scalars and text are
    // too small to gain.
    if (f.value->kind() == EntryKind::Tensor && level > 0) {
      e.codec = dtype_size(f.value->tensor().dtype()) > 1 ? kShuffle : kZstd;
    }
    const uint64_t chunks = chunk_count_of(e.leaf.size);
    e.stored.resize(chunks);
    e.hashes.resize(chunks);
    for (uint64_t c = 0; c < chunks; ++c) items.push_back(Item{entries.size(), c});
    entries.push_back(std::move(e));
  }

  OutputFile out(path, kOp);
  const std::string zero_header(kHeaderSize, '\0');
  out.write(zero_header.data(), zero_header.size());  // rewritten last, when the index is known

  // Chunks are compressed in parallel and written in order: an item waits for its turn to write,
  // so each thread holds one compressed chunk and the file is written as it is produced.
  Pool pool(
      std::min<unsigned>(thread_count(options.threads), static_cast<unsigned>(std::max<size_t>(1, items.size()))));
  // Per worker: a context for whole chunks (one-byte dtypes) and one for byte planes.
  std::vector<std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)>> contexts, plane_contexts;
  std::vector<std::string> buffers(pool.threads()), shuffled(pool.threads());
  for (size_t t = 0; t < pool.threads(); ++t) {
    contexts.emplace_back(nullptr, ZSTD_freeCCtx);
    plane_contexts.emplace_back(nullptr, ZSTD_freeCCtx);
  }
  std::mutex turn_mutex;
  std::condition_variable turn_cv;
  size_t turn = 0;
  bool failed = false;
  pool.run(items.size(), [&](size_t i, size_t worker) {
    try {
      const Item& it = items[i];
      WriteEntry& e = entries[it.entry];
      const uint8_t* src = e.leaf.data() + it.chunk * kChunkSize;
      const size_t raw = static_cast<size_t>(std::min<uint64_t>(kChunkSize, e.leaf.size - it.chunk * kChunkSize));
      const char* data = reinterpret_cast<const char*>(src);
      size_t size = raw;
      if (e.codec != kRaw) {
        std::string& buf = buffers[worker];
        if (e.codec == kZstd) {
          if (!contexts[worker]) contexts[worker].reset(make_cctx(level, false));
          buf.resize(ZSTD_compressBound(raw));
          size = compress(contexts[worker].get(), buf.data(), buf.size(), src, raw, path, e.path);
        } else {
          if (!plane_contexts[worker]) plane_contexts[worker].reset(make_cctx(level, true));
          size = compress_planes(plane_contexts[worker].get(), buf, shuffled[worker], src, raw,
                                 dtype_size(e.value->tensor().dtype()), path, e.path);
        }
        data = buf.data();
      }
      e.stored[it.chunk] = static_cast<uint32_t>(size);
      e.hashes[it.chunk] = hash(data, size);
      std::unique_lock lock(turn_mutex);
      turn_cv.wait(lock, [&] { return turn == i || failed; });
      if (failed) return;
      if (it.chunk == 0) e.offset = out.size();
      out.write(data, size);
      ++turn;
      turn_cv.notify_all();
    } catch (...) {
      // Items waiting for their turn would wait forever: release them.
      std::lock_guard lock(turn_mutex);
      failed = true;
      turn_cv.notify_all();
      throw;
    }
  });

  std::string index;
  put_u32(index, m.format_version);
  put_str(index, m.burn_version);
  put_str(index, m.producer);
  put_str(index, m.dtype_policy);
  put_u32(index, static_cast<uint32_t>(m.extra.size()));
  for (const auto& [k, v] : m.extra) {
    put_str(index, k);
    put_str(index, v);
  }
  put_u32(index, kChunkSize);
  put_u32(index, static_cast<uint32_t>(entries.size()));
  for (const WriteEntry& e : entries) {
    put_str(index, e.path);
    put_u8(index, static_cast<uint8_t>(e.value->kind()));
    const bool tensor = e.value->kind() == EntryKind::Tensor;
    put_u8(index, tensor ? dtype_code(e.value->tensor().dtype()) : 0);
    put_u8(index, e.codec);
    put_u8(index, tensor ? static_cast<uint8_t>(e.value->tensor().shape().rank()) : 0);
    if (tensor) {
      if (e.value->tensor().shape().rank() > kMaxRank) {
        throw record_error(
            kOp, path, e.path,
            "rank " + std::to_string(e.value->tensor().shape().rank()) + " exceeds " + std::to_string(kMaxRank));
      }
      for (int64_t d : e.value->tensor().shape()) put_u64(index, static_cast<uint64_t>(d));
    }
    put_u64(index, e.leaf.size);
    put_u64(index, e.stored.empty() ? 0 : e.offset);
    put_u32(index, static_cast<uint32_t>(e.stored.size()));
    for (size_t c = 0; c < e.stored.size(); ++c) {
      put_u32(index, e.stored[c]);
      put_u64(index, e.hashes[c]);
    }
  }
  const uint64_t index_offset = out.size();
  out.write(index.data(), index.size());

  std::string header(reinterpret_cast<const char*>(kMagic), 8);
  put_u32(header, kVersion);
  put_u32(header, 0);  // flags
  put_u64(header, index_offset);
  put_u64(header, index.size());
  put_u64(header, hash(index.data(), index.size()));
  put_u64(header, out.size());
  put_u64(header, 0);  // reserved
  put_u64(header, hash(header.data(), header.size()));
  out.write_at(header.data(), header.size(), 0);
  out.close();
}

// ---- reading ----

struct ReadEntry {
  uint8_t codec = kRaw;
  uint64_t offset = 0;
  uint64_t stored_total = 0;
  std::vector<uint32_t> stored;
  std::vector<uint64_t> hashes;
};

class ZstdReader final : public RecordReader {
 public:
  explicit ZstdReader(std::string path) : file_(path, kOp), path_(std::move(path)) {
    const uint64_t size = file_.size();
    if (size == 0) throw fail("", "the file is empty");
    if (size < kHeaderSize) {
      throw fail("", "the file is " + std::to_string(size) + " bytes, shorter than the " + std::to_string(kHeaderSize) +
                         "-byte header (truncated?)");
    }
    unsigned char h[kHeaderSize];
    file_.read_at(h, kHeaderSize, 0, "");
    if (std::memcmp(h, kMagic, 8) != 0) throw fail("", "bad magic: not a burn .bpz record");
    if (hash(h, kHeaderSize - 8) != get_u64(h + 56) && !kFuzzing)
      throw fail("", "header checksum mismatch (the header is damaged)");
    const uint32_t version = get_u32(h + 8);
    if (version != kVersion) {
      throw fail(
          "", "format version " + std::to_string(version) + ", this reader knows version " + std::to_string(kVersion));
    }
    if (get_u32(h + 12) != 0) throw fail("", "unknown flags " + std::to_string(get_u32(h + 12)));
    const uint64_t index_offset = get_u64(h + 16), index_size = get_u64(h + 24), file_size = get_u64(h + 40);
    if (file_size != size) {
      throw fail("", "the header says " + std::to_string(file_size) + " bytes, the file has " + std::to_string(size) +
                         (size < file_size ? " (truncated)" : " (data appended?)"));
    }
    uint64_t index_end = 0;
    if (index_offset < kHeaderSize || !checked_add(index_offset, index_size, &index_end) || index_end != size) {
      throw fail("", "index at [" + std::to_string(index_offset) + ", +" + std::to_string(index_size) +
                         ") does not end the file of " + std::to_string(size) + " bytes");
    }
    data_end_ = index_offset;
    std::string index(static_cast<size_t>(index_size), '\0');
    file_.read_at(index.data(), index.size(), index_offset, "");
    if (hash(index.data(), index.size()) != get_u64(h + 32) && !kFuzzing)
      throw fail("", "index checksum mismatch (the index is damaged)");
    parse_index(index);
  }

  const std::string& path() const override { return path_; }
  const Metadata& metadata() const override { return metadata_; }
  const std::vector<EntryInfo>& entries() const override { return infos_; }

 protected:
  Value read_leaf(const EntryInfo& info) override {
    const size_t i = static_cast<size_t>(&info - infos_.data());
    const ReadEntry& e = data_[i];
    // Tensors read ahead are served from `ahead_`; any other read drops them (see read_ahead()).
    const bool sequential = i == next_leaf_;
    next_leaf_ = next_leaf_after(i);
    if (auto it = ahead_.find(i); it != ahead_.end()) {
      TensorData t = std::move(it->second);
      ahead_.erase(it);
      return Value(std::move(t));
    }
    ahead_.clear();
    switch (info.kind) {
      case EntryKind::Tensor: {
        if (sequential && read_ahead(i)) {
          TensorData t = std::move(ahead_.at(i));
          ahead_.erase(i);
          return Value(std::move(t));
        }
        TensorData t = TensorData::uninitialized(info.shape, info.dtype);  // read_bytes writes every byte
        read_bytes(info, e, t.bytes().data());
        check_bools(info, t);
        return Value(std::move(t));
      }
      case EntryKind::Int:
      case EntryKind::Float: {
        unsigned char b[8];
        read_bytes(info, e, b);
        const uint64_t bits = get_u64(b);
        if (info.kind == EntryKind::Int) return Value(static_cast<int64_t>(bits));
        double d;
        std::memcpy(&d, &bits, 8);
        return Value(d);
      }
      case EntryKind::Bool: {
        uint8_t b = 0;
        read_bytes(info, e, &b);
        if (b > 1) throw fail(info.path, "bool holds byte " + std::to_string(b) + " (only 0 and 1 are valid)");
        return Value(b == 1);
      }
      case EntryKind::String: {
        std::string s(static_cast<size_t>(info.bytes), '\0');
        read_bytes(info, e, reinterpret_cast<uint8_t*>(s.data()));
        return Value(std::move(s));
      }
      case EntryKind::Group: break;
    }
    throw fail(info.path, "not a leaf");
  }

 private:
  RecordError fail(std::string_view entry, const std::string& problem) const {
    return record_error(kOp, path_, entry, problem);
  }

  void check_bools(const EntryInfo& info, const TensorData& t) {
    if (info.dtype != DType::Bool) return;
    for (uint8_t b : t.bytes()) {
      if (b > 1) throw fail(info.path, "bool tensor holds byte " + std::to_string(b) + " (only 0 and 1 are valid)");
    }
  }

  size_t next_leaf_after(size_t i) const {
    for (size_t j = i + 1; j < infos_.size(); ++j) {
      if (infos_[j].kind != EntryKind::Group) return j;
    }
    return infos_.size();
  }

  // The pool, and a decoder and buffers per thread, for `chunks` chunks at once.
  size_t prepare_workers(size_t chunks) {
    if (chunks > 1 && !pool_) pool_ = std::make_unique<Pool>(thread_count(0));
    const size_t workers = pool_ ? pool_->threads() : 1;
    while (dctx_.size() < workers) dctx_.emplace_back(ZSTD_createDCtx(), ZSTD_freeDCtx);
    plane_scratch_.resize(workers);
    chunk_scratch_.resize(workers);
    return workers;
  }

  // Chunk c of an entry, at file offset `start`, read, hashed and decoded into dst (the entry's
  // bytes): raw chunks straight into place, others through this thread's 1 MiB buffer (still in
  // cache when it is decoded), so the copy out of the page cache and the page faults of dst are
  // shared by the threads and extra memory is a chunk per thread.
  void read_chunk(const EntryInfo& info, const ReadEntry& e, uint8_t* dst, size_t c, uint64_t start, size_t worker) {
    const size_t stored = e.stored[c];
    uint8_t* src = dst + c * static_cast<uint64_t>(kChunkSize);  // raw chunks land in place
    if (e.codec != kRaw) {
      std::string& buf = chunk_scratch_[worker];
      if (buf.size() < stored) buf.resize(stored);
      src = reinterpret_cast<uint8_t*>(buf.data());
    }
    file_.read_at(src, stored, start, info.path);
    if (hash(src, stored) != e.hashes[c] && !kFuzzing) {
      throw fail(info.path, "checksum mismatch in chunk " + std::to_string(c) + " of " +
                                std::to_string(e.stored.size()) + " (the data is damaged)");
    }
    if (e.codec == kRaw) return;
    const uint64_t raw = std::min<uint64_t>(kChunkSize, info.bytes - c * static_cast<uint64_t>(kChunkSize));
    uint8_t* out = dst + c * static_cast<uint64_t>(kChunkSize);
    if (e.codec == kShuffle) return decode_planes(info, c, src, stored, out, static_cast<size_t>(raw), worker);
    decompress(info, c, src, stored, out, static_cast<size_t>(raw), worker);
  }

  std::vector<uint64_t> chunk_starts(const ReadEntry& e) const {
    std::vector<uint64_t> starts(e.stored.size());
    uint64_t at = e.offset;
    for (size_t c = 0; c < starts.size(); ++c) {
      starts[c] = at;
      at += e.stored[c];
    }
    return starts;
  }

  // The chunks of one entry, on the pool's threads.
  void read_bytes(const EntryInfo& info, const ReadEntry& e, uint8_t* dst) {
    const size_t chunks = e.stored.size();
    prepare_workers(chunks);
    const std::vector<uint64_t> starts = chunk_starts(e);
    auto one = [&](size_t c, size_t worker) { read_chunk(info, e, dst, c, starts[c], worker); };
    if (pool_ && chunks > 1) {
      pool_->run(chunks, one);
    } else {
      for (size_t c = 0; c < chunks; ++c) one(c, 0);
    }
  }

  // When tensors are read in entry order (read_all), tensor i and the tensors after it, up to
  // kAheadBytes, are read in one pool run, largest chunks first: most tensors of a model are one
  // chunk (302 of ResNet-50's 320) and would each be decoded by one thread while the others wait,
  // and an entry of an odd number of chunks leaves a thread idle at its end. The others wait in
  // ahead_ for their read_leaf (a read out of order drops them). False, with nothing kept, when any
  // of them fails: entries are then read one by one, so the error names the entry being read.
  bool read_ahead(size_t i) {
    std::vector<size_t> batch;
    uint64_t bytes = 0;
    for (size_t j = i; j < infos_.size(); ++j) {
      const EntryInfo& info = infos_[j];
      if (info.kind == EntryKind::Group) continue;
      if (info.kind != EntryKind::Tensor || (!batch.empty() && bytes + info.bytes > kAheadBytes)) break;
      batch.push_back(j);
      bytes += info.bytes;
    }
    if (batch.size() < 2) return false;
    struct Item {
      size_t entry, chunk;
      uint64_t start, raw;
      uint8_t* dst;
    };
    std::vector<Item> items;
    std::vector<TensorData> tensors;
    tensors.reserve(batch.size());
    for (size_t j : batch) {
      const EntryInfo& info = infos_[j];
      const ReadEntry& e = data_[j];
      TensorData& t = tensors.emplace_back(TensorData::uninitialized(info.shape, info.dtype));
      const std::vector<uint64_t> starts = chunk_starts(e);
      for (size_t c = 0; c < starts.size(); ++c) {
        const uint64_t raw = std::min<uint64_t>(kChunkSize, info.bytes - c * static_cast<uint64_t>(kChunkSize));
        items.push_back({j, c, starts[c], raw, t.bytes().data()});
      }
    }
    std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.raw > b.raw; });
    prepare_workers(items.size());
    try {
      auto one = [&](size_t k, size_t worker) {
        const Item& it = items[k];
        read_chunk(infos_[it.entry], data_[it.entry], it.dst, it.chunk, it.start, worker);
      };
      if (pool_ && items.size() > 1) {
        pool_->run(items.size(), one);
      } else {
        for (size_t k = 0; k < items.size(); ++k) one(k, 0);
      }
      for (size_t k = 0; k < batch.size(); ++k) check_bools(infos_[batch[k]], tensors[k]);
    } catch (const RecordError&) {
      return false;
    }
    for (size_t k = 0; k < batch.size(); ++k) ahead_.emplace(batch[k], std::move(tensors[k]));
    return true;
  }

  // One zstd frame of exactly `raw` bytes into dst, checked before it is decompressed.
  void decompress(const EntryInfo& info, size_t c, const uint8_t* src, size_t stored, uint8_t* dst, size_t raw,
                  size_t worker) {
    const unsigned long long declared = ZSTD_getFrameContentSize(src, stored);
    if (declared != raw || ZSTD_findFrameCompressedSize(src, stored) != stored) {
      throw fail(info.path,
                 "chunk " + std::to_string(c) + " is not one zstd frame of " + std::to_string(raw) + " bytes");
    }
    const size_t n = ZSTD_decompressDCtx(dctx_[worker].get(), dst, raw, src, stored);
    if (ZSTD_isError(n) || n != raw) {
      throw fail(info.path, "chunk " + std::to_string(c) + " does not decompress: " +
                                (ZSTD_isError(n) ? ZSTD_getErrorName(n) : std::to_string(n) + " bytes"));
    }
  }

  void decode_planes(const EntryInfo& info, size_t c, const uint8_t* src, size_t stored, uint8_t* dst, size_t raw,
                     size_t worker) {
    const size_t w = dtype_size(info.dtype);
    const size_t m = raw / w;
    if (stored < 4 * w) throw fail(info.path, "chunk " + std::to_string(c) + " is shorter than its plane table");
    std::string& scratch = plane_scratch_[worker];
    if (scratch.size() < raw) scratch.resize(raw);  // grown only: resizing a shrunk string zero-fills it
    const uint8_t* planes[8];
    uint64_t at = 4 * w;
    for (size_t b = 0; b < w; ++b) {
      const uint32_t size = get_u32(src + 4 * b);
      const uint64_t len = size ? size : m;
      if (at + len > stored) {
        throw fail(info.path, "chunk " + std::to_string(c) + ": plane " + std::to_string(b) + " runs past the chunk");
      }
      if (size == 0) {
        planes[b] = src + at;  // raw: used where it lies
      } else {
        auto* out = reinterpret_cast<uint8_t*>(scratch.data()) + b * m;
        decompress(info, c, src + at, size, out, m, worker);
        planes[b] = out;
      }
      at += len;
    }
    if (at != stored) {
      throw fail(info.path,
                 "chunk " + std::to_string(c) + ": " + std::to_string(stored - at) + " bytes follow its planes");
    }
    unshuffle(planes, dst, raw, w);
  }

  void parse_index(const std::string& bytes) {
    IndexParser in(kOp, path_, bytes);
    metadata_.format_version = in.u32("", "metadata");
    metadata_.burn_version = in.str("", "burn_version", 1 << 10);
    metadata_.producer = in.str("", "producer", 1 << 20);
    metadata_.dtype_policy = in.str("", "dtype_policy", 1 << 10);
    const uint32_t extra = in.u32("", "metadata");
    if (extra > in.left() / 8) throw fail("", std::to_string(extra) + " metadata keys cannot fit in the index");
    for (uint32_t i = 0; i < extra; ++i) {
      std::string k = in.str("", "a metadata key", 1 << 20);
      std::string v = in.str("", "a metadata value", 1 << 24);
      metadata_.extra.emplace_back(std::move(k), std::move(v));
    }
    const uint32_t chunk_size = in.u32("", "the chunk size");
    if (chunk_size != kChunkSize) {
      throw fail("", "chunk size " + std::to_string(chunk_size) + ", this reader knows " + std::to_string(kChunkSize));
    }
    const uint32_t count = in.u32("", "the entry count");
    // Each entry takes at least 28 bytes: reject a count the index cannot hold before reserving.
    if (count > in.left() / 28) {
      throw fail(
          "", std::to_string(count) + " entries cannot fit in an index of " + std::to_string(bytes.size()) + " bytes");
    }
    infos_.reserve(count);
    data_.reserve(count);
    std::unordered_map<std::string, EntryKind> seen;
    std::vector<std::pair<uint64_t, size_t>> extents;  // (offset, entry) of entries with data
    for (uint32_t i = 0; i < count; ++i) {
      EntryInfo info;
      ReadEntry e;
      info.path = in.str("", "an entry name", kMaxNameLength);
      const std::string& p = info.path;
      try {
        check_path(p, kOp);
      } catch (const RecordError& err) {
        const std::string what = err.what();
        throw fail(p, "invalid name: " + what.substr(std::min(what.size(), what.find("] ") + 2)));
      }
      const uint8_t kind = in.u8(p, "the kind");
      const uint8_t dtype = in.u8(p, "the dtype");
      e.codec = in.u8(p, "the codec");
      const uint8_t rank = in.u8(p, "the rank");
      if (kind > static_cast<uint8_t>(EntryKind::String)) throw fail(p, "unknown entry kind " + std::to_string(kind));
      info.kind = static_cast<EntryKind>(kind);
      if (e.codec > kShuffle) throw fail(p, "unknown codec " + std::to_string(e.codec));
      if (info.kind != EntryKind::Tensor && (dtype != 0 || rank != 0)) {
        throw fail(p, "a " + std::string(entry_kind_name(info.kind)) + " with a dtype or a rank");
      }
      uint64_t expect = 0;
      if (info.kind == EntryKind::Tensor) {
        if (dtype >= std::size(kDTypeCodes)) throw fail(p, "unknown dtype code " + std::to_string(dtype));
        info.dtype = kDTypeCodes[dtype];
        if (rank > kMaxRank) throw fail(p, "rank " + std::to_string(rank) + " exceeds " + std::to_string(kMaxRank));
        std::vector<int64_t> dims(rank);
        expect = dtype_size(info.dtype);
        for (auto& d : dims) {
          const uint64_t v = in.u64(p, "the shape");
          if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
            throw fail(p, "negative dim " + std::to_string(static_cast<int64_t>(v)));
          }
          d = static_cast<int64_t>(v);
          if (!checked_mul(expect, v, &expect)) throw fail(p, "the byte size of its shape overflows");
        }
        info.shape = Shape(std::move(dims));
      }
      info.bytes = in.u64(p, "the size");
      e.offset = in.u64(p, "the offset");
      const uint32_t chunks = in.u32(p, "the chunk count");
      if (info.kind == EntryKind::Tensor && info.bytes != expect) {
        throw fail(p, "size " + std::to_string(info.bytes) + " bytes, but shape " + info.shape.to_string() + " of " +
                          std::string(dtype_name(info.dtype)) + " needs " + std::to_string(expect));
      }
      if ((info.kind == EntryKind::Int || info.kind == EntryKind::Float) && info.bytes != 8) {
        throw fail(p, "a number of " + std::to_string(info.bytes) + " bytes (8 expected)");
      }
      if (info.kind == EntryKind::Bool && info.bytes != 1)
        throw fail(p, "a bool of " + std::to_string(info.bytes) + " bytes");
      if (info.kind == EntryKind::Group && info.bytes != 0) throw fail(p, "a group with data");
      if (chunks != chunk_count_of(info.bytes)) {
        throw fail(p, std::to_string(chunks) + " chunks for " + std::to_string(info.bytes) + " bytes (expected " +
                          std::to_string(chunk_count_of(info.bytes)) + ")");
      }
      if (chunks > in.left() / 12) throw fail(p, std::to_string(chunks) + " chunks cannot fit in the index");
      e.stored.resize(chunks);
      e.hashes.resize(chunks);
      for (uint32_t c = 0; c < chunks; ++c) {
        e.stored[c] = in.u32(p, "the chunk table");
        e.hashes[c] = in.u64(p, "the chunk table");
        const uint64_t raw = std::min<uint64_t>(kChunkSize, info.bytes - c * static_cast<uint64_t>(kChunkSize));
        const uint64_t w = info.kind == EntryKind::Tensor ? dtype_size(info.dtype) : 1;
        bool ok = false;
        if (e.codec == kRaw) ok = e.stored[c] == raw;
        if (e.codec == kZstd) ok = e.stored[c] > 0 && e.stored[c] <= ZSTD_compressBound(raw);
        // Planes are whole elements: only tensors of multi-byte dtypes, at most w frames' bounds.
        if (e.codec == kShuffle) {
          ok = info.kind == EntryKind::Tensor && w > 1 && raw % w == 0 && e.stored[c] >= 4 * w &&
               e.stored[c] <= 4 * w + w * ZSTD_compressBound(raw / w);
        }
        if (!ok) {
          throw fail(p, "chunk " + std::to_string(c) + " stores " + std::to_string(e.stored[c]) + " bytes for " +
                            std::to_string(raw) + " raw bytes");
        }
        e.stored_total += e.stored[c];
      }
      uint64_t end = 0;
      if (chunks > 0 && (e.offset < kHeaderSize || !checked_add(e.offset, e.stored_total, &end) || end > data_end_)) {
        throw fail(p, "data at [" + std::to_string(e.offset) + ", +" + std::to_string(e.stored_total) +
                          ") lies outside the data section [" + std::to_string(kHeaderSize) + ", " +
                          std::to_string(data_end_) + ")");
      }
      // The parent must be a group listed earlier; a path appears once.
      if (const size_t dot = p.rfind('.'); dot != std::string::npos) {
        const auto parent = seen.find(p.substr(0, dot));
        if (parent == seen.end() || parent->second != EntryKind::Group) {
          throw fail(p, "its parent '" + p.substr(0, dot) + "' is not a group listed before it");
        }
      }
      if (!seen.emplace(p, info.kind).second) throw fail(p, "the name appears twice");
      if (chunks > 0) extents.emplace_back(e.offset, infos_.size());
      infos_.push_back(std::move(info));
      data_.push_back(std::move(e));
    }
    if (in.left() != 0) throw fail("", std::to_string(in.left()) + " bytes follow the last index entry");
    std::sort(extents.begin(), extents.end());
    for (size_t k = 1; k < extents.size(); ++k) {
      const ReadEntry& prev = data_[extents[k - 1].second];
      if (prev.offset + prev.stored_total > extents[k].first) {
        throw fail(infos_[extents[k].second].path,
                   "its data overlaps the data of '" + infos_[extents[k - 1].second].path + "'");
      }
    }
  }

  InputFile file_;
  std::string path_;
  uint64_t data_end_ = 0;
  Metadata metadata_;
  std::vector<EntryInfo> infos_;
  std::vector<ReadEntry> data_;  // parallel to infos_
  std::unique_ptr<Pool> pool_;
  std::unordered_map<size_t, TensorData> ahead_;           // tensors read ahead, by entry index (read_ahead())
  size_t next_leaf_ = std::numeric_limits<size_t>::max();  // the leaf after the last one read
  std::vector<std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)>> dctx_;  // one per pool thread
  std::vector<std::string> plane_scratch_;                                // one per pool thread
  std::vector<std::string> chunk_scratch_;                                // one per pool thread
};

class ZstdRecorder final : public Recorder {
 public:
  std::string name() const override { return "zstd"; }
  std::vector<std::string> extensions() const override { return {".bpz"}; }
  void write(const std::string& path, const Record& record, const Metadata& metadata,
             const SaveOptions& options) const override {
    write_file(path, record, metadata, options);
  }
  std::unique_ptr<RecordReader> open(const std::string& path) const override {
    return std::make_unique<ZstdReader>(path);
  }
};

std::unique_ptr<Recorder> make_recorder() { return std::make_unique<ZstdRecorder>(); }
int32_t recorder_score() { return 10; }

}  // namespace

BURN_RECORDER_PLUGIN("zstd", BURN_RECORD_VERSION, make_recorder, recorder_score)
