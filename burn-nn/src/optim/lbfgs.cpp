// L-BFGS, a port of torch/optim/lbfgs.py (1.13): the same iterations, tests and line search, on flat
// device tensors; dot products come to the host as doubles.
#include "burn/optim/lbfgs.hpp"

#include <algorithm>
#include <cmath>

#include "../nn/config_json.hpp"
#include "host_scalar.hpp"

namespace burn::optim {

BURN_CONFIG_JSON(LbfgsConfig, lr, max_iter, max_eval, tolerance_grad, tolerance_change, history_size, line_search_fn)

namespace {

using H = TensorHandle;

double dot(const H& a, const H& b) { return detail::host_scalar(api::dot(a, b)); }
double abs_max(const H& a) { return detail::host_scalar(api::max_abs(a)); }
double abs_sum(const H& a) { return detail::host_scalar(api::reduce_all(OpId::sum, api::unary(OpId::abs, a))); }
H axpy(const H& y, double a, const H& x) { return api::add(y, api::mul_scalar(x, a)); }  // y + a x

// The trainable parameters of a module, in walk order: what L-BFGS sees as one vector.
struct Flat {
  std::vector<nn::ParamBase*> params;
  Device device;  // the inner device
  DType dtype = DType::F32;

  explicit Flat(nn::ModuleRef m) {
    for (const nn::NamedParam& np : nn::detail::named_params(m)) {
      nn::ParamBase& p = *np.param;
      if (p.is_buffer() || !p.require_grad() || !p.initialized() || p.kind() != Kind::Float) continue;
      const H x = value(p);
      if (!params.empty() && !(x.device == device))
        throw ValueError("Lbfgs", "all parameters must be on one device ('" + np.path + "' is not)");
      if (!params.empty() && x.prim->dtype() != dtype)
        throw DTypeError("Lbfgs", "all parameters must have one dtype ('" + np.path + "' is " +
                                      std::string(dtype_name(x.prim->dtype())) + ")");
      device = x.device;
      dtype = x.prim->dtype();
      params.push_back(&p);
    }
    if (params.empty()) throw ValueError("Lbfgs", "the module has no trainable parameter");
  }
  static H value(const nn::ParamBase& p) {
    return autodiff_of(p.handle().device) ? api::inner(p.handle()) : p.handle();
  }
  static void set(nn::ParamBase& p, const H& x) {
    const Device d = p.handle().device;
    p.set_handle(autodiff_of(d) ? api::from_inner(x, d) : x);
  }
  std::vector<H> values() const {
    std::vector<H> out;
    for (auto* p : params) out.push_back(value(*p));
    return out;
  }
  void restore(const std::vector<H>& xs) {
    for (size_t i = 0; i < params.size(); ++i) set(*params[i], xs[i]);
  }
  // The gradients as one vector; a parameter without one counts as zeros (as torch).
  H gather(GradientsParams& grads) const {
    std::vector<H> views;
    for (auto* p : params) {
      std::optional<H> g = grads.get(p->id());
      H v = g ? *g : api::full(device, p->shape(), 0.0, dtype);
      if (!(v.device == device)) v = api::to_device(v, device);
      if (v.prim->dtype() != dtype) v = api::cast(v, dtype);
      views.push_back(api::reshape(v, {-1}));
    }
    return views.size() == 1 ? views[0] : api::cat(views, 0);
  }
  // params += t * d
  void add(double t, const H& d) {
    int64_t offset = 0;
    for (auto* p : params) {
      const int64_t n = p->num_elements();
      const H piece = api::reshape(api::narrow(d, 0, offset, n), p->shape().dims());
      set(*p, axpy(value(*p), t, piece));
      offset += n;
    }
  }
};

double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                         std::optional<std::pair<double, double>> bounds = std::nullopt) {
  auto [lo, hi] = bounds ? *bounds : (x1 <= x2 ? std::pair(x1, x2) : std::pair(x2, x1));
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (d2_square >= 0) {
    const double d2 = std::sqrt(d2_square);
    const double min_pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                                    : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
    return std::min(std::max(min_pos, lo), hi);
  }
  return (lo + hi) / 2.0;
}

struct LineSearch {
  double f;
  H g;
  double t;
  int64_t evals;
};

// torch's _strong_wolfe: obj(t) evaluates loss and flat gradient at x + t d (and restores x).
template <class Obj>
LineSearch strong_wolfe(Obj obj, double t, const H& d, double f, const H& g, double gtd, double tolerance_change,
                        double c1 = 1e-4, double c2 = 0.9, int64_t max_ls = 25) {
  const double d_norm = abs_max(d);
  auto [f_new, g_new] = obj(t);
  int64_t evals = 1;
  double gtd_new = dot(g_new, d);
  double t_prev = 0, f_prev = f, gtd_prev = gtd;
  H g_prev = g;
  bool done = false;
  int64_t ls_iter = 0;
  std::vector<double> bracket, bracket_f, bracket_gtd;
  std::vector<H> bracket_g;
  while (ls_iter < max_ls) {
    if (f_new > f + c1 * t * gtd || (ls_iter > 1 && f_new >= f_prev)) {
      bracket = {t_prev, t}, bracket_f = {f_prev, f_new}, bracket_g = {g_prev, g_new},
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    if (std::abs(gtd_new) <= -c2 * gtd) {
      bracket = {t}, bracket_f = {f_new}, bracket_g = {g_new};
      done = true;
      break;
    }
    if (gtd_new >= 0) {
      bracket = {t_prev, t}, bracket_f = {f_prev, f_new}, bracket_g = {g_prev, g_new},
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    const double min_step = t + 0.01 * (t - t_prev), max_step = t * 10;
    const double tmp = t;
    t = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, std::pair(min_step, max_step));
    t_prev = tmp, f_prev = f_new, g_prev = g_new, gtd_prev = gtd_new;
    std::tie(f_new, g_new) = obj(t);
    ++evals;
    gtd_new = dot(g_new, d);
    ++ls_iter;
  }
  if (ls_iter == max_ls) bracket = {0, t}, bracket_f = {f, f_new}, bracket_g = {g, g_new};
  bool insuf_progress = false;
  size_t low = bracket_f.front() <= bracket_f.back() ? 0 : 1, high = 1 - low;
  while (!done && ls_iter < max_ls) {
    if (std::abs(bracket[1] - bracket[0]) * d_norm < tolerance_change) break;
    t = cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]);
    const double bmax = std::max(bracket[0], bracket[1]), bmin = std::min(bracket[0], bracket[1]);
    const double eps = 0.1 * (bmax - bmin);
    if (std::min(bmax - t, t - bmin) < eps) {
      if (insuf_progress || t >= bmax || t <= bmin) {
        t = std::abs(t - bmax) < std::abs(t - bmin) ? bmax - eps : bmin + eps;
        insuf_progress = false;
      } else {
        insuf_progress = true;
      }
    } else {
      insuf_progress = false;
    }
    std::tie(f_new, g_new) = obj(t);
    ++evals;
    gtd_new = dot(g_new, d);
    ++ls_iter;
    if (f_new > f + c1 * t * gtd || f_new >= bracket_f[low]) {
      bracket[high] = t, bracket_f[high] = f_new, bracket_g[high] = g_new, bracket_gtd[high] = gtd_new;
      low = bracket_f[0] <= bracket_f[1] ? 0 : 1, high = 1 - low;
    } else {
      if (std::abs(gtd_new) <= -c2 * gtd) {
        done = true;
      } else if (gtd_new * (bracket[high] - bracket[low]) >= 0) {
        bracket[high] = bracket[low], bracket_f[high] = bracket_f[low], bracket_g[high] = bracket_g[low],
        bracket_gtd[high] = bracket_gtd[low];
      }
      bracket[low] = t, bracket_f[low] = f_new, bracket_g[low] = g_new, bracket_gtd[low] = gtd_new;
    }
  }
  return {bracket_f[low], bracket_g[low], bracket[low], evals};
}

}  // namespace

