// One OpenCL device opened: its context, an in-order queue for kernels and writes, a second queue for
// reads (so a read waits only for the last write of what it reads), the memory pool, the programs and the
// fault block. Shared by every backend object naming the device.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <burn/backend/opencl/stats.hpp>

#include "runtime/cl.hpp"
#include "runtime/platforms.hpp"

namespace burn::opencl {

class Context;
class Programs;

// A pooled buffer. Its last writer's event orders reads; it returns to the pool when the last handle
// goes (the in-order queue runs every later command after the earlier ones, so reuse needs no wait).
class Allocation {
 public:
  Allocation(std::shared_ptr<Context> ctx, cl_mem mem, size_t capacity)
      : ctx_(std::move(ctx)), mem_(mem), capacity_(capacity) {}
  ~Allocation();
  Allocation(const Allocation&) = delete;
  Allocation& operator=(const Allocation&) = delete;

  cl_mem mem() const { return mem_; }
  size_t capacity() const { return capacity_; }
  Context& context() const { return *ctx_; }
  // The event of the last command that writes this buffer (retained), or null.
  void set_last_write(cl_event e);
  cl_event last_write() const { return last_write_; }

 private:
  std::shared_ptr<Context> ctx_;
  cl_mem mem_;
  size_t capacity_;
  cl_event last_write_ = nullptr;
};
using AllocationPtr = std::shared_ptr<Allocation>;

class Context : public std::enable_shared_from_this<Context> {
 public:
  // Opens the device: DeviceError naming it when the driver refuses.
  static std::shared_ptr<Context> create(const DeviceProfile& profile);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const DeviceProfile& profile() const { return profile_; }
  cl_context cl() const { return ctx_; }
  cl_command_queue queue() const { return queue_; }
  Programs& programs() { return *programs_; }
  // Kernel objects carry their arguments: a launch sets them and enqueues under this lock.
  std::mutex& launch_mutex() { return launch_mutex_; }
  // Kernels are enqueued in batches held back by a user event (the gate): the driver starts a batch when
  // it is full (BURN_OPENCL_BATCH launches) or when the host is about to wait for the queue, so PoCL's
  // worker threads are woken once per batch, not once per launch. gate() is the event the next launch
  // waits on (null when batching is off), launched() counts it; both under the launch mutex.
  cl_event gate();
  void launched();
  // Opens the gate: everything enqueued may run. Before any wait on the queue's work (a read, a finish, a
  // blocking write, CLBlast, which may wait itself); submit_locked() under the launch mutex.
  void submit();
  void submit_locked();

  // A buffer of at least `bytes` from the pool; OutOfMemory naming `op` and the bytes when the device
  // cannot give it (larger than one allocation may be, or refused after the pool was emptied).
  AllocationPtr allocate(size_t bytes, const char* op);
  // Back to the pool (Allocation's destructor).
  void release(cl_mem mem, size_t capacity);
  // Enqueues a copy of `bytes` host bytes into `dst` at `offset` without waiting: the bytes are copied
  // first and freed when the write completes.
  void write(Allocation& dst, size_t offset, const void* data, size_t bytes, const char* op);
  // A device buffer holding `bytes`, a read-only argument block (a layout, an index table, a fused program's
  // scalars). Blocks up to kBlockCacheMax bytes are found by content, so a launch that repeats one writes
  // nothing; a larger one gets a buffer of its own, written now and held by `keep` until the launch is
  // enqueued. Call under the launch mutex.
  static constexpr size_t kBlockCacheMax = 1024;
  // Blocks kept at most; past it the cache starts over, its buffers back to the pool.
  static constexpr size_t kBlockCacheEntries = 2048;
  cl_mem argument_block(const std::vector<uint8_t>& bytes, const char* op, std::vector<AllocationPtr>& keep);
  // Reads `bytes` at `offset` of `src` into `out`, waiting only for the last write of `src`; raises a
  // fault a kernel reported.
  void read(const Allocation& src, size_t offset, void* out, size_t bytes, const char* op);
  // Waits for everything enqueued; raises a fault a kernel reported.
  void finish(const char* op);

