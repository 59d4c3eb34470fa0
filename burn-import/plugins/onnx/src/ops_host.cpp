// Data-dependent ops whose output shape or selection comes from the values: NonMaxSuppression, Unique,
// Compress (the selection is computed on the host, the data then gathered on the device, so the
// gathered values stay differentiable), ReverseSequence, MaxUnpool, and the window generators.
#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>

#include "engine.hpp"

namespace burn::onnx {
namespace {

using Hs = std::vector<H>;

H i64_tensor(const Device& d, const std::vector<int64_t>& v, Shape s) {
  return api::from_data(d, TensorData::from_vector(v, std::move(s)), Kind::Int);
}

Hs non_max_suppression(OpContext& c) {
  const Shape& bs = c.shape(0);
  const Shape& ss = c.shape(1);
  if (bs.rank() != 3 || bs[2] != 4 || ss.rank() != 3 || ss[0] != bs[0] || ss[2] != bs[1])
    c.invalid("boxes must be [B, N, 4] and scores [B, C, N], got " + bs.to_string() + " and " + ss.to_string());
  int64_t max_out = c.has(2) && c.shape(2).num_elements() ? c.ints(2).at(0) : 0;
  double iou_th = c.has(3) && c.shape(3).num_elements() ? c.scalar(3) : 0.0;
  bool has_score_th = c.has(4) && c.shape(4).num_elements();
  double score_th = has_score_th ? c.scalar(4) : 0.0;
  bool center = c.attr_i("center_point_box", 0) != 0;
  std::vector<double> boxes = api::into_data(c.in(0)).to_f64_vec(), scores = api::into_data(c.in(1)).to_f64_vec();
  int64_t B = bs[0], N = bs[1], C = ss[1];
  auto corners = [&](int64_t b, int64_t i) {
    const double* p = &boxes[static_cast<size_t>((b * N + i) * 4)];
    if (center) return std::array<double, 4>{p[1] - p[3] / 2, p[0] - p[2] / 2, p[1] + p[3] / 2, p[0] + p[2] / 2};
    return std::array<double, 4>{std::min(p[0], p[2]), std::min(p[1], p[3]), std::max(p[0], p[2]),
                                 std::max(p[1], p[3])};
  };
  auto iou = [&](int64_t b, int64_t i, int64_t j) {
    auto a = corners(b, i), o = corners(b, j);
    double ih = std::max(0.0, std::min(a[2], o[2]) - std::max(a[0], o[0]));
    double iw = std::max(0.0, std::min(a[3], o[3]) - std::max(a[1], o[1]));
    double inter = ih * iw, uni = (a[2] - a[0]) * (a[3] - a[1]) + (o[2] - o[0]) * (o[3] - o[1]) - inter;
    return uni <= 0 ? 0.0 : inter / uni;
  };
  std::vector<int64_t> out;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t k = 0; k < C; ++k) {
      const double* sc = &scores[static_cast<size_t>((b * C + k) * N)];
      std::vector<int64_t> order;
      for (int64_t i = 0; i < N; ++i)
        if (!has_score_th || sc[i] > score_th) order.push_back(i);
      std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return sc[x] > sc[y]; });
      std::vector<int64_t> kept;
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) >= max_out) break;
        bool keep = std::all_of(kept.begin(), kept.end(), [&](int64_t j) { return iou(b, i, j) <= iou_th; });
        if (keep) kept.push_back(i);
      }
      for (int64_t i : kept) out.insert(out.end(), {b, k, i});
    }
  return {i64_tensor(c.device(), out, Shape{static_cast<int64_t>(out.size() / 3), 3})};
}

Hs unique(OpContext& c) {
  H x = c.in(0);
  bool sorted = c.attr_i("sorted", 1) != 0;
  int64_t axis = 0;
  if (c.has_attr("axis")) {
    axis = c.axis(c.attr_i("axis", 0), c.rank(0));
  } else {
    x = api::reshape(x, {-1});
  }
  Shape s = shape_of(x);
  // Rows: the slices along axis, compared as tuples of values.
  H moved = api::movedim(x, {axis}, {0});
  int64_t n = s[static_cast<size_t>(axis)];
  std::vector<double> v = api::into_data(moved).to_f64_vec();
  size_t w = n ? v.size() / static_cast<size_t>(n) : 0;
  auto row = [&](int64_t i) {
    return std::vector<double>(v.begin() + static_cast<long>(i * static_cast<int64_t>(w)),
                               v.begin() + static_cast<long>((i + 1) * static_cast<int64_t>(w)));
  };
  std::map<std::vector<double>, int64_t> first;  // row -> index of first occurrence
  std::vector<int64_t> firsts;
  for (int64_t i = 0; i < n; ++i)
    if (first.emplace(row(i), i).second) firsts.push_back(i);
  std::vector<int64_t> uniq = firsts;
  if (sorted) {
    uniq.clear();
    for (const auto& [r, i] : first) uniq.push_back(i);
  }
  std::map<int64_t, int64_t> pos;
  for (size_t i = 0; i < uniq.size(); ++i) pos[uniq[i]] = static_cast<int64_t>(i);
  std::vector<int64_t> inverse, counts(uniq.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t p = pos.at(first.at(row(i)));
    inverse.push_back(p);
    ++counts[static_cast<size_t>(p)];
  }
  int64_t u = static_cast<int64_t>(uniq.size());
  H y = api::select(x, axis, i64_tensor(c.device(), uniq, Shape{u}));
  return {y, i64_tensor(c.device(), uniq, Shape{u}), i64_tensor(c.device(), inverse, Shape{n}),
          i64_tensor(c.device(), counts, Shape{u})};
}

