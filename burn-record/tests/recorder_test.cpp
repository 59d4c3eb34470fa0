// save/load/open through the recorder plugins: choice by name and extension, atomic replacement,
// lazy reads, the plugin kind and its version check, `burn plugins`.
#include <gtest/gtest.h>

#include <linux/magic.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "burn/record/file.hpp"
#include "burn/record/recorder.hpp"
#include "file_bytes.hpp"
#include "load_error.hpp"
#include "sample_record.hpp"

namespace {

namespace fs = std::filesystem;
using namespace burn;
using namespace burn::record;

// A fresh folder per test, removed at the end.
class RecorderApi : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("burn-record-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  size_t files_in_dir() const { return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), {})); }
  fs::path dir_;
};

using burn::record::test::error_of;

TEST_F(RecorderApi, InTreeRecordersArePluginsOfKindRecorder) {
  const auto names = recorder_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "json"), names.end());
  const auto r = recorder("json");
  EXPECT_EQ(r->name(), "json");
  EXPECT_EQ(r->extensions(), std::vector<std::string>{".json"});
  EXPECT_EQ(recorder("json"), r);  // one instance per name
  bool listed = false;
  for (const auto& p : plugins::report()) {
    if (p.name == "json" && p.kind == "recorder" && p.selected) listed = true;
  }
  EXPECT_TRUE(listed);
}

TEST_F(RecorderApi, ExtensionPicksTheRecorder) {
  EXPECT_EQ(recorder_for_path(file("m.json"))->name(), "json");
  EXPECT_EQ(recorder_for_path(file("M.JSON"))->name(), "json");
  const std::string e = error_of([&] { recorder_for_path(file("m.weird")); });
  EXPECT_NE(e.find("no recorder for the extension of '" + file("m.weird") + "'; known: "), std::string::npos) << e;
  EXPECT_NE(e.find(".json (json)"), std::string::npos) << e;
  // A name alone is not an extension.
  EXPECT_NE(error_of([&] { recorder_for_path(file(".json")); }), "");
}

TEST_F(RecorderApi, JsonRoundTripsEveryKindAndDType) {
  const Record r = test::sample_record();
  save(file("m.json"), r);
  const Record back = load(file("m.json"));
  EXPECT_EQ(test::first_difference(back, r), "");
  EXPECT_EQ(back.metadata().producer, "burn-record tests");
  EXPECT_EQ(back.metadata().burn_version, BURN_RECORD_VERSION);
  EXPECT_EQ(back.metadata().dtype_policy, "keep");
  EXPECT_EQ(back.metadata().format_version, kRecordFormatVersion);
  EXPECT_EQ(back.metadata().extra, r.metadata().extra);
  // Values, not just equality of two decodings.
  EXPECT_EQ(back.at("blocks.0.attn.q.weight").tensor().to_vec<float>()[2], 0.1f);
  EXPECT_EQ(back.at("blocks.1.count").tensor().to_vec<int64_t>()[4], 9007199254740993);
  EXPECT_EQ(back.at("optim.name").as_string(), "adam \"w\"\n\ttab é ✓");
  EXPECT_EQ(back.at("empty_group").group().size(), 0u);
  EXPECT_EQ(files_in_dir(), 1u);  // no temporary file left
}

