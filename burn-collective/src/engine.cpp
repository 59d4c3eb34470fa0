// Finding a collective engine plugin by name, as burn-import finds importers.
#include "burn/collective/engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>

namespace burn::collective {

Transport::~Transport() = default;

void Transport::exchange_calls(const void* call, void* calls, size_t call_bytes, std::chrono::milliseconds timeout) {
  all_gather(call, calls, call_bytes, timeout);
}

bool Transport::all_reduce_checked(void* data, size_t count, DType dtype, ReduceOp op, const void* call, void* calls,
                                   size_t call_bytes, const std::function<bool(const void*)>& agree,
                                   std::chrono::milliseconds timeout) {
  const auto start = std::chrono::steady_clock::now();
  exchange_calls(call, calls, call_bytes, timeout);
  if (!agree(calls)) return false;
  const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  if (count > 0) all_reduce(data, count, dtype, op, std::max(timeout - spent, std::chrono::milliseconds(1)));
  return true;
}
Engine::~Engine() = default;

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Mean: return "mean";
    case ReduceOp::Max: return "max";
    case ReduceOp::Min: return "min";
  }
  return "unknown";
}

namespace {

// "major.minor..." as {major, minor}; {-1, -1} when it does not start so.
std::pair<long, long> version_of(const char* v) {
  if (!v || *v < '0' || *v > '9') return {-1, -1};
  char* end = nullptr;
  const long major = std::strtol(v, &end, 10);
  if (*end != '.' || end[1] < '0' || end[1] > '9') return {major, -1};
  return {major, std::strtol(end + 1, nullptr, 10)};
}

// Vets what a collective plugin's create() returned before anything is called through it.
std::string check_engine_object(void* object, std::string_view name) {
  const auto* o = static_cast<const BurnCollectiveObject*>(object);
  if (o->struct_size < sizeof(BurnCollectiveObject)) {
    return "collective object of " + std::to_string(o->struct_size) + " bytes, host expects at least " +
           std::to_string(sizeof(BurnCollectiveObject)) + " (not made by BURN_COLLECTIVE_PLUGIN?)";
  }
  const std::string built = o->burn_collective_version ? o->burn_collective_version : "";
  // The Transport and Engine classes cross the boundary: their vtables change with the interface, which semver
  // lets a 0.x minor do (0.2: Transport::exchange_calls and all_reduce_checked), so below 1.0 the minors match too.
  const auto [major, minor] = version_of(o->burn_collective_version);
  if (major != BURN_COLLECTIVE_VERSION_MAJOR) {
    return "built against burn-collective " + built + ", host is burn-collective " + BURN_COLLECTIVE_VERSION +
           " (the majors must match)";
  }
  if (major == 0 && minor != BURN_COLLECTIVE_VERSION_MINOR) {
    return "built against burn-collective " + built + ", host is burn-collective " + BURN_COLLECTIVE_VERSION +
           " (below 1.0 the minors must match too: the engine interface changes with them)";
  }
  if (!o->engine) return "create() returned no engine";
  const std::string made = o->engine->name();
  if (made != name) return "the plugin named '" + std::string(name) + "' made an engine named '" + made + "'";
  return {};
}

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const Engine>, std::less<>> engines;  // created so far
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: plugin objects outlive static destruction
  return *r;
}

}  // namespace

std::shared_ptr<const Engine> engine(std::string_view name) {
  Registry& reg = registry();
  {
    std::lock_guard lock(reg.mutex);
    if (const auto it = reg.engines.find(name); it != reg.engines.end()) return it->second;
  }
  // Created without the lock: the host calls factories unlocked, and one may use burn-collective.
  const std::shared_ptr<void> object =
      plugins::create_object(BURN_PLUGIN_COLLECTIVE, name, [name](void* o) { return check_engine_object(o, name); });
  // Aliasing: the Engine pointer shares ownership of the plugin object (and so of its library).
  std::shared_ptr<const Engine> e(object, static_cast<const BurnCollectiveObject*>(object.get())->engine);
  std::lock_guard lock(reg.mutex);
  return reg.engines.emplace(std::string(name), std::move(e)).first->second;
}

std::vector<std::string> engine_names() {
  std::vector<std::string> names = plugins::plugin_names(BURN_PLUGIN_COLLECTIVE);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace burn::collective
