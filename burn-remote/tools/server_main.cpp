// `burn server`: serves tensor ops of remote<tcp://HOST:PORT> clients on a device of this machine.
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>

#include <boost/program_options.hpp>

#include "burn/remote/remote.hpp"

namespace po = boost::program_options;

namespace {

constexpr int kUsageError = 2;
std::atomic<bool> stop_requested{false};

void on_signal(int) { stop_requested = true; }

bool is_loopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

void announce(uint16_t port, void* user) {
  const auto& o = *static_cast<const burn::remote::ServerOptions*>(user);
  // One line on stdout, flushed: scripts and tests wait for it (and read the port when they asked for 0).
  std::cout << "burn server: listening on tcp://" << o.host << ":" << port << " with device " << o.device
            << (o.token.empty() ? " (no token)" : " (token required)") << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  burn::remote::ServerOptions o;
  po::options_description opts("burn server options");
  opts.add_options()("help,h", "show this help")(
      "listen", po::value<std::string>()->default_value("127.0.0.1:7000"),
      "HOST:PORT to listen on (port 0: any free port, printed when listening)")(
      "device", po::value<std::string>()->default_value("cpu"), "the device spec ops run on, e.g. fusion<cpu>")(
      "allow-no-token", po::bool_switch(),
      "listen on a non-loopback address without BURN_REMOTE_TOKEN (anyone who reaches it may run ops)")(
      "max-clients", po::value<uint32_t>()->default_value(o.max_clients), "connections served at once")(
      "max-message-mib", po::value<uint64_t>()->default_value(o.limits.max_message_bytes >> 20),
      "largest message a client may send, in MiB")(
      "max-tensors", po::value<uint64_t>()->default_value(o.limits.max_tensors), "live tensors per client")(
      "max-memory-mib", po::value<uint64_t>()->default_value(o.limits.max_bytes >> 20),
      "bytes of tensors per client, in MiB (also the largest single tensor)")("quiet", po::bool_switch(),
                                                                              "no log line per connection");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(opts).run(), vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    std::cerr << "burn server: " << e.what() << "\n";
    return kUsageError;
  }
  if (vm.count("help")) {
    std::cout << "usage: burn server [--listen HOST:PORT] [--device SPEC] [options]\n\n"
              << "environment: BURN_REMOTE_TOKEN, a shared secret clients must present (compared in "
                 "constant time)\n\n"
              << opts;
    return 0;
  }
  const std::string listen = vm["listen"].as<std::string>();
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    std::cerr << "burn server: --listen '" << listen << "': expected HOST:PORT\n";
    return kUsageError;
  }
  o.host = listen.substr(0, colon);
  if (o.host.size() > 2 && o.host.front() == '[' && o.host.back() == ']') o.host = o.host.substr(1, o.host.size() - 2);
  o.port = listen.substr(colon + 1);
  o.device = vm["device"].as<std::string>();
  o.max_clients = vm["max-clients"].as<uint32_t>();
  o.limits.max_message_bytes = vm["max-message-mib"].as<uint64_t>() << 20;
  o.limits.max_tensors = vm["max-tensors"].as<uint64_t>();
  o.limits.max_bytes = vm["max-memory-mib"].as<uint64_t>() << 20;
  o.quiet = vm["quiet"].as<bool>();
  if (o.limits.max_message_bytes == 0 || o.limits.max_message_bytes > (4ull << 30) - 1) {
    std::cerr << "burn server: --max-message-mib must be 1 to 4095\n";
    return kUsageError;
  }
  if (const char* t = std::getenv("BURN_REMOTE_TOKEN")) o.token = t;
  if (o.token.empty()) {
    if (!is_loopback(o.host) && !vm["allow-no-token"].as<bool>()) {
      std::cerr << "burn server: refusing to listen on " << o.host
                << " without BURN_REMOTE_TOKEN: set a token, or pass --allow-no-token to serve anyone who "
                   "reaches this address\n";
      return kUsageError;
    }
    std::cerr << "burn server: no BURN_REMOTE_TOKEN: "
              << (is_loopback(o.host) ? "listening on loopback only" : "anyone who reaches this address may run ops")
              << "\n";
  }
  burn::set_max_alloc_bytes(o.limits.max_bytes);  // no single tensor beyond a client's budget
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  try {
    burn::remote::serve(o, stop_requested, announce, &o);
  } catch (const std::exception& e) {
    std::cerr << "burn server: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
