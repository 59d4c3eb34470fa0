// Configs: plain aggregates with defaults and `init(device)`, saved and loaded as JSON. BURN_CONFIG
// declares the JSON members; each config's .cpp defines them with BURN_CONFIG_JSON (config_json.hpp).
#pragma once

#include <string>
#include <string_view>

#define BURN_CONFIG(Type)                                                                   \
  /* The config as a JSON object; every field is written. */                                \
  std::string to_json() const;                                                              \
  /* Missing fields keep their defaults; unknown fields and wrong types are ValueErrors. */ \
  static Type from_json(std::string_view json);                                             \
  /* Written atomically (temporary file, fsync, rename). */                                 \
  void save(const std::string& path) const;                                                 \
  static Type load(const std::string& path);
