// Tensor API, numeric group: arithmetic with broadcasting (fmod included), scalars, powers, clamps and matmul.
#include <algorithm>
#include <string>
#include <string_view>

#include "autocast.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "checks.hpp"

namespace burn::api {
using namespace detail;

namespace {

Backend& numeric_binary(const H& a, const H& b, const char* op) {
  Backend& be_ = binary_checks(a, b, op);
  require_numeric(a, op);
  return be_;
}

// add, sub, ... : autocast, the checks of a numeric binary op named `name`, then the backend's `method`.
H numeric_binary_op(OpId op, const char* name, Prim (Backend::*method)(Prim, Prim), H a, const H& b0) {
  CastArg b(b0);
  autocast(op, {&a, b.slot()});
  Backend& be_ = numeric_binary(a, *b, name);
  return with(a, (be_.*method)(std::move(a.prim), b->prim));
}

// ---- einsum ----------------------------------------------------------------------------------
// Subscripts are numbered 'A'-'Z' = 0..25, 'a'-'z' = 26..51 (torch's order for an implicit output);
// the dims an ellipsis covers get 52, 53, ... aligned from the right across operands.
constexpr int kLetters = 52;

struct EinsumTerm {
  std::vector<int> labels;
  int ellipsis = -1;  // where "..." sits among the labels; -1 when absent
};

// An operand during the lowering: its handle and one label per dim (shape [1] when it has none).
struct Labeled {
  H h;
  std::vector<int> labels;
};

class Einsum {
 public:
  Einsum(std::string_view equation, const Hs& operands) : eq_(equation), ops_(operands) {}

  H run() {
    parse();
    check_operands();
    std::vector<Labeled> ops;
    for (size_t k = 0; k < ops_.size(); ++k) ops.push_back(prepare(k));
    // A label used by one operand only and absent from the output is summed away first.
    for (size_t k = 0; k < ops.size(); ++k)
      sum_out(ops[k], [&](int l) { return !in_output_[l] && users(ops, l) == 1; });
    // Left to right, as torch without opt_einsum: each step is one matmul (or a broadcast mul).
    Labeled acc = std::move(ops[0]);
    for (size_t k = 1; k < ops.size(); ++k) {
      auto needed = [&](int l) {
        if (in_output_[l]) return true;
        for (size_t j = k + 1; j < ops.size(); ++j)
          if (has(ops[j], l)) return true;
        return false;
      };
      acc = contract(std::move(acc), std::move(ops[k]), needed);
    }
    sum_out(acc, [&](int l) { return !in_output_[l]; });
    std::vector<int64_t> dims;
    for (int l : output_) dims.push_back(size_[l]);
    return arrange(acc, output_, dims);
  }

 private:
  [[noreturn]] void bad_equation(const std::string& what) const {
    throw ValueError("einsum", "equation '" + std::string(eq_) + "': " + what);
  }
  [[noreturn]] void bad_shape(const std::string& what) const {
    throw ShapeError("einsum", "equation '" + std::string(eq_) + "': " + what);
  }
  static char letter(int l) { return static_cast<char>(l < 26 ? 'A' + l : 'a' + (l - 26)); }
  std::string label_name(int l) const {
    return l < kLetters ? std::string("subscript ") + letter(l)
                        : "dim " + std::to_string(l - kLetters) + " of the ellipsis";
  }

  EinsumTerm parse_term(std::string_view text, const std::string& where) const {
    EinsumTerm t;
    for (size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (c == ' ') continue;
      if (c >= 'A' && c <= 'Z') {
        t.labels.push_back(c - 'A');
      } else if (c >= 'a' && c <= 'z') {
        t.labels.push_back(26 + (c - 'a'));
      } else if (c == '.') {
        if (text.substr(i, 3) != "...") bad_equation("'.' in " + where + " is not part of an ellipsis '...'");
        if (t.ellipsis >= 0) bad_equation(where + " has more than one ellipsis");
        t.ellipsis = static_cast<int>(t.labels.size());
        i += 2;
      } else {
        bad_equation(std::string("invalid character '") + c + "' in " + where + "; subscripts are letters a-z, A-Z");
      }
    }
    return t;
  }

