// Dataset<T> and its transforms, as Burn's burn-dataset: a dataset is random access (get(index) ->
// optional item, size()); transforms wrap another dataset by shared_ptr and only remap indices or
// items. The index math lives in exported functions of dataset.cpp; the templates only forward.
// get() is const and must be safe to call from several threads at once (the DataLoader's workers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "burn/data/export.hpp"
#include "burn/tensor/error.hpp"

namespace burn::data {

// Errors of datasets and sources: messages name the file and the item or line ("[op] file: ...").
class BURN_DATA_API DataError : public burn::Error {
 public:
  DataError(const std::string& op, const std::string& message) : burn::Error(op, message) {}
};

template <typename T>
class Dataset;

// Iterates a dataset's items in index order (by value: items are made by get()).
template <typename T>
class DatasetIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = T;
  DatasetIterator(const Dataset<T>* ds, size_t i) : ds_(ds), i_(i) {}
  T operator*() const { return *ds_->get(i_); }
  DatasetIterator& operator++() { return ++i_, *this; }
  void operator++(int) { ++i_; }
  bool operator==(const DatasetIterator& o) const { return i_ == o.i_; }

 private:
  const Dataset<T>* ds_;
  size_t i_;
};

template <typename T>
class Dataset {
 public:
  using Item = T;
  virtual ~Dataset() = default;
  // The item at `index`, or nullopt when index >= size().
  virtual std::optional<T> get(size_t index) const = 0;
  virtual size_t size() const = 0;
  bool empty() const { return size() == 0; }
  DatasetIterator<T> begin() const { return {this, 0}; }
  DatasetIterator<T> end() const { return {this, size()}; }
};

template <typename T>
using DatasetPtr = std::shared_ptr<const Dataset<T>>;

namespace detail {
// Each throws DataError naming `op` and the values when the arguments do not fit the dataset.
BURN_DATA_API void check_range(const char* op, size_t size, size_t start, size_t end);
BURN_DATA_API void check_positive(const char* op, const char* what, size_t value);
BURN_DATA_API void check_indices(const char* op, size_t size, const std::vector<size_t>& indices);
// [start, end) of `parts` near-equal consecutive parts of `size` items (the first get the remainder).
BURN_DATA_API std::vector<std::pair<size_t, size_t>> split_ranges(size_t size, size_t parts);
// [start, end) of parts of the given fractions (which must sum to 1 within 1e-6); the last part takes
// what rounding leaves.
BURN_DATA_API std::vector<std::pair<size_t, size_t>> split_fractions(size_t size, const std::vector<double>& fractions);
// `count` indices of 0..size-1 drawn from mt19937_64(seed): uniformly with replacement, or without
// replacement as consecutive permutations (so each index occurs count/size or count/size + 1 times).
BURN_DATA_API std::vector<size_t> sample_indices(size_t size, size_t count, bool replacement, uint64_t seed);
// Prefix sums of `sizes` (offsets[i] = sum of sizes before i; one more entry: the total).
BURN_DATA_API std::vector<size_t> prefix_offsets(const std::vector<size_t>& sizes);
// Which part holds global `index` and its index there, given prefix_offsets; nullopt past the end.
BURN_DATA_API std::optional<std::pair<size_t, size_t>> locate(const std::vector<size_t>& offsets, size_t index);
}  // namespace detail

// Items held in a vector.
template <typename T>
class InMemDataset : public Dataset<T> {
 public:
  explicit InMemDataset(std::vector<T> items) : items_(std::move(items)) {}
  std::optional<T> get(size_t i) const override {
    return i < items_.size() ? std::optional<T>(items_[i]) : std::nullopt;
  }
  size_t size() const override { return items_.size(); }
  const std::vector<T>& items() const { return items_; }

 private:
  std::vector<T> items_;
};

// Holds every item of another dataset in memory (Burn's InMemDataset::from_dataset).
template <typename T>
std::shared_ptr<InMemDataset<T>> to_in_memory(const Dataset<T>& ds) {
  return std::make_shared<InMemDataset<T>>(std::vector<T>(ds.begin(), ds.end()));
}

// Applies `mapper` to each item when it is read.
template <typename I, typename O>
class MapperDataset : public Dataset<O> {
 public:
  MapperDataset(DatasetPtr<I> ds, std::function<O(const I&)> mapper) : ds_(std::move(ds)), map_(std::move(mapper)) {}
  std::optional<O> get(size_t i) const override {
    auto item = ds_->get(i);
    return item ? std::optional<O>(map_(*item)) : std::nullopt;
  }
  size_t size() const override { return ds_->size(); }

 private:
  DatasetPtr<I> ds_;
  std::function<O(const I&)> map_;
};

