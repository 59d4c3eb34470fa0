// DataParallel: the broadcast at the start, buckets of gradients all-reduced on a communication
// thread while backward runs, no_sync accumulation, and the small agreements (metrics, stop flags,
// run ids) a data-parallel loop needs.
//
// A step: begin_step maps each trainable parameter's gradient key to its bucket; backward's hook
// copies a final gradient into its bucket's host buffer (the backward thread reads its own tensors,
// so no backend is touched from two threads), and a full bucket goes to the communication thread,
// which all-reduces the buckets strictly in layout order (every rank must issue the same collectives
// in the same order; with DataParallelConfig::overlap off the hook only fills them). finish_step sends what is left (a
// parameter without a gradient counts as zero), waits, and makes the averaged gradients on the parameters' devices.
#include "burn/train/data_parallel.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "burn/tensor/autodiff.hpp"

namespace burn::train {

namespace {

constexpr const char* kDataParallelOp = "train.data_parallel";

struct Bucket {
  DType dtype = DType::F32;
  std::vector<size_t> params;  // indices into Impl::params, in the bucket's order
  std::vector<int64_t> offsets;
  int64_t elements = 0;
  TensorData data;                 // this step's gradients, then their average
  std::vector<TensorData> staged;  // per parameter: its averaged gradient on the way to its device
  size_t filled = 0;               // parameters copied in this step
  bool queued = false;             // handed to the communication thread
  bool done = false;
};

struct TrainableParam {
  std::string path;
  nn::ParamBase* param = nullptr;
  std::optional<Device> grad_device;  // where this step's gradient lived
  bool ready = false;
};

}  // namespace

struct DataParallel::Impl {
  collective::Communicator comm;
  DataParallelConfig config;
  bool no_sync = false;

  std::vector<TrainableParam> params;     // this step's trainable parameters, in field order
  std::vector<std::string> layout_paths;  // the fixed order of the buckets' parameters ("" before)
  std::vector<std::string> readiness;     // paths in the order their gradients came, this step
  std::vector<Bucket> buckets;
  // What the buckets were made for (per parameter in layout order: index, elements, dtype): while a
  // step has the same, its buffers are reused (fresh pages cost tens of µs each on some VMs).
  std::vector<int64_t> buckets_for;
  std::vector<size_t> bucket_of;                              // per param
  std::unordered_map<uint64_t, size_t> by_key;                // gradient key -> param
  std::unordered_map<nn::ParamId, TensorHandle> accumulated;  // no_sync sums, by parameter id
  size_t sent_during_backward = 0;                            // this step's buckets the hook queued

  // The communication thread.
  std::mutex mu;
  std::condition_variable cv;
  size_t next_bucket = 0;  // the next bucket it all-reduces
  bool busy = false;       // inside an all-reduce (the buckets must not change)
  bool stop = false;
  std::exception_ptr error;
  std::thread thread;

  Impl(collective::Communicator c, DataParallelConfig cfg) : comm(std::move(c)), config(cfg) {
    if (comm.world_size() > 1) thread = std::thread([this] { run(); });
  }
  ~Impl() {
    {
      std::lock_guard lock(mu);
      stop = true;
    }
    cv.notify_all();
    if (thread.joinable()) thread.join();
  }

  void run() {
    std::unique_lock lock(mu);
    for (;;) {
      cv.wait(lock, [&] { return stop || (next_bucket < buckets.size() && buckets[next_bucket].queued); });
      if (stop) return;
      Bucket& b = buckets[next_bucket];
      busy = true;
      lock.unlock();
      std::exception_ptr err;
      try {
        if (!error) comm.all_reduce(b.data, collective::ReduceOp::Mean, config.timeout);
      } catch (...) {
        err = std::current_exception();
      }
      lock.lock();
      if (err && !error) error = err;
      busy = false;
      b.done = true;
      ++next_bucket;
      cv.notify_all();
    }
  }

  void queue(Bucket& b) {
    {
      std::lock_guard lock(mu);
      b.queued = true;
    }
    cv.notify_all();
  }