  void parse() {
    if (ops_.empty()) bad_equation("needs at least one operand");
    const size_t arrow = eq_.find("->");
    std::string_view lhs = eq_.substr(0, arrow);
    size_t start = 0;
    for (size_t i = 0; i <= lhs.size(); ++i) {
      if (i < lhs.size() && lhs[i] != ',') continue;
      inputs_.push_back(parse_term(lhs.substr(start, i - start), "operand " + std::to_string(inputs_.size())));
      start = i + 1;
    }
    if (inputs_.size() != ops_.size())
      bad_equation(std::to_string(inputs_.size()) + " operand(s) in the equation but " + std::to_string(ops_.size()) +
                   " given");
    explicit_ = arrow != std::string_view::npos;
    if (explicit_) {
      std::string_view rhs = eq_.substr(arrow + 2);
      if (rhs.find_first_of(",->") != std::string_view::npos)
        bad_equation("the output after '->' may hold only subscripts and '...'");
      out_term_ = parse_term(rhs, "the output");
    }
  }

  // Ranks, dtypes, devices; the dims of every label, broadcasting size-1 dims as torch does.
  void check_operands() {
    for (size_t k = 0; k < ops_.size(); ++k) {
      be(ops_[k], "einsum");
      require_numeric(ops_[k], "einsum");
      same_device(ops_[0], ops_[k], "einsum");
      if (ops_[k].prim->dtype() != ops_[0].prim->dtype())
        throw DTypeError("einsum", "operand " + std::to_string(k) + " is " + dt(ops_[k].prim->dtype()) +
                                       ", operand 0 is " + dt(ops_[0].prim->dtype()) + "; cast one first");
      const size_t r = rank(ops_[k]), n = inputs_[k].labels.size();
      if (inputs_[k].ellipsis < 0 ? r != n : r < n)
        bad_shape("operand " + std::to_string(k) + " has shape " + shape(ops_[k]).to_string() +
                  " but its subscripts name " + std::to_string(n) + " dims" +
                  (inputs_[k].ellipsis < 0 ? " and it has no ellipsis" : " besides the ellipsis"));
      ellipsis_dims_ = std::max(ellipsis_dims_, r - n);
    }
    size_.assign(kLetters + ellipsis_dims_, -1);
    in_output_.assign(kLetters + ellipsis_dims_, false);
    std::vector<int> count(kLetters, 0);
    dims_.resize(ops_.size());
    for (size_t k = 0; k < ops_.size(); ++k) {
      const EinsumTerm& t = inputs_[k];
      const Shape& s = shape(ops_[k]);
      const size_t covered = s.rank() - t.labels.size();
      std::vector<int>& dl = dims_[k];
      for (size_t i = 0; i <= t.labels.size(); ++i) {
        if (static_cast<int>(i) == t.ellipsis)
          for (size_t e = 0; e < covered; ++e) dl.push_back(kLetters + static_cast<int>(ellipsis_dims_ - covered + e));
        if (i < t.labels.size()) dl.push_back(t.labels[i]);
      }
      std::vector<int64_t> local(size_.size(), -1);
      for (size_t p = 0; p < dl.size(); ++p) {
        const int l = dl[p];
        const int64_t n = s[p];
        if (l < kLetters) ++count[l];
        if (local[l] >= 0 && local[l] != n)
          bad_shape(label_name(l) + " is repeated in operand " + std::to_string(k) + " with sizes " +
                    std::to_string(local[l]) + " and " + std::to_string(n));
        local[l] = n;
        if (size_[l] < 0 || size_[l] == 1) {
          size_[l] = n;
        } else if (n != 1 && n != size_[l]) {
          bad_shape(label_name(l) + " has size " + std::to_string(n) + " in operand " + std::to_string(k) +
                    ", which does not broadcast with size " + std::to_string(size_[l]) + " seen before");
        }
      }
    }
    // The output: as written, or (implicit) the ellipsis then the letters used exactly once, sorted.
    if (explicit_) {
      std::vector<bool> seen(kLetters, false);
      for (size_t i = 0; i <= out_term_.labels.size(); ++i) {
        if (static_cast<int>(i) == out_term_.ellipsis)
          for (size_t e = 0; e < ellipsis_dims_; ++e) output_.push_back(kLetters + static_cast<int>(e));
        if (i == out_term_.labels.size()) break;
        const int l = out_term_.labels[i];
        if (count[l] == 0) bad_equation("output " + label_name(l) + " appears in no operand");
        if (seen[l]) bad_equation("output " + label_name(l) + " appears more than once");
        seen[l] = true;
        output_.push_back(l);
      }
    } else {
      for (size_t e = 0; e < ellipsis_dims_; ++e) output_.push_back(kLetters + static_cast<int>(e));
      for (int l = 0; l < kLetters; ++l)
        if (count[l] == 1) output_.push_back(l);
    }
    for (int l : output_) in_output_[l] = true;
  }

