// A connected stream socket read and written in whole frames, each wait bounded by a deadline (poll),
// so that a dead peer is an error naming the address, never a hang. Boost.Asio makes the connection
// (resolve, connect, accept); the frames go through the descriptor it hands over.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace burn::remote {

class Channel {
 public:
  // Takes ownership of a connected socket; `peer` names the other end in errors ("tcp://host:port").
  Channel(int fd, std::string peer);
  ~Channel();
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  const std::string& peer() const { return peer_; }
  int fd() const { return fd_; }

  // Writes all of `bytes`; DeviceError naming the peer when it fails or makes no progress for `timeout`.
  void send(const uint8_t* bytes, size_t n, std::chrono::milliseconds timeout);
  // Reads one frame's body (after its u32 length) into `body`. `idle` bounds the wait for the frame
  // to start (negative: forever), `timeout` the rest of it. Returns false on a clean end of stream
  // before a frame starts; DeviceError on a timeout or a broken connection, ProtocolError for a frame
  // over `max_bytes`.
  bool receive(std::vector<uint8_t>& body, size_t max_bytes, std::chrono::milliseconds idle,
               std::chrono::milliseconds timeout);
  // Stops reads and writes on both sides (the peer sees the end of the stream).
  void shutdown() noexcept;

 private:
  // Reads exactly n bytes; false if the stream ended before the first byte and `eof_ok`.
  bool read_exact(uint8_t* p, size_t n, std::chrono::steady_clock::time_point deadline, bool eof_ok);

  int fd_;
  std::string peer_;
};

// Connects to host:port (resolved with Boost.Asio) within `timeout`; DeviceError naming the address.
int connect_tcp(const std::string& host, const std::string& port, std::chrono::milliseconds timeout,
                const std::string& address);

}  // namespace burn::remote
