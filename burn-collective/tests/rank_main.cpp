// One rank of the distributed tests, started by collective_test.cpp through burn::collective::launch
// (RANK, WORLD_SIZE, BURN_RENDEZVOUS in its environment). `values` checks every collective's results;
// `kill`, `stop` and `world` make a fault and report what this rank saw: exit 3 with the error on
// stderr when a CollectiveError came, 1 when something else went wrong.
#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "burn/collective/communicator.hpp"

using namespace burn;
using namespace burn::collective;

namespace {

int g_checks = 0;
int g_failures = 0;
std::string g_device = "cpu";  // the device the tensors live on (argv[2])

// Small integers: exact in every float dtype and in sums of a few ranks.
double value(int rank, int64_t i) { return static_cast<double>((i * 7 + rank * 3) % 11) - 5.0; }
double value_of(DType d, int rank, int64_t i) {
  if (d == DType::Bool) return (i + rank) % 3 == 0 ? 1.0 : 0.0;
  if (d == DType::U8) return value(rank, i) + 5.0;
  return value(rank, i);
}

TensorData make(DType d, const Shape& s, int rank) {
  std::vector<double> v(static_cast<size_t>(s.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = value_of(d, rank, static_cast<int64_t>(i));
  return TensorData::from_vector(v, s).convert(d);
}

// The reduction over the ranks of element i, as the Communicator computes it: in f32 for f32, f16
// and bf16 (rounded once at the end), in f64 for f64, in the dtype for ints, or/and for bool.
TensorData expected_reduce(DType d, ReduceOp op, int world, const Shape& s, int64_t offset) {
  const size_t n = static_cast<size_t>(s.num_elements());
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) {
    double acc = value_of(d, 0, offset + static_cast<int64_t>(i));
    for (int r = 1; r < world; ++r) {
      const double x = value_of(d, r, offset + static_cast<int64_t>(i));
      if (op == ReduceOp::Max || (d == DType::Bool && op == ReduceOp::Sum))
        acc = std::max(acc, x);
      else if (op == ReduceOp::Min)
        acc = std::min(acc, x);
      else
        acc += x;
    }
    out[i] = acc;
  }
  if (op == ReduceOp::Mean) {
    if (d == DType::F64) {
      for (auto& x : out) x /= world;
    } else {
      std::vector<float> f(n);
      for (size_t i = 0; i < n; ++i) f[i] = static_cast<float>(out[i]) / static_cast<float>(world);
      return TensorData::from_vector(f, s).convert(d);
    }
  }
  return TensorData::from_vector(out, s).convert(d);
}

void check(const TensorData& got, const TensorData& want, const std::string& what) {
  ++g_checks;
  if (got == want) return;
  ++g_failures;
  std::cerr << "MISMATCH " << what << ": got " << got.to_string(20) << " want " << want.to_string(20) << "\n";
}

template <typename K>
void check_dtype(Communicator& c, DType d) {
  const Device dev = Device::get(g_device);
  const int w = c.world_size(), me = c.rank();
  const std::string dn(dtype_name(d));
  for (int64_t n : {0, 1, 7, 1031}) {
    const Shape s{n};
    const auto t = Tensor<1, K>::from_data(make(d, s, me), dev);
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Max, ReduceOp::Min}) {
      const std::string what = "all_reduce " + std::string(reduce_op_name(op)) + " " + dn + " n=" + std::to_string(n);
      if (op == ReduceOp::Mean && !is_float(d)) {
        ++g_checks;
        try {
          c.all_reduce(t, op);
          ++g_failures;
          std::cerr << "MISSING ERROR " << what << "\n";
        } catch (const DTypeError&) {
        }
        continue;
      }
      const auto got = c.all_reduce(t, op);
      ++g_checks;
      if (!(got.device() == dev)) {
        ++g_failures;
        std::cerr << "WRONG DEVICE " << what << ": " << got.device().name() << "\n";
      }
      check(got.into_data(), expected_reduce(d, op, w, s, 0), what);
    }
    check(c.broadcast(t, w - 1).into_data(), make(d, s, w - 1), "broadcast " + dn + " n=" + std::to_string(n));
    // all_gather: the ranks' tensors one after the other.
    std::vector<double> all;
    for (int r = 0; r < w; ++r)
      for (int64_t i = 0; i < n; ++i) all.push_back(value_of(d, r, i));
    check(c.all_gather(t).into_data(), TensorData::from_vector(all, Shape{w * n}).convert(d),
          "all_gather " + dn + " n=" + std::to_string(n));
  }
  // reduce_scatter: [w * m, 3] in, rank r gets block r reduced.
  for (int64_t m : {0, 1, 3}) {
    const Shape s{w * m, 3};
    const auto t = Tensor<2, K>::from_data(make(d, s, me), dev);
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Max, ReduceOp::Min}) {
      if (op == ReduceOp::Mean && !is_float(d)) continue;
      check(c.reduce_scatter(t, op).into_data(), expected_reduce(d, op, w, Shape{m, 3}, me * m * 3),
            "reduce_scatter " + std::string(reduce_op_name(op)) + " " + dn + " m=" + std::to_string(m));
    }
  }
  c.barrier();
}

int run_values() {
  Communicator c = Communicator::from_environment();
  check_dtype<Float>(c, DType::F32);
  check_dtype<Float>(c, DType::F64);
  check_dtype<Float>(c, DType::F16);
  check_dtype<Float>(c, DType::BF16);
  check_dtype<Int>(c, DType::I32);
  check_dtype<Int>(c, DType::I64);
  check_dtype<Int>(c, DType::I8);
  check_dtype<Int>(c, DType::U8);
  check_dtype<Bool>(c, DType::Bool);
  std::cout << "rank " << c.rank() << ": " << g_checks << " checks, " << g_failures << " failures\n";
  return g_failures == 0 ? 0 : 1;
}

