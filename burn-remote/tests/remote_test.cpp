// remote<...> against a server on 127.0.0.1: results equal the server's device run locally, errors come
// back as the same class, tensors move with to_device, a training loop through autodiff<remote<...>>
// gives the local parameters; faults: a killed server, garbage connections, a client that leaves.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <random>
#include <thread>

#include "burn/remote/remote.hpp"
#include "burn/tensor/tensor.hpp"
#include "protocol.hpp"

extern char** environ;

namespace burn::remote {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// A server in this process, on a free port of 127.0.0.1, stopped by the destructor.
class LocalServer {
 public:
  explicit LocalServer(ServerLimits limits = {}, std::string token = {}) {
    o_.port = "0";
    o_.stats = &stats;
    o_.quiet = true;
    o_.limits = limits;
    o_.token = std::move(token);
    thread_ = std::thread([this] {
      try {
        serve(
            o_, stop_, [](uint16_t p, void* self) { static_cast<LocalServer*>(self)->port_ = p; }, this);
      } catch (const std::exception& e) {
        error_ = e.what();
        port_ = 1;
      }
    });
    const auto deadline = Clock::now() + 10s;
    while (port_ == 0 && Clock::now() < deadline) std::this_thread::sleep_for(5ms);
    if (port_ <= 1) ADD_FAILURE() << "the server did not start: " << error_;
  }
  ~LocalServer() { stop(); }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::string address() const { return "tcp://127.0.0.1:" + std::to_string(port_); }
  uint16_t port() const { return port_; }
  // Waits (bounded) until `pred` holds.
  template <typename P>
  static bool eventually(P pred) {
    const auto deadline = Clock::now() + 10s;
    while (!pred() && Clock::now() < deadline) std::this_thread::sleep_for(10ms);
    return pred();
  }

  ServerStats stats;

 private:
  ServerOptions o_;
  std::atomic<bool> stop_{false};
  std::atomic<uint16_t> port_{0};
  std::string error_;
  std::thread thread_;
};

std::vector<float> vec(const Tensor<2>& t) { return t.to_vec<float>(); }

TEST(Remote, OpsGiveTheServerDevicesResults) {
  LocalServer server;
  const Device remote = Device::get("remote<" + server.address() + ">");
  EXPECT_EQ(remote.name(), "remote<" + server.address() + ">");
  const Device cpu = Device::get("cpu");
  auto compute = [](const Device& d) {
    auto x = Tensor<2>::from_vector(std::vector<float>{1, -2, 3, 4, 5, -6}, Shape{2, 3}, d);
    auto w = Tensor<2>::from_vector(std::vector<float>{0.5f, 1, -1, 2, 0.25f, 3}, Shape{3, 2}, d);
    auto y = (x.matmul(w) + 1.0f).relu() * x.slice({{0, 2}, {0, 2}}).exp();
    auto s = y.softmax(1).sum_dim(0);
    auto idx = x.argmax(1);         // the server answers the dtype of an int result
    auto sorted = x.sort(1, true);  // a pair
    return std::make_tuple(vec(y), s.to_vec<float>(), idx.to_vec<int64_t>(), vec(sorted));
  };
  EXPECT_EQ(compute(remote), compute(cpu));
}

TEST(Remote, ServerErrorsComeBackAsTheSameClass) {
  ServerLimits limits;
  limits.max_bytes = 1 << 20;
  LocalServer server(limits);
  const Device d = connect(server.address());
  const Prim a = d->from_data(TensorData::from_vector<float>({1, 2, 3}, Shape{3}));
  const Prim b = d->from_data(TensorData::from_vector<float>({1, 2}, Shape{2}));
  // Outputs the client cannot predict wait for the server: the error is raised by the call itself.
  EXPECT_THROW(d->add(a, b), ShapeError);
  // Predicted outputs are sent without waiting: the error comes on the read, or the next sync.
  const Prim big = d->full(Shape{1 << 20}, Scalar(1.0f), DType::F32);  // 4 MiB past a 1 MiB budget
  EXPECT_EQ(big->shape(), Shape{1 << 20});
  try {
    d->into_data(big);
    ADD_FAILURE() << "the read of a failed op succeeded";
  } catch (const OutOfMemory& e) {
    EXPECT_EQ(e.op(), "full");
    EXPECT_NE(std::string(e.what()).find("its limit is 1048576"), std::string::npos) << e.what();
  }
  const Prim big2 = d->full(Shape{1 << 20}, Scalar(1.0f), DType::F32);
  EXPECT_THROW(d.sync(), OutOfMemory);
  EXPECT_NO_THROW(d.sync());  // reported once
  // The connection keeps working.
  EXPECT_EQ(d->into_data(d->add(a, a)).to_vec<float>(), (std::vector<float>{2, 4, 6}));
}

TEST(Remote, ATensorPastTheMessageLimitIsRefusedAndTheConnectionKept) {
  ServerLimits limits;
  limits.max_message_bytes = 1 << 20;
  LocalServer server(limits);
  const Device d = connect(server.address());
  const auto small = Tensor<1>::ones(Shape{1000}, d);
  try {
    Tensor<1>::from_data(TensorData(Shape{1 << 19}, DType::F32), d);  // 2 MiB
    ADD_FAILURE() << "a 2 MiB tensor went into a 1 MiB message";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("--max-message-mib"), std::string::npos) << e.what();
  }
  // Several tensors that fit one by one but not together go in several messages.
  std::vector<Tensor<1>> parts;
  for (int i = 0; i < 6; ++i) parts.push_back(Tensor<1>::from_data(TensorData(Shape{1 << 16}, DType::F32), d));
  EXPECT_EQ((small.sum() + parts[5].sum()).to_vec<float>(), (std::vector<float>{1000}));
  // A tensor of another device is refused before anything is sent.
  EXPECT_THROW(small.to_device(d) + Tensor<1>::ones(Shape{1000}, Device::get("cpu")), DeviceError);
  EXPECT_EQ(small.sum().to_vec<float>(), (std::vector<float>{1000}));
}

