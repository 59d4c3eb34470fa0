// Burnpack writer: the header (magic "NRUB", version 1, metadata size), CBOR metadata {tensors:
// {name: {dtype, shape, data_offsets, param_id}} sorted by name (serde's BTreeMap), metadata: {str:
// str}}, zeros up to the next multiple of 256, then each tensor at a multiple of 256 of the data
// section (burn-store's TENSOR_ALIGNMENT). Then the file is read back.
#include <algorithm>
#include <cstring>

#include "burn/record/file.hpp"
#include "burn_format_internal.hpp"

namespace burn::record::burn_format {

namespace {

constexpr const char* kOp = "burnpack";

// Definite-length CBOR (RFC 8949), the subset the metadata needs.
class CborWriter {
 public:
  void head(uint8_t major, uint64_t n) {
    const uint8_t m = static_cast<uint8_t>(major << 5);
    if (n < 24) {
      out_.push_back(static_cast<char>(m | n));
    } else if (n <= 0xff) {
      out_.push_back(static_cast<char>(m | 24));
      be(n, 1);
    } else if (n <= 0xffff) {
      out_.push_back(static_cast<char>(m | 25));
      be(n, 2);
    } else if (n <= 0xffffffffull) {
      out_.push_back(static_cast<char>(m | 26));
      be(n, 4);
    } else {
      out_.push_back(static_cast<char>(m | 27));
      be(n, 8);
    }
  }
  void uint(uint64_t v) { head(0, v); }
  void text(std::string_view s) {
    head(3, s.size());
    out_.append(s);
  }
  void array(uint64_t n) { head(4, n); }
  void map(uint64_t n) { head(5, n); }
  const std::string& bytes() const { return out_; }

 private:
  void be(uint64_t v, int n) {
    for (int k = n - 1; k >= 0; --k) out_.push_back(static_cast<char>(v >> (8 * k)));
  }
  std::string out_;
};

}  // namespace

void write_bpk(const std::string& path, const Record& record, const Metadata& metadata) {
  Contents c = collect(record, path, kOp);
  for (const FlatEntry& e : record.flatten()) {  // only tensors and the ids their Params took
    const EntryKind k = e.value->kind();
    if (k == EntryKind::Tensor || k == EntryKind::Group) continue;
    const std::string ids = std::string(kParamIds) + ".";
    if (e.path.starts_with(ids) && c.consumed.contains(e.path.substr(ids.size()))) continue;
    throw record_error(kOp, path, e.path,
                       "a burnpack file holds only tensors and their param ids; this entry is of kind " +
                           std::string(entry_kind_name(k)) + " (save as .mpk to keep it)");
  }
  for (const Contents::Tensor& t : c.tensors) {
    if (!valid_utf8(t.path)) throw record_error(kOp, path, t.path, "the name is not valid UTF-8 (CBOR text needs it)");
  }
  std::vector<const Contents::Tensor*> sorted;
  for (const auto& t : c.tensors) sorted.push_back(&t);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->path < b->path; });

  CborWriter m;
  const auto pairs = metadata_pairs(metadata, path, kOp);
  m.map(pairs.empty() ? 1 : 2);
  m.text("tensors");
  m.map(sorted.size());
  std::vector<uint64_t> offsets;
  uint64_t at = 0;
  for (const Contents::Tensor* t : sorted) {
    const uint64_t n = t->data->bytes().size();
    at = (at + kBurnpackAlignment - 1) / kBurnpackAlignment * kBurnpackAlignment;
    offsets.push_back(at);
    m.text(t->path);
    m.map(4);
    m.text("dtype");
    m.text(burn_dtype_name(t->data->dtype()));
    m.text("shape");
    m.array(t->data->shape().rank());
    for (const int64_t d : t->data->shape().dims()) m.uint(static_cast<uint64_t>(d));
    m.text("data_offsets");
    m.array(2);
    m.uint(at);
    m.uint(at + n);
    m.text("param_id");
    m.uint(t->id);
    at += n;
  }
  if (!pairs.empty()) {
    m.text("metadata");
    std::vector<std::pair<std::string, std::string>> sorted_pairs(pairs.begin(), pairs.end());
    std::sort(sorted_pairs.begin(), sorted_pairs.end());  // a BTreeMap in Burn
    for (const auto& [k, v] : sorted_pairs) {
      if (!valid_utf8(k) || !valid_utf8(v))
        throw record_error(kOp, path, "", "metadata key '" + k + "' or its value is not valid UTF-8");
    }
    m.map(sorted_pairs.size());
    for (const auto& [k, v] : sorted_pairs) {
      m.text(k);
      m.text(v);
    }
  }
  const std::string& meta = m.bytes();
  if (meta.size() > kBurnpackMaxMetadata) {
    throw record_error(kOp, path, "",
                       "the metadata would be " + std::to_string(meta.size()) + " bytes, more than readers accept (" +
                           std::to_string(kBurnpackMaxMetadata) + ")");
  }
  uint8_t h[10];
  const uint32_t magic = kBurnpackMagic, size = static_cast<uint32_t>(meta.size());
  for (int k = 0; k < 4; ++k) h[k] = static_cast<uint8_t>(magic >> (8 * k));
  h[4] = 1;
  h[5] = 0;
  for (int k = 0; k < 4; ++k) h[6 + k] = static_cast<uint8_t>(size >> (8 * k));
  {
    OutputFile out(path, kOp);
    out.write(h, sizeof h);
    out.write(meta.data(), meta.size());
    const uint64_t start = (out.size() + kBurnpackAlignment - 1) / kBurnpackAlignment * kBurnpackAlignment;
    const std::string zeros(kBurnpackAlignment, '\0');
    out.write(zeros.data(), static_cast<size_t>(start - out.size()));
    for (size_t k = 0; k < sorted.size(); ++k) {
      const uint64_t pad = start + offsets[k] - out.size();
      out.write(zeros.data(), static_cast<size_t>(pad));
      const auto b = sorted[k]->data->bytes();
      if (!b.empty()) out.write(b.data(), b.size());
    }
    out.close();
  }
  auto back = open_bpk(path, kOp);
  verify_written(*back, c, record, false, path, kOp);
}

}  // namespace burn::record::burn_format