  static bool has(const Labeled& o, int l) { return std::find(o.labels.begin(), o.labels.end(), l) != o.labels.end(); }
  static size_t users(const std::vector<Labeled>& ops, int l) {
    size_t n = 0;
    for (const Labeled& o : ops) n += has(o, l) ? 1 : 0;
    return n;
  }
  std::vector<int64_t> sizes_of(const std::vector<int>& labels) const {
    std::vector<int64_t> out;
    for (int l : labels) out.push_back(size_[l]);
    return out;
  }

  // o's dims permuted into `order` (a permutation of its labels), then reshaped to `dims`.
  static H arrange(const Labeled& o, const std::vector<int>& order, std::vector<int64_t> dims) {
    H h = o.h;
    if (!o.labels.empty()) {
      std::vector<int64_t> axes;
      for (int l : order) axes.push_back(std::find(o.labels.begin(), o.labels.end(), l) - o.labels.begin());
      bool identity = true;
      for (size_t i = 0; i < axes.size(); ++i) identity = identity && axes[i] == static_cast<int64_t>(i);
      if (!identity) h = permute(std::move(h), axes);
    }
    if (dims.empty()) dims.push_back(1);
    return reshape(std::move(h), dims);
  }

  // Operand k with one label per dim: repeated labels become their diagonal, and a dim of size 1
  // that broadcasts against a bigger one elsewhere is dropped (it multiplies every element alike).
  Labeled prepare(size_t k) {
    Labeled o{ops_[k], dims_[k]};
    for (;;) {
      int rep = -1;
      for (size_t i = 0; i < o.labels.size() && rep < 0; ++i)
        if (std::count(o.labels.begin(), o.labels.end(), o.labels[i]) > 1) rep = o.labels[i];
      if (rep < 0) break;
      // Move the repeated dims last and merge them: the diagonal is every (n^c - 1) / (n - 1)-th element.
      std::vector<int> rest;
      std::vector<int64_t> axes, dims;
      int64_t n = 0, merged = 1;
      for (size_t i = 0; i < o.labels.size(); ++i)
        if (o.labels[i] != rep) {
          rest.push_back(o.labels[i]);
          axes.push_back(static_cast<int64_t>(i));
          dims.push_back(shape(o.h)[i]);
        }
      for (size_t i = 0; i < o.labels.size(); ++i)
        if (o.labels[i] == rep) {
          axes.push_back(static_cast<int64_t>(i));
          n = shape(o.h)[i];
          merged *= n;
        }
      dims.push_back(merged);
      H h = reshape(permute(std::move(o.h), axes), dims);
      if (n > 1) {
        std::vector<Slice> sl(dims.size(), Slice::all());
        sl.back() = Slice::range(0, merged, (merged - 1) / (n - 1));
        h = slice(std::move(h), sl);
      }
      o.h = std::move(h);
      rest.push_back(rep);
      o.labels = std::move(rest);
    }
    std::vector<int> keep;
    for (size_t i = 0; i < o.labels.size(); ++i)
      if (!(shape(o.h)[i] == 1 && size_[o.labels[i]] != 1)) keep.push_back(o.labels[i]);
    if (keep.size() != o.labels.size()) {
      o.h = arrange(o, o.labels, sizes_of(keep));  // drops size-1 dims only: a reshape
      o.labels = std::move(keep);
    }
    return o;
  }