Lbfgs LbfgsConfig::init() const { return Lbfgs(*this); }

Lbfgs::Lbfgs(const LbfgsConfig& config) : c_(config) {
  if (c_.max_eval == 0) c_.max_eval = c_.max_iter * 5 / 4;
  if (!(c_.lr > 0) || c_.max_iter < 1 || c_.max_eval < 1 || c_.history_size < 1)
    throw ValueError("LbfgsConfig", "lr, max_iter, max_eval and history_size must be > 0, got " +
                                        std::to_string(c_.lr) + ", " + std::to_string(c_.max_iter) + ", " +
                                        std::to_string(c_.max_eval) + ", " + std::to_string(c_.history_size));
  if (!c_.line_search_fn.empty() && c_.line_search_fn != "strong_wolfe")
    throw ValueError("LbfgsConfig", "line_search_fn is \"\" or \"strong_wolfe\", got \"" + c_.line_search_fn + "\"");
}

double Lbfgs::step_module(nn::ModuleRef module, const std::function<Eval()>& closure) {
  Flat flat(module);
  if (pending_) {  // a loaded state: its vectors go to the parameters' device now
    auto vec = [&](const std::string& name) {
      const TensorData& data = pending_->at(name).tensor();
      return api::from_data(flat.device, data.dtype() == flat.dtype ? data : data.convert(flat.dtype), Kind::Float);
    };
    if (pending_->contains("d")) d_ = vec("d");
    if (pending_->contains("prev_flat_grad")) prev_flat_grad_ = vec("prev_flat_grad");
    for (size_t i = 0; i < ro_.size(); ++i) {
      old_dirs_.push_back(vec("old_dirs." + std::to_string(i)));
      old_stps_.push_back(vec("old_stps." + std::to_string(i)));
    }
    pending_.reset();
  }
  // No NoGradGuard: the closure records its own graph. The updates below run on the inner device.
  auto evaluate = [&]() {
    Eval e = closure();
    return std::pair<double, H>(e.loss, flat.gather(e.grads));
  };
  auto [loss, flat_grad] = evaluate();
  const double orig_loss = loss;
  int64_t current_evals = 1;
  ++func_evals_;
  bool opt_cond = abs_max(flat_grad) <= c_.tolerance_grad;
  if (opt_cond) return orig_loss;

  int64_t n_iter = 0;
  while (n_iter < c_.max_iter) {
    ++n_iter;
    ++n_iter_;
    if (n_iter_ == 1) {
      d_ = api::mul_scalar(flat_grad, -1.0);
      old_dirs_.clear(), old_stps_.clear(), ro_.clear();
      h_diag_ = 1;
    } else {
      const H y = api::sub(flat_grad, prev_flat_grad_);
      const H s = api::mul_scalar(d_, t_);
      const double ys = dot(y, s);
      if (ys > 1e-10) {
        if (static_cast<int64_t>(old_dirs_.size()) == c_.history_size) {
          old_dirs_.erase(old_dirs_.begin()), old_stps_.erase(old_stps_.begin()), ro_.erase(ro_.begin());
        }
        old_dirs_.push_back(y), old_stps_.push_back(s), ro_.push_back(1.0 / ys);
        h_diag_ = ys / dot(y, y);
      }
      // The two-loop recursion: d = -H g.
      const size_t num_old = old_dirs_.size();
      std::vector<double> al(num_old);
      H q = api::mul_scalar(flat_grad, -1.0);
      for (size_t i = num_old; i-- > 0;) {
        al[i] = dot(old_stps_[i], q) * ro_[i];
        q = axpy(q, -al[i], old_dirs_[i]);
      }
      H r = api::mul_scalar(q, h_diag_);
      for (size_t i = 0; i < num_old; ++i) {
        const double be_i = dot(old_dirs_[i], r) * ro_[i];
        r = axpy(r, al[i] - be_i, old_stps_[i]);
      }
      d_ = r;
    }
    prev_flat_grad_ = flat_grad;
    prev_loss_ = loss;
    t_ = n_iter_ == 1 ? std::min(1.0, 1.0 / abs_sum(flat_grad)) * c_.lr : c_.lr;
    const double gtd = dot(flat_grad, d_);
    if (gtd > -c_.tolerance_change) break;

    int64_t ls_func_evals = 0;
    if (!c_.line_search_fn.empty()) {
      const std::vector<H> x_init = flat.values();
      auto obj = [&](double t) {
        flat.add(t, d_);
        auto out = evaluate();
        flat.restore(x_init);
        return out;
      };
      LineSearch ls = strong_wolfe(obj, t_, d_, loss, flat_grad, gtd, c_.tolerance_change);
      loss = ls.f, flat_grad = ls.g, t_ = ls.t, ls_func_evals = ls.evals;
      flat.add(t_, d_);
      opt_cond = abs_max(flat_grad) <= c_.tolerance_grad;
    } else {
      flat.add(t_, d_);
      if (n_iter != c_.max_iter) {
        std::tie(loss, flat_grad) = evaluate();
        opt_cond = abs_max(flat_grad) <= c_.tolerance_grad;
        ls_func_evals = 1;
      }
    }
    current_evals += ls_func_evals;
    func_evals_ += ls_func_evals;
    if (n_iter == c_.max_iter) break;
    if (current_evals >= c_.max_eval) break;
    if (opt_cond) break;
    if (abs_max(d_) * std::abs(t_) <= c_.tolerance_change) break;
    if (std::abs(loss - prev_loss_) < c_.tolerance_change) break;
  }
  return orig_loss;
}