  // Buckets over `order` (indices into params), one dtype per bucket, each closed as soon as it holds at least
  // its limit (PyTorch's rule, so a bucket exceeds it by at most its last parameter): first_bucket_bytes for the
  // first, bucket_bytes for the others.
  void make_buckets(const std::vector<size_t>& order) {
    buckets.clear();
    bucket_of.assign(params.size(), 0);
    size_t bytes = 0;
    bool closed = true;
    for (size_t i : order) {
      const nn::ParamBase& p = *params[i].param;
      if (closed || buckets.back().dtype != p.dtype()) {
        buckets.emplace_back();
        buckets.back().dtype = p.dtype();
        bytes = 0;
      }
      Bucket& b = buckets.back();
      b.params.push_back(i);
      b.offsets.push_back(b.elements);
      b.elements += p.num_elements();
      bytes += static_cast<size_t>(p.num_elements()) * dtype_size(p.dtype());
      bucket_of[i] = buckets.size() - 1;
      const bool first = buckets.size() == 1 && config.first_bucket_bytes != 0;
      closed = bytes >= (first ? std::min(config.first_bucket_bytes, config.bucket_bytes) : config.bucket_bytes);
    }
  }

  std::string me() const { return "rank " + std::to_string(comm.rank()) + " of " + std::to_string(comm.world_size()); }
};

DataParallel::DataParallel(collective::Communicator comm, DataParallelConfig config)
    : impl_(std::make_unique<Impl>(std::move(comm), config)) {
  if (config.bucket_bytes == 0) throw ValueError(kDataParallelOp, "bucket_bytes must be at least 1");
}

DataParallel::~DataParallel() = default;

int DataParallel::rank() const { return impl_->comm.rank(); }
int DataParallel::world_size() const { return impl_->comm.world_size(); }
collective::Communicator& DataParallel::communicator() { return impl_->comm; }

void DataParallel::broadcast_module(nn::ModuleRef model) {
  for (const nn::NamedParam& p : nn::detail::named_params(model)) {
    if (!p.param->initialized()) continue;
    // On the inner device (no graph); set_handle makes a trainable parameter a tracked leaf again.
    TensorHandle h = p.param->handle();
    const bool tracked = autodiff_of(h.device) != nullptr;
    TensorHandle value = impl_->comm.broadcast(tracked ? api::inner(h) : h, 0, impl_->config.timeout);
    p.param->set_handle(tracked ? api::from_inner(value, h.device) : value);
  }
}

std::unique_ptr<GradReadyScope> DataParallel::begin_step(nn::ModuleRef model) {
  Impl& im = *impl_;
  if (im.no_sync || im.comm.world_size() == 1) return std::make_unique<GradReadyScope>(GradReadyHook());
  im.params.clear();
  im.by_key.clear();
  im.readiness.clear();
  for (const nn::NamedParam& p : nn::detail::named_params(model)) {
    if (p.param->is_buffer() || !p.param->require_grad() || !p.param->initialized() || p.param->kind() != Kind::Float)
      continue;
    const TensorHandle& h = p.param->handle();
    AutodiffInterface* ad = autodiff_of(h.device);
    if (!ad) continue;
    const auto key = ad->grad_key(h.prim);
    if (!key) continue;
    im.by_key[*key] = im.params.size();
    im.params.push_back({p.path, p.param, std::nullopt, false});
  }
  // The layout: the first step's is the reverse of the fields (the order backward usually finishes
  // them in); from the second on, the order in which the first step's gradients came, rank 0's.
  std::vector<size_t> order;
  if (im.layout_paths.empty()) {
    for (size_t i = im.params.size(); i-- > 0;) order.push_back(i);
  } else {
    std::unordered_map<std::string, size_t> index;
    for (size_t i = 0; i < im.params.size(); ++i) index[im.params[i].path] = i;
    if (index.size() != im.layout_paths.size()) {
      throw ValueError(kDataParallelOp, im.me() + ": the model has " + std::to_string(index.size()) +
                                            " trainable parameters, the bucket layout fixed at the first step " +
                                            std::to_string(im.layout_paths.size()));
    }
    for (const auto& path : im.layout_paths) {
      const auto it = index.find(path);
      if (it == index.end())
        throw ValueError(kDataParallelOp,
                         im.me() + ": parameter '" + path + "' of the bucket layout is not in the model");
      order.push_back(it->second);
    }
  }
  {
    std::unique_lock lock(im.mu);
    im.cv.wait(lock, [&] { return !im.busy; });  // a step that threw may have left a bucket in flight
    if (im.error) std::rethrow_exception(im.error);
    std::vector<int64_t> wanted;
    for (size_t i : order)
      wanted.insert(wanted.end(), {static_cast<int64_t>(i), im.params[i].param->num_elements(),
                                   static_cast<int64_t>(im.params[i].param->dtype())});
    if (wanted != im.buckets_for) {
      im.make_buckets(order);
      // Every slot is written each step (a gradient, an accumulated one, or zeros in finish_step).
      for (Bucket& b : im.buckets) b.data = TensorData::uninitialized(Shape{b.elements}, b.dtype);
      im.buckets_for = std::move(wanted);
    }
    for (Bucket& b : im.buckets) {
      b.filled = 0;
      b.queued = false;
      b.done = false;
    }
    im.sent_during_backward = 0;
    im.next_bucket = 0;
  }
  return std::make_unique<GradReadyScope>([&im](uint64_t key, const TensorHandle& grad) {
    const auto it = im.by_key.find(key);
    if (it == im.by_key.end()) return;  // a tensor of the step that is not one of the parameters
    TrainableParam& p = im.params[it->second];
    if (p.ready) return;
    p.ready = true;
    p.grad_device = grad.device;
    im.readiness.push_back(p.path);
    TensorHandle g = grad;
    if (const auto acc = im.accumulated.find(p.param->id()); acc != im.accumulated.end()) g = api::add(g, acc->second);
    TensorData data = api::into_data(g);
    if (data.dtype() != p.param->dtype()) data = data.convert(p.param->dtype());
    Bucket& b = im.buckets[im.bucket_of[it->second]];
    size_t slot = 0;
    while (b.params[slot] != it->second) ++slot;
    const size_t width = dtype_size(b.dtype);
    std::memcpy(static_cast<uint8_t*>(b.data.raw()) + static_cast<size_t>(b.offsets[slot]) * width, data.raw(),
                data.bytes().size());
    if (++b.filled == b.params.size() && im.config.overlap) {
      im.queue(b);
      ++im.sent_during_backward;
    }
  });
}

optim::GradientsParams DataParallel::finish_step(Gradients& grads, nn::ModuleRef model) {
  Impl& im = *impl_;
  if (im.no_sync) {
    // Summed here, added to the next synchronised step's gradients before they are sent.
    optim::GradientsParams local = optim::GradientsParams::from_grads(grads, model);
    for (const auto& [id, g] : local.all()) {
      const auto it = im.accumulated.find(id);
      if (it == im.accumulated.end())
        im.accumulated.emplace(id, g);
      else
        it->second = api::add(it->second, g);
    }
    return {};
  }
  if (im.comm.world_size() == 1) {
    optim::GradientsParams local = optim::GradientsParams::from_grads(grads, model);
    for (auto& [id, acc] : im.accumulated) {
      const auto g = local.get(id);
      local.set(id, g ? api::add(*g, acc) : acc);
    }
    im.accumulated.clear();
    return local;
  }
  // Parameters whose gradient never came (unused in this step's graph) count as zero; buckets the
  // hook did not fill are sent now, in order.
  for (Bucket& b : im.buckets) {
    for (size_t k = 0; k < b.params.size(); ++k) {
      TrainableParam& p = im.params[b.params[k]];
      if (p.ready) continue;
      p.ready = true;
      uint8_t* slot = static_cast<uint8_t*>(b.data.raw()) + static_cast<size_t>(b.offsets[k]) * dtype_size(b.dtype);
      if (const auto acc = im.accumulated.find(p.param->id()); acc != im.accumulated.end()) {
        const TensorData data = api::into_data(acc->second).convert(p.param->dtype());
        std::memcpy(slot, data.raw(), data.bytes().size());
        p.grad_device = acc->second.device;
      } else {
        std::memset(slot, 0, static_cast<size_t>(p.param->num_elements()) * dtype_size(b.dtype));
      }
      ++b.filled;
    }
    if (!b.queued) im.queue(b);
  }
  {
    std::unique_lock lock(im.mu);
    im.cv.wait(lock, [&] { return im.next_bucket >= im.buckets.size(); });
    if (im.error) std::rethrow_exception(im.error);
  }
  im.accumulated.clear();
  // The kept Gradients no longer hold the parameters' entries (as GradientsParams::from_grads).
  for (const auto& [key, index] : im.by_key) grads.remove(key);
  if (im.layout_paths.empty()) {
    // Fixed from now on: the order the gradients came in, rank 0's (so every rank has the same).
    std::vector<int64_t> order;
    std::unordered_map<std::string, size_t> index;
    for (size_t i = 0; i < im.params.size(); ++i) index[im.params[i].path] = i;
    for (const auto& path : im.readiness) order.push_back(static_cast<int64_t>(index.at(path)));
    for (size_t i = im.params.size(); i-- > 0;)
      if (std::find(im.readiness.begin(), im.readiness.end(), im.params[i].path) == im.readiness.end())
        order.push_back(static_cast<int64_t>(i));
    order = broadcast_values(order);
    for (int64_t i : order) im.layout_paths.push_back(im.params.at(static_cast<size_t>(i)).path);
  }
  optim::GradientsParams out;
  for (Bucket& b : im.buckets) {
    const size_t width = dtype_size(b.dtype);
    if (b.staged.size() != b.params.size()) {
      b.staged.clear();
      for (const size_t i : b.params)
        b.staged.push_back(TensorData::uninitialized(im.params[i].param->shape(), b.dtype));
    }
    for (size_t k = 0; k < b.params.size(); ++k) {
      const TrainableParam& p = im.params[b.params[k]];
      TensorData& d = b.staged[k];
      std::memcpy(d.raw(), static_cast<const uint8_t*>(b.data.raw()) + static_cast<size_t>(b.offsets[k]) * width,
                  d.bytes().size());
      const Device dev = p.grad_device ? *p.grad_device : autodiff_of(p.param->handle().device)->inner_device();
      out.set(p.param->id(), api::from_data(dev, d, Kind::Float));
    }
  }
  return out;
}

DataParallel::NoSync::NoSync(DataParallel& dp) : dp_(dp), previous_(dp.impl_->no_sync) { dp.impl_->no_sync = true; }
DataParallel::NoSync::~NoSync() { dp_.impl_->no_sync = previous_; }

std::vector<int64_t> DataParallel::broadcast_values(std::vector<int64_t> values) {
  // A sum in which only rank 0 counts: exact for integers, and no device needed.
  TensorData d = TensorData::from_vector(values, Shape{static_cast<int64_t>(values.size())});
  if (rank() != 0) d = TensorData(d.shape(), DType::I64);
  impl_->comm.all_reduce(d, collective::ReduceOp::Sum, impl_->config.timeout);
  const auto* p = static_cast<const int64_t*>(d.raw());
  return std::vector<int64_t>(p, p + values.size());
}

bool DataParallel::any(bool flag) {
  TensorData d = TensorData::from_vector<int64_t>({flag ? 1 : 0}, Shape{1});
  impl_->comm.all_reduce(d, collective::ReduceOp::Max, impl_->config.timeout);
  return *static_cast<const int64_t*>(d.raw()) != 0;
}

StepOutput DataParallel::gather(const StepOutput& out) {
  collective::Communicator& c = impl_->comm;
  if (c.world_size() == 1) return out;
  const auto timeout = impl_->config.timeout;
  StepOutput g;
  int64_t batch = out.batch_size;
  if (batch == 0) batch = out.targets ? out.targets->shape()[0] : (out.output ? out.output->shape()[0] : 0);
  TensorData sizes = TensorData::from_vector<int64_t>({batch}, Shape{1});
  c.all_reduce(sizes, collective::ReduceOp::Sum, timeout);
  g.batch_size = *static_cast<const int64_t*>(sizes.raw());
  if (out.loss) {
    // The mean over the global batch: each rank's mean weighted by its batch size.
    TensorData l = api::into_data(out.loss->handle()).convert(DType::F64);
    *static_cast<double*>(l.raw()) *= static_cast<double>(batch);
    c.all_reduce(l, collective::ReduceOp::Sum, timeout);
    *static_cast<double*>(l.raw()) /= static_cast<double>(g.batch_size);
    g.loss = Tensor<1>::from_data(l.convert(out.loss->dtype()), out.loss->device());
  }
  if (out.output) g.output = c.all_gather(*out.output, timeout);
  if (out.targets) g.targets = c.all_gather(*out.targets, timeout);
  return g;
}

DataParallel::StepStats DataParallel::last_step() const { return {impl_->buckets.size(), impl_->sent_during_backward}; }

std::vector<std::vector<std::string>> DataParallel::bucket_layout() const {
  std::vector<std::vector<std::string>> out;
  if (impl_->layout_paths.empty()) return out;
  for (const Bucket& b : impl_->buckets) {
    out.emplace_back();
    for (size_t i : b.params) out.back().push_back(impl_->params[i].path);
  }
  return out;
}

}  // namespace burn::train
