// The device's context, queues, pool, reads and writes, and faults (context.hpp).
#include "runtime/context.hpp"

#include <cstdlib>
#include <cstring>
#include <vector>

#include "burn/tensor/error.hpp"
#include "burn/tensor/log.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/programs.hpp"

namespace burn::opencl {

namespace {
constexpr uint32_t kFaultIndex = 1, kFaultDivZero = 2;
struct FaultBlock {
  uint32_t code;
  uint32_t tag;
  int64_t value;
  int64_t limit;
};
}  // namespace

size_t size_class(size_t bytes) {
  size_t c = 256;
  while (c < bytes) {
    const size_t mid = c + c / 2;
    if (mid >= bytes) return mid;
    c *= 2;
  }
  return c;
}

Allocation::~Allocation() {
  if (last_write_) clReleaseEvent(last_write_);
  ctx_->release(mem_, capacity_);
}

void Allocation::set_last_write(cl_event e) {
  clRetainEvent(e);
  if (last_write_) clReleaseEvent(last_write_);
  last_write_ = e;
}

std::shared_ptr<Context> Context::create(const DeviceProfile& profile) {
  return std::shared_ptr<Context>(new Context(profile));
}

namespace {
// BURN_OPENCL_BATCH: launches per batch (docs/environment.md); 0 or 1 enqueues each launch ungated. By default
// 32 on CPU-type devices (PoCL, where a launch that finds the workers asleep wakes them: 14 -> 6-9 us per
// launch) and off elsewhere: a GPU driver holds commands until a flush anyway, and how one takes commands
// waiting on a user event was not measured.
size_t batch_size(const DeviceProfile& p) {
  const char* env = std::getenv("BURN_OPENCL_BATCH");
  if (!env || !*env) return p.is_cpu() ? 32 : 0;
  char* end = nullptr;
  const long v = std::strtol(env, &end, 10);
  if (*end != '\0' || v < 0)
    throw ValueError("opencl",
                     "BURN_OPENCL_BATCH='" + std::string(env) + "' is not a number of launches (0 or 1: no batching)");
  return v <= 1 ? 0 : static_cast<size_t>(v);
}
}  // namespace

Context::Context(const DeviceProfile& profile) : profile_(profile), batch_(batch_size(profile)) {
  const std::string what = "the OpenCL driver refused to open " + profile_.describe();
  cl_int err = CL_SUCCESS;
  const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                         reinterpret_cast<cl_context_properties>(profile_.platform), 0};
  ctx_ = clCreateContext(props, 1, &profile_.device, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) throw DeviceError("opencl", what + ": clCreateContext: " + cl_error_name(err));
  queue_ = clCreateCommandQueue(ctx_, profile_.device, 0, &err);  // in order
  if (err == CL_SUCCESS) read_queue_ = clCreateCommandQueue(ctx_, profile_.device, 0, &err);
  if (err == CL_SUCCESS) faults_ = clCreateBuffer(ctx_, CL_MEM_READ_WRITE, sizeof(FaultBlock), nullptr, &err);
  if (err != CL_SUCCESS) {
    if (faults_) clReleaseMemObject(faults_);
    if (read_queue_) clReleaseCommandQueue(read_queue_);
    if (queue_) clReleaseCommandQueue(queue_);
    clReleaseContext(ctx_);
    throw DeviceError("opencl", what + ": " + cl_error_name(err));
  }
  const FaultBlock zero{};
  clEnqueueWriteBuffer(queue_, faults_, CL_TRUE, 0, sizeof zero, &zero, 0, nullptr, nullptr);
  programs_ = std::make_unique<Programs>(*this);
}

Context::~Context() {
  submit();
  if (!lost_) clFinish(queue_);  // a lost device may never finish: nothing is waited for
  programs_.reset();
  drop_blocks();
  for (auto& [cap, mems] : free_)
    for (cl_mem m : mems) clReleaseMemObject(m);
  if (fault_event_) clReleaseEvent(fault_event_);
  clReleaseMemObject(faults_);
  clReleaseCommandQueue(read_queue_);
  clReleaseCommandQueue(queue_);
  clReleaseContext(ctx_);
}