record::Record Lbfgs::to_record() const {
  if (pending_) return *pending_;  // loaded and not used yet
  record::Record rec;
  rec.set("rule", "lbfgs");
  rec.set("n_iter", n_iter_);
  rec.set("func_evals", func_evals_);
  rec.set("t", t_);
  rec.set("h_diag", h_diag_);
  rec.set("prev_loss", prev_loss_);
  rec.set("ro", TensorData::from_vector(ro_, Shape{static_cast<int64_t>(ro_.size())}));
  if (d_.prim) rec.set("d", api::into_data(d_));
  if (prev_flat_grad_.prim) rec.set("prev_flat_grad", api::into_data(prev_flat_grad_));
  for (size_t i = 0; i < old_dirs_.size(); ++i) {
    rec.set("old_dirs." + std::to_string(i), api::into_data(old_dirs_[i]));
    rec.set("old_stps." + std::to_string(i), api::into_data(old_stps_[i]));
  }
  rec.metadata().producer = "burn-optim lbfgs";
  return rec;
}

void Lbfgs::load_record(const record::Record& rec) {
  auto need = [&](const char* name, record::EntryKind kind) -> const record::Value& {
    const record::Value* v = rec.find(name);
    if (!v || v->kind() != kind)
      throw RecordError("Lbfgs::load_record", std::string("'") + name + "' is missing or not a " +
                                                  std::string(record::entry_kind_name(kind)));
    return *v;
  };
  if (need("rule", record::EntryKind::String).as_string() != "lbfgs")
    throw RecordError("Lbfgs::load_record",
                      "the record holds the state of '" + rec.at("rule").as_string() + "', not lbfgs");
  const int64_t n_iter = need("n_iter", record::EntryKind::Int).as_int();
  const int64_t func_evals = need("func_evals", record::EntryKind::Int).as_int();
  const double t = need("t", record::EntryKind::Float).as_float();
  const double h_diag = need("h_diag", record::EntryKind::Float).as_float();
  const double prev_loss = need("prev_loss", record::EntryKind::Float).as_float();
  const TensorData& ro = need("ro", record::EntryKind::Tensor).tensor();
  if (ro.shape().rank() != 1) throw RecordError("Lbfgs::load_record", "'ro' is not a vector");
  std::vector<double> ro_values = ro.convert(DType::F64).to_vec<double>();
  for (size_t i = 0; i < ro_values.size(); ++i) {
    need(("old_dirs." + std::to_string(i)).c_str(), record::EntryKind::Tensor);
    need(("old_stps." + std::to_string(i)).c_str(), record::EntryKind::Tensor);
  }
  if (n_iter > 0) {
    need("d", record::EntryKind::Tensor);
    need("prev_flat_grad", record::EntryKind::Tensor);
  }
  n_iter_ = n_iter, func_evals_ = func_evals, t_ = t, h_diag_ = h_diag, prev_loss_ = prev_loss;
  ro_ = std::move(ro_values);
  d_ = {}, prev_flat_grad_ = {};
  old_dirs_.clear(), old_stps_.clear();
  pending_ = rec;
}

}  // namespace burn::optim
