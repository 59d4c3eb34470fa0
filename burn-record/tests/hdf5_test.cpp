// The hdf5 recorder against h5py and h5dump, through expectations committed by
// fixtures/hdf5/make_fixtures.py: h5py reads burn's files with the same names, shapes, dtypes and
// values; h5dump prints the committed dump; burn reads a file written by h5py.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "burn/record/recorder.hpp"
#include "file_bytes.hpp"
#include "h5_sample.hpp"
#include "recorder_fixture.hpp"
#include "sample_record.hpp"

namespace {

namespace fs = std::filesystem;
using namespace burn;
using namespace burn::record;

const std::string kFixtures = BURN_RECORD_FIXTURES "/hdf5";

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
  std::istringstream lines(test::read_bytes(kFixtures + "/burn_sample.h5py.txt"));
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
  std::string dump = test::read_bytes(out);
  const std::string version = "\"" BURN_RECORD_VERSION "\"";
  for (size_t at = dump.find(version); at != std::string::npos; at = dump.find(version, at)) {
    dump.replace(at, version.size(), "\"@BURN_VERSION@\"");
  }
  // The entry index is an attribute of bytes h5dump prints too; its values are file addresses, which
  // move with libhdf5 and burn versions, so the committed dump leaves it out (make_fixtures.py too).
  const std::string index = "\n   ATTRIBUTE \"burn.index\" {\n      DATATYPE  H5T_STD_U8LE\n";
  const size_t begin = dump.find(index), end = dump.find("\n   }\n", begin + 1);
  ASSERT_NE(begin, std::string::npos) << dump;
  ASSERT_NE(end, std::string::npos);
  dump.erase(begin, end + 5 - begin);
  EXPECT_EQ(dump, test::read_bytes(kFixtures + "/burn_sample.h5dump"));
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

// ---- the entry index (burn.index) ----

// Opens `file` read-write with HDF5's C API, as h5py would, runs `edit` on it and closes it.
void edit_h5(const std::string& file, const std::function<void(hid_t)>& edit) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  edit(f);
  ASSERT_GE(H5Fclose(f), 0);
}