TEST_F(RecorderApi, OpenListsEntriesFromTheIndexAndReadsOne) {
  save(file("m.json"), test::sample_record());
  auto reader = open(file("m.json"));
  const auto& entries = reader->entries();
  ASSERT_EQ(entries.size(), 24u);
  EXPECT_EQ(entries[0].path, "blocks");
  EXPECT_EQ(entries[0].kind, EntryKind::Group);
  const EntryInfo* w = reader->find("blocks.0.norm.gamma");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->kind, EntryKind::Tensor);
  EXPECT_EQ(w->dtype, DType::F16);
  EXPECT_EQ(w->shape, (Shape{3, 2}));
  EXPECT_EQ(w->bytes, 12u);
  EXPECT_EQ(reader->read("optim.step").as_int(), 1234567890123);
  const TensorData g = reader->read_tensor("blocks.0.norm.gamma", DType::F32);
  EXPECT_EQ(g.dtype(), DType::F32);
  EXPECT_EQ(g.to_vec<float>(), (std::vector<float>{1.0f, -2.0f, 65504.0f, 5.9604645e-08f, -0.0f, INFINITY}));
  // A group reads as a record of everything below it.
  const Value optim = reader->read("optim");
  EXPECT_EQ(optim.group().at("lr").as_float(), 3e-4);
  EXPECT_EQ(error_of([&] { reader->read("optim.missing"); }),
            "[record.read] " + file("m.json") + ": entry 'optim.missing': no such entry in the file");
}

TEST_F(RecorderApi, SaveReplacesTheTargetAtomically) {
  Record a, b;
  a.set("v", Value(int64_t{1}));
  b.set("v", Value(int64_t{2}));
  save(file("m.json"), a);
  struct stat st {};
  ASSERT_EQ(::stat(file("m.json").c_str(), &st), 0);
  const ino_t first = st.st_ino;
  EXPECT_EQ(st.st_mode & 0777, 0666u & ~022u);  // not mkstemp's 0600 (the tests run with umask 022)
  save(file("m.json"), b);
  ASSERT_EQ(::stat(file("m.json").c_str(), &st), 0);
  EXPECT_NE(st.st_ino, first);  // a new file renamed over the old one, not rewritten in place
  EXPECT_EQ(load(file("m.json")).at("v").as_int(), 2);
  EXPECT_EQ(files_in_dir(), 1u);
}

TEST_F(RecorderApi, FailedSaveLeavesTheTargetAndNoTemporaryFile) {
  Record good, bad;
  good.set("v", Value(int64_t{7}));
  bad.set("s", Value(std::string("\xff\xfe not utf-8")));
  save(file("m.json"), good);
  const std::string e = error_of([&] { save(file("m.json"), bad); });
  EXPECT_NE(e.find("entry 's': text is not valid UTF-8"), std::string::npos) << e;
  EXPECT_EQ(load(file("m.json")).at("v").as_int(), 7);
  EXPECT_EQ(files_in_dir(), 1u);
  EXPECT_NE(error_of([&] { save(file("no-such-dir/m.json"), good); }).find("cannot create a temporary file"),
            std::string::npos);
}

TEST_F(RecorderApi, RecorderByNameOverridesTheExtension) {
  Record r;
  r.set("x", Value(1.25));
  save(file("m.dat"), r, {.recorder = "json"});
  EXPECT_EQ(load(file("m.dat"), {.recorder = "json"}).at("x").as_float(), 1.25);
  EXPECT_NE(error_of([&] { save(file("m.dat"), r, {.recorder = "nope"}); }).find("no recorder plugin named 'nope'"),
            std::string::npos);
}

// A recorder linked into the program (no plugin) is found by name and by its extension.
class MemoryRecorder final : public Recorder {
 public:
  std::string name() const override { return "memtest"; }
  std::vector<std::string> extensions() const override { return {".mem", ".json.mem"}; }
  void write(const std::string& path, const Record& r, const Metadata&, const SaveOptions&) const override {
    std::ofstream(path) << r.at("x").as_int();
  }
  std::unique_ptr<RecordReader> open(const std::string&) const override { return nullptr; }
};

TEST_F(RecorderApi, RegisteredRecorderJoinsTheChoice) {
  register_recorder(std::make_shared<MemoryRecorder>());
  EXPECT_EQ(recorder_for_path(file("a.mem"))->name(), "memtest");
  EXPECT_EQ(recorder_for_path(file("a.json.mem"))->name(), "memtest");  // the longest suffix wins
  EXPECT_EQ(recorder_for_path(file("a.json"))->name(), "json");
  Record r;
  r.set("x", Value(int64_t{42}));
  save(file("a.mem"), r);
  std::ifstream in(file("a.mem"));
  int64_t v = 0;
  in >> v;
  EXPECT_EQ(v, 42);
}

