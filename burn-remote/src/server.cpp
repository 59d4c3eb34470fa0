// burn server's network side: a Boost.Asio acceptor, one thread per client (its Session), limits on
// connections and messages. A client that breaks the protocol is told why and disconnected; the others
// are not affected. A client's tensors are freed when it disconnects, however it does.
#include <poll.h>

#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <iostream>
#include <list>
#include <mutex>
#include <thread>

#include "burn/remote/remote.hpp"
#include "channel.hpp"
#include "session.hpp"

namespace burn::remote {
namespace {

using namespace std::chrono_literals;
namespace ip = boost::asio::ip;

constexpr auto kHelloTimeout = 10s;  // a connection that says nothing is dropped
constexpr auto kFrameTimeout = 60s;  // the rest of a frame, once its first byte came
constexpr auto kReplyTimeout = 60s;  // a client that does not read its replies is dropped
constexpr size_t kMaxHelloBytes = 1 << 16;

std::mutex log_mutex;
void log_line(const ServerOptions& o, const std::string& line) {
  if (o.quiet) return;
  std::lock_guard lock(log_mutex);
  std::cerr << "burn server: " << line << std::endl;
}

void send_frame_refused(Channel& ch, const std::string& why) {
  Writer w;
  const size_t f = begin_frame(w, Frame::Refused);
  w.str(why.substr(0, kMaxStringBytes));
  end_frame(w, f);
  try {
    ch.send(w.bytes().data(), w.size(), 1s);
  } catch (const std::exception&) {
  }
}

void serve_client(Channel& ch, const ServerOptions& o, const BackendPtr& backend) {
  ServerStats* stats = o.stats;
  std::vector<uint8_t> body;
  try {
    if (!ch.receive(body, kMaxHelloBytes, kHelloTimeout, kHelloTimeout)) return;
    if (auto refusal = Session::check_hello(body, o.token)) {
      if (stats) ++stats->closed_for_protocol_errors;
      log_line(o, ch.peer() + ": refused: " + *refusal);
      send_frame_refused(ch, *refusal);
      return;
    }
  } catch (const std::exception& e) {
    if (stats) ++stats->closed_for_protocol_errors;
    log_line(o, ch.peer() + ": no valid hello: " + e.what());
    send_frame_refused(ch, e.what());
    return;
  }
  Session session(backend, o.limits);
  Writer out;
  session.welcome(out);
  log_line(o, ch.peer() + ": connected to " + backend->name());
  uint64_t counted_tensors = 0, counted_bytes = 0;
  auto update_stats = [&] {
    if (!stats) return;
    stats->tensors += session.tensors() - counted_tensors;  // wraps correctly when it shrinks
    stats->bytes += session.bytes_in_use() - counted_bytes;
    counted_tensors = session.tensors();
    counted_bytes = session.bytes_in_use();
  };
  try {
    ch.send(out.bytes().data(), out.size(), kReplyTimeout);
    for (;;) {
      if (!ch.receive(body, o.limits.max_message_bytes, std::chrono::milliseconds(-1), kFrameTimeout)) break;
      out.clear();
      session.handle(body.data(), body.size(), out);
      update_stats();
      if (out.size()) ch.send(out.bytes().data(), out.size(), kReplyTimeout);
    }
    log_line(o, ch.peer() + ": disconnected; freed " + std::to_string(session.tensors()) + " tensors");
  } catch (const ProtocolError& e) {
    if (stats) ++stats->closed_for_protocol_errors;
    log_line(o, ch.peer() + ": closing: " + e.what());
    send_frame_refused(ch, e.what());
  } catch (const std::exception& e) {
    log_line(o, ch.peer() + ": connection ended: " + e.what());
  }
  // The session's destructor frees the client's tensors; the counters go back with them.
  if (stats) {
    stats->tensors -= counted_tensors;
    stats->bytes -= counted_bytes;
  }
}

struct Client {
  std::unique_ptr<Channel> channel;
  std::thread thread;
  std::atomic<bool> done{false};
};

}  // namespace

void serve(const ServerOptions& o, const std::atomic<bool>& stop, void (*on_listening)(uint16_t, void*), void* user) {
  const BackendPtr backend = Device::get(o.device).backend();
  boost::asio::io_context io;
  ip::tcp::resolver resolver(io);
  const auto endpoints = resolver.resolve(o.host, o.port, ip::resolver_base::passive);
  ip::tcp::acceptor acceptor(io);
  const ip::tcp::endpoint ep = endpoints.begin()->endpoint();
  acceptor.open(ep.protocol());
  acceptor.set_option(ip::tcp::acceptor::reuse_address(true));
  acceptor.bind(ep);
  acceptor.listen();
  acceptor.non_blocking(true);
  if (on_listening) on_listening(acceptor.local_endpoint().port(), user);

  std::list<Client> clients;
  auto reap = [&](bool all) {
    for (auto it = clients.begin(); it != clients.end();) {
      if (all || it->done) {
        if (all) it->channel->shutdown();
        it->thread.join();
        it = clients.erase(it);
      } else {
        ++it;
      }
    }
  };
  while (!stop) {
    pollfd p{acceptor.native_handle(), POLLIN, 0};
    ::poll(&p, 1, 100);
    reap(false);
    boost::system::error_code ec;
    ip::tcp::socket socket(io);
    acceptor.accept(socket, ec);
    if (ec) continue;  // would block, or a connection that went away before it was accepted
    const auto remote = socket.remote_endpoint(ec);
    const std::string peer =
        ec ? "tcp://?" : "tcp://" + remote.address().to_string() + ":" + std::to_string(remote.port());
    auto channel = std::make_unique<Channel>(socket.release(), peer);
    if (clients.size() >= o.max_clients) {
      log_line(o, peer + ": refused: the server has its " + std::to_string(o.max_clients) + " clients");
      send_frame_refused(*channel, "the server has its maximum of " + std::to_string(o.max_clients) + " clients");
      continue;
    }
    Client& c = clients.emplace_back();
    c.channel = std::move(channel);
    if (o.stats) ++o.stats->clients;
    c.thread = std::thread([&c, &o, backend] {
      serve_client(*c.channel, o, backend);
      c.channel->shutdown();
      if (o.stats) --o.stats->clients;
      c.done = true;
    });
  }
  reap(true);
}

}  // namespace burn::remote
