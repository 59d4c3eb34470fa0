// The curves of a run drawn into a PNG with cairo: one panel per numeric metric, train and valid
// epoch values as lines with markers, axes with their ranges, a legend.
#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "burn/record/file.hpp"
#include "burn/tensor/error.hpp"
#include "burn/train/history.hpp"

namespace burn::train {

namespace {

struct Rgb {
  double r, g, b;
};
constexpr Rgb kTrainColor{0.12, 0.47, 0.71};  // blue
constexpr Rgb kValidColor{1.00, 0.50, 0.05};  // orange
constexpr Rgb kAxisColor{0.25, 0.25, 0.25};

std::string label(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

struct Panel {
  double x, y, w, h;
};

void draw_series(cairo_t* cr, const std::map<int64_t, double>& epochs, const Panel& plot, double x0, double x1,
                 double y0, double y1, Rgb color) {
  auto px = [&](double e) { return plot.x + (x1 > x0 ? (e - x0) / (x1 - x0) : 0.5) * plot.w; };
  auto py = [&](double v) { return plot.y + plot.h - (y1 > y0 ? (v - y0) / (y1 - y0) : 0.5) * plot.h; };
  cairo_set_source_rgb(cr, color.r, color.g, color.b);
  cairo_set_line_width(cr, 2.0);
  bool first = true;
  for (const auto& [e, v] : epochs) {
    if (std::isnan(v)) continue;
    if (first) {
      cairo_move_to(cr, px(static_cast<double>(e)), py(v));
      first = false;
    } else {
      cairo_line_to(cr, px(static_cast<double>(e)), py(v));
    }
  }
  cairo_stroke(cr);
  for (const auto& [e, v] : epochs) {
    if (std::isnan(v)) continue;
    cairo_arc(cr, px(static_cast<double>(e)), py(v), 3.5, 0, 2 * M_PI);
    cairo_fill(cr);
  }
}

void draw_panel(cairo_t* cr, const MetricHistory& h, const std::string& metric, const Panel& p) {
  const MetricSeries* train = h.find(Split::Train, metric);
  const MetricSeries* valid = h.find(Split::Valid, metric);
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (const MetricSeries* s : {train, valid}) {
    if (!s) continue;
    for (const auto& [e, v] : s->epochs) {
      if (std::isnan(v)) continue;
      x0 = std::min(x0, static_cast<double>(e)), x1 = std::max(x1, static_cast<double>(e));
      y0 = std::min(y0, v), y1 = std::max(y1, v);
    }
  }
  if (!(x0 <= x1)) return;  // no values at all
  const double pad = (y1 - y0) * 0.08 + (y1 == y0 ? std::max(1e-6, std::fabs(y0) * 0.05) : 0.0);
  y0 -= pad, y1 += pad;

  const Panel plot{p.x + 70, p.y + 34, p.w - 90, p.h - 70};
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size(cr, 15);
  const std::string unit = train ? train->unit : valid->unit;
  cairo_move_to(cr, plot.x, p.y + 22);
  cairo_show_text(cr, (metric + (unit.empty() ? "" : " (" + unit + ")")).c_str());

  cairo_set_source_rgb(cr, kAxisColor.r, kAxisColor.g, kAxisColor.b);
  cairo_set_line_width(cr, 1.0);
  cairo_rectangle(cr, plot.x, plot.y, plot.w, plot.h);
  cairo_stroke(cr);
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, 11);
  cairo_move_to(cr, p.x + 4, plot.y + 10);
  cairo_show_text(cr, label(y1).c_str());
  cairo_move_to(cr, p.x + 4, plot.y + plot.h);
  cairo_show_text(cr, label(y0).c_str());
  cairo_move_to(cr, plot.x, plot.y + plot.h + 16);
  cairo_show_text(cr, ("epoch " + label(x0)).c_str());
  cairo_move_to(cr, plot.x + plot.w - 50, plot.y + plot.h + 16);
  cairo_show_text(cr, label(x1).c_str());

  if (train) draw_series(cr, train->epochs, plot, x0, x1, y0, y1, kTrainColor);
  if (valid) draw_series(cr, valid->epochs, plot, x0, x1, y0, y1, kValidColor);

  // Legend under the plot, right of the epoch range.
  double lx = plot.x + plot.w / 2 - 60;
  for (const auto& [name, c, s] : {std::tuple{"train", kTrainColor, train}, std::tuple{"valid", kValidColor, valid}}) {
    if (!s) continue;
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
    cairo_rectangle(cr, lx, plot.y + plot.h + 8, 14, 8);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_move_to(cr, lx + 18, plot.y + plot.h + 16);
    cairo_show_text(cr, name);
    lx += 70;
  }
}

}  // namespace

void plot_metrics_png(const MetricHistory& history, const std::string& path, int width) {
  // Metrics of train or valid with epoch values, in train's order then valid's new ones.
  std::vector<std::string> names;
  for (const Split s : {Split::Train, Split::Valid}) {
    for (const auto& n : history.metrics(s)) {
      const MetricSeries* ser = history.find(s, n);
      if (!ser->epochs.empty() && std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
  }
  if (names.empty()) throw ValueError("train.plot", "no metric has epoch values to draw into '" + path + "'");
  if (width < 300 || width > 10000)
    throw ValueError("train.plot", "width " + std::to_string(width) + " is outside [300, 10000]");
  const int cols = static_cast<int>(std::min<size_t>(3, names.size()));
  const int rows = static_cast<int>((names.size() + static_cast<size_t>(cols) - 1) / static_cast<size_t>(cols));
  const double pw = static_cast<double>(width) / cols, ph = 300;
  const int height = static_cast<int>(ph * rows);

  std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> surface(
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height), &cairo_surface_destroy);
  std::unique_ptr<cairo_t, decltype(&cairo_destroy)> cr(cairo_create(surface.get()), &cairo_destroy);
  cairo_set_source_rgb(cr.get(), 1, 1, 1);
  cairo_paint(cr.get());
  for (size_t i = 0; i < names.size(); ++i) {
    const Panel p{pw * static_cast<double>(i % static_cast<size_t>(cols)),
                  ph * static_cast<double>(i / static_cast<size_t>(cols)), pw, ph};
    draw_panel(cr.get(), history, names[i], p);
  }
  cairo_surface_flush(surface.get());
  record::AtomicFile file(path);
  if (const auto st = cairo_surface_write_to_png(surface.get(), file.path().c_str()); st != CAIRO_STATUS_SUCCESS) {
    throw Error("train.plot", "cannot write '" + path + "': " + cairo_status_to_string(st));
  }
  file.commit();
}

}  // namespace burn::train
