// Disk cache helpers of the GPU backends (disk_cache.hpp).
#include "burn/gpu/disk_cache.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

namespace burn::gpu {

uint64_t fnv1a(std::string_view s, uint64_t h) {
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

std::string hex(uint64_t v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*llx", digits, static_cast<unsigned long long>(v));
  return buf;
}

std::string cache_dir(const char* env, std::string_view backend) {
  if (const char* d = std::getenv(env); d && *d) {
    if (std::strcmp(d, "off") == 0 || std::strcmp(d, "0") == 0) return {};
    return d;
  }
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return std::string(x) + "/burn-cpp/" + std::string(backend);
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/burn-cpp/" + std::string(backend);
  return {};
}

std::vector<char> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool write_file_atomically(const std::string& path, const void* bytes, size_t size) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const auto* p = static_cast<const uint8_t*>(bytes);
  size_t left = size;
  bool ok = true;
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n <= 0) {
      ok = false;
      break;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  ok = ok && ::fsync(fd) == 0;
  ok = ::close(fd) == 0 && ok;
  if (ok) ok = std::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) std::remove(tmp.c_str());
  return ok;
}

namespace {
constexpr char kMagic[8] = {'B', 'U', 'R', 'N', 'C', 'K', 'v', '1'};
constexpr size_t kHeader = sizeof kMagic + 2 * sizeof(uint64_t);
}  // namespace

std::vector<char> seal(const void* bytes, size_t size) {
  std::vector<char> out(kHeader + size);
  const uint64_t len = size;
  const uint64_t sum = fnv1a(std::string_view(static_cast<const char*>(bytes), size));
  std::memcpy(out.data(), kMagic, sizeof kMagic);
  std::memcpy(out.data() + sizeof kMagic, &len, sizeof len);
  std::memcpy(out.data() + sizeof kMagic + sizeof len, &sum, sizeof sum);
  if (size > 0) std::memcpy(out.data() + kHeader, bytes, size);
  return out;
}

std::string_view unseal(const std::vector<char>& file) {
  if (file.size() < kHeader || std::memcmp(file.data(), kMagic, sizeof kMagic) != 0) return {};
  uint64_t len = 0, sum = 0;
  std::memcpy(&len, file.data() + sizeof kMagic, sizeof len);
  std::memcpy(&sum, file.data() + sizeof kMagic + sizeof len, sizeof sum);
  if (len != file.size() - kHeader) return {};
  const std::string_view payload(file.data() + kHeader, file.size() - kHeader);
  return fnv1a(payload) == sum ? payload : std::string_view{};
}

}  // namespace burn::gpu