TEST(Remote, ToDeviceMovesTensorsBothWays) {
  LocalServer server;
  const Device remote = connect(server.address());
  const auto local = Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2}, Device::get("cpu"));
  const auto there = local.to_device(remote) * 2.0f;
  EXPECT_EQ(there.device(), remote);
  const auto back = there.to_device(Device::get("cpu"));
  EXPECT_EQ(back.device(), Device::get("cpu"));
  EXPECT_EQ(vec(back), (std::vector<float>{2, 4, 6, 8}));
}

// A two-layer perceptron trained by plain SGD for `steps` steps; its parameters afterwards.
std::vector<std::vector<float>> train(const Device& ad, int steps) {
  std::mt19937 rng(7);
  std::normal_distribution<float> n(0, 0.5f);
  auto make = [&](int64_t r, int64_t c) {
    std::vector<float> v(static_cast<size_t>(r * c));
    for (auto& x : v) x = n(rng);
    return Tensor<2>::from_vector(v, Shape{r, c}, ad).require_grad();
  };
  auto w1 = make(4, 8), b1 = make(1, 8), w2 = make(8, 3), b2 = make(1, 3);
  const auto x = make(16, 4).detach();
  const auto target = make(16, 3).detach();
  for (int s = 0; s < steps; ++s) {
    const auto h = (x.matmul(w1) + b1).relu();
    const auto y = h.matmul(w2) + b2;
    const auto loss = ((y - target) * (y - target)).mean();
    const auto grads = loss.backward();
    auto step = [&](Tensor<2>& p) {
      const auto g = Tensor<2>::from_inner(*p.grad(grads), ad);
      p = (p.detach() - g * 0.1f).require_grad();
    };
    step(w1), step(b1), step(w2), step(b2);
  }
  return {vec(w1), vec(b1), vec(w2), vec(b2)};
}

TEST(Remote, TrainingThroughAutodiffRemoteEqualsLocal) {
  LocalServer server;
  const auto local = train(Device::get("autodiff<cpu>"), 5);
  const auto remote = train(Device::get("autodiff<remote<" + server.address() + ">>"), 5);
  EXPECT_EQ(remote, local);
}