// A contiguous f32 dataset as h5py makes one (no burn attributes).
void put_f32(hid_t file, const char* path, const std::vector<float>& v) {
  const hsize_t n = v.size();
  const hid_t space = H5Screate_simple(1, &n, nullptr);
  const hid_t ds = H5Dcreate2(file, path, H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(ds, 0) << path;
  ASSERT_GE(H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
  H5Dclose(ds);
  H5Sclose(space);
}

std::string get_index(hid_t file) {
  const hid_t a = H5Aopen(file, "burn.index", H5P_DEFAULT);
  const hid_t space = H5Aget_space(a);
  std::string bytes(static_cast<size_t>(H5Sget_simple_extent_npoints(space)), '\0');
  H5Aread(a, H5T_NATIVE_UINT8, bytes.data());
  H5Sclose(space);
  H5Aclose(a);
  return bytes;
}

void set_index(hid_t file, const std::string& bytes) {
  ASSERT_GE(H5Adelete(file, "burn.index"), 0);
  const hsize_t n = bytes.size();
  const hid_t space = H5Screate_simple(1, &n, nullptr);
  const hid_t a = H5Acreate2(file, "burn.index", H5T_STD_U8LE, space, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(H5Awrite(a, H5T_NATIVE_UINT8, bytes.data()), 0);
  H5Aclose(a);
  H5Sclose(space);
}

std::string le64(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[static_cast<size_t>(i)] = static_cast<char>(v >> (8 * i));
  return s;
}

// The index with its trailing XXH3 made right again after a change.
std::string rehashed(std::string bytes) {
  bytes.replace(bytes.size() - 8, 8, le64(XXH3_64bits(bytes.data(), bytes.size() - 8)));
  return bytes;
}

std::string open_error(const std::string& file) {
  try {
    load(file);
  } catch (const RecordError& e) {
    return e.what();
  }
  return "";
}

std::vector<std::string> entry_lines(RecordReader& reader) {
  std::vector<std::string> out;
  for (const auto& e : reader.entries()) {
    std::string line = e.path + " " + std::string(entry_kind_name(e.kind)) + " " + std::to_string(e.bytes);
    if (e.kind == EntryKind::Tensor) line += " " + std::string(dtype_name(e.dtype)) + " " + python_shape(e.shape);
    out.push_back(line);
  }
  return out;
}

class Hdf5Index : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_);
    std::vector<float> big(300'000);  // 1.2 MB: two chunks
    for (size_t i = 0; i < big.size(); ++i) big[i] = 0.5f + static_cast<float>(i);
    r_ = test::h5_sample();
    r_.set("layer.big", TensorData::from_vector<float>(big, {300'000}));
    r_.set("layer.w", TensorData::from_vector<float>({1, 2, 3}, {3}));
    r_.set("solo.v", TensorData::from_vector<float>({7, 8}, {2}));  // the only link of its group
    r_.set("ints.x", TensorData::from_vector<int64_t>({4, -5}, {2}));
    save(file_, r_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // An edit as h5py users make: the file is no longer the one burn wrote, so its burn.format and
  // burn.structure_xxh3 go (a file without them is read as another tool's file).
  void edit(const std::function<void(hid_t)>& change) {
    edit_h5(file_, [&](hid_t f) {
      change(f);
      H5Adelete(f, "burn.format");
      H5Adelete(f, "burn.structure_xxh3");
    });
  }

  // Without BURN_HDF5_INDEX=require the file reads (through the walk), giving `want`; with it, the
  // reader says why the index was not used.
  void expect_stale(const Record& want, const std::string& why) {
    {
      test::ScopedEnv require("BURN_HDF5_INDEX", "require");
      const std::string e = open_error(file_);
      EXPECT_EQ(e.rfind("[hdf5] " + file_ + ": the entry index burn.index is not used: ", 0), 0u) << e;
      EXPECT_NE(e.find(why), std::string::npos) << "got: " << e << "\nwant: " << why;
    }
    Record got = load(file_);
    EXPECT_EQ(test::first_difference(got, want), "");
  }

  fs::path dir_ = fs::temp_directory_path() / ("burn-hdf5-index-" + std::to_string(::getpid()));
  std::string file_ = (dir_ / "m.h5").string();
  Record r_;
};

// A file burn writes is read from its index (BURN_HDF5_INDEX=require would refuse otherwise), with
// the same entries, in the same order, as the walk of every object finds, and the same values.
TEST_F(Hdf5Index, FilesBurnWritesAreReadFromTheIndex) {
  std::vector<std::string> indexed, walked;
  {
    test::ScopedEnv require("BURN_HDF5_INDEX", "require");
    auto reader = open(file_);
    indexed = entry_lines(*reader);
    EXPECT_EQ(test::first_difference(reader->read_all(), r_), "");
    EXPECT_EQ(reader->read_tensor("layer.big").to_vec<float>()[299'999], 0.5f + 299'999);
  }
  {
    test::ScopedEnv off("BURN_HDF5_INDEX", "off");
    auto reader = open(file_);
    walked = entry_lines(*reader);
    EXPECT_EQ(test::first_difference(reader->read_all(), r_), "");
  }
  EXPECT_EQ(indexed, walked);
  EXPECT_EQ(indexed.size(), r_.flatten().size());
  // Deflated files are indexed too; their datasets are still read (and checked) through HDF5.
  save(file_, r_, {.compression_level = 4});
  test::ScopedEnv require("BURN_HDF5_INDEX", "require");
  EXPECT_EQ(test::first_difference(load(file_), r_), "");
}

// A model with thousands of entries: its index is far past the 64 KiB a compact HDF5 attribute holds,
// and is still written, found and used.
TEST_F(Hdf5Index, AnIndexLargerThan64KiBIsWrittenAndUsed) {
  Record r;
  for (int i = 0; i < 3000; ++i)
    r.set("encoder.blocks_with_a_rather_long_name." + std::to_string(i) + ".attention.weight",
          TensorData::from_vector<float>({static_cast<float>(i), -1.0f}, {2}));
  save(file_, r);
  test::ScopedEnv require("BURN_HDF5_INDEX", "require");
  auto reader = open(file_);
  EXPECT_EQ(reader->entries().size(), r.flatten().size());
  EXPECT_EQ(reader->read_tensor("encoder.blocks_with_a_rather_long_name.2999.attention.weight").to_vec<float>(),
            (std::vector<float>{2999.0f, -1.0f}));
  EXPECT_EQ(test::first_difference(reader->read_all(), r), "");
}

// Files without an index (written by h5py, or by burn before it wrote one) are walked.
TEST_F(Hdf5Index, FilesWithoutOneAreWalked) {
  edit_h5(file_, [](hid_t f) { ASSERT_GE(H5Adelete(f, "burn.index"), 0); });
  expect_stale(r_, "the file has none");
  test::ScopedEnv require("BURN_HDF5_INDEX", "require");
  EXPECT_NE(open_error(kFixtures + "/h5py_written.h5").find("the file has none"), std::string::npos);
}

TEST_F(Hdf5Index, ADeletedDatasetIsNoticed) {
  edit([](hid_t f) { ASSERT_GE(H5Ldelete(f, "/layer/w", H5P_DEFAULT), 0); });
  Record want = r_;
  want.erase("layer.w");
  expect_stale(want, "the group 'layer' has");
}

TEST_F(Hdf5Index, AnAddedDatasetIsNoticed) {
  edit([](hid_t f) { put_f32(f, "/layer/added", {-1, -2}); });
  Record want = r_;
  want.set("layer.added", TensorData::from_vector<float>({-1, -2}, {2}));
  expect_stale(want, "the group 'layer' has");
}

// Deleted and made again under the same name, with the same shape: the new values are read, never
// the old ones the index points to.
TEST_F(Hdf5Index, AReplacedDatasetIsNoticed) {
  edit([](hid_t f) {
    ASSERT_GE(H5Ldelete(f, "/layer/w", H5P_DEFAULT), 0);
    put_f32(f, "/layer/w", {30, 20, 10});
  });
  Record want = r_;
  want.set("layer.w", TensorData::from_vector<float>({30, 20, 10}, {3}));
  expect_stale(want, "entry 'layer.w' was removed, replaced or moved");
}

// The only link of a group: HDF5 then restarts the group's creation order at 0 and may reuse the
// object's address, so the link looks the same; the object's header does not.
TEST_F(Hdf5Index, AReplacedOnlyChildIsNoticed) {
  edit([](hid_t f) {
    ASSERT_GE(H5Ldelete(f, "/solo/v", H5P_DEFAULT), 0);
    put_f32(f, "/solo/v", {-7, -8});
  });
  Record want = r_;
  want.set("solo.v", TensorData::from_vector<float>({-7, -8}, {2}));
  expect_stale(want, "'solo.v'");
}

// A damaged index is an error naming the file (and the entry, where one is at fault), never a
// silent walk: its checksum, then every field and place once the checksum is made right.
TEST_F(Hdf5Index, ADamagedIndexIsAnErrorNamingTheEntry) {
  std::string good;
  edit_h5(file_, [&](hid_t f) { good = get_index(f); });
  ASSERT_GT(good.size(), 100u);
  const std::string where = "[hdf5] " + file_ + ": ";
  auto with = [&](const std::string& bytes) {
    edit_h5(file_, [&](hid_t f) { set_index(f, bytes); });
    return open_error(file_);
  };
  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x40;
  EXPECT_EQ(with(flipped), where + "attribute burn.index: checksum mismatch (the entry index is damaged)");
  // layer.w's only place: its file offset, then 12 bytes, at tensor byte 0, stored 12.
  const std::string w_place = le64(12) + le64(0) + le64(12);
  const size_t w_at = good.find(w_place) - 8;
  ASSERT_NE(good.find(w_place), std::string::npos);
  const uint64_t w_file = [&] {
    uint64_t v = 0;
    std::memcpy(&v, good.data() + w_at, 8);
    return v;
  }();
  // layer.big's first chunk: 600,000 bytes at tensor byte 0.
  const size_t big_at = good.find(le64(600'000) + le64(0) + le64(600'000)) - 8;
  uint64_t big_file = 0;
  std::memcpy(&big_file, good.data() + big_at, 8);
  std::string bad = good;
  bad.replace(w_at, 8, le64(big_file + 4));
  const std::string e = with(rehashed(bad));
  EXPECT_EQ(e.rfind(where + "entry '", 0), 0u) << e;
  EXPECT_NE(e.find("overlaps the data of entry '"), std::string::npos) << e;
  EXPECT_TRUE(e.find("'layer.w'") != std::string::npos && e.find("'layer.big'") != std::string::npos) << e;
  bad = good;
  bad.replace(w_at, 8, le64(uint64_t{1} << 40));
  EXPECT_EQ(with(rehashed(bad)).rfind(where + "entry 'layer.w': its data at bytes [1099511627776, ", 0), 0u);
  bad = good;
  bad.replace(w_at + 8, 8, le64(8));  // 8 of its 12 bytes
  EXPECT_EQ(with(rehashed(bad)),
            where + "entry 'layer.w': attribute burn.index places cover 8 bytes, its shape has 12");
  bad = good;
  bad.replace(w_at - 4, 4, std::string("\x00\x10\x00\x00", 4));  // 4096 places
  EXPECT_EQ(with(rehashed(bad)), where + "entry 'layer.w': attribute burn.index gives it 4096 places");
  bad = good;
  bad.insert(bad.size() - 8, "xx");
  EXPECT_EQ(with(rehashed(bad)), where + "attribute burn.index has 2 bytes after its last entry");
  bad = good.substr(0, 40);
  EXPECT_NE(with(rehashed(bad)).find(where + "entry '"), std::string::npos);  // ends inside an entry
  // Restored, the file reads again (from the index), bit for bit.
  with(good);
  test::ScopedEnv require("BURN_HDF5_INDEX", "require");
  EXPECT_EQ(test::first_difference(load(file_), r_), "");
  (void)w_file;
}

}  // namespace
