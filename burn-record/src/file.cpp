// The atomic temporary file behind every save, and checked file reads and writes.
#include "burn/record/file.hpp"

#include <fcntl.h>
#ifdef __linux__
#include <linux/magic.h>
#include <sys/statfs.h>
#endif
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <utility>
#include <vector>

namespace burn::record {

RecordError record_error(std::string_view op, const std::string& file, std::string_view entry,
                         const std::string& problem) {
  std::string msg = file + ": ";
  if (!entry.empty()) {
    // Entry names come from files: keep the message printable and short.
    std::string name;
    for (char c : entry.substr(0, 120)) name += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
    if (entry.size() > 120) name += "... (" + std::to_string(entry.size()) + " bytes)";
    msg += "entry '" + name + "': ";
  }
  return RecordError(std::string(op), msg + problem);
}

// True when s is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF),
// the text nlohmann's parser accepts.
bool valid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  auto cont = [&](size_t k, unsigned char lo = 0x80, unsigned char hi = 0xbf) {
    return i + k < n && p[i + k] >= lo && p[i + k] <= hi;
  };
  while (i < n) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0xc2 && c <= 0xdf && cont(1)) {
      i += 2;
      continue;
    }
    if (c == 0xe0 && cont(1, 0xa0) && cont(2)) {
      i += 3;
      continue;
    }
    if (((c >= 0xe1 && c <= 0xec) || c == 0xee || c == 0xef) && cont(1) && cont(2)) {
      i += 3;
      continue;
    }
    if (c == 0xed && cont(1, 0x80, 0x9f) && cont(2)) {
      i += 3;
      continue;
    }
    if (c == 0xf0 && cont(1, 0x90) && cont(2) && cont(3)) {
      i += 4;
      continue;
    }
    if (c >= 0xf1 && c <= 0xf3 && cont(1) && cont(2) && cont(3)) {
      i += 4;
      continue;
    }
    if (c == 0xf4 && cont(1, 0x80, 0x8f) && cont(2) && cont(3)) {
      i += 4;
      continue;
    }
    return false;
  }
  return true;
}

namespace {

std::string errno_text(int e) { return std::strerror(e); }

std::string folder_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string file_name_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The process umask without changing it (umask() would race with other threads creating files).
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
  }
  return 022;
}

std::atomic<void (*)(SavePhase)> g_save_hook{nullptr};

// ---- closing replaced targets off the save's path ----
//
// A rename over an existing target drops the old file's last link, and ext4 frees the old file's
// blocks inside rename() (about 0.1 s for 100 MB). commit() holds the old file open across the
// rename, so the freeing moves to the last close, and hands that descriptor to one lazily started
// worker thread. Design and fork() behaviour: docs/decisions.md, "Records".

// More queued than this and the saver closes its own (back-pressure; each queued descriptor keeps
// an old file's disk space).
constexpr size_t kMaxDeferredCloses = 4;

// Replaced files with fewer allocated bytes than this are freed inside the rename: cheap (a config
// or a small model), and a program that saves only such files never starts the worker.
constexpr uint64_t kMinHeldBytes = 1u << 20;

class DeferredCloser {
 public:
  // Once, after g_closer is set (the handlers use it).
  static void register_fork_handlers() { ::pthread_atfork(before_fork, parent_after_fork, child_after_fork); }

  void submit(int fd) {
    {
      std::lock_guard lock(m_);
      if (!stopping_ && queue_.size() < kMaxDeferredCloses && start_locked()) {
        queue_.push_back(fd);
        wake_.notify_one();
        return;
      }
    }
    ::close(fd);
  }

  void drain() {
    std::unique_lock lock(m_);
    idle_.wait(lock, [&] { return queue_.empty() && closing_ == 0; });
  }

  // Closes what is queued, joins the worker; later submits close synchronously.
  void shutdown() {
    std::unique_ptr<std::thread> worker;
    {
      std::lock_guard lock(m_);
      stopping_ = true;
      wake_.notify_all();
      worker = std::move(worker_);
      exiting_ = worker != nullptr;
    }
    if (worker && worker->joinable()) worker->join();
    std::lock_guard lock(m_);
    exiting_ = false;
    started_cv_.notify_all();
  }

