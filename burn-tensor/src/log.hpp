// The "burn" spdlog logger shared by burn-tensor's sources: stderr, level from $BURN_LOG, warn by default.
#pragma once

#include <memory>

#include <spdlog/spdlog.h>

namespace burn::detail {

spdlog::logger& logger();

}  // namespace burn::detail
