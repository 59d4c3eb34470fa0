// JSON for configs (nlohmann, private to burn-nn): BURN_CONFIG_JSON(Type, fields...) defines the
// members BURN_CONFIG declared. Unknown keys and wrong types are ValueErrors naming the config.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "burn/nn/export.hpp"
#include "burn/nn/init.hpp"
#include "burn/tensor/error.hpp"

namespace burn::nn {

void to_json(nlohmann::json& j, const Initializer& init);
void from_json(const nlohmann::json& j, Initializer& init);

// Exported: burn::optim's configs use them too.
namespace detail {
BURN_NN_API std::string read_text_file(const std::string& path, const char* op);
BURN_NN_API void write_text_file_atomically(const std::string& path, const std::string& text, const char* op);
// Parses `text`, refuses keys that `defaults` (the config's own JSON) does not have.
BURN_NN_API nlohmann::json parse_config(std::string_view text, const nlohmann::json& defaults, const char* type);
}  // namespace detail

}  // namespace burn::nn

#define BURN_CONFIG_JSON(Type, ...)                                                                 \
  NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Type, __VA_ARGS__)                                \
  std::string Type::to_json() const { return nlohmann::json(*this).dump(2); }                       \
  Type Type::from_json(std::string_view text) {                                                     \
    const nlohmann::json j = ::burn::nn::detail::parse_config(text, nlohmann::json(Type{}), #Type); \
    try {                                                                                           \
      return j.get<Type>();                                                                         \
    } catch (const nlohmann::json::exception& e) {                                                  \
      throw ::burn::ValueError(#Type "::from_json", e.what());                                      \
    }                                                                                               \
  }                                                                                                 \
  void Type::save(const std::string& path) const {                                                  \
    ::burn::nn::detail::write_text_file_atomically(path, to_json() + "\n", #Type "::save");         \
  }                                                                                                 \
  Type Type::load(const std::string& path) {                                                        \
    try {                                                                                           \
      return from_json(::burn::nn::detail::read_text_file(path, #Type "::load"));                   \
    } catch (const ::burn::ValueError& e) {                                                         \
      throw ::burn::ValueError(#Type "::load", path + ": " + e.what());                             \
    }                                                                                               \
  }
