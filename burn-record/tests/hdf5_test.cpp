// The hdf5 recorder against h5py and h5dump, through expectations committed by
// fixtures/hdf5/make_fixtures.py: h5py reads burn's files with the same names, shapes, dtypes and
// values; h5dump prints the committed dump; burn reads a file written by h5py.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "burn/record/recorder.hpp"
#include "h5_sample.hpp"
#include "sample_record.hpp"

namespace {

namespace fs = std::filesystem;
using namespace burn;
using namespace burn::record;

const std::string kFixtures = BURN_RECORD_FIXTURES "/hdf5";

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// "[[1.0, -2.5], [3.0, True]]" -> every number (True/False as 1/0), in order.
std::vector<double> numbers(const std::string& repr) {
  std::vector<double> out;
  size_t i = 0;
  while (i < repr.size()) {
    const char c = repr[i];
    if (repr.compare(i, 4, "True") == 0) {
      out.push_back(1);
      i += 4;
      continue;
    }
    if (repr.compare(i, 5, "False") == 0) {
      out.push_back(0);
      i += 5;
      continue;
    }
    if (c == '-' || c == '.' || (c >= '0' && c <= '9')) {
      char* end = nullptr;
      out.push_back(std::strtod(repr.c_str() + i, &end));
      i = static_cast<size_t>(end - repr.c_str());
      continue;
    }
    ++i;
  }
  return out;
}

// numpy's name for what h5py returns for each burn dtype (bf16 is read as float32).
std::string numpy_name(DType d) {
  switch (d) {
    case DType::F32:
    case DType::BF16: return "float32";
    case DType::F64: return "float64";
    case DType::F16: return "float16";
    case DType::I64: return "int64";
    case DType::I32: return "int32";
    case DType::I8: return "int8";
    case DType::U8: return "uint8";
    case DType::Bool: return "bool";
  }
  return "?";
}

std::string python_shape(const Shape& s) {
  if (s.rank() == 0) return "()";
  std::string out = "(";
  for (size_t i = 0; i < s.rank(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.rank() == 1 ? ",)" : ")");
}

TEST(Hdf5, H5pyReadsBurnFilesWithTheSameNamesShapesDtypesAndValues) {
  const Record r = test::h5_sample();
  std::istringstream lines(read_text(kFixtures + "/burn_sample.h5py.txt"));
  size_t seen = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream f(line);
    std::string h5path, dtype, shape, values;
    std::getline(f, h5path, '\t');
    std::getline(f, dtype, '\t');
    std::getline(f, shape, '\t');
    std::getline(f, values);
    std::string path = h5path.substr(1);
    std::replace(path.begin(), path.end(), '/', '.');
    SCOPED_TRACE(path);
    const Value* v = r.find(path);
    ASSERT_NE(v, nullptr) << "h5py saw a dataset the record does not have";
    ++seen;
    switch (v->kind()) {
      case EntryKind::Tensor: {
        const TensorData& t = v->tensor();
        EXPECT_EQ(dtype, numpy_name(t.dtype()));
        EXPECT_EQ(shape, python_shape(t.shape()));
        const auto got = numbers(values);
        ASSERT_EQ(got.size(), static_cast<size_t>(t.num_elements()));
        for (size_t i = 0; i < got.size(); ++i) {
          EXPECT_EQ(got[i], t.value_f64(static_cast<int64_t>(i))) << "element " << i;
          EXPECT_EQ(std::signbit(got[i]), std::signbit(t.value_f64(static_cast<int64_t>(i)))) << "element " << i;
        }
        break;
      }
      case EntryKind::Int:
        EXPECT_EQ(dtype, "int64");
        EXPECT_EQ(values, std::to_string(v->as_int()));
        break;
      case EntryKind::Float:
        EXPECT_EQ(dtype, "float64");
        EXPECT_EQ(numbers(values), std::vector<double>{v->as_float()});
        break;
      case EntryKind::Bool:
        EXPECT_EQ(dtype, "bool");
        EXPECT_EQ(values, v->as_bool() ? "True" : "False");
        break;
      case EntryKind::String: EXPECT_EQ(values, "'" + v->as_string() + "'"); break;
      case EntryKind::Group: ADD_FAILURE() << "a group listed as a dataset"; break;
    }
    if (v->kind() != EntryKind::Tensor) EXPECT_EQ(shape, "()");
  }
  // Every leaf of the record was seen (the empty group is no dataset).
  size_t leaves = 0;
  for (const auto& e : r.flatten()) leaves += e.value->kind() != EntryKind::Group;
  EXPECT_EQ(seen, leaves);
}

TEST(Hdf5, H5dumpPrintsTheCommittedDump) {
  const std::string h5dump = BURN_H5DUMP;
  if (h5dump.empty()) GTEST_SKIP() << "h5dump not found (Debian package hdf5-tools)";
  const fs::path dir = fs::temp_directory_path() / ("burn-h5dump-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string file = (dir / "burn_sample.h5").string();
  save(file, test::h5_sample(), {.recorder = "hdf5"});
  const std::string out = (dir / "dump.txt").string();
  ASSERT_EQ(std::system(("cd '" + dir.string() + "' && '" + h5dump + "' burn_sample.h5 > dump.txt").c_str()), 0);
  std::string dump = read_text(out);
  const std::string version = "\"" BURN_RECORD_VERSION "\"";
  for (size_t at = dump.find(version); at != std::string::npos; at = dump.find(version, at)) {
    dump.replace(at, version.size(), "\"@BURN_VERSION@\"");
  }
  EXPECT_EQ(dump, read_text(kFixtures + "/burn_sample.h5dump"));
  fs::remove_all(dir);
}

// A tensor of `dtype` whose every byte depends on its position (bools 0/1), so that a piece read
// to the wrong place or from the wrong chunk shows.
TensorData patterned(DType dtype, const Shape& shape, uint32_t seed) {
  TensorData t(shape, dtype);
  auto* b = static_cast<uint8_t*>(t.raw());
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < t.bytes().size(); ++i) {
    x = x * 1664525u + 1013904223u;
    b[i] = dtype == DType::Bool ? static_cast<uint8_t>((x >> 24) & 1) : static_cast<uint8_t>(x >> 24);
  }
  return t;
}

// Reads that bypass HDF5 (contiguous datasets, unfiltered chunks that are runs of the tensor) give
// the bytes that were saved, for every dtype and every chunk shape the writer makes (whole rows,
// one row cut in pieces, clipped edge chunks), whole and entry by entry; deflated files (read by
// HDF5) give the same.
TEST(Hdf5, DirectReadsAreExactForEveryDtypeAndChunkShape) {
  const fs::path dir = fs::temp_directory_path() / ("burn-hdf5-direct-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  Record r;
  uint32_t seed = 0;
  for (DType d : kAllDTypes) {
    const std::string name = std::string(dtype_name(d));
    const int64_t row = static_cast<int64_t>((3u << 19) / dtype_size(d)) + 3;  // > 1 MiB: rows are cut
    r.set(name + ".scalar", patterned(d, Shape{}, ++seed));
    r.set(name + ".empty", patterned(d, Shape{0, 5}, ++seed));
    r.set(name + ".small", patterned(d, Shape{3, 5, 7}, ++seed));
    r.set(name + ".rows",
          patterned(d, Shape{(int64_t{3} << 20) / static_cast<int64_t>(dtype_size(d)) / 64 + 1, 64}, ++seed));
    r.set(name + ".long_rows", patterned(d, Shape{2, row}, ++seed));
    r.set(name + ".deep", patterned(d, Shape{2, 3, 70001}, ++seed));
  }
  for (int level : {0, 1}) {
    const std::string f = (dir / ("direct" + std::to_string(level) + ".h5")).string();
    save(f, r, {.compression_level = level});
    const Record back = load(f);
    EXPECT_EQ(test::first_difference(back, r), "") << "level " << level;
    auto reader = open(f);
    for (const char* path : {"f16.long_rows", "bool.rows", "i64.scalar", "u8.deep"}) {
      const TensorData t = reader->read_tensor(path);
      EXPECT_TRUE(t.bytes().size() == r.at(path).tensor().bytes().size() &&
                  std::memcmp(t.raw(), r.at(path).tensor().raw(), t.bytes().size()) == 0)
          << path << " at level " << level;
    }
  }
  fs::remove_all(dir);
}

TEST(Hdf5, ReadsAFileWrittenByH5py) {
  auto reader = open(kFixtures + "/h5py_written.h5");
  std::vector<std::string> paths;
  for (const auto& e : reader->entries()) paths.push_back(e.path);
  // h5py does not track creation order: names come in name order.
  EXPECT_EQ(paths, (std::vector<std::string>{"model", "model.d", "model.h", "model.i", "model.m", "model.sub",
                                             "model.sub.empty", "model.u", "model.w", "name", "scalar"}));
  const Record r = reader->read_all();
  EXPECT_EQ(r.at("model.w").tensor().shape(), (Shape{3, 4}));
  EXPECT_EQ(r.at("model.w").tensor().to_vec<float>()[11], 11.0f / 8);
  EXPECT_EQ(r.at("model.h").tensor().dtype(), DType::F16);
  EXPECT_EQ(r.at("model.h").tensor().to_f64_vec(), (std::vector<double>{1.5, -2.0, 65504.0}));
  EXPECT_EQ(r.at("model.d").tensor().to_vec<double>(), (std::vector<double>{M_PI, -1e-300}));  // chunked + gzip
  EXPECT_EQ(r.at("model.i").tensor().to_vec<int64_t>(), (std::vector<int64_t>{-5, 7}));
  EXPECT_EQ(r.at("model.m").tensor().to_vec<bool>(), (std::vector<bool>{true, false, true, true}));
  EXPECT_EQ(r.at("model.u").tensor().to_vec<uint8_t>(), (std::vector<uint8_t>{0, 255}));
  EXPECT_EQ(r.at("scalar").tensor().shape(), Shape{});
  EXPECT_EQ(r.at("scalar").tensor().to_vec<float>(), std::vector<float>{2.5f});
  EXPECT_EQ(r.at("name").as_string(), "h5py text");
  EXPECT_EQ(r.at("model.sub.empty").group().size(), 0u);
  EXPECT_EQ(r.metadata().producer, "");  // no burn attributes: defaults
}

}  // namespace