  template <typename Drop>
  static void sum_out(Labeled& o, Drop drop) {
    std::vector<int> keep;
    std::vector<int64_t> dims;
    bool any = false;
    for (size_t i = 0; i < o.labels.size(); ++i) {
      if (drop(o.labels[i])) {
        o.h = reduce_dim(OpId::sum_dim, std::move(o.h), static_cast<int64_t>(i));
        any = true;
      } else {
        keep.push_back(o.labels[i]);
        dims.push_back(shape(o.h)[i]);
      }
    }
    if (!any) return;
    if (dims.empty()) dims.push_back(1);
    o.h = reshape(std::move(o.h), dims);
    o.labels = std::move(keep);
  }

  // a and b into one operand over the labels still needed: shared needed labels are batch dims,
  // shared others are contracted (one matmul), the rest stay as they are.
  template <typename Needed>
  Labeled contract(Labeled a, Labeled b, Needed needed) const {
    sum_out(a, [&](int l) { return !needed(l) && !has(b, l); });
    sum_out(b, [&](int l) { return !needed(l) && !has(a, l); });
    std::vector<int> batch, sum, free_a, free_b;
    for (int l : a.labels) (has(b, l) ? (needed(l) ? batch : sum) : free_a).push_back(l);
    for (int l : b.labels)
      if (!has(a, l)) free_b.push_back(l);
    std::vector<int> out = batch;
    out.insert(out.end(), free_a.begin(), free_a.end());
    out.insert(out.end(), free_b.begin(), free_b.end());
    auto prod = [&](const std::vector<int>& ls) {
      int64_t p = 1;
      for (int l : ls) p *= size_[l];
      return p;
    };
    H r;
    if (sum.empty()) {  // nothing to contract: an elementwise product with broadcasting
      std::vector<int> oa = batch, ob = batch;
      oa.insert(oa.end(), free_a.begin(), free_a.end());
      ob.insert(ob.end(), free_b.begin(), free_b.end());
      std::vector<int64_t> da = sizes_of(oa), db = sizes_of(batch);
      da.insert(da.end(), free_b.size(), 1);
      db.insert(db.end(), free_a.size(), 1);
      for (int l : free_b) db.push_back(size_[l]);
      r = mul(arrange(a, oa, da), arrange(b, ob, db));
    } else if (prod(free_a) == 1 && prod(free_b) == 1) {  // batched dot products: mul and sum, not tiny GEMMs
      std::vector<int> oa = batch, ob = batch;            // the free labels have size 1: the reshape drops them
      oa.insert(oa.end(), free_a.begin(), free_a.end());
      oa.insert(oa.end(), sum.begin(), sum.end());
      ob.insert(ob.end(), sum.begin(), sum.end());
      ob.insert(ob.end(), free_b.begin(), free_b.end());
      H p = mul(arrange(a, oa, {prod(batch), prod(sum)}), arrange(b, ob, {prod(batch), prod(sum)}));
      std::vector<int64_t> dims = sizes_of(out);
      if (dims.empty()) dims.push_back(1);
      r = reshape(reduce_dim(OpId::sum_dim, std::move(p), 1), dims);
    } else {
      std::vector<int> oa = batch, ob = batch;
      oa.insert(oa.end(), free_a.begin(), free_a.end());
      oa.insert(oa.end(), sum.begin(), sum.end());
      ob.insert(ob.end(), sum.begin(), sum.end());
      ob.insert(ob.end(), free_b.begin(), free_b.end());
      H ha = arrange(a, oa, {prod(batch), prod(free_a), prod(sum)});
      H hb = arrange(b, ob, {prod(batch), prod(sum), prod(free_b)});
      std::vector<int64_t> dims = sizes_of(out);
      if (dims.empty()) dims.push_back(1);
      r = reshape(matmul(std::move(ha), hb), dims);
    }
    return Labeled{std::move(r), std::move(out)};
  }

