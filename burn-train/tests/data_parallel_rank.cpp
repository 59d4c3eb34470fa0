// One rank of the data-parallel tests (data_parallel_test.cpp starts 2 or 3 of them through the
// launcher). Each scenario trains a small model with DataParallel and checks, inside the rank, what
// it must equal: the other ranks (all_gather, bitwise) and one process on the global batch (computed
// here too, since every rank has all the data). Prints "ok: ..." lines and exits 0, or "FAIL: ..." and
// exits 1; exit 3 with "error: ..." when a CollectiveError came (the fault scenarios).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <burn/nn.hpp>
#include <burn/optim.hpp>
#include <cmath>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "burn/collective/communicator.hpp"
#include "burn/data/dataloader.hpp"
#include "burn/train/data_parallel.hpp"
#include "learner_fixture.hpp"

using namespace burn;

namespace {

int g_failures = 0;

void expect(bool ok, const std::string& what) {
  std::cout << (ok ? "ok: " : "FAIL: ") << what << std::endl;
  if (!ok) ++g_failures;
}

struct Net {
  nn::Linear fc1, fc2;
  nn::Param<Tensor<1>> running;  // a buffer: broadcast with the parameters, never trained
  BURN_MODULE(fc1, fc2, running)
  Tensor<2> forward(const Tensor<2>& x) const { return fc2.forward(fc1.forward(x).relu()); }
};

// Dyadic values (multiples of 1/8 below 1): sums and products of a few of them are exact in f32.
float dyadic(int64_t i, int salt) { return static_cast<float>((i * 5 + salt) % 7 - 3) / 8.0f; }

// The same model on every rank unless `salt` differs.
Net make_net(const Device& ad, int salt) {
  Net net{nn::LinearConfig{4, 8}.init(ad), nn::LinearConfig{8, 2}.init(ad), nn::buffer(Tensor<1>::zeros({2}, ad))};
  int k = 0;
  for (const auto& p : nn::named_params(net)) {
    std::vector<float> v(static_cast<size_t>(p.param->num_elements()));
    for (size_t i = 0; i < v.size(); ++i) v[i] = dyadic(static_cast<int64_t>(i), salt + k);
    ++k;
    p.param->set_handle(api::from_data(ad, TensorData::from_vector(v, p.param->shape()), Kind::Float));
  }
  return net;
}

struct Item {
  std::vector<float> x, y;
};
struct Batch {
  Tensor<2> x, y;
};

std::shared_ptr<data::InMemDataset<Item>> make_items(size_t n) {
  std::vector<Item> items(n);
  for (size_t i = 0; i < n; ++i) {
    for (int j = 0; j < 4; ++j) items[i].x.push_back(static_cast<float>((i * 7 + j * 3) % 9) / 4.0f - 1.0f);
    for (int j = 0; j < 2; ++j) items[i].y.push_back(static_cast<float>((i * 5 + j) % 5) / 2.0f - 1.0f);
  }
  return std::make_shared<data::InMemDataset<Item>>(std::move(items));
}

std::shared_ptr<data::FnBatcher<Item, Batch>> batcher(const Device& d) {
  return std::make_shared<data::FnBatcher<Item, Batch>>([d](std::vector<Item> items) {
    std::vector<float> x, y;
    for (const auto& it : items)
      x.insert(x.end(), it.x.begin(), it.x.end()), y.insert(y.end(), it.y.begin(), it.y.end());
    const auto n = static_cast<int64_t>(items.size());
    return Batch{Tensor<2>::from_vector(x, Shape{n, 4}, d), Tensor<2>::from_vector(y, Shape{n, 2}, d)};
  });
}

Tensor<1> loss_of(const Net& net, const Batch& b) {
  const Tensor<2> d = net.forward(b.x) - b.y;
  return (d * d).mean();
}

std::vector<float> flat(Net& net) {
  std::vector<float> out;
  for (const auto& p : nn::named_params(net)) {
    const auto v = api::into_data(p.param->handle()).to_vec<float>();
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

bool bitwise(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// The largest |a - b| / (1 + |b|).
double worst(const std::vector<float>& a, const std::vector<float>& b) {
  double w = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    w = std::max(w, std::abs(static_cast<double>(a[i]) - b[i]) / (1.0 + std::abs(static_cast<double>(b[i]))));
  return a.size() == b.size() ? w : 1e30;
}

// Every rank holds exactly these values (all_gather, compared bit for bit with rank 0's).
bool same_on_every_rank(collective::Communicator& c, const std::vector<float>& v) {
  const auto all = c.all_gather(Tensor<1>::from_vector(v, Shape{static_cast<int64_t>(v.size())}, Device::get("cpu")))
                       .to_vec<float>();
  for (int r = 0; r < c.world_size(); ++r)
    if (std::memcmp(all.data() + r * v.size(), v.data(), v.size() * sizeof(float)) != 0) return false;
  return true;
}

constexpr size_t kBatch = 4;     // per rank
constexpr double kBound = 2e-6;  // data parallel against one process, after 5 steps (README)

optim::Optimizer make_optimizer(const std::string& kind) {
  return kind == "adam" ? optim::AdamConfig{}.init() : optim::SgdConfig{}.init();
}

// 5 steps of `kind` with data parallelism (bucket size `bucket`, all-reduces overlapping backward or
// after it) on this rank's shard.
std::vector<float> train_dp(collective::Communicator& c, const std::string& kind, size_t bucket, int steps,
                            std::vector<std::vector<std::vector<std::string>>>* layouts = nullptr,
                            std::vector<float>* after_first = nullptr, train::DataParallel::StepStats* stats = nullptr,
                            bool overlap = true, size_t first_bucket = 1u << 20) {
  const Device ad = Device::get("autodiff<cpu>");
  train::DataParallel dp(c, {.bucket_bytes = bucket, .first_bucket_bytes = first_bucket, .overlap = overlap});
  Net net = dp.broadcast(make_net(ad, 0));
  optim::Optimizer opt = make_optimizer(kind);
  data::DataLoader<Item, Batch> loader(make_items(64), batcher(ad),
                                       {.batch_size = kBatch,
                                        .shuffle = true,
                                        .seed = 3,
                                        .num_shards = static_cast<size_t>(c.world_size()),
                                        .shard_index = static_cast<size_t>(c.rank())});
  auto it = loader.iter();
  for (int s = 0; s < steps; ++s) {
    auto b = it.next();
    net = opt.step(1.0 / 16, net, dp.backward(loss_of(net, *b), net));
    if (layouts) layouts->push_back(dp.bucket_layout());
    if (s == 0 && after_first) *after_first = flat(net);
  }
  if (stats) *stats = dp.last_step();
  return flat(net);
}

// The same steps in one process on the global batch (world_size * kBatch items, the same items).
std::vector<float> train_single(int world, const std::string& kind, int steps, std::vector<float>* after_first) {
  const Device ad = Device::get("autodiff<cpu>");
  Net net = make_net(ad, 0);
  optim::Optimizer opt = make_optimizer(kind);
  data::DataLoader<Item, Batch> loader(make_items(64), batcher(ad),
                                       {.batch_size = kBatch * static_cast<size_t>(world), .shuffle = true, .seed = 3});
  auto it = loader.iter();
  for (int s = 0; s < steps; ++s) {
    auto b = it.next();
    Gradients g = loss_of(net, *b).backward();
    net = opt.step(1.0 / 16, net, optim::GradientsParams::from_grads(g, net));
    if (s == 0 && after_first) *after_first = flat(net);
  }
  return flat(net);
}

bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

int run_steps() {
  collective::Communicator c = collective::Communicator::from_environment();
  const int w = c.world_size();
  for (const std::string kind : {"sgd", "adam"}) {
    std::vector<std::vector<std::vector<std::string>>> layouts;
    std::vector<float> dp_first, single_first;
    const auto dp = train_dp(c, kind, 25u << 20, 5, &layouts, &dp_first);
    const auto single = train_single(w, kind, 5, &single_first);
    expect(same_on_every_rank(c, dp), kind + ": parameters bitwise identical on every rank after 5 steps");
    const double err = worst(dp, single);
    std::cout << kind << ": worst relative difference to one process after 5 steps: " << err << "\n";
    expect(err <= kBound, kind + ": equal to one process on the global batch within " + std::to_string(kBound));
    if (kind == "sgd" && power_of_two(w)) {
      expect(bitwise(dp_first, single_first),
             "sgd: the first step (dyadic data, lr 1/16) bitwise equal to one process");
    }
    expect(layouts.size() == 5 && layouts[0].size() == 1, kind + ": one bucket of 25 MB holds the whole model");
    // Per-parameter buckets: the same values (bit for bit where a sum of the ranks' values does not
    // depend on the order, as with two ranks), and a layout fixed after the first step.
    std::vector<std::vector<std::vector<std::string>>> small;
    train::DataParallel::StepStats stats;
    const auto per_param = train_dp(c, kind, 1, 5, &small, nullptr, &stats);
    expect(stats.buckets == 4 && stats.sent_during_backward == 4,
           kind + ": every bucket handed to the communication thread while backward ran (" +
               std::to_string(stats.sent_during_backward) + " of " + std::to_string(stats.buckets) + ")");
    if (w == 2) {
      expect(bitwise(per_param, dp), kind + ": per-parameter buckets bitwise equal to one bucket");
    } else {
      expect(worst(per_param, dp) <= kBound, kind + ": per-parameter buckets equal to one bucket within the bound");
    }
    expect(same_on_every_rank(c, per_param), kind + ": per-parameter buckets identical on every rank");
    bool fixed = small.size() == 5;
    for (size_t s = 2; s < small.size(); ++s) fixed = fixed && small[s] == small[1];
    expect(fixed && small[1].size() == 4, kind + ": 4 buckets of one parameter each, the same from step 2 on");
    // A first bucket of 65 bytes (the default is 1 MiB, as PyTorch's): it takes fc2's two parameters (8 and 64
    // bytes, in either order) since a bucket closes once it holds at least its size, so fc2 alone, 72 bytes;
    // fc1 in the 25 MB second, from step 2 on; the same values as one bucket.
    std::vector<std::vector<std::vector<std::string>>> firsts;
    const auto first_small = train_dp(c, kind, 25u << 20, 5, &firsts, nullptr, nullptr, true, 65);
    const auto all_under = [](const std::vector<std::string>& paths, const std::string& prefix) {
      return !paths.empty() &&
             std::all_of(paths.begin(), paths.end(), [&](const std::string& p) { return p.rfind(prefix, 0) == 0; });
    };
    expect(firsts.size() == 5 && firsts[1].size() == 2 && all_under(firsts[1][0], "fc2.") &&
               all_under(firsts[1][1], "fc1."),
           kind + ": a first bucket of 65 bytes holds fc2 alone, the second fc1 (" +
               std::to_string(firsts.size() > 1 ? firsts[1].size() : 0) + " buckets)");
    if (w == 2) {
      expect(bitwise(first_small, dp), kind + ": a small first bucket bitwise equal to one bucket");
    } else {
      expect(worst(first_small, dp) <= kBound, kind + ": a small first bucket equal to one bucket within the bound");
    }
    // Backward finishes the last layer first: its gradients are the first ready, the first sent.
    expect(!small.empty() && small[1].size() == 4 && small[1][0][0].rfind("fc2.", 0) == 0 &&
               small[1][3][0].rfind("fc1.", 0) == 0,
           kind + ": buckets in the order the gradients became final (fc2 first): " +
               (small.size() > 1 && !small[1].empty() ? small[1][0][0] + " ... " + small[1].back()[0] : "none"));
  }
  return g_failures == 0 ? 0 : 1;
}

// The all-reduces after backward (DataParallelConfig::overlap off) against the overlap: the same
// buckets in the same order, so bit for bit the same parameters after 5 steps, none sent during backward.
int run_after_backward() {
  collective::Communicator c = collective::Communicator::from_environment();
  for (const std::string kind : {"sgd", "adam"}) {
    for (const size_t bucket : {size_t{1}, size_t{25u << 20}}) {
      const std::string what = kind + ", " + (bucket == 1 ? "per-parameter buckets" : "one 25 MB bucket");
      train::DataParallel::StepStats overlapped, after;
      std::vector<std::vector<std::vector<std::string>>> layout_overlapped, layout_after;
      const auto a = train_dp(c, kind, bucket, 5, &layout_overlapped, nullptr, &overlapped, true);
      const auto b = train_dp(c, kind, bucket, 5, &layout_after, nullptr, &after, false);
      expect(bitwise(a, b), what + ": all-reduce after backward bitwise equal to the overlap after 5 steps");
      expect(same_on_every_rank(c, b), what + ": all-reduce after backward identical on every rank");
      expect(layout_after == layout_overlapped, what + ": the same bucket layout at every step");
      const size_t buckets = bucket == 1 ? 4 : 1;
      expect(after.buckets == buckets && after.sent_during_backward == 0 && overlapped.buckets == buckets &&
                 overlapped.sent_during_backward == buckets,
             what + ": sent during backward " + std::to_string(overlapped.sent_during_backward) + " of " +
                 std::to_string(overlapped.buckets) + " with the overlap, " +
                 std::to_string(after.sent_during_backward) + " of " + std::to_string(after.buckets) + " without");
    }
  }
  return g_failures == 0 ? 0 : 1;
}

// k micro-batches under no_sync (each loss divided by k) against one step on k times the batch.
int run_accumulate() {
  collective::Communicator c = collective::Communicator::from_environment();
  const Device ad = Device::get("autodiff<cpu>");
  const size_t k = 2;  // 96 items: 3 steps of 2 x 4 items fit in a shard of 3 ranks (32 items)
  auto train = [&](size_t batch, size_t micro) {
    train::DataParallel dp(c);
    Net net = dp.broadcast(make_net(ad, 0));
    optim::Optimizer opt = optim::SgdConfig{}.init();
    data::DataLoader<Item, Batch> loader(make_items(96), batcher(ad),
                                         {.batch_size = batch,
                                          .shuffle = true,
                                          .seed = 3,
                                          .num_shards = static_cast<size_t>(c.world_size()),
                                          .shard_index = static_cast<size_t>(c.rank())});
    auto it = loader.iter();
    std::vector<std::vector<float>> after;
    for (int s = 0; s < 3; ++s) {
      {
        auto keep = dp.no_sync();
        for (size_t m = 0; m + 1 < micro; ++m) {
          const auto g = dp.backward(loss_of(net, *it.next()) / static_cast<float>(micro), net);
          expect(g.empty(), "no_sync: backward returns no gradients");
        }
      }
      const auto grads = dp.backward(loss_of(net, *it.next()) / static_cast<float>(micro), net);
      net = opt.step(1.0 / 16, net, grads);
      after.push_back(flat(net));
    }
    return after;
  };
  const auto accumulated = train(kBatch, k);
  const auto big = train(kBatch * k, 1);
  expect(bitwise(accumulated[0], big[0]),
         "accumulation of 2 micro-batches bitwise equal to one step on twice the batch (first step, dyadic data)");
  std::cout << "accumulation: worst relative difference after 3 steps: " << worst(accumulated[2], big[2]) << "\n";
  expect(worst(accumulated[2], big[2]) <= kBound, "and within the bound after 3 steps");
  expect(same_on_every_rank(c, accumulated[2]), "accumulated parameters identical on every rank");
  return g_failures == 0 ? 0 : 1;
}

// Rank 1 starts from other values (parameters and buffer); the broadcast gives it rank 0's.
int run_broadcast() {
  collective::Communicator c = collective::Communicator::from_environment();
  const Device ad = Device::get("autodiff<cpu>");
  train::DataParallel dp(c);
  Net mine = make_net(ad, c.rank() == 1 ? 3 : 0);
  mine.running.set(Tensor<1>::full({2}, static_cast<float>(c.rank() + 1), ad));
  Net expected = make_net(ad, 0);
  expected.running.set(Tensor<1>::full({2}, 1.0f, ad));
  if (c.rank() == 1) expect(!bitwise(flat(mine), flat(expected)), "rank 1 starts from other values");
  Net got = dp.broadcast(mine);
  expect(bitwise(flat(got), flat(expected)), "after the broadcast every parameter and buffer is rank 0's");
  expect(api::is_require_grad(got.fc1.weight.handle()), "a broadcast parameter is still tracked");
  expect(!api::is_require_grad(got.running.handle()), "a broadcast buffer is not tracked");
  return g_failures == 0 ? 0 : 1;
}

// fc1 takes part in the first 2 steps only: from step 3 its gradient never comes and counts as zero,
// though the bucket buffers are reused from step to step (its slots still hold step 2's gradients), so
// SGD leaves fc1 as step 2 left it while fc2 goes on changing.
int run_unused() {
  collective::Communicator c = collective::Communicator::from_environment();
  const Device ad = Device::get("autodiff<cpu>");
  train::DataParallel dp(c);
  Net net = dp.broadcast(make_net(ad, 0));
  optim::Optimizer opt = optim::SgdConfig{}.init();
  data::DataLoader<Item, Batch> loader(make_items(64), batcher(ad),
                                       {.batch_size = kBatch,
                                        .num_shards = static_cast<size_t>(c.world_size()),
                                        .shard_index = static_cast<size_t>(c.rank())});
  auto it = loader.iter();
  std::vector<float> fc1_after_2, fc2_after_2;
  for (int s = 0; s < 4; ++s) {
    auto b = it.next();
    // Without fc1: fc2 on the first 8 columns of the input repeated (fc2 takes 8 features).
    const Tensor<1> loss = s < 2 ? loss_of(net, *b) : [&] {
      const Tensor<2> d = net.fc2.forward(Tensor<2>::cat({b->x, b->x}, 1)) - b->y;
      return (d * d).mean();
    }();
    net = opt.step(1.0 / 16, net, dp.backward(loss, net));
    if (s == 1) {
      fc1_after_2 = api::into_data(net.fc1.weight.handle()).to_vec<float>();
      fc2_after_2 = api::into_data(net.fc2.weight.handle()).to_vec<float>();
    }
  }
  const auto fc1 = api::into_data(net.fc1.weight.handle()).to_vec<float>();
  const auto fc2 = api::into_data(net.fc2.weight.handle()).to_vec<float>();
  expect(bitwise(fc1, fc1_after_2), "a parameter without a gradient in steps 3-4 is left as step 2 left it");
  expect(!bitwise(fc2, fc2_after_2), "the parameter in use goes on changing");
  expect(same_on_every_rank(c, flat(net)), "parameters identical on every rank");
  return g_failures == 0 ? 0 : 1;
}

// Rank 1 dies (SIGKILL) in the middle of its second step, after its forward; the others are in
// that step's all-reduce and must fail at once naming it.
int run_kill() {
  collective::Communicator c = collective::Communicator::from_environment();
  const Device ad = Device::get("autodiff<cpu>");
  train::DataParallel dp(c);
  Net net = dp.broadcast(make_net(ad, 0));
  data::DataLoader<Item, Batch> loader(make_items(64), batcher(ad),
                                       {.batch_size = kBatch,
                                        .num_shards = static_cast<size_t>(c.world_size()),
                                        .shard_index = static_cast<size_t>(c.rank())});
  auto it = loader.iter();
  optim::Optimizer opt = optim::SgdConfig{}.init();
  try {
    for (int s = 0; s < 3; ++s) {
      const Tensor<1> loss = loss_of(net, *it.next());
      if (s == 1 && c.rank() == 1) ::kill(::getpid(), SIGKILL);
      net = opt.step(1.0 / 16, net, dp.backward(loss, net));
    }
    std::cerr << "rank " << c.rank() << ": the steps ended although rank 1 is gone\n";
    return 1;
  } catch (const collective::CollectiveError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 3;
  }
}

// The Learner with data parallelism (learner_fixture's run, sharded): prints a digest of the trained
// parameters, which must be the same on every rank and equal between a straight run and a resumed one.
int run_learner(const std::string& dir, int64_t epochs, bool resume) {
  collective::Communicator c = collective::Communicator::from_environment();
  learner_fixture::Run r;
  r.artifact_dir = dir;
  r.epochs = epochs;
  r.resume = resume;
  r.data_parallel = std::make_shared<train::DataParallel>(c);
  const learner_fixture::Outcome out = learner_fixture::run(r);
  std::vector<float> all;
  for (const auto& p : out.params) all.insert(all.end(), p.begin(), p.end());
  expect(same_on_every_rank(c, all), "learner: parameters identical on every rank");
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the bytes
  const auto* bytes = reinterpret_cast<const uint8_t*>(all.data());
  for (size_t i = 0; i < all.size() * sizeof(float); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  std::cout << "params " << std::hex << h << std::dec << " steps " << out.result.global_step << "\n";
  return g_failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string scenario = argc > 1 ? argv[1] : "";
  try {
    if (scenario == "steps") return run_steps();
    if (scenario == "after-backward") return run_after_backward();
    if (scenario == "accumulate") return run_accumulate();
    if (scenario == "broadcast") return run_broadcast();
    if (scenario == "unused") return run_unused();
    if (scenario == "kill") return run_kill();
    if (scenario == "learner" && argc == 5)
      return run_learner(argv[2], std::stoll(argv[3]), std::string(argv[4]) == "1");
    std::cerr
        << "usage: burn-train-data-parallel-rank steps|after-backward|accumulate|broadcast|unused|kill|learner DIR "
           "EPOCHS RESUME\n";
    return 2;
  } catch (const collective::CollectiveError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "unexpected error: " << e.what() << "\n";
    return 1;
  }
}