AllocationPtr Context::allocate(size_t bytes, const char* op) {
  const auto [mem, capacity] = take(bytes, op);
  return std::make_shared<Allocation>(shared_from_this(), mem, capacity);
}

std::pair<cl_mem, size_t> Context::take(size_t bytes, const char* op) {
  throw_if_lost(op);
  const size_t cap = size_class(bytes == 0 ? 1 : bytes);
  if (bytes > profile_.max_alloc)
    throw OutOfMemory(op, "a buffer of " + std::to_string(bytes) + " bytes is larger than one allocation of " +
                              profile_.name + " can be (CL_DEVICE_MAX_MEM_ALLOC_SIZE " +
                              std::to_string(profile_.max_alloc) + " bytes)");
  {
    std::lock_guard lock(pool_mutex_);
    auto it = free_.find(cap);
    if (it != free_.end() && !it->second.empty()) {
      cl_mem m = it->second.back();
      it->second.pop_back();
      ++stats_.pool_hits;
      return {m, cap};
    }
  }
  // A class as large as the request when it alone would pass the device's limit.
  const size_t size = cap > profile_.max_alloc ? bytes : cap;
  std::lock_guard lock(pool_mutex_);  // the counters and the pool's emptying below
  cl_int err = CL_SUCCESS;
  const bool refuse = size > (size_t{16} << 20) && fault_injected(Fault::alloc);
  const auto create = [&] {
    if (!refuse) return clCreateBuffer(ctx_, CL_MEM_READ_WRITE, size, nullptr, &err);
    err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    return cl_mem{nullptr};
  };
  cl_mem m = nullptr;
  if (stats_.bytes_held + size <= profile_.global_mem) m = create();
  if (!m) {
    // Give the pooled buffers back and try once more.
    for (auto& [c, mems] : free_) {
      for (cl_mem f : mems) clReleaseMemObject(f);
      stats_.bytes_held -= c * mems.size();
      mems.clear();
    }
    err = CL_SUCCESS;
    if (stats_.bytes_held + size <= profile_.global_mem) m = create();
    if (!m)
      throw OutOfMemory(op, profile_.name + " cannot give " + std::to_string(bytes) + " bytes (" +
                                (err != CL_SUCCESS ? "clCreateBuffer: " + cl_error_name(err)
                                                   : std::string("beyond CL_DEVICE_GLOBAL_MEM_SIZE")) +
                                "; burn holds " + std::to_string(stats_.bytes_held) + " bytes of its " +
                                std::to_string(profile_.global_mem) + ")" + (refuse ? injected_note() : ""));
  }
  ++stats_.buffers;
  stats_.bytes_held += size;
  return {m, size};
}

void Context::release(cl_mem mem, size_t capacity) {
  std::lock_guard lock(pool_mutex_);
  free_[capacity].push_back(mem);
}

void Context::write(Allocation& dst, size_t offset, const void* data, size_t bytes, const char* op) {
  throw_if_lost(op);
  if (bytes == 0) return;
  cl_event e = nullptr;
  std::lock_guard lock(launch_mutex_);
  write_locked(dst.mem(), offset, data, bytes, op, &e);
  dst.set_last_write(e);
  clReleaseEvent(e);
}

