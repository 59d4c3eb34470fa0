// Lines through burn's logger (stderr; level from $BURN_LOG, warn by default), for plugins and components
// that should not link spdlog themselves.
#pragma once

#include <string_view>

#include "burn/tensor/export.hpp"

namespace burn::log {

enum class Level { debug, info, warn, error };

// Whether a line of this level would be written (to skip building costly messages).
BURN_TENSOR_API bool enabled(Level level) noexcept;
BURN_TENSOR_API void write(Level level, std::string_view message) noexcept;

inline void debug(std::string_view m) noexcept { write(Level::debug, m); }
inline void info(std::string_view m) noexcept { write(Level::info, m); }
inline void warn(std::string_view m) noexcept { write(Level::warn, m); }
inline void error(std::string_view m) noexcept { write(Level::error, m); }

}  // namespace burn::log