// The example at the top of burn-record/README.md, with its file in the test's folder.
TEST_F(RecorderApi, ReadmeExample) {
  const std::string model = file("model.bpz");
  Record r;
  r.set("blocks.0.attn.q.weight", TensorData::from_vector<float>({1, 2, 3, 4}, {2, 2}));
  r.set("optim.step", Value(int64_t{1200}));
  r.set("optim.name", Value("adam"));
  r.metadata().producer = "my-trainer";
  save(model, r, {.precision = Precision::F16});
  Record back = load(model, {.float_dtype = DType::F32});
  auto reader = open(model);
  std::vector<std::string> paths;
  for (const EntryInfo& e : reader->entries()) paths.push_back(e.path);
  TensorData w = reader->read_tensor("blocks.0.attn.q.weight");

  EXPECT_EQ(back.at("blocks.0.attn.q.weight").tensor().to_vec<float>(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(w.dtype(), DType::F16);
  EXPECT_EQ(back.metadata().producer, "my-trainer");
  EXPECT_EQ(back.metadata().dtype_policy, "f16");
  EXPECT_EQ(paths, (std::vector<std::string>{"blocks", "blocks.0", "blocks.0.attn", "blocks.0.attn.q",
                                             "blocks.0.attn.q.weight", "optim", "optim.step", "optim.name"}));
}

TEST(AtomicFile, UncommittedTemporaryIsRemoved) {
  const fs::path dir = fs::temp_directory_path() / ("burn-atomic-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string temp;
  {
    AtomicFile f((dir / "t.bin").string());
    temp = f.path();
    EXPECT_EQ(fs::path(temp).parent_path(), dir);
    EXPECT_EQ(fs::path(temp).filename().string().rfind(".t.bin.tmp-", 0), 0u) << temp;
    EXPECT_TRUE(fs::exists(temp));
  }
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_FALSE(fs::exists(dir / "t.bin"));
  fs::remove_all(dir);
}

// ---- the replaced target, held across the rename and closed in the background ----

// Open descriptors of this process (the listing's own descriptor counted every time alike).
size_t open_descriptors() { return static_cast<size_t>(std::distance(fs::directory_iterator("/proc/self/fd"), {})); }

// Where this process's descriptors point ("/x/y (deleted)" for an unlinked file).
std::vector<std::string> descriptor_targets() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    out.push_back(fs::read_symlink(e.path(), ec).string());
  }
  return out;
}

// One commit of an AtomicFile holding `text`.
void commit_text(const std::string& target, const std::string& text) {
  AtomicFile f(target);
  test::write_bytes(f.path(), text);
  f.commit();
}

std::vector<std::string> g_at_rename;  // descriptor_targets() when the save hook saw the rename
void record_at_rename(SavePhase p) {
  if (p == SavePhase::Renamed) g_at_rename = descriptor_targets();
}

// Replaced files of at least this size are held and closed in the background (file.cpp's threshold,
// 1 MiB of allocated blocks); smaller ones are freed inside the rename.
const std::string kBig(1u << 21, 'o');

TEST_F(RecorderApi, ReplacedTargetIsHeldAcrossTheRenameThenClosed) {
  const std::string target = file("t.bin");
  commit_text(target, kBig);
  record::detail::drain_deferred_closes();
  const size_t before = open_descriptors();
  record::detail::set_save_hook(record_at_rename);
  commit_text(target, "new contents");
  record::detail::set_save_hook(nullptr);
  // Right after the rename the old file is unlinked but still open here: rename() did not free it
  // (only on the local filesystems file.cpp lists; this checks the two usual for /tmp).
  struct statfs fs {};
  ASSERT_EQ(::statfs(target.c_str(), &fs), 0);
  if (fs.f_type == EXT4_SUPER_MAGIC || fs.f_type == TMPFS_MAGIC) {
    EXPECT_EQ(std::count(g_at_rename.begin(), g_at_rename.end(), target + " (deleted)"), 1);
  }
  record::detail::drain_deferred_closes();
  EXPECT_EQ(open_descriptors(), before);
  EXPECT_EQ(test::read_bytes(target), "new contents");
  for (const std::string& t : descriptor_targets()) EXPECT_EQ(t.find(target), std::string::npos) << t;
  EXPECT_EQ(files_in_dir(), 1u);
}

TEST_F(RecorderApi, SavesOverExistingTargetsLeaveNoDescriptorsOpen) {
  // More saves in a row than the closer queues: the rest close synchronously.
  const std::string target = file("t.bpz");
  save(target, test::sample_record());
  record::detail::drain_deferred_closes();
  const size_t before = open_descriptors();
  for (int i = 0; i < 12; ++i) commit_text(file("many.bin"), std::string((1u << 21) + i, 'a' + i % 26));
  for (int i = 0; i < 3; ++i) save(target, test::sample_record());
  record::detail::drain_deferred_closes();
  EXPECT_EQ(open_descriptors(), before);
  EXPECT_EQ(test::read_bytes(file("many.bin")), std::string((1u << 21) + 11, 'l'));
  EXPECT_EQ(test::first_difference(load(target), test::sample_record()), "");
  EXPECT_EQ(files_in_dir(), 2u);
}

TEST_F(RecorderApi, SaveOverAMissingOrNonRegularTargetHoldsNothing) {
  record::detail::drain_deferred_closes();
  const size_t before = open_descriptors();
  // Missing.
  commit_text(file("new.bin"), "first");
  // A FIFO: never opened (an open for reading would wait for a writer); the rename replaces it.
  ASSERT_EQ(::mkfifo(file("fifo").c_str(), 0600), 0);
  commit_text(file("fifo"), "was a fifo");
  // A symlink: the rename replaces the link itself, never the file it points to.
  commit_text(file("pointee.bin"), "pointee");
  fs::create_symlink(file("pointee.bin"), file("link.bin"));
  commit_text(file("link.bin"), "was a link");
  // A folder: rename() refuses it; nothing stays open, no temporary file stays.
  fs::create_directory(file("folder"));
  EXPECT_THROW(commit_text(file("folder"), "x"), RecordError);
  record::detail::drain_deferred_closes();
  EXPECT_EQ(open_descriptors(), before);
  EXPECT_EQ(test::read_bytes(file("new.bin")), "first");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(file("fifo"))));
  EXPECT_EQ(test::read_bytes(file("fifo")), "was a fifo");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(file("link.bin"))));
  EXPECT_EQ(test::read_bytes(file("link.bin")), "was a link");
  EXPECT_EQ(test::read_bytes(file("pointee.bin")), "pointee");
  EXPECT_TRUE(fs::is_directory(file("folder")));
  EXPECT_EQ(files_in_dir(), 5u);
}