void Context::write_locked(cl_mem dst, size_t offset, const void* data, size_t bytes, const char* op, cl_event* done) {
  auto* copy = new std::vector<uint8_t>(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + bytes);
  cl_event e = nullptr;
  const bool injected = fault_injected(Fault::device_lost);
  const cl_int err = injected
                         ? CL_INVALID_COMMAND_QUEUE
                         : clEnqueueWriteBuffer(queue_, dst, CL_FALSE, offset, bytes, copy->data(), 0, nullptr, &e);
  if (err != CL_SUCCESS) {
    delete copy;
    check_enqueue(err, op, "clEnqueueWriteBuffer", injected);
  }
  if (clSetEventCallback(
          e, CL_COMPLETE, [](cl_event, cl_int, void* p) { delete static_cast<std::vector<uint8_t>*>(p); }, copy) !=
      CL_SUCCESS) {
    submit_locked();
    const cl_int waited = clWaitForEvents(1, &e);  // no callback: the bytes are freed once the write is done
    delete copy;
    try {
      check_wait(waited, op, "clWaitForEvents");
    } catch (...) {
      clReleaseEvent(e);
      throw;
    }
  }
  if (done)
    *done = e;
  else
    clReleaseEvent(e);
}

cl_mem Context::argument_block(const std::vector<uint8_t>& bytes, const char* op, std::vector<AllocationPtr>& keep) {
  if (bytes.size() > kBlockCacheMax) {
    AllocationPtr own = allocate(bytes.size(), op);
    write_locked(own->mem(), 0, bytes.data(), bytes.size(), op, nullptr);
    keep.push_back(std::move(own));
    return keep.back()->mem();
  }
  const std::string_view key(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (auto it = blocks_.find(key); it != blocks_.end()) return it->second.mem;
  // Full: every block goes back to the pool. The kernels still queued that read one run before whatever
  // the in-order queue runs after them, so the buffer's next owner cannot overwrite it under them.
  if (blocks_.size() >= kBlockCacheEntries) drop_blocks();
  const auto [mem, capacity] = take(bytes.size(), op);
  try {
    write_locked(mem, 0, bytes.data(), bytes.size(), op, nullptr);
  } catch (...) {
    release(mem, capacity);
    throw;
  }
  blocks_.emplace(std::string(key), Block{mem, capacity});
  ++stats_.blocks_written;
  return mem;
}

void Context::drop_blocks() {
  for (const auto& [key, b] : blocks_) release(b.mem, b.capacity);
  blocks_.clear();
}

cl_event Context::gate() {
  if (batch_ == 0) return nullptr;
  if (!gate_) {
    cl_int err = CL_SUCCESS;
    gate_ = clCreateUserEvent(ctx_, &err);
    if (err != CL_SUCCESS) {
      gate_ = nullptr;
      batch_ = 0;  // a driver without user events: each launch runs as it is enqueued
      log::warn("opencl: clCreateUserEvent failed (" + cl_error_name(err) + "); launches are not batched");
    }
  }
  return gate_;
}

void Context::launched() {
  if (gate_ && ++gated_ >= batch_) submit_locked();
}

void Context::submit() {
  std::lock_guard lock(launch_mutex_);
  submit_locked();
}

void Context::submit_locked() {
  if (!gate_) return;
  clSetUserEventStatus(gate_, CL_COMPLETE);
  clReleaseEvent(gate_);
  gate_ = nullptr;
  gated_ = 0;
  // A driver may hold commands until a flush; the batch is to run now.
  clFlush(queue_);
}

void Context::read(const Allocation& src, size_t offset, void* out, size_t bytes, const char* op) {
  throw_if_lost(op);
  if (bytes > 0) {
    cl_event wait = src.last_write();
    if (wait) submit();
    // The read queue waits on an event of the kernel queue: that queue must have been flushed.
    if (wait) check_enqueue(clFlush(queue_), op, "clFlush");
    // Blocking: the read is the wait for the work that wrote `src`.
    check_wait(clEnqueueReadBuffer(read_queue_, src.mem(), CL_TRUE, offset, bytes, out, wait ? 1 : 0,
                                   wait ? &wait : nullptr, nullptr),
               op, "clEnqueueReadBuffer");
  }
  check_faults(op);
}

void Context::finish(const char* op) {
  throw_if_lost(op);
  submit();
  check_wait(clFinish(queue_), op, "clFinish");
  check_faults(op);
}

namespace {
constexpr const char* kLostAdvice =
    "; the device runs nothing more and its tensors are gone (restart the process; other devices and backends "
    "keep working)";
}

void Context::throw_if_lost(const char* op) const {
  if (!lost_) return;
  std::lock_guard lock(lost_mutex_);
  throw DeviceError(op, lost_what_ + kLostAdvice);
}

void Context::check_enqueue(cl_int err, const char* op, const char* call, bool injected) {
  if (err == CL_SUCCESS) return;
  if (err == CL_INVALID_COMMAND_QUEUE) lose(op, call, err, injected);
  cl_check(err, op, call);
}

void Context::check_wait(cl_int err, const char* op, const char* call) {
  bool injected = false;
  if (err == CL_SUCCESS) {
    // After the real wait, so that nothing of this device still runs when it is torn down.
    if (!fault_injected(Fault::device_lost_wait)) return;
    err = CL_OUT_OF_RESOURCES;
    injected = true;
  }
  if (err == CL_OUT_OF_RESOURCES || err == CL_INVALID_COMMAND_QUEUE ||
      err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    lose(op, call, err, injected);
  cl_check(err, op, call);
}

void Context::lose(const char* op, const char* call, cl_int code, bool injected) {
  {
    std::lock_guard lock(lost_mutex_);
    if (lost_what_.empty())  // another thread may have lost it first: its cause stands
      lost_what_ = "the OpenCL device " + profile_.name + " was lost (" + call + ": " + cl_error_name(code) +
                   ", in op '" + op + "')" + (injected ? injected_note() : "");
  }
  lost_ = true;
  std::lock_guard lock(lost_mutex_);
  throw DeviceError(op, lost_what_ + kLostAdvice);
}

uint32_t Context::fault_tag(const char* op, const char* operand) {
  std::lock_guard lock(fault_mutex_);
  for (size_t i = 0; i < fault_tags_.size(); ++i)
    if (fault_tags_[i].first == op && fault_tags_[i].second == operand) return static_cast<uint32_t>(i);
  fault_tags_.emplace_back(op, operand);
  return static_cast<uint32_t>(fault_tags_.size() - 1);
}

void Context::faulting_kernel(cl_event e) {
  std::lock_guard lock(fault_mutex_);
  clRetainEvent(e);
  if (fault_event_) clReleaseEvent(fault_event_);
  fault_event_ = e;
}

void Context::check_faults(const char* op) {
  cl_event wait = nullptr;
  {
    std::lock_guard lock(fault_mutex_);
    if (!fault_event_) return;  // no kernel that can fault ran since the last check
    wait = fault_event_;
    fault_event_ = nullptr;
  }
  FaultBlock f{};
  submit();
  const cl_int err = clEnqueueReadBuffer(read_queue_, faults_, CL_TRUE, 0, sizeof f, &f, 1, &wait, nullptr);
  clReleaseEvent(wait);
  check_wait(err, op, "clEnqueueReadBuffer (fault block)");
  if (f.code == 0) return;
  const FaultBlock zero{};
  {
    std::lock_guard lock(launch_mutex_);
    submit_locked();
    clEnqueueWriteBuffer(queue_, faults_, CL_TRUE, 0, sizeof zero, &zero, 0, nullptr, nullptr);
  }
  std::string fop = "opencl", operand = "an operand";
  {
    std::lock_guard lock(fault_mutex_);
    if (f.tag < fault_tags_.size()) std::tie(fop, operand) = fault_tags_[f.tag];
  }
  if (f.code == kFaultDivZero)
    throw ValueError(fop, "integer division by zero: " + operand + " is 0 (dividend " + std::to_string(f.value) + ")");
  if (f.code == kFaultIndex)
    throw IndexError(fop, "index " + std::to_string(f.value) + " is out of range for " + operand + " of size " +
                              std::to_string(f.limit));
  throw DeviceError(fop, "a kernel reported fault code " + std::to_string(f.code));
}

OpenClStats Context::stats() const { return stats_; }

}  // namespace burn::opencl
