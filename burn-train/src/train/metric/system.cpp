// Loss, learning rate, iteration speed, CPU use and memory.
#include "burn/train/metric/system.hpp"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <thread>

namespace burn::train {

namespace {

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

MetricValue LossMetric::update(const StepOutput& out, const MetricContext&) {
  if (!out.loss) throw ValueError("train.loss", "the step's StepOutput has no `loss`");
  MetricValue v;
  v.current = static_cast<double>(out.loss->to_vec<float>().at(0));
  mean_.add(v.current, static_cast<double>(batch_size_of(out)));
  v.running = mean_.value();
  v.formatted = format_numeric(name(), v.current, v.running, "");
  return v;
}

MetricValue LearningRateMetric::update(const StepOutput&, const MetricContext& ctx) {
  MetricValue v;
  v.current = v.running = ctx.lr.value_or(std::nan(""));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3e", v.current);
  v.formatted = name() + " " + buf;
  return v;
}

MetricValue IterationSpeedMetric::update(const StepOutput& out, const MetricContext& ctx) {
  const auto now = std::chrono::steady_clock::now();
  MetricValue v;
  if (!started_) {
    // The first step's duration is unknown: its items start the clock.
    started_ = true;
    start_ = last_ = now;
    start_items_ = last_items_ = ctx.items;
    v.current = v.running = std::nan("");
  } else {
    const double step = seconds_between(last_, now), total = seconds_between(start_, now);
    const int64_t batch = ctx.items - last_items_;
    v.current = step > 0 ? static_cast<double>(batch > 0 ? batch : batch_size_of(out)) / step : std::nan("");
    v.running = total > 0 ? static_cast<double>(ctx.items - start_items_) / total : std::nan("");
    last_ = now;
    last_items_ = ctx.items;
  }
  v.formatted = format_numeric(name(), v.current, v.running, unit(), 1);
  return v;
}

namespace {

// The CPUs this process may run on (its affinity mask: a container's limit, taskset), not the host's.
int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

int64_t process_resident_bytes() {
  // /proc/self/statm: size resident shared ... in pages.
  std::ifstream in("/proc/self/statm");
  int64_t size = 0, resident = 0;
  if (!(in >> size >> resident)) return 0;
  return resident * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

MetricValue CpuUseMetric::update(const StepOutput&, const MetricContext&) {
  const auto now = std::chrono::steady_clock::now();
  const double cpu = process_cpu_seconds();
  const double cores = static_cast<double>(usable_cpus());
  MetricValue v;
  if (!started_) {
    started_ = true;
    start_ = last_ = now;
    start_cpu_ = last_cpu_ = cpu;
    v.current = v.running = std::nan("");
  } else {
    const double step = seconds_between(last_, now), total = seconds_between(start_, now);
    v.current = step > 0 ? 100.0 * (cpu - last_cpu_) / (step * cores) : std::nan("");
    v.running = total > 0 ? 100.0 * (cpu - start_cpu_) / (total * cores) : std::nan("");
    last_ = now;
    last_cpu_ = cpu;
  }
  v.formatted = format_numeric(name(), v.current, v.running, unit(), 1);
  return v;
}

MetricValue MemoryMetric::update(const StepOutput&, const MetricContext&) {
  MetricValue v;
  v.current = static_cast<double>(process_resident_bytes()) / 1e6;
  peak_ = std::max(peak_, v.current);
  v.running = peak_;
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.1f MB (epoch peak %.1f MB)", v.current, v.running);
  v.formatted = name() + " " + buf;
  return v;
}

}  // namespace burn::train
