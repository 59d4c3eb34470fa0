// Helpers shared by the layer families of burn-nn (private): JSON of PaddingConfig, number lists in
// messages, argument checks that name the layer.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "burn/nn/conv.hpp"
#include "config_json.hpp"

namespace burn::nn {

void to_json(nlohmann::json& j, const PaddingConfig& p);
void from_json(const nlohmann::json& j, PaddingConfig& p);

namespace detail {

std::string list_string(const std::vector<int64_t>& v);  // "[1, 2]"
std::string num_string(double v);                        // shortest round-trip form
template <size_t N>
std::vector<int64_t> vec(const std::array<int64_t, N>& a) {
  return {a.begin(), a.end()};
}
// ValueError "<op>: <what> must be positive, got [..]" unless every value is > 0.
void check_positive(const char* op, const char* what, const std::vector<int64_t>& v);
void check_non_negative(const char* op, const char* what, const std::vector<int64_t>& v);
// ShapeError naming `layer` unless x has rank `rank`.
void check_rank(const char* layer, const TensorHandle& x, size_t rank, const char* layout);

// ShapeError naming `layer` when a window of `kernel` (dilated) does not fit a padded spatial dim of x.
void check_window_fits(const char* layer, const Shape& x, const std::vector<int64_t>& kernel,
                       const std::vector<int64_t>& dilation, const std::vector<int64_t>& start,
                       const std::vector<int64_t>& end);

}  // namespace detail
}  // namespace burn::nn
