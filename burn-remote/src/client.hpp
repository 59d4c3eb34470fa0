// The client side of remote<tcp://host:port>: one connection per device, ops batched and sent without
// waiting, reads and syncs answered by request id.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "burn/remote/remote.hpp"
#include "burn/tensor/backend.hpp"
#include "channel.hpp"
#include "protocol.hpp"

namespace burn::remote {

struct ClientSettings {
  std::chrono::milliseconds timeout{30000};  // BURN_REMOTE_TIMEOUT (seconds): connect and every wait
  size_t batch_ops = 256;                    // BURN_REMOTE_BATCH_OPS: records per batch
  size_t batch_bytes = 1 << 20;              // BURN_REMOTE_BATCH_BYTES: bytes per batch
  std::string token;                         // BURN_REMOTE_TOKEN
  static ClientSettings from_environment();
};

// The connection to one server. Every method but release() is called with `mutex` held.
class Connection {
 public:
  Connection(std::string address, ClientSettings settings);
  ~Connection();

  const std::string& address() const { return address_; }
  const std::string& server_backend() const { return server_backend_; }
  bool supports(OpId op, DType d) const { return bitmap_supports(supports_, op, d); }

  std::mutex mutex;
  // DeviceError naming the address when the connection has failed before.
  void check_alive(const char* op) const;
  Writer& batch() { return batch_; }
  // Handles for an op's outputs.
  uint64_t reserve(uint32_t n) {
    const uint64_t first = next_handle_;
    next_handle_ += n ? n : 1;
    return first;
  }
  uint64_t next_request() { return next_request_++; }
  // Counts the record written from `record_start`; sends the batch when it is full. A record the
  // server's message limit cannot carry is taken back and refused with a ValueError.
  void record_done(const char* op, size_t record_start);
  // Sends the batch and waits for the reply to `request`: its payload reader, or the server's error
  // rethrown as the same burn::Error subclass.
  std::vector<uint8_t> await(uint64_t request, const char* op);
  void flush(const char* op);
  // From a primitive's destructor (any thread, no lock held): queues the handle's free record.
  void release(uint64_t handle) noexcept;
  const RemoteStats& stats() const { return stats_; }

 private:
  [[noreturn]] void fail(const char* op, std::string why);
  void drain_releases();

  std::string address_;
  ClientSettings settings_;
  std::unique_ptr<Channel> channel_;
  std::string server_backend_;
  uint64_t max_message_bytes_ = 0;
  std::vector<uint8_t> supports_;
  std::string dead_;  // why the connection failed; empty while it works
  Writer batch_;
  size_t batch_start_ = 0;
  uint32_t records_ = 0;
  uint64_t next_handle_ = 1, next_request_ = 1;
  RemoteStats stats_;
  std::mutex release_mutex_;
  std::vector<uint64_t> released_;
};

// A tensor that lives on the server: its handle there.
class RemotePrim final : public Primitive {
 public:
  RemotePrim(std::shared_ptr<Connection> c, uint64_t handle, Shape shape, DType dtype)
      : Primitive(std::move(shape), dtype), connection_(std::move(c)), handle_(handle) {}
  ~RemotePrim() override { connection_->release(handle_); }
  uint64_t handle() const { return handle_; }
  const Connection* connection() const { return connection_.get(); }

 private:
  std::shared_ptr<Connection> connection_;
  uint64_t handle_;
};

BackendPtr make_remote_backend(const std::string& address);

}  // namespace burn::remote