Hs compress(OpContext& c) {
  H x = c.in(0);
  int64_t axis = 0;
  if (c.has_attr("axis"))
    axis = c.axis(c.attr_i("axis", 0), c.rank(0));
  else
    x = api::reshape(x, {-1});
  std::vector<double> cond = api::into_data(c.in(1)).to_f64_vec();
  int64_t n = shape_of(x)[static_cast<size_t>(axis)];
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < std::min<int64_t>(n, static_cast<int64_t>(cond.size())); ++i)
    if (cond[static_cast<size_t>(i)] != 0) idx.push_back(i);
  return {api::select(x, axis, i64_tensor(c.device(), idx, Shape{static_cast<int64_t>(idx.size())}))};
}

Hs reverse_sequence(OpContext& c) {
  const Shape& s = c.shape(0);
  int64_t ta = c.axis(c.attr_i("time_axis", 0), s.rank()), ba = c.axis(c.attr_i("batch_axis", 1), s.rank());
  std::vector<int64_t> lens = c.ints(1);
  int64_t T = s[static_cast<size_t>(ta)], B = s[static_cast<size_t>(ba)];
  if (static_cast<int64_t>(lens.size()) != B) c.invalid("sequence_lens must have one length per batch entry");
  // index[t, b] along the time axis: reversed within each sequence's length.
  std::vector<int64_t> idx(static_cast<size_t>(T * B));
  std::vector<int64_t> view(s.rank(), 1);
  view[static_cast<size_t>(ta)] = T;
  view[static_cast<size_t>(ba)] = B;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t b = 0; b < B; ++b) {
      int64_t v = t < lens[static_cast<size_t>(b)] ? lens[static_cast<size_t>(b)] - 1 - t : t;
      idx[static_cast<size_t>(ta < ba ? t * B + b : b * T + t)] = v;
    }
  H it = api::expand(i64_tensor(c.device(), idx, Shape(view)), s.dims());
  return {api::gather(c.in(0), ta, it)};
}

Hs max_unpool(OpContext& c) {
  const Shape& s = c.shape(0);
  if (s.rank() < 3) c.invalid("input must have a batch, a channel and spatial dims");
  size_t n = s.rank() - 2;
  std::vector<int64_t> kernel = c.attr_ints("kernel_shape");
  std::vector<int64_t> stride = c.attr_ints("strides", std::vector<int64_t>(n, 1));
  std::vector<int64_t> pads = c.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
  if (kernel.size() != n) c.invalid("kernel_shape must have one value per spatial dim");
  // Indices are flat in the default unpooled shape; output_shape, when larger, pads at the end.
  std::vector<int64_t> out{s[0], s[1]};
  for (size_t i = 0; i < n; ++i) out.push_back((s[i + 2] - 1) * stride[i] + kernel[i] - pads[i] - pads[i + n]);
  H zeros = api::full(c.device(), Shape(out), Scalar(0.0), c.dtype(0));
  H flat = api::scatter_add(api::reshape(zeros, {-1}), 0, api::reshape(api::cast(c.in(1), DType::I64), {-1}),
                            api::reshape(c.in(0), {-1}));
  H y = api::reshape(flat, out);
  if (c.has(2)) {
    std::vector<int64_t> want = c.ints(2), grow;
    if (want.size() != out.size()) c.invalid("output_shape must have the input's rank");
    for (size_t i = out.size(); i-- > 2;) {
      if (want[i] < out[i]) c.invalid("output_shape is smaller than the unpooled shape");
      grow.push_back(0);
      grow.push_back(want[i] - out[i]);
    }
    y = api::pad(y, grow, PadMode::Constant, Scalar(0.0));
  }
  return {y};
}

