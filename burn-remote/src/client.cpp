// The connection of a remote<...> device: handshake, batching, replies, and the failure that ends it.
#include "client.hpp"

#include <cstdlib>
#include <cstring>

namespace burn::remote {
namespace {

// A positive integer from the environment, or `fallback`.
size_t env_size(const char* name, size_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  return (end && *end == '\0' && n > 0) ? static_cast<size_t>(n) : fallback;
}

// "tcp://host:port" (an IPv6 host in brackets) into host and port; DeviceError otherwise.
std::pair<std::string, std::string> split_address(const std::string& address) {
  const std::string scheme = "tcp://";
  const auto bad = [&](const std::string& why) {
    return DeviceError("remote", "address '" + address + "': " + why + " (expected tcp://HOST:PORT)");
  };
  if (address.rfind(scheme, 0) != 0) throw bad("unknown scheme");
  const std::string rest = address.substr(scheme.size());
  const size_t colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == rest.size()) throw bad("no port");
  std::string host = rest.substr(0, colon);
  const std::string port = rest.substr(colon + 1);
  if (host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  for (char c : port)
    if (c < '0' || c > '9') throw bad("the port is not a number");
  return {host, port};
}

}  // namespace

ClientSettings ClientSettings::from_environment() {
  ClientSettings s;
  s.timeout = std::chrono::milliseconds(1000 * env_size("BURN_REMOTE_TIMEOUT", 30));
  s.batch_ops = env_size("BURN_REMOTE_BATCH_OPS", s.batch_ops);
  s.batch_bytes = env_size("BURN_REMOTE_BATCH_BYTES", s.batch_bytes);
  if (const char* t = std::getenv("BURN_REMOTE_TOKEN")) s.token = t;
  return s;
}

Connection::Connection(std::string address, ClientSettings settings)
    : address_(std::move(address)), settings_(std::move(settings)) {
  const auto [host, port] = split_address(address_);
  channel_ = std::make_unique<Channel>(connect_tcp(host, port, settings_.timeout, address_), address_);
  Writer hello;
  const size_t f = begin_frame(hello, Frame::Hello);
  hello.raw(kMagic, sizeof(kMagic));
  hello.u64(kProtocolVersion);
  hello.str(settings_.token);
  end_frame(hello, f);
  channel_->send(hello.bytes().data(), hello.size(), settings_.timeout);
  std::vector<uint8_t> body;
  if (!channel_->receive(body, 1 << 20, settings_.timeout, settings_.timeout))
    throw DeviceError("remote", address_ + ": the server closed the connection during the handshake");
  Reader r(body.data(), body.size());
  const uint8_t kind = r.u8();
  if (kind == static_cast<uint8_t>(Frame::Refused))
    throw DeviceError("remote", address_ + ": the server refused the connection: " + r.str("refusal"));
  if (kind != static_cast<uint8_t>(Frame::Welcome))
    throw DeviceError("remote", address_ + ": not a burn server (unexpected handshake answer)");
  server_backend_ = r.str("backend name");
  max_message_bytes_ = r.u64();
  const size_t n = r.count("supports bitmap", 1);
  const uint8_t* bits = r.take(n, "supports bitmap");
  supports_.assign(bits, bits + n);
  settings_.batch_bytes = std::min<size_t>(settings_.batch_bytes, max_message_bytes_ / 2);
  batch_start_ = begin_frame(batch_, Frame::Batch);
  batch_.u32(0);
}

Connection::~Connection() = default;

void Connection::check_alive(const char* op) const {
  if (!dead_.empty()) throw DeviceError(op, address_ + ": " + dead_);
}

void Connection::fail(const char* op, std::string why) {
  // The channel's errors already name the address: "[remote] tcp://...: why".
  const std::string prefix = "[remote] " + address_ + ": ";
  if (why.rfind(prefix, 0) == 0) why.erase(0, prefix.size());
  dead_ = why + " (the connection is closed; its tensors are lost)";
  if (channel_) channel_->shutdown();
  throw DeviceError(op, address_ + ": " + why);
}

void Connection::release(uint64_t handle) noexcept {
  try {
    std::lock_guard lock(release_mutex_);
    released_.push_back(handle);
  } catch (...) {  // out of memory: the server frees it when the client disconnects
  }
}

void Connection::drain_releases() {
  std::vector<uint64_t> handles;
  {
    std::lock_guard lock(release_mutex_);
    handles.swap(released_);
  }
  for (uint64_t h : handles) {
    const size_t rec = begin_record(batch_, Record::Free);
    batch_.u64(h);
    end_record(batch_, rec);
    ++records_;
  }
}

void Connection::record_done(const char* op, size_t record_start) {
  const size_t record = batch_.size() - record_start;
  if (batch_.size() - batch_start_ - 4 > max_message_bytes_) {
    // Too large for the server, which would close the connection: refused here, the connection kept.
    std::vector<uint8_t> bytes(batch_.bytes().begin() + static_cast<std::ptrdiff_t>(record_start),
                               batch_.bytes().end());
    batch_.bytes().resize(record_start);
    if (record + 9 > max_message_bytes_) {
      throw ValueError(op, "a message of " + std::to_string(record) + " bytes exceeds " + address_ + "'s limit of " +
                               std::to_string(max_message_bytes_) + " bytes (burn server --max-message-mib)");
    }
    flush(op);  // the records before it, then it alone
    batch_.raw(bytes.data(), bytes.size());
  }
  ++records_;
  if (records_ >= settings_.batch_ops || batch_.size() >= settings_.batch_bytes) flush(op);
}

void Connection::flush(const char* op) {
  check_alive(op);
  drain_releases();
  if (records_ == 0) return;
  batch_.patch_u32(batch_start_ + 5, records_);
  end_frame(batch_, batch_start_);
  try {
    channel_->send(batch_.bytes().data(), batch_.size(), settings_.timeout);
  } catch (const DeviceError& e) {
    fail(op, e.what());
  }
  stats_.bytes_sent += batch_.size();
  ++stats_.batches;
  batch_.clear();
  records_ = 0;
  batch_start_ = begin_frame(batch_, Frame::Batch);
  batch_.u32(0);
}

std::vector<uint8_t> Connection::await(uint64_t request, const char* op) {
  flush(op);
  ++stats_.round_trips;
  ++stats_.round_trips_by_op[op];
  std::vector<uint8_t> body;
  try {
    if (!channel_->receive(body, max_message_bytes_ + (1 << 20), settings_.timeout, settings_.timeout))
      fail(op, "the server closed the connection");
  } catch (const DeviceError& e) {
    fail(op, e.what());
  } catch (const ProtocolError& e) {
    fail(op, e.what());
  }
  stats_.bytes_received += 4 + body.size();
  Reader r(body.data(), body.size());
  const uint8_t kind = r.u8();
  if (kind == static_cast<uint8_t>(Frame::Refused)) fail(op, "the server closed the connection: " + r.str("reason"));
  if (kind != static_cast<uint8_t>(Frame::Reply) || r.u64() != request) fail(op, "unexpected answer from the server");
  if (r.u8() != 0) rethrow(get_error(r));
  return std::vector<uint8_t>(body.begin() + static_cast<std::ptrdiff_t>(1 + 8 + 1), body.end());
}

}  // namespace burn::remote
