// The index math behind the dataset transforms of dataset.hpp.
#include "burn/data/dataset.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "burn/data/rng.hpp"

namespace burn::data::detail {

void check_range(const char* op, size_t size, size_t start, size_t end) {
  if (start > end || end > size) {
    throw DataError(op, "range [" + std::to_string(start) + ", " + std::to_string(end) +
                            ") does not fit a dataset of " + std::to_string(size) + " items");
  }
}

void check_positive(const char* op, const char* what, size_t value) {
  if (value == 0) throw DataError(op, std::string(what) + " must be at least 1, got 0");
}

void check_indices(const char* op, size_t size, const std::vector<size_t>& indices) {
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] >= size) {
      throw DataError(op, "index " + std::to_string(indices[i]) + " (selection entry " + std::to_string(i) +
                              ") is out of range for a dataset of " + std::to_string(size) + " items");
    }
  }
}

std::vector<std::pair<size_t, size_t>> split_ranges(size_t size, size_t parts) {
  check_positive("data::PartialDataset::split", "number of parts", parts);
  std::vector<std::pair<size_t, size_t>> out;
  size_t base = size / parts, extra = size % parts, start = 0;
  for (size_t i = 0; i < parts; ++i) {
    size_t len = base + (i < extra ? 1 : 0);
    out.emplace_back(start, start + len);
    start += len;
  }
  return out;
}

std::vector<std::pair<size_t, size_t>> split_fractions(size_t size, const std::vector<double>& fractions) {
  const char* op = "data::PartialDataset::split_fractions";
  if (fractions.empty()) throw DataError(op, "no fractions given");
  double sum = 0;
  for (double f : fractions) {
    if (!(f >= 0)) throw DataError(op, "fraction " + std::to_string(f) + " is negative");
    sum += f;
  }
  if (std::abs(sum - 1.0) > 1e-6) throw DataError(op, "fractions sum to " + std::to_string(sum) + ", not 1");
  std::vector<std::pair<size_t, size_t>> out;
  size_t start = 0;
  double acc = 0;
  for (size_t i = 0; i < fractions.size(); ++i) {
    acc += fractions[i];
    // Cumulative rounding, so the parts always cover the dataset exactly.
    size_t end = i + 1 == fractions.size() ? size : std::min(size, static_cast<size_t>(std::llround(acc * size)));
    end = std::max(end, start);
    out.emplace_back(start, end);
    start = end;
  }
  return out;
}

std::vector<size_t> sample_indices(size_t size, size_t count, bool replacement, uint64_t seed) {
  std::vector<size_t> out;
  if (count == 0) return out;
  if (size == 0)
    throw DataError("data::SamplerDataset", "cannot draw " + std::to_string(count) + " items from an empty dataset");
  out.reserve(count);
  Rng rng(seed);
  if (replacement) {
    for (size_t i = 0; i < count; ++i) out.push_back(static_cast<size_t>(uniform_below(rng, size)));
    return out;
  }
  while (out.size() < count) {
    std::vector<size_t> p = permutation(size, rng);
    size_t take = std::min(p.size(), count - out.size());
    out.insert(out.end(), p.begin(), p.begin() + static_cast<std::ptrdiff_t>(take));
  }
  return out;
}

std::vector<size_t> prefix_offsets(const std::vector<size_t>& sizes) {
  std::vector<size_t> off(sizes.size() + 1, 0);
  for (size_t i = 0; i < sizes.size(); ++i) off[i + 1] = off[i] + sizes[i];
  return off;
}

std::optional<std::pair<size_t, size_t>> locate(const std::vector<size_t>& offsets, size_t index) {
  if (index >= offsets.back()) return std::nullopt;
  // The last part starting at or before index (empty parts share their offset with the next one).
  auto it = std::upper_bound(offsets.begin(), offsets.end(), index);
  size_t part = static_cast<size_t>(it - offsets.begin()) - 1;
  return std::make_pair(part, index - offsets[part]);
}

}  // namespace burn::data::detail