  // A lost device (docs/decisions.md): an enqueue that returns CL_INVALID_COMMAND_QUEUE, or a wait that returns
  // it, CL_OUT_OF_RESOURCES or CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, loses the device for good: that op
  // and every later one on it are a DeviceError with the first cause, and teardown waits for nothing.
  // DeviceError naming `op` and the first cause when the device was lost; a load when it was not.
  void throw_if_lost(const char* op) const;
  // After an enqueue of work: a lost device's code loses it (`injected`: by BURN_OPENCL_FAULT=device-lost),
  // any other error is cl_check's DeviceError.
  void check_enqueue(cl_int err, const char* op, const char* call, bool injected = false);
  // After a wait for the device's work (a blocking read, clFinish, clWaitForEvents), where
  // BURN_OPENCL_FAULT=device-lost-wait turns a success into CL_OUT_OF_RESOURCES.
  void check_wait(cl_int err, const char* op, const char* call);

  // The fault block for kernels that may report one; fault_tag() names the op and operand for the message.
  cl_mem faults() const { return faults_; }
  uint32_t fault_tag(const char* op, const char* operand);
  // Records the event of a kernel given the fault block.
  void faulting_kernel(cl_event e);
  OpenClStats stats() const;
  OpenClStats& counters() { return stats_; }

  // CLBlast's GEMM on this device, per dtype (f32, f64): not asked yet, passed its self-test at first
  // use, or refused with the reason (src/ops/matmul.cpp).
  struct Blas {
    enum State { untested, usable, refused };
    std::mutex mutex;
    State f32 = untested, f64 = untested;
    std::string f32_reason, f64_reason;
  };
  Blas& blas() { return blas_; }

 private:
  explicit Context(const DeviceProfile& profile);
  void check_faults(const char* op);
  // A pooled or new buffer of at least `bytes` and its capacity (allocate's work).
  std::pair<cl_mem, size_t> take(size_t bytes, const char* op);
  // write() under the launch mutex.
  void write_locked(cl_mem dst, size_t offset, const void* data, size_t bytes, const char* op, cl_event* done);
  void drop_blocks();
  // Marks the device lost at `call` in `op` (the first cause stands) and throws.
  [[noreturn]] void lose(const char* op, const char* call, cl_int code, bool injected);

  // Transparent, so that a lookup by a block's bytes copies nothing.
  struct BlockHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  struct Block {
    cl_mem mem;
    size_t capacity;
  };

  DeviceProfile profile_;
  cl_context ctx_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_command_queue read_queue_ = nullptr;
  std::unique_ptr<Programs> programs_;
  std::mutex launch_mutex_;
  size_t batch_;             // launches per gate; 0: no gate (BURN_OPENCL_BATCH)
  cl_event gate_ = nullptr;  // under launch_mutex_
  size_t gated_ = 0;         // launches waiting on gate_
  std::unordered_map<std::string, Block, BlockHash, std::equal_to<>> blocks_;  // by content; under launch_mutex_
  Blas blas_;
  std::mutex pool_mutex_;
  std::map<size_t, std::vector<cl_mem>> free_;  // by capacity
  cl_mem faults_ = nullptr;
  std::mutex fault_mutex_;
  cl_event fault_event_ = nullptr;
  std::vector<std::pair<std::string, std::string>> fault_tags_;
  OpenClStats stats_;
  std::atomic<bool> lost_{false};
  mutable std::mutex lost_mutex_;
  std::string lost_what_;  // where and in which op the device was first lost, repeated by every later error
};

// The size class of a request: powers of two and 1.5x between, at least 256 bytes.
size_t size_class(size_t bytes);

}  // namespace burn::opencl