// Items [start, end) of another dataset.
template <typename T>
class PartialDataset : public Dataset<T> {
 public:
  PartialDataset(DatasetPtr<T> ds, size_t start, size_t end) : ds_(std::move(ds)), start_(start), end_(end) {
    detail::check_range("data::PartialDataset", ds_->size(), start, end);
  }
  std::optional<T> get(size_t i) const override { return i < size() ? ds_->get(start_ + i) : std::nullopt; }
  size_t size() const override { return end_ - start_; }
  // `parts` consecutive near-equal parts (Burn's PartialDataset::split).
  static std::vector<std::shared_ptr<PartialDataset>> split(const DatasetPtr<T>& ds, size_t parts) {
    return from_ranges(ds, detail::split_ranges(ds->size(), parts));
  }
  // Consecutive parts of the given fractions, e.g. {0.8, 0.2} for train/valid.
  static std::vector<std::shared_ptr<PartialDataset>> split_fractions(const DatasetPtr<T>& ds,
                                                                      const std::vector<double>& fractions) {
    return from_ranges(ds, detail::split_fractions(ds->size(), fractions));
  }

 private:
  static std::vector<std::shared_ptr<PartialDataset>> from_ranges(const DatasetPtr<T>& ds,
                                                                  const std::vector<std::pair<size_t, size_t>>& r) {
    std::vector<std::shared_ptr<PartialDataset>> out;
    for (auto [s, e] : r) out.push_back(std::make_shared<PartialDataset>(ds, s, e));
    return out;
  }
  DatasetPtr<T> ds_;
  size_t start_, end_;
};

// The items at the given indices of another dataset, in that order (indices checked once).
template <typename T>
class SelectionDataset : public Dataset<T> {
 public:
  SelectionDataset(DatasetPtr<T> ds, std::vector<size_t> indices) : ds_(std::move(ds)), indices_(std::move(indices)) {
    detail::check_indices("data::SelectionDataset", ds_->size(), indices_);
  }
  std::optional<T> get(size_t i) const override { return i < indices_.size() ? ds_->get(indices_[i]) : std::nullopt; }
  size_t size() const override { return indices_.size(); }
  const std::vector<size_t>& indices() const { return indices_; }

 protected:
  DatasetPtr<T> ds_;
  std::vector<size_t> indices_;
};

// Another dataset in the order of permutation(size, seed) (rng.hpp), fixed at construction.
template <typename T>
class ShuffledDataset : public SelectionDataset<T> {
 public:
  ShuffledDataset(DatasetPtr<T> ds, uint64_t seed)
      : SelectionDataset<T>(ds, detail::sample_indices(ds->size(), ds->size(), false, seed)) {}
};

// `size` items drawn from another dataset with or without replacement (sample_indices), fixed at
// construction so that every reader sees the same sample.
template <typename T>
class SamplerDataset : public SelectionDataset<T> {
 public:
  SamplerDataset(DatasetPtr<T> ds, size_t size, bool replacement, uint64_t seed)
      : SelectionDataset<T>(ds, detail::sample_indices(ds->size(), size, replacement, seed)) {}
};

// Item i is the window of `window` consecutive items i .. i+window-1 (size() = n - window + 1).
template <typename T>
class WindowsDataset : public Dataset<std::vector<T>> {
 public:
  WindowsDataset(DatasetPtr<T> ds, size_t window) : ds_(std::move(ds)), window_(window) {
    detail::check_positive("data::WindowsDataset", "window size", window);
  }
  std::optional<std::vector<T>> get(size_t i) const override {
    if (i >= size()) return std::nullopt;
    std::vector<T> out;
    out.reserve(window_);
    for (size_t k = 0; k < window_; ++k) out.push_back(*ds_->get(i + k));
    return out;
  }
  size_t size() const override { return ds_->size() >= window_ ? ds_->size() - window_ + 1 : 0; }

 private:
  DatasetPtr<T> ds_;
  size_t window_;
};

// The concatenation of several datasets (their sizes are read once, at construction).
template <typename T>
class ComposedDataset : public Dataset<T> {
 public:
  explicit ComposedDataset(std::vector<DatasetPtr<T>> parts) : parts_(std::move(parts)) {
    std::vector<size_t> sizes;
    for (const auto& p : parts_) sizes.push_back(p->size());
    offsets_ = detail::prefix_offsets(sizes);
  }
  std::optional<T> get(size_t i) const override {
    auto at = detail::locate(offsets_, i);
    return at ? parts_[at->first]->get(at->second) : std::nullopt;
  }
  size_t size() const override { return offsets_.back(); }

 private:
  std::vector<DatasetPtr<T>> parts_;
  std::vector<size_t> offsets_;
};

}  // namespace burn::data
