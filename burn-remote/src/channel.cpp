// Frame I/O over a non-blocking socket with poll() deadlines.
#include "channel.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/ip/tcp.hpp>
#include <cerrno>
#include <cstring>

#include "burn/tensor/error.hpp"
#include "wire.hpp"

namespace burn::remote {
namespace {

using Clock = std::chrono::steady_clock;

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL, 0) | O_NONBLOCK); }

// Waits for `events` until `deadline` (forever when it is max()); false on timeout.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    int ms = -1;
    if (deadline != Clock::time_point::max()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      ms = static_cast<int>(std::min<long long>(left, 1 << 30));
    }
    pollfd p{fd, events, 0};
    const int rc = ::poll(&p, 1, ms);
    if (rc > 0) return true;  // readable, writable, or an error the next call reports
    if (rc == 0) return false;
    if (errno != EINTR) return true;
  }
}

Clock::time_point deadline_after(std::chrono::milliseconds t) {
  return t.count() < 0 ? Clock::time_point::max() : Clock::now() + t;
}

}  // namespace

Channel::Channel(int fd, std::string peer) : fd_(fd), peer_(std::move(peer)) {
  set_nonblocking(fd_);
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));  // batches are already coalesced
}

Channel::~Channel() {
  if (fd_ >= 0) ::close(fd_);
}

void Channel::shutdown() noexcept {
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

void Channel::send(const uint8_t* bytes, size_t n, std::chrono::milliseconds timeout) {
  auto deadline = deadline_after(timeout);
  while (n > 0) {
    const ssize_t k = ::send(fd_, bytes, n, MSG_NOSIGNAL);
    if (k > 0) {
      bytes += k;
      n -= static_cast<size_t>(k);
      deadline = deadline_after(timeout);  // the limit is on a stall, not on a large tensor's transfer
      continue;
    }
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_for(fd_, POLLOUT, deadline))
        throw DeviceError("remote", peer_ + ": no progress sending for " + std::to_string(timeout.count()) + " ms");
      continue;
    }
    throw DeviceError("remote", peer_ + ": connection lost while sending (" + std::strerror(errno) + ")");
  }
}

bool Channel::read_exact(uint8_t* p, size_t n, Clock::time_point deadline, bool eof_ok) {
  const size_t total = n;
  while (n > 0) {
    const ssize_t k = ::recv(fd_, p, n, 0);
    if (k > 0) {
      p += k;
      n -= static_cast<size_t>(k);
      continue;
    }
    if (k == 0) {
      if (eof_ok && n == total) return false;
      throw DeviceError("remote", peer_ + ": connection closed by the peer");
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (!wait_for(fd_, POLLIN, deadline)) throw DeviceError("remote", peer_ + ": timed out waiting for an answer");
      continue;
    }
    throw DeviceError("remote", peer_ + ": connection lost (" + std::strerror(errno) + ")");
  }
  return true;
}

bool Channel::receive(std::vector<uint8_t>& body, size_t max_bytes, std::chrono::milliseconds idle,
                      std::chrono::milliseconds timeout) {
  uint8_t header[4];
  // The first byte may wait `idle`; the rest of the frame must follow within `timeout`.
  if (!read_exact(header, 1, deadline_after(idle), true)) return false;
  const auto deadline = deadline_after(timeout);
  read_exact(header + 1, 3, deadline, false);
  uint32_t n;
  std::memcpy(&n, header, 4);
  if (n == 0 || n > max_bytes) {
    throw ProtocolError("a frame of " + std::to_string(n) + " bytes (from " + peer_ + "), the limit is 1 to " +
                        std::to_string(max_bytes));
  }
  body.resize(n);
  read_exact(body.data(), n, deadline, false);
  return true;
}

int connect_tcp(const std::string& host, const std::string& port, std::chrono::milliseconds timeout,
                const std::string& address) {
  namespace ip = boost::asio::ip;
  boost::asio::io_context io;
  boost::system::error_code ec;
  ip::tcp::resolver resolver(io);
  const auto endpoints = resolver.resolve(host, port, ip::resolver_base::numeric_service, ec);
  if (ec) throw DeviceError("remote", address + ": cannot resolve '" + host + "': " + ec.message());
  const auto deadline = deadline_after(timeout);
  std::string last = "no address";
  for (const auto& entry : endpoints) {
    const auto ep = entry.endpoint();
    const int fd = ::socket(ep.protocol().family(), SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    set_nonblocking(fd);
    int rc = ::connect(fd, ep.data(), static_cast<socklen_t>(ep.size()));
    if (rc != 0 && errno == EINPROGRESS) {
      if (!wait_for(fd, POLLOUT, deadline)) {
        ::close(fd);
        last = "timed out after " + std::to_string(timeout.count()) + " ms";
        continue;
      }
      int err = 0;
      socklen_t len = sizeof(err);
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      rc = err == 0 ? 0 : -1;
      errno = err;
    }
    if (rc == 0) return fd;
    last = std::strerror(errno);
    ::close(fd);
  }
  throw DeviceError("remote", address + ": cannot connect: " + last);
}

}  // namespace burn::remote