TEST_F(RecorderApi, ForkedChildSavesWithItsOwnCloser) {
  const std::string a = file("a.bin"), b = file("b.bin");
  commit_text(a, kBig);
  commit_text(b, kBig);
  commit_text(a, "a1");  // the closer's worker exists in the parent, maybe still closing
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::alarm(20);  // a hang (a lock or a worker copied from the parent) fails instead of blocking ctest
    record::detail::drain_deferred_closes();
    const size_t before = open_descriptors();
    for (int i = 0; i < 6; ++i) commit_text(b, i < 5 ? kBig : "b6");
    record::detail::drain_deferred_closes();
    ::_exit(open_descriptors() == before && test::read_bytes(b) == "b6" ? 0 : 1);
  }
  commit_text(a, "a2");
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  record::detail::drain_deferred_closes();
  EXPECT_EQ(test::read_bytes(a), "a2");
  EXPECT_EQ(test::read_bytes(b), "b6");
}

TEST_F(RecorderApi, SmallReplacedFilesAreNotHeld) {
  // A config-sized file is freed inside the rename (cheap): no descriptor is held, no thread needed.
  const std::string target = file("small.json");
  commit_text(target, std::string(100000, 's'));
  record::detail::set_save_hook(record_at_rename);
  commit_text(target, "new");
  record::detail::set_save_hook(nullptr);
  EXPECT_EQ(std::count(g_at_rename.begin(), g_at_rename.end(), target + " (deleted)"), 0);
  EXPECT_EQ(test::read_bytes(target), "new");
}