// all_reduce of sizes on both sides of what the gloo engine carries in its call frame (64 KiB) and of
// its 4 MiB segments (2 of them for f64 at 540,000 elements), its kept buffers grown by the larger calls
// and reused by the smaller ones after them; on tensors and on host data in place; sum and max of f32,
// sum of i32 and f64.
int run_sizes() {
  Communicator c = Communicator::from_environment();
  const Device dev = Device::get("cpu");
  const int w = c.world_size(), me = c.rank();
  const int64_t sizes[] = {1, 16383, 16384, 16385, 540000, 5000, 100001};
  for (const int64_t n : sizes) {
    for (const DType d : {DType::F32, DType::I32, DType::F64}) {
      for (const ReduceOp op : {ReduceOp::Sum, ReduceOp::Max}) {
        if (d != DType::F32 && op == ReduceOp::Max) continue;
        const std::string what = "all_reduce " + std::string(reduce_op_name(op)) + " " + std::string(dtype_name(d)) +
                                 " n=" + std::to_string(n);
        const TensorData want = expected_reduce(d, op, w, Shape{n}, 0);
        if (d == DType::I32) {
          check(c.all_reduce(Tensor<1, Int>::from_data(make(d, Shape{n}, me), dev), op).into_data(), want, what);
        } else {
          check(c.all_reduce(Tensor<1>::from_data(make(d, Shape{n}, me), dev), op).into_data(), want, what);
        }
        TensorData host = make(d, Shape{n}, me);
        c.all_reduce(host, op);
        check(host, want, "host data " + what);
      }
    }
  }
  c.barrier();
  std::cout << "rank " << me << ": " << g_checks << " checks, " << g_failures << " failures\n";
  return g_failures == 0 ? 0 : 1;
}

// Rank 1 ends (SIGKILL) or freezes (SIGSTOP) after a barrier; the others' next all_reduce must fail.
int run_fault(int sig, Communicator::Timeout timeout) {
  Communicator c = Communicator::from_environment();
  c.barrier();
  if (c.rank() == 1) ::kill(::getpid(), sig);
  const auto t = Tensor<1>::from_data(make(DType::F32, Shape{100000}, c.rank()), Device::get("cpu"));
  try {
    c.all_reduce(t, ReduceOp::Sum, timeout);
    std::cerr << "rank " << c.rank() << ": all_reduce returned although rank 1 is gone\n";
    return 1;
  } catch (const CollectiveError& e) {
    std::cerr << "error: " << e.what() << "\n";
  }
  try {
    c.barrier();
    std::cerr << "rank " << c.rank() << ": a broken communicator ran a barrier\n";
    return 1;
  } catch (const CollectiveError& e) {
    std::cerr << "then: " << e.what() << "\n";
  }
  return 3;
}

// Rank 1 believes in one more rank than the others.
int run_world() {
  CommunicatorConfig config = CommunicatorConfig::from_environment();
  if (config.connect.rank == 1) config.connect.world_size += 1;
  config.connect.timeout = std::chrono::seconds(20);
  try {
    Communicator::connect(config);
    std::cerr << "rank " << config.connect.rank << ": connected with a wrong world size\n";
    return 1;
  } catch (const CollectiveError& e) {
    std::cerr << "error: " << e.what() << "\n";
  }
  return 3;
}

// The ranks disagree: rank 1 reduces twice as many elements (`size`; `size-large`: 1M against 2M,
// more than the gloo engine's call frame carries) or calls a barrier instead (`op`); every rank must get
// an error within the op's timeout (2 s), none may hang or crash.
int run_mismatch(const std::string& what) {
  Communicator c = Communicator::from_environment();
  const int64_t base = what == "size-large" ? 1000000 : 1000;
  const int64_t n = c.rank() == 1 && what != "op" ? 2 * base : base;
  const auto t = Tensor<1>::from_data(make(DType::F32, Shape{n}, c.rank()), Device::get("cpu"));
  try {
    if (c.rank() == 1 && what == "op") {
      c.barrier(std::chrono::seconds(2));
    } else {
      c.all_reduce(t, ReduceOp::Sum, std::chrono::seconds(2));
    }
    std::cerr << "rank " << c.rank() << ": no error although the ranks disagree\n";
    return 1;
  } catch (const CollectiveError& e) {
    std::cerr << "error: " << e.what() << "\n";
  }
  return 3;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string scenario = argc > 1 ? argv[1] : "";
  if (argc > 2) g_device = argv[2];
  try {
    if (scenario == "values") return run_values();
    if (scenario == "kill") return run_fault(SIGKILL, std::chrono::seconds(60));
    if (scenario == "stop") return run_fault(SIGSTOP, std::chrono::milliseconds(1500));
    if (scenario == "world") return run_world();
    if (scenario == "sizes") return run_sizes();
    if (scenario == "mismatch-size") return run_mismatch("size");
    if (scenario == "mismatch-size-large") return run_mismatch("size-large");
    if (scenario == "mismatch-op") return run_mismatch("op");
    std::cerr << "usage: burn-collective-test-rank values|kill|stop|world [DEVICE_SPEC]\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "unexpected error: " << e.what() << "\n";
    return 1;
  }
}