 private:
  bool start_locked() {
    if (worker_) return true;
    // The worker blocks every signal: process-directed signals stay with the program's threads.
    sigset_t all, old;
    ::sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &old);
    try {
      worker_ = std::make_unique<std::thread>([this] { run(); });
    } catch (const std::exception&) {  // no thread (resource limits): the caller closes synchronously
    }
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return worker_ != nullptr;
  }

  void run() {
    ::pthread_setname_np(::pthread_self(), "burn-closer");
    std::unique_lock lock(m_);
    // From here on, whenever another thread holds m_ this one is waiting on wake_ or closing a
    // descriptor: it holds no lock of the C library's or a sanitizer's (see before_fork()).
    started_ = true;
    started_cv_.notify_all();
    for (;;) {
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left
      const int fd = queue_.front();
      queue_.pop_front();
      ++closing_;
      lock.unlock();
      ::close(fd);  // an error cannot matter: the file was already replaced
      lock.lock();
      --closing_;
      if (queue_.empty() && closing_ == 0) idle_.notify_all();
    }
  }

  // The lock is held across fork() so that the child sees a consistent queue. Before taking it for
  // good, it waits until a worker that was just created has reached run(): a thread that is still
  // starting may hold locks of the thread library's or of ASan's allocator and thread registry
  // (GCC 12's libasan has no fork handlers of its own); the child, which has no such thread, would
  // block on them forever at its first malloc or pthread_create. Likewise while shutdown() joins an
  // exiting worker.
  static void before_fork();
  static void parent_after_fork();
  // The child has no worker (only the forking thread survives) and its own copies of the queued
  // descriptors: it closes them, and starts a fresh worker on its first save.
  static void child_after_fork();

  std::mutex m_;
  std::condition_variable wake_;        // the worker: work or stop
  std::condition_variable idle_;        // drain(): nothing queued or closing
  std::condition_variable started_cv_;  // before_fork(): the worker has reached run(), or been joined
  bool started_ = false;                // the worker has reached run() (it never leaves it before shutdown())
  bool exiting_ = false;                // shutdown() is joining the worker, which may be inside its thread's exit
  std::deque<int> queue_;
  int closing_ = 0;  // descriptors the worker is closing now (0 or 1)
  bool stopping_ = false;
  std::unique_ptr<std::thread> worker_;
};

// Never destroyed (a save from another library's static destructor may still come); created on the
// first save over an existing file.
std::atomic<DeferredCloser*> g_closer{nullptr};

DeferredCloser& closer() {
  static DeferredCloser* const c = [] {
    auto* p = new DeferredCloser;
    g_closer.store(p);
    DeferredCloser::register_fork_handlers();
    return p;
  }();
  return *c;
}

void DeferredCloser::before_fork() {
  DeferredCloser& c = *g_closer.load();
  std::unique_lock lock(c.m_);
  // Nor while shutdown() joins the worker (worker_ is then moved out): a thread inside its exit may
  // hold the same kind of locks.
  c.started_cv_.wait(lock, [&] { return (!c.worker_ || c.started_) && !c.exiting_; });
  lock.release();  // held across the fork; unlocked by the handlers after it
}
void DeferredCloser::parent_after_fork() { g_closer.load()->m_.unlock(); }
void DeferredCloser::child_after_fork() {
  DeferredCloser& c = *g_closer.load();
  for (int fd : c.queue_) ::close(fd);
  c.queue_.clear();
  // A descriptor the parent's worker was closing at the fork stays open in the child until it exits
  // or execs (it is O_CLOEXEC): its number may already be reused, so it is not closed here.
  c.closing_ = 0;
  c.started_ = false;
  c.exiting_ = false;
  (void)c.worker_.release();  // that thread does not exist here: never joined, never destroyed
  // The parent's worker may have been waiting on them: fresh ones (POSIX leaves a copied one undefined).
  new (&c.wake_) std::condition_variable;
  new (&c.idle_) std::condition_variable;
  new (&c.started_cv_) std::condition_variable;
  c.m_.unlock();  // locked by this thread in before_fork()
}

// At exit (or when this library is unloaded: the worker runs its code) the worker finishes the queue
// and is joined.
struct CloserShutdown {
  ~CloserShutdown() {
    if (DeferredCloser* c = g_closer.load()) c->shutdown();
  }
} g_closer_shutdown;

// Local filesystems where holding the replaced file open only moves its freeing. Not network or
// FUSE ones: NFS, AFS and libfuse rename a busy target aside (.nfsXXXX, .fuse_hiddenXXXX) before the
// rename, so the target's name would be missing for a moment; SMB refuses to rename over an open file.
bool holding_is_safe_on(const std::string& target) {
#ifdef __linux__
  struct statfs fs {};
  if (::statfs(target.c_str(), &fs) != 0) return false;
  switch (static_cast<unsigned long>(fs.f_type)) {
    case EXT4_SUPER_MAGIC:  // also ext2 and ext3
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
    case F2FS_SUPER_MAGIC:
    case TMPFS_MAGIC:
    case OVERLAYFS_SUPER_MAGIC: return true;
    default: return false;
  }
#else
  (void)target;
  return false;
#endif
}