template <int Kind>
Hs window(OpContext& c) {
  int64_t size = c.ints(0).at(0);
  bool periodic = c.attr_i("periodic", 1) != 0;
  DType dt = dtype_from_onnx(static_cast<int32_t>(c.attr_i("output_datatype", 1)), c.where());
  double N = static_cast<double>(periodic ? size : size - 1);
  std::vector<double> w(static_cast<size_t>(std::max<int64_t>(size, 0)));
  const double pi = std::numbers::pi;
  for (size_t i = 0; i < w.size(); ++i) {
    double x = 2 * pi * static_cast<double>(i) / N;
    if (Kind == 0) w[i] = 0.5 - 0.5 * std::cos(x);
    if (Kind == 1) w[i] = 25.0 / 46.0 - (1 - 25.0 / 46.0) * std::cos(x);
    if (Kind == 2) w[i] = 0.42 - 0.5 * std::cos(x) + 0.08 * std::cos(2 * x);
  }
  H h = api::from_data(c.device(), TensorData::from_vector(w, Shape{size}), burn::Kind::Float);
  return {api::cast(h, dt)};
}

Hs tfidf_vectorizer(OpContext& c) {
  if (c.has_attr("pool_strings")) c.unsupported("string pools");
  int64_t min_n = c.attr_i("min_gram_length", 1), max_n = c.attr_i("max_gram_length", 1);
  int64_t max_skip = c.attr_i("max_skip_count", 0);
  std::string mode = c.attr_s("mode", "TF");
  std::vector<int64_t> counts = c.attr_ints("ngram_counts"), indexes = c.attr_ints("ngram_indexes");
  std::vector<int64_t> pool = c.attr_ints("pool_int64s");
  std::vector<double> weights = c.attr_floats("weights");
  if (indexes.empty() || counts.empty()) c.invalid("ngram_counts and ngram_indexes are required");
  // Pool n-grams -> their global index, by length (counts[n - 1] is where the n-grams start).
  std::map<std::vector<int64_t>, size_t> ids;
  size_t next = 0;
  for (size_t j = 0; j < counts.size(); ++j) {
    int64_t n = static_cast<int64_t>(j) + 1;
    int64_t begin = counts[j], end = j + 1 < counts.size() ? counts[j + 1] : static_cast<int64_t>(pool.size());
    if (begin < 0 || end > static_cast<int64_t>(pool.size()) || begin > end || (end - begin) % n)
      c.invalid("ngram_counts does not split pool_int64s into n-grams");
    for (int64_t p = begin; p < end; p += n) ids[std::vector<int64_t>(pool.begin() + p, pool.begin() + p + n)] = next++;
  }
  if (next != indexes.size()) c.invalid("ngram_indexes must have one entry per pool n-gram");
  int64_t width = *std::max_element(indexes.begin(), indexes.end()) + 1;
  const Shape& s = c.shape(0);
  if (s.rank() != 1 && s.rank() != 2) c.invalid("input must be 1-D or 2-D");
  int64_t rows = s.rank() == 2 ? s[0] : 1, C = s[s.rank() - 1];
  std::vector<double> x = api::into_data(c.in(0)).to_f64_vec();
  std::vector<float> out(static_cast<size_t>(rows * width), 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = &x[static_cast<size_t>(r * C)];
    std::vector<int64_t> cnt(next, 0);
    for (int64_t start = 0; start < C; ++start)
      for (int64_t skip = 0; skip <= max_skip; ++skip)
        for (int64_t n = std::max<int64_t>(min_n, 1); n <= max_n; ++n) {
          if (n == 1 && skip > 0) continue;  // a unigram is counted once, whatever the skip
          if (start + (n - 1) * (skip + 1) >= C) continue;
          std::vector<int64_t> g;
          for (int64_t k = 0; k < n; ++k) g.push_back(static_cast<int64_t>(row[start + k * (skip + 1)]));
          auto it = ids.find(g);
          if (it != ids.end()) ++cnt[it->second];
        }
    for (size_t i = 0; i < next; ++i) {
      double w = weights.empty() ? 1.0 : weights[i];
      double v = mode == "TF"    ? static_cast<double>(cnt[i])
                 : mode == "IDF" ? (cnt[i] > 0 ? w : 0.0)
                                 : static_cast<double>(cnt[i]) * w;
      out[static_cast<size_t>(r * width + indexes[i])] += static_cast<float>(v);
    }
  }
  Shape os = s.rank() == 2 ? Shape{rows, width} : Shape{width};
  return {api::from_data(c.device(), TensorData::from_vector(out, os), burn::Kind::Float)};
}

}  // namespace

void add_host_ops(std::vector<OpRow>& r) {
  const int k = kMaxOpset;
  r.insert(r.end(), {
                        {"NonMaxSuppression", 10, k, non_max_suppression},
                        {"Unique", 11, k, unique},
                        {"Compress", 9, k, compress},
                        {"ReverseSequence", 10, k, reverse_sequence},
                        {"MaxUnpool", 9, k, max_unpool},
                        {"TfIdfVectorizer", 9, k, tfidf_vectorizer},
                        {"HannWindow", 17, k, window<0>},
                        {"HammingWindow", 17, k, window<1>},
                        {"BlackmanWindow", 17, k, window<2>},
                    });
}

}  // namespace burn::onnx