// The load test, bounded: 16 clients, each on its own connection, train at once against one
// server; each gets the local parameters, and the server holds nothing once they are gone.
TEST(Remote, SixteenClientsTrainAtOnce) {
  LocalServer server;
  const auto local = train(Device::get("autodiff<cpu>"), 4);
  std::vector<std::vector<std::vector<float>>> results(16);
  std::vector<std::string> errors(16);
  {
    std::vector<std::thread> clients;
    for (size_t i = 0; i < results.size(); ++i) {
      clients.emplace_back([&, i] {
        try {
          results[i] = train(connect(server.address()).autodiff(), 4);
        } catch (const std::exception& e) {
          errors[i] = e.what();
        }
      });
    }
    for (auto& c : clients) c.join();
  }
  for (size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(errors[i], "") << "client " << i;
    EXPECT_EQ(results[i], local) << "client " << i;
  }
  EXPECT_TRUE(LocalServer::eventually([&] { return server.stats.clients == 0; }));
  EXPECT_EQ(server.stats.tensors.load(), 0u);
  EXPECT_EQ(server.stats.bytes.load(), 0u);
}

TEST(Remote, ADisconnectedClientsTensorsAreFreed) {
  LocalServer server;
  {
    const Device d = connect(server.address());
    std::vector<Tensor<2>> kept;
    for (int i = 0; i < 10; ++i) kept.push_back(Tensor<2>::ones(Shape{64, 64}, d) * float(i));
    d.sync();
    EXPECT_GE(server.stats.tensors.load(), 10u);
    EXPECT_GE(server.stats.bytes.load(), 10u * 64 * 64 * 4);
  }  // the device and its tensors are dropped: the connection closes
  EXPECT_TRUE(LocalServer::eventually([&] { return server.stats.clients == 0; }));
  EXPECT_EQ(server.stats.tensors.load(), 0u);
  EXPECT_EQ(server.stats.bytes.load(), 0u);
}

// A raw connection to 127.0.0.1:port sending `bytes`, then reading until the server closes it.
void send_raw(uint16_t port, const std::vector<uint8_t>& bytes) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0) {
    (void)::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    ::shutdown(fd, SHUT_WR);
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    char buf[4096];
    while (::recv(fd, buf, sizeof(buf), 0) > 0) {
    }
  }
  ::close(fd);
}

TEST(Remote, GarbageConnectionsDoNotDisturbAGoodClient) {
  LocalServer server;
  const auto local = train(Device::get("autodiff<cpu>"), 3);
  std::vector<std::thread> attackers;
  for (int t = 0; t < 4; ++t) {
    attackers.emplace_back([&, t] {
      std::mt19937_64 rng(100 + t);
      for (int i = 0; i < 25; ++i) {
        std::vector<uint8_t> bytes(1 + rng() % 200);
        for (auto& b : bytes) b = static_cast<uint8_t>(rng());
        if (i % 3 == 0) {  // a frame claiming 4 GiB
          bytes[0] = bytes[1] = bytes[2] = bytes[3] = 0xff;
        } else if (i % 3 == 1) {  // a valid hello, then a batch frame of random records
          Writer w;
          size_t f = begin_frame(w, Frame::Hello);
          w.raw(kMagic, sizeof(kMagic));
          w.u64(kProtocolVersion);
          w.str("");
          end_frame(w, f);
          f = begin_frame(w, Frame::Batch);
          w.u32(static_cast<uint32_t>(1 + rng() % 4));
          w.raw(bytes.data(), bytes.size());
          end_frame(w, f);
          bytes = w.bytes();
        }
        send_raw(server.port(), bytes);
      }
    });
  }
  const auto remote = train(Device::get("autodiff<remote<" + server.address() + ">>"), 3);
  for (auto& a : attackers) a.join();
  EXPECT_EQ(remote, local);
  // Every hostile connection was closed for what it sent (a random batch could, rarely, be valid).
  EXPECT_TRUE(LocalServer::eventually([&] { return server.stats.closed_for_protocol_errors >= 95; }))
      << server.stats.closed_for_protocol_errors;
  // And it still serves a new client.
  const Device d = connect(server.address());
  EXPECT_EQ(Tensor<1>::ones(Shape{3}, d).sum().to_vec<float>(), (std::vector<float>{3}));
}