// Waits up to `seconds` for `pid`; kills it and returns -1 when it is still running then.
int wait_bounded(pid_t pid, int seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 || std::chrono::steady_clock::now() > until) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    ::usleep(1000);
  }
}

// A process forks right after its first save over a large file started the closer's worker (that
// thread may still be starting: inside pthread_create's or the sanitizer's bookkeeping) and the
// forked process saves at once, starting its own worker. Many rounds, about 2.5 s; a hang fails the
// round after 10 s instead of blocking ctest. The files live in /dev/shm when it is tmpfs (no disk:
// fsync costs nothing, so more rounds fit).
TEST_F(RecorderApi, ForkRightAfterTheCloserStartsDoesNotHang) {
  fs::path where = dir_;
  struct statfs shm {};
  if (::statfs("/dev/shm", &shm) == 0 && shm.f_type == TMPFS_MAGIC && ::access("/dev/shm", W_OK) == 0) {
    where = fs::path("/dev/shm") / dir_.filename();
    fs::create_directories(where);
  }
  struct RemoveAtEnd {  // on every way out, a failed ASSERT included (TearDown removes dir_ only)
    fs::path p;
    ~RemoveAtEnd() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } remove_at_end{where};
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2500);
  int rounds = 0, failed = 0, hung = 0;
  while (std::chrono::steady_clock::now() < until && rounds < 5000) {
    const std::string a = (where / ("a" + std::to_string(rounds))).string();
    const std::string b = (where / ("b" + std::to_string(rounds))).string();
    std::ofstream(a, std::ios::binary) << kBig;
    std::ofstream(b, std::ios::binary) << kBig;
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::alarm(10);
      commit_text(a, "a");  // the first save over a large file in this process: starts its worker
      const pid_t grandchild = ::fork();
      if (grandchild == 0) {
        ::alarm(10);
        commit_text(b, "b");  // starts the grandchild's own worker
        record::detail::drain_deferred_closes();
        ::_exit(test::read_bytes(b) == "b" ? 0 : 1);
      }
      int status = 0;
      if (grandchild < 0 || ::waitpid(grandchild, &status, 0) != grandchild) ::_exit(3);
      record::detail::drain_deferred_closes();
      ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 2);
    }
    const int status = wait_bounded(child, 15);
    if (status == -1 || (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) ||
        (WIFEXITED(status) && WEXITSTATUS(status) == 2)) {
      ++hung;
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      ++failed;
    }
    ++rounds;
    fs::remove(a);
    fs::remove(b);
    if (hung) break;  // one is enough: each costs 10 s
  }
  std::printf("%d rounds, %d hung, %d failed\n", rounds, hung, failed);
  EXPECT_EQ(hung, 0) << "of " << rounds << " rounds";
  EXPECT_EQ(failed, 0) << "of " << rounds << " rounds";
}

TEST(Precision, NamesParseBack) {
  for (Precision p : {Precision::Keep, Precision::F32, Precision::F16, Precision::BF16, Precision::F64}) {
    EXPECT_EQ(parse_precision(precision_name(p)), p);
  }
  EXPECT_EQ(error_of([] { parse_precision("f8"); }),
            "[record.precision] unknown precision 'f8'; expected keep, f32, f16, bf16 or f64");
}

}  // namespace
