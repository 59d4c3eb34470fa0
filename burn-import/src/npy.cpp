// The .npy reader and writer: the header is a Python dict literal with 'descr', 'fortran_order' and
// 'shape'; parsed by hand (a tiny grammar) rather than evaluated.
#include "burn/import/npy.hpp"

#include <algorithm>
#include <cstring>
#include <regex>

#include "burn/record/file.hpp"

namespace burn::import {

namespace {

constexpr const char* kOp = "import.npy";
constexpr uint64_t kMaxHeader = 1 << 20;

[[noreturn]] void bad(const std::string& path, const std::string& problem) {
  throw record::record_error(kOp, path, "", problem);
}

struct Descr {
  DType dtype;
  size_t file_size;  // bytes per element in the file
  bool swap;         // big endian in the file
  bool widen_i16;    // <i2 read as i32
};

Descr parse_descr(const std::string& d, const std::string& path) {
  if (d.size() < 3) bad(path, "dtype '" + d + "' is not a plain NumPy dtype");
  const char order = d[0];
  const std::string code = d.substr(1);
  const bool big = order == '>';
  if (order != '<' && order != '>' && order != '|' && order != '=') bad(path, "dtype '" + d + "' has no byte order");
  if (code == "f8") return {DType::F64, 8, big, false};
  if (code == "f4") return {DType::F32, 4, big, false};
  if (code == "f2") return {DType::F16, 2, big, false};
  if (code == "i8") return {DType::I64, 8, big, false};
  if (code == "i4") return {DType::I32, 4, big, false};
  if (code == "i2") return {DType::I32, 2, big, true};
  if (code == "i1") return {DType::I8, 1, false, false};
  if (code == "u1") return {DType::U8, 1, false, false};
  if (code == "b1") return {DType::Bool, 1, false, false};
  throw Unsupported(kOp, "'" + path + "': dtype '" + d + "' has no burn dtype (f8 f4 f2 i8 i4 i2 i1 u1 b1 are read)");
}

// The value of `key` in the header dict: a quoted string, True/False, or a tuple of integers.
std::string dict_value(const std::string& header, const std::string& key, const std::string& path) {
  const std::regex re("['\"]" + key + "['\"]\\s*:\\s*('[^']*'|\"[^\"]*\"|True|False|\\([^)]*\\))");
  std::smatch m;
  if (!std::regex_search(header, m, re)) bad(path, "the header has no '" + key + "': " + header.substr(0, 200));
  return m[1].str();
}

}  // namespace

TensorData read_npy(const std::string& path) {
  record::InputFile in(path, kOp);
  uint8_t pre[10];
  if (in.size() < 10) bad(path, "is " + std::to_string(in.size()) + " bytes, shorter than a .npy preamble");
  in.read_at(pre, 10, 0, "preamble");
  if (std::memcmp(pre, "\x93NUMPY", 6) != 0) bad(path, "is not a .npy file (no \\x93NUMPY magic)");
  const int major = pre[6];
  uint64_t header_len = 0, header_at = 0;
  if (major == 1) {
    header_len = pre[8] | (pre[9] << 8);
    header_at = 10;
  } else if (major == 2 || major == 3) {
    uint8_t len4[4];
    if (in.size() < 12) bad(path, "is cut short in its preamble");
    in.read_at(len4, 4, 8, "preamble");
    header_len = len4[0] | (len4[1] << 8) | (len4[2] << 16) | (uint64_t{len4[3]} << 24);
    header_at = 12;
  } else {
    bad(path, "has .npy format version " + std::to_string(major) + " (1 to 3 are known)");
  }
  if (header_len > kMaxHeader || header_at + header_len > in.size()) {
    bad(path, "claims a header of " + std::to_string(header_len) + " bytes in a file of " + std::to_string(in.size()));
  }
  std::string header(header_len, '\0');
  in.read_at(header.data(), header_len, header_at, "header");

  std::string descr = dict_value(header, "descr", path);
  if (descr.front() != '\'' && descr.front() != '"')
    bad(path, "'descr' is not a string (structured arrays are not read)");
  descr = descr.substr(1, descr.size() - 2);
  const Descr d = parse_descr(descr, path);
  const bool fortran = dict_value(header, "fortran_order", path) == "True";
  const std::string shape_text = dict_value(header, "shape", path);
  std::vector<int64_t> dims;
  uint64_t count = 1;
  const std::regex number("-?[0-9]+");
  for (std::sregex_iterator it(shape_text.begin(), shape_text.end(), number), end; it != end; ++it) {
    const std::string n = it->str();
    if (n[0] == '-' || n.size() > 18) bad(path, "has an invalid dim " + n + " in its shape " + shape_text);
    const auto v = static_cast<uint64_t>(std::stoull(n));
    if (!record::checked_mul(count, v, &count)) bad(path, "shape " + shape_text + " overflows");
    dims.push_back(static_cast<int64_t>(v));
  }
  uint64_t bytes = 0;
  if (!record::checked_mul(count, d.file_size, &bytes) || header_at + header_len + bytes != in.size()) {
    bad(path, "holds " + std::to_string(in.size() - header_at - header_len) + " data bytes, shape " + shape_text +
                  " of " + descr + " needs " + std::to_string(count) + " x " + std::to_string(d.file_size));
  }
  std::vector<uint8_t> raw(bytes);
  in.read_at(raw.data(), bytes, header_at + header_len, "data");
  if (d.swap) {
    for (size_t i = 0; i < raw.size(); i += d.file_size) std::reverse(raw.begin() + i, raw.begin() + i + d.file_size);
  }
  if (d.dtype == DType::Bool) {
    for (uint8_t b : raw)
      if (b > 1) bad(path, "has a bool byte " + std::to_string(b));
  }
  std::vector<uint8_t> values;
  if (d.widen_i16) {
    values.resize(count * 4);
    for (uint64_t i = 0; i < count; ++i) {
      int16_t v;
      std::memcpy(&v, raw.data() + i * 2, 2);
      const int32_t w = v;
      std::memcpy(values.data() + i * 4, &w, 4);
    }
  } else {
    values = std::move(raw);
  }
  if (fortran && dims.size() > 1) {
    // Fortran order is C order of the reversed dims: copy each element to its C position.
    const size_t es = dtype_size(d.dtype), rank = dims.size();
    std::vector<uint8_t> c(values.size());
    std::vector<int64_t> idx(rank, 0);
    for (uint64_t f = 0; f < count; ++f) {
      uint64_t off = 0;
      for (size_t k = 0; k < rank; ++k) off = off * static_cast<uint64_t>(dims[k]) + static_cast<uint64_t>(idx[k]);
      std::memcpy(c.data() + off * es, values.data() + f * es, es);
      for (size_t k = 0; k < rank && ++idx[k] == dims[k]; ++k) idx[k] = 0;  // first index fastest
    }
    values = std::move(c);
  }
  return TensorData(Shape(dims), d.dtype, values);
}

void write_npy(const std::string& path, const TensorData& data_in) {
  TensorData data = data_in.dtype() == DType::BF16 ? data_in.convert(DType::F32) : data_in;
  std::string descr;
  switch (data.dtype()) {
    case DType::F64: descr = "<f8"; break;
    case DType::F32: descr = "<f4"; break;
    case DType::F16: descr = "<f2"; break;
    case DType::I64: descr = "<i8"; break;
    case DType::I32: descr = "<i4"; break;
    case DType::I8: descr = "|i1"; break;
    case DType::U8: descr = "|u1"; break;
    case DType::Bool: descr = "|b1"; break;
    default: throw Unsupported(kOp, "'" + path + "': no .npy dtype for " + std::string(dtype_name(data.dtype())));
  }
  std::string shape = "(";
  for (const int64_t d : data.shape().dims()) shape += std::to_string(d) + ", ";
  if (data.shape().rank() > 1) shape.resize(shape.size() - 2);
  if (data.shape().rank() == 1) shape.resize(shape.size() - 1);  // "(3,)"
  shape += ")";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // The preamble and header are padded with spaces to a multiple of 64, ending in a newline.
  const size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
  header.append(total - 10 - header.size() - 1, ' ');
  header += '\n';
  std::string pre = "\x93NUMPY";
  pre += '\x01';
  pre += '\x00';
  pre += static_cast<char>(header.size() & 0xff);
  pre += static_cast<char>(header.size() >> 8);
  record::AtomicFile file(path);
  {
    record::OutputFile out(file.path(), kOp);
    out.write(pre.data(), pre.size());
    out.write(header.data(), header.size());
    out.write(data.raw(), data.bytes().size());
    out.close();
  }
  file.commit();
}

}  // namespace burn::import