TEST(Remote, TokenIsRequiredWhenTheServerHasOne) {
  LocalServer server({}, "s3cret");
  ::setenv("BURN_REMOTE_TOKEN", "wrong", 1);
  try {
    connect(server.address());
    ADD_FAILURE() << "a wrong token was accepted";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("authentication failed"), std::string::npos) << e.what();
  }
  ::setenv("BURN_REMOTE_TOKEN", "s3cret", 1);
  const Device d = connect(server.address());
  ::unsetenv("BURN_REMOTE_TOKEN");
  EXPECT_EQ(Tensor<1>::ones(Shape{2}, d).sum().to_vec<float>(), (std::vector<float>{2}));
}

TEST(Remote, AKilledServerFailsTheNextCallWithinTheTimeoutNamingTheAddress) {
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  std::string exe = BURN_SERVER_EXE;
  std::vector<std::string> args{exe, "--listen", "127.0.0.1:0", "--quiet"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ASSERT_EQ(spawned, 0);
  ::close(out[1]);
  // "burn server: listening on tcp://127.0.0.1:PORT ..."
  std::string line;
  char c;
  const auto deadline = Clock::now() + 20s;
  while (Clock::now() < deadline && ::read(out[0], &c, 1) == 1 && c != '\n') line += c;
  ::close(out[0]);
  const size_t at = line.find("tcp://");
  ASSERT_NE(at, std::string::npos) << line;
  const std::string address = line.substr(at, line.find(' ', at) - at);

  ::setenv("BURN_REMOTE_TIMEOUT", "5", 1);
  const Device d = connect(address);
  ::unsetenv("BURN_REMOTE_TIMEOUT");
  const auto x = Tensor<1>::ones(Shape{4}, d);
  EXPECT_EQ(x.sum().to_vec<float>(), (std::vector<float>{4}));
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  const auto start = Clock::now();
  try {
    (x * 2.0f).to_vec<float>();
    ADD_FAILURE() << "a call on a killed server succeeded";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find(address), std::string::npos) << e.what();
  }
  EXPECT_LT(Clock::now() - start, 10s);
  // Every later call fails at once, naming the address too.
  try {
    x.sum().to_vec<float>();
    ADD_FAILURE() << "a call on a dead connection succeeded";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find(address), std::string::npos) << e.what();
  }
}

// The client's counters: ops whose outputs it predicts wait in the batch and cost no round trip; an
// unpredictable op, a read and a sync each cost one, named by the op; a decorator over the device
// forwards the counters' interface.
TEST(Remote, StatsCountBytesAndTheOpsThatWaited) {
  LocalServer server;
  const Device d = Device::get("remote<" + server.address() + ">");
  auto* source = static_cast<RemoteStatsSource*>(d->query_interface(kRemoteStatsInterface));
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(Device::get("autodiff<remote<" + server.address() + ">>")->query_interface(kRemoteStatsInterface),
            static_cast<void*>(source));
  EXPECT_EQ(Device::get("cpu")->query_interface(kRemoteStatsInterface), nullptr);
  const RemoteStats start = source->stats();
  EXPECT_EQ(start.bytes_sent, 0u);
  EXPECT_EQ(start.round_trips, 0u);

  const auto x = Tensor<2>::from_vector(std::vector<float>{1, -2, 3, 4}, Shape{2, 2}, d);
  const auto y = (x + x).exp();  // predicted: queued, nothing sent yet
  const RemoteStats queued = source->stats();
  EXPECT_EQ(queued.bytes_sent, 0u);
  EXPECT_EQ(queued.round_trips, 0u);

  const auto idx = x.argmax(1);  // an int result: the client asks the server for its dtype, and waits
  const RemoteStats asked = source->stats();
  EXPECT_EQ(asked.batches, 1u);
  EXPECT_GT(asked.bytes_sent, 16u);  // the batch carried x's 16 bytes of data and four op records
  EXPECT_GT(asked.bytes_received, 0u);
  EXPECT_EQ(asked.round_trips, 1u);
  EXPECT_EQ(asked.round_trips_by_op, (std::map<std::string, uint64_t>{{"argmax", 1}}));

  EXPECT_NEAR(vec(y)[0], std::exp(2.0f), 1e-4f);  // the read: a second round trip, 4 floats back
  d.sync();
  const RemoteStats end = source->stats();
  EXPECT_EQ(end.batches, 3u);
  EXPECT_EQ(end.round_trips, 3u);
  EXPECT_EQ(end.round_trips_by_op, (std::map<std::string, uint64_t>{{"argmax", 1}, {"into_data", 1}, {"sync", 1}}));
  EXPECT_GE(end.bytes_received - asked.bytes_received, 16u);
  EXPECT_EQ(idx.to_vec<int64_t>(), (std::vector<int64_t>{0, 1}));
}