  std::string_view eq_;
  const Hs& ops_;
  std::vector<EinsumTerm> inputs_;
  EinsumTerm out_term_;
  bool explicit_ = false;
  size_t ellipsis_dims_ = 0;
  std::vector<std::vector<int>> dims_;  // the label of every dim of every operand
  std::vector<int64_t> size_;           // per label, after broadcasting
  std::vector<bool> in_output_;
  std::vector<int> output_;
};

}  // namespace

H add(H a, const H& b) { return numeric_binary_op(OpId::add, "add", &Backend::add, std::move(a), b); }

H sub(H a, const H& b) { return numeric_binary_op(OpId::sub, "sub", &Backend::sub, std::move(a), b); }

H mul(H a, const H& b) { return numeric_binary_op(OpId::mul, "mul", &Backend::mul, std::move(a), b); }

H div(H a, const H& b) { return numeric_binary_op(OpId::div, "div", &Backend::div, std::move(a), b); }

H remainder(H a, const H& b) {
  return numeric_binary_op(OpId::remainder, "remainder", &Backend::remainder, std::move(a), b);
}

H fmod(H a, const H& b) { return numeric_binary_op(OpId::fmod, "fmod", &Backend::fmod, std::move(a), b); }

H maximum(H a, const H& b) { return numeric_binary_op(OpId::maximum, "max_pair", &Backend::maximum, std::move(a), b); }

H minimum(H a, const H& b) { return numeric_binary_op(OpId::minimum, "min_pair", &Backend::minimum, std::move(a), b); }

H powf(H a, const H& b0) {
  CastArg b(b0);
  autocast(OpId::powf, {&a, b.slot()});
  Backend& be_ = binary_checks(a, *b, "powf");
  require_float(a, "powf");
  return with(a, be_.powf(std::move(a.prim), b->prim));
}

H add_scalar(H a, Scalar s) { return with(a, numeric_unary(a, "add_scalar").add_scalar(std::move(a.prim), s)); }

H sub_scalar(H a, Scalar s) { return with(a, numeric_unary(a, "sub_scalar").sub_scalar(std::move(a.prim), s)); }

H mul_scalar(H a, Scalar s) { return with(a, numeric_unary(a, "mul_scalar").mul_scalar(std::move(a.prim), s)); }

H div_scalar(H a, Scalar s) {
  Backend& b = numeric_unary(a, "div_scalar");
  if (is_int(a.prim->dtype()) && s.as_int() == 0) throw ValueError("div_scalar", "integer division by zero");
  return with(a, b.div_scalar(std::move(a.prim), s));
}

H remainder_scalar(H a, Scalar s) {
  Backend& b = numeric_unary(a, "remainder_scalar");
  if (is_int(a.prim->dtype()) && s.as_int() == 0) throw ValueError("remainder_scalar", "integer remainder by zero");
  return with(a, b.remainder_scalar(std::move(a.prim), s));
}

H fmod_scalar(H a, Scalar s) {
  Backend& b = numeric_unary(a, "fmod_scalar");
  if (is_int(a.prim->dtype()) && s.as_int() == 0) throw ValueError("fmod_scalar", "integer fmod by zero");
  return with(a, b.fmod_scalar(std::move(a.prim), s));
}

H rsub_scalar(H a, Scalar s) {
  Backend& b = numeric_unary(a, "rsub_scalar");
  return with(a, b.add_scalar(b.neg(std::move(a.prim)), s));
}

H rdiv_scalar(H a, Scalar s) {
  Backend& b = numeric_unary(a, "rdiv_scalar");
  Prim num = b.full(shape(a), s, a.prim->dtype());
  return with(a, b.div(std::move(num), std::move(a.prim)));
}

H powf_scalar(H a, Scalar s) {
  autocast(OpId::powf_scalar, {&a});
  return with(a, float_unary(a, "powf_scalar").powf_scalar(std::move(a.prim), s));
}

H powi(H a, const H& e) {
  Backend& b = numeric_unary(a, "powi");
  same_device(a, e, "powi");
  require_index(e, "powi");
  shape_rules::broadcast(shape(a), shape(e), "powi");
  DType t = a.prim->dtype();
  if (is_float(t)) return with(a, b.powf(std::move(a.prim), b.cast(e.prim, t)));
  Prim r = b.powf(b.cast(std::move(a.prim), DType::F64), b.cast(e.prim, DType::F64));
  return with(a, b.cast(b.round(std::move(r)), t));
}

H powi_scalar(H a, int64_t e) {
  Backend& b = numeric_unary(a, "powi_scalar");
  DType t = a.prim->dtype();
  if (is_float(t)) return with(a, b.powf_scalar(std::move(a.prim), e));
  Prim r = b.powf_scalar(b.cast(std::move(a.prim), DType::F64), e);
  return with(a, b.cast(b.round(std::move(r)), t));
}

H matmul(H a, const H& c0) {
  CastArg cast_c(c0);
  autocast(OpId::matmul, {&a, cast_c.slot()});
  const H& c = *cast_c;
  Backend& b = numeric_unary(a, "matmul");
  same_device(a, c, "matmul");
  same_dtype(a, c, "matmul");
  const Shape &sa = shape(a), &sc = shape(c);
  if (sa.rank() == 1 && sc.rank() == 1) {  // dot product, as a [1] tensor
    if (sa[0] != sc[0])
      throw ShapeError("matmul", "lhs " + sa.to_string() + " and rhs " + sc.to_string() + ": lengths differ");
    Prim r = b.matmul(b.reshape(std::move(a.prim), Shape{1, sa[0]}), b.reshape(c.prim, Shape{sc[0], 1}));
    return with(a, b.reshape(std::move(r), Shape{1}));
  }
  if (sa.rank() == 0 && sc.rank() == 0)
    throw ShapeError("matmul", "operands are 0-d; matmul needs vectors or matrices");
  shape_rules::matmul(sa, sc);
  return with(a, b.matmul(std::move(a.prim), c.prim));
}

H clamp(H h, Scalar lo, Scalar hi) { return with(h, numeric_unary(h, "clamp").clamp(std::move(h.prim), lo, hi)); }

H clamp_min(H h, Scalar lo) { return with(h, numeric_unary(h, "clamp_min").clamp_min(std::move(h.prim), lo)); }

H clamp_max(H h, Scalar hi) { return with(h, numeric_unary(h, "clamp_max").clamp_max(std::move(h.prim), hi)); }

H einsum(std::string_view equation, const Hs& operands) { return Einsum(equation, operands).run(); }

H cross(H a, const H& b, int64_t dim) {
  numeric_binary(a, b, "cross");
  if (rank(a) != rank(b))
    throw ShapeError("cross", "lhs " + shape(a).to_string() + " and rhs " + shape(b).to_string() + " differ in rank");
  const size_t d = normalize_dim(dim, rank(a), "cross");
  if (shape(a)[d] != 3 || shape(b)[d] != 3)
    throw ShapeError("cross", "dim " + std::to_string(d) + " must have size 3 in both operands, got " +
                                  shape(a).to_string() + " and " + shape(b).to_string());
  // c_i = a_{i+1} b_{i+2} - a_{i+2} b_{i+1}, indices mod 3: two selects per operand.
  auto rot = [&](std::vector<int64_t> order) {
    return from_data(a.device, TensorData::from_vector(order, Shape{3}), Kind::Int);
  };
  const H next = rot({1, 2, 0}), after = rot({2, 0, 1});
  const int64_t di = static_cast<int64_t>(d);
  H lhs = mul(select(a, di, next), select(b, di, after));
  H rhs = mul(select(std::move(a), di, after), select(b, di, next));
  return sub(std::move(lhs), rhs);
}

H dot(H a, const H& b) {
  be(a, "dot");
  be(b, "dot");
  if (rank(a) != 1 || rank(b) != 1)
    throw ShapeError("dot", "expects two 1-D tensors, got " + shape(a).to_string() + " and " + shape(b).to_string());
  if (shape(a)[0] != shape(b)[0])
    throw ShapeError("dot", "lengths differ: " + shape(a).to_string() + " and " + shape(b).to_string());
  numeric_binary(a, b, "dot");
  return matmul(std::move(a), b);
}

}  // namespace burn::api