// The regular file a rename to `target` would unlink, opened; -1 when there is none (missing,
// unreadable), it holds fewer than kMinHeldBytes on disk, it is something else (symlink: the rename
// replaces the link itself; FIFO, device, folder: never opened, as an open could block or act) or it
// lies on a filesystem not listed above.
int hold_replaced_file(const std::string& target) {
  struct stat st {};
  if (::lstat(target.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<uint64_t>(st.st_blocks) * 512 < kMinHeldBytes || !holding_is_safe_on(target)) {
    return -1;
  }
  const int fd = ::open(target.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return -1;
  struct stat now {};
  if (::fstat(fd, &now) != 0 || !S_ISREG(now.st_mode)) {  // swapped since the lstat
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

namespace detail {
void set_save_hook(void (*hook)(SavePhase)) { g_save_hook.store(hook); }
void run_save_hook(SavePhase phase) {
  if (auto* hook = g_save_hook.load()) hook(phase);
}
void drain_deferred_closes() {
  if (DeferredCloser* c = g_closer.load()) c->drain();
}
}  // namespace detail

AtomicFile::AtomicFile(std::string target) : target_(std::move(target)) {
  if (target_.empty() || target_.back() == '/')
    throw RecordError("record.save", "'" + target_ + "' is not a file path");
  std::string pattern = folder_of(target_) + "/." + file_name_of(target_) + ".tmp-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  const int fd = ::mkstemp(buf.data());
  if (fd < 0) {
    const int e = errno;
    throw RecordError("record.save",
                      target_ + ": cannot create a temporary file in '" + folder_of(target_) + "': " + errno_text(e));
  }
  ::close(fd);
  temp_ = buf.data();
  detail::run_save_hook(SavePhase::TempCreated);
}

AtomicFile::~AtomicFile() {
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

void AtomicFile::commit() {
  detail::run_save_hook(SavePhase::Written);
  // The writer may have closed its own descriptor: fsync through a new one flushes the same inode.
  const int fd = ::open(temp_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    throw RecordError("record.save", target_ + ": cannot reopen the temporary file '" + temp_ + "': " + errno_text(e));
  }
  // mkstemp made it 0600; a saved record gets the permissions any new file would.
  ::fchmod(fd, 0666 & ~current_umask());
  if (::fsync(fd) != 0) {
    const int e = errno;
    ::close(fd);
    throw RecordError("record.save", target_ + ": fsync of the temporary file failed: " + errno_text(e));
  }
  ::close(fd);
  detail::run_save_hook(SavePhase::Synced);
  // The file the rename replaces stays open across it, so that rename() does not free its blocks;
  // closed here if anything fails, else by the background closer.
  struct Held {
    int fd;
    ~Held() {
      if (fd >= 0) ::close(fd);
    }
  } replaced{hold_replaced_file(target_)};
  if (::rename(temp_.c_str(), target_.c_str()) != 0) {
    const int e = errno;
    throw RecordError("record.save", target_ + ": cannot rename the temporary file over it: " + errno_text(e));
  }
  committed_ = true;
  detail::run_save_hook(SavePhase::Renamed);
  // The rename is durable only once the folder's entry is on disk.
  const int dir = ::open(folder_of(target_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  if (replaced.fd >= 0) closer().submit(std::exchange(replaced.fd, -1));
}

// ---- OutputFile ----

OutputFile::OutputFile(std::string path, std::string op) : path_(std::move(path)), op_(std::move(op)) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    const int e = errno;
    throw record_error(op_, path_, "", "cannot open for writing: " + errno_text(e));
  }
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void OutputFile::write_at(const void* data, size_t n, uint64_t offset) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::pwrite(fd_, p, n, static_cast<off_t>(offset));
    if (w < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      throw record_error(op_, path_, "", "write failed: " + errno_text(e));
    }
    p += w;
    n -= static_cast<size_t>(w);
    offset += static_cast<uint64_t>(w);
    if (offset > size_) size_ = offset;
  }
}

void OutputFile::write(const void* data, size_t n) {
  write_at(data, n, size_);
#ifdef __linux__
  // Start the disk writes of what is written so far (without waiting): the fsync of the commit then
  // waits for the last few MiB instead of the whole file, and the disk works while we compress.
  constexpr uint64_t kWriteBehind = 16u << 20;
  if (size_ - started_ >= kWriteBehind) {
    ::sync_file_range(fd_, static_cast<off_t>(started_), static_cast<off_t>(size_ - started_), SYNC_FILE_RANGE_WRITE);
    started_ = size_;
  }
#endif
}

void OutputFile::close() {
  if (fd_ < 0) return;
  const int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0) {
    const int e = errno;
    throw record_error(op_, path_, "", "close failed: " + errno_text(e));
  }
}

// ---- InputFile ----

InputFile::InputFile(std::string path, std::string op) : path_(std::move(path)), op_(std::move(op)) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    const int e = errno;
    throw record_error(op_, path_, "", "cannot open: " + errno_text(e));
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw record_error(op_, path_, "", "not a regular file");
  }
  size_ = static_cast<uint64_t>(st.st_size);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void InputFile::read_at(void* dst, size_t n, uint64_t offset, std::string_view entry) const {
  uint64_t end = 0;
  if (!checked_add(offset, n, &end) || end > size_) {
    throw record_error(op_, path_, entry,
                       "bytes [" + std::to_string(offset) + ", " + std::to_string(offset) + " + " + std::to_string(n) +
                           ") lie outside the file (" + std::to_string(size_) + " bytes)");
  }
  auto* p = static_cast<char*>(dst);
  while (n > 0) {
    const ssize_t r = ::pread(fd_, p, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      const int e = errno;
      throw record_error(op_, path_, entry,
                         r == 0 ? "the file ended early (it shrank while open)" : "read failed: " + errno_text(e));
    }
    p += r;
    n -= static_cast<size_t>(r);
    offset += static_cast<uint64_t>(r);
  }
}

}  // namespace burn::record