// The backward ops of gather (a cross-entropy's) and select (an embedding's), scatter_add and select_add,
// are sent without waiting, and give the server device's results.
TEST(Remote, ScatterAddAndSelectAddAreSentWithoutWaiting) {
  LocalServer server;
  const Device remote = connect(server.address());
  auto* source = static_cast<RemoteStatsSource*>(remote->query_interface(kRemoteStatsInterface));
  ASSERT_NE(source, nullptr);
  auto compute = [](const Device& d) {
    const Prim x = d->from_data(TensorData::from_vector<float>({0, 1, 2, 3, 4, 5}, Shape{2, 3}));
    const Prim idx = d->from_data(TensorData::from_vector<int64_t>({2, 0}, Shape{2, 1}));
    const Prim v = d->from_data(TensorData::from_vector<float>({1.5f, -2}, Shape{2, 1}));
    const Prim rows = d->from_data(TensorData::from_vector<int64_t>({1, 1, 0}, Shape{3}));
    const Prim w = d->from_data(TensorData::from_vector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}, Shape{3, 3}));
    return std::make_pair(d->scatter_add(x, 1, idx, v), d->select_add(x, 0, rows, w));
  };
  const auto [scattered, selected] = compute(remote);
  EXPECT_EQ(source->stats().round_trips, 0u);
  EXPECT_EQ(scattered->shape(), (Shape{2, 3}));
  EXPECT_EQ(selected->shape(), (Shape{2, 3}));
  const Device cpu = Device::get("cpu");
  const auto [local_scattered, local_selected] = compute(cpu);
  EXPECT_EQ(remote->into_data(scattered).to_vec<float>(), cpu->into_data(local_scattered).to_vec<float>());
  EXPECT_EQ(remote->into_data(selected).to_vec<float>(), cpu->into_data(local_selected).to_vec<float>());
  EXPECT_EQ(remote->into_data(selected).to_vec<float>(), (std::vector<float>{7, 9, 11, 8, 11, 14}));
  // Arguments the shape rule refuses (dim 5 of a matrix) are no prediction: the op waits, and the server's
  // error comes back from the call itself.
  const Prim x = remote->from_data(TensorData::from_vector<float>({0, 1}, Shape{1, 2}));
  const Prim idx = remote->from_data(TensorData::from_vector<int64_t>({1}, Shape{1, 1}));
  EXPECT_THROW(remote->scatter_add(x, 5, idx, x), IndexError);
  EXPECT_EQ(source->stats().round_trips_by_op.at("scatter_add"), 1u);
}

TEST(Remote, AnAddressIsNoBackendAndASpecWithoutOneIsRefused) {
  EXPECT_THROW(Device::get("tcp://127.0.0.1:1"), DeviceError);
  // Port 1 on loopback: nothing listens there, the connection is refused at once.
  try {
    Device::get("remote<tcp://127.0.0.1:1>");
    ADD_FAILURE();
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("tcp://127.0.0.1:1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Device::get("remote<http://x:1>"), DeviceError);
}

}  // namespace
}  // namespace burn::remote
