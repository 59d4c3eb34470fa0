// The "burn" logger: created on first use so that quiet programs pay nothing.
#include "log.hpp"

#include "burn/tensor/log.hpp"

#include <cstdlib>
#include <string_view>

#include <spdlog/sinks/stdout_color_sinks.h>

namespace burn::detail {

spdlog::logger& logger() {
  static const std::shared_ptr<spdlog::logger> log = [] {
    std::shared_ptr<spdlog::logger> l = spdlog::get("burn");
    if (!l) {
      try {
        l = spdlog::stderr_color_mt("burn");
        auto level = spdlog::level::warn;
        if (const char* env = std::getenv("BURN_LOG"); env && *env) {
          // from_str maps unknown words to `off`; only accept a real level name.
          const auto parsed = spdlog::level::from_str(env);
          if (parsed != spdlog::level::off || std::string_view(env) == "off") level = parsed;
        }
        l->set_level(level);
      } catch (const spdlog::spdlog_ex&) {
        l = spdlog::get("burn");  // another thread or component created it first
      }
    }
    return l;
  }();
  return *log;
}

}  // namespace burn::detail

namespace burn::log {

namespace {
spdlog::level::level_enum to_spdlog(Level level) {
  switch (level) {
    case Level::debug: return spdlog::level::debug;
    case Level::info: return spdlog::level::info;
    case Level::warn: return spdlog::level::warn;
    case Level::error: return spdlog::level::err;
  }
  return spdlog::level::err;
}
}  // namespace

bool enabled(Level level) noexcept { return detail::logger().should_log(to_spdlog(level)); }

void write(Level level, std::string_view message) noexcept {
  try {
    detail::logger().log(to_spdlog(level), "{}", message);
  } catch (...) {  // a log line is never worth an exception
  }
}

}  // namespace burn::log
