// The ncurses dashboard. Single-threaded: the Learner calls step() after each training step; the
// dashboard redraws at most every 100 ms and reads keys without waiting (nodelay).
#include "burn/train/dashboard.hpp"

#include <curses.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <map>

namespace burn::train {

namespace {

constexpr int kTrainColor = 1, kValidColor = 2, kTitleColor = 3;
constexpr size_t kRecentPoints = 300;

struct Point {
  double x;  // fractional epoch: epoch - 1 + iteration / iterations
  double y;
};

class Dashboard : public Renderer {
 public:
  explicit Dashboard(SCREEN* screen) : screen_(screen) {
    set_term(screen_);
    cbreak();
    noecho();
    nodelay(stdscr, TRUE);
    keypad(stdscr, TRUE);
    curs_set(0);
    if (has_colors()) {
      start_color();
      use_default_colors();
      init_pair(kTrainColor, COLOR_CYAN, -1);
      init_pair(kValidColor, COLOR_YELLOW, -1);
      init_pair(kTitleColor, COLOR_GREEN, -1);
    }
  }
  ~Dashboard() override { close(); }

  void step(const StepStatus& st, const std::vector<MetricView>& metrics) override {
    status_ = st;
    values_[st.split] = metrics;
    const double x = static_cast<double>(st.epoch - 1) +
                     (st.iterations > 0 ? static_cast<double>(st.iteration) / static_cast<double>(st.iterations) : 0.0);
    for (const auto& m : metrics) {
      if (!m.numeric || std::isnan(m.value.current)) continue;
      if (std::find(names_.begin(), names_.end(), m.name) == names_.end()) names_.push_back(m.name);
      series_[{m.name, st.split}].push_back({x, m.value.current});
    }
    read_keys();
    const auto now = std::chrono::steady_clock::now();
    if (now - last_draw_ >= std::chrono::milliseconds(100) || st.iteration == st.iterations) {
      draw();
      last_draw_ = now;
    }
  }

  void end_epoch(Split split, int64_t epoch, const MetricHistory&) override {
    message(std::string(split_name(split)) + " epoch " + std::to_string(epoch) + " done");
  }

  void message(const std::string& text) override {
    messages_.push_back(text);
    if (messages_.size() > 50) messages_.pop_front();
    if (!closed_) draw();
  }

  void finish() override {
    close();
    // What was shown at the bottom stays readable after the screen is restored: the last messages.
    const size_t from = messages_.size() > 8 ? messages_.size() - 8 : 0;
    for (size_t i = from; i < messages_.size(); ++i) std::printf("%s\n", messages_[i].c_str());
    std::fflush(stdout);
  }

  bool stop_requested() override {
    read_keys();
    return stop_;
  }

 private:
  void close() {
    if (closed_) return;
    closed_ = true;
    set_term(screen_);
    endwin();
    delscreen(screen_);
  }

  void read_keys() {
    if (closed_) return;
    for (int c = getch(); c != ERR; c = getch()) {
      switch (c) {
        case 'q':
        case 'Q':
          stop_ = true;
          message("stopping after the next checkpoint (q)");
          break;
        case KEY_RIGHT: selected_ = names_.empty() ? 0 : (selected_ + 1) % names_.size(); break;
        case KEY_LEFT: selected_ = names_.empty() ? 0 : (selected_ + names_.size() - 1) % names_.size(); break;
        case KEY_UP:
        case KEY_DOWN: recent_ = !recent_; break;
        default: break;
      }
    }
  }

  // The points of a series to draw: the recent window or all, at most `width` of them (bucket means).
  std::vector<Point> visible(const std::vector<Point>& all, size_t width) const {
    size_t from = recent_ && all.size() > kRecentPoints ? all.size() - kRecentPoints : 0;
    std::vector<Point> pts(all.begin() + static_cast<std::ptrdiff_t>(from), all.end());
    if (pts.size() <= width || width == 0) return pts;
    std::vector<Point> out;
    for (size_t b = 0; b < width; ++b) {
      const size_t lo = b * pts.size() / width, hi = (b + 1) * pts.size() / width;
      Point p{0, 0};
      for (size_t i = lo; i < hi; ++i) p.x += pts[i].x, p.y += pts[i].y;
      const double n = static_cast<double>(hi - lo);
      out.push_back({p.x / n, p.y / n});
    }
    return out;
  }

  void draw_plot(int top, int left, int height, int width) {
    if (names_.empty() || height < 4 || width < 20) return;
    const std::string& name = names_[selected_ % names_.size()];
    const int plot_left = left + 10, plot_w = width - 11, plot_h = height - 2;
    std::vector<Point> train, valid;
    if (const auto it = series_.find({name, Split::Train}); it != series_.end())
      train = visible(it->second, static_cast<size_t>(plot_w));
    if (const auto it = series_.find({name, Split::Valid}); it != series_.end())
      valid = visible(it->second, static_cast<size_t>(plot_w));
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (const auto* s : {&train, &valid}) {
      for (const auto& p : *s)
        x0 = std::min(x0, p.x), x1 = std::max(x1, p.x), y0 = std::min(y0, p.y), y1 = std::max(y1, p.y);
    }
    attron(A_BOLD);
    mvprintw(top, left + 1, "%s", name.c_str());
    attroff(A_BOLD);
    printw("  (%s)  <-/-> metric %zu/%zu  up/down: %s", recent_ ? "recent" : "full history",
           selected_ % names_.size() + 1, names_.size(), recent_ ? "full history" : "recent window");
    attron(COLOR_PAIR(kTrainColor));
    printw("   * train");
    attroff(COLOR_PAIR(kTrainColor));
    attron(COLOR_PAIR(kValidColor));
    printw("  o valid");
    attroff(COLOR_PAIR(kValidColor));
    if (!(x0 <= x1)) return;
    if (y1 == y0) y0 -= 0.5, y1 += 0.5;
    mvprintw(top + 1, left, "%9.4g", y1);
    mvprintw(top + plot_h, left, "%9.4g", y0);
    for (int r = 1; r <= plot_h; ++r) mvaddch(top + r, plot_left - 1, '|');
    // x: epochs done (2.50 is half-way through the third epoch).
    mvprintw(top + plot_h + 1, plot_left, "%.2f epochs", x0);
    mvprintw(top + plot_h + 1, plot_left + plot_w - 12, "%.2f epochs", x1);
    auto put = [&](const std::vector<Point>& pts, int color, chtype ch) {
      attron(COLOR_PAIR(color));
      for (const auto& p : pts) {
        const int c = plot_left + (x1 > x0 ? static_cast<int>(std::lround((p.x - x0) / (x1 - x0) * (plot_w - 1))) : 0);
        const int r = top + 1 + static_cast<int>(std::lround((y1 - p.y) / (y1 - y0) * (plot_h - 1)));
        mvaddch(r, c, ch);
      }
      attroff(COLOR_PAIR(color));
    };
    put(train, kTrainColor, '*');
    put(valid, kValidColor, 'o');
  }

  void draw() {
    if (closed_) return;
    erase();
    int h = 0, w = 0;
    getmaxyx(stdscr, h, w);
    if (h < 18 || w < 60) {
      mvprintw(0, 0, "burn-train: the terminal is too small (%dx%d, needs 60x18)", w, h);
      refresh();
      return;
    }
    const int bottom = 11;  // status and up to 6 metric values, progress, the last message
    const int plot_h = h - bottom - 1;
    attron(COLOR_PAIR(kTitleColor) | A_BOLD);
    mvprintw(0, 0, " burn-train ");
    attroff(COLOR_PAIR(kTitleColor) | A_BOLD);
    printw(" q: stop after the checkpoint");
    draw_plot(1, 0, plot_h, w);

    const int y = h - bottom;
    mvhline(y, 0, '-', w);
    const StepStatus& st = status_;
    mvprintw(y + 1, 1, "split      %s", split_name(st.split));
    mvprintw(y + 2, 1, "epoch      %lld/%lld", static_cast<long long>(st.epoch), static_cast<long long>(st.epochs));
    mvprintw(y + 3, 1, "iteration  %lld/%lld", static_cast<long long>(st.iteration),
             static_cast<long long>(st.iterations));
    mvprintw(y + 4, 1, "items      %lld/%lld", static_cast<long long>(st.items),
             static_cast<long long>(st.items_total));
    int row = y + 1;
    // The current split's values first: what the status panel is about.
    std::vector<Split> order{st.split};
    for (const Split s : {Split::Train, Split::Valid, Split::Test}) {
      if (s != st.split) order.push_back(s);
    }
    for (const Split s : order) {
      const auto it = values_.find(s);
      if (it == values_.end()) continue;
      for (const auto& m : it->second) {
        if (row > y + 6) break;
        mvprintw(row++, 28, "%-5s %.*s", split_name(s), std::max(0, w - 36), m.value.formatted.c_str());
      }
    }
    // Progress bar of the current split's epoch, with the ETA.
    const double frac = st.items_total > 0  ? static_cast<double>(st.items) / static_cast<double>(st.items_total)
                        : st.iterations > 0 ? static_cast<double>(st.iteration) / static_cast<double>(st.iterations)
                                            : 0.0;
    const int bar = std::max(10, w - 40);
    const int fill = static_cast<int>(std::clamp(frac, 0.0, 1.0) * bar);
    mvprintw(y + 8, 1, "[");
    for (int i = 0; i < bar; ++i) addch(i < fill ? '#' : '-');
    const double eta = eta_seconds(st);
    printw("] %5.1f %%  eta %s", 100.0 * frac, eta >= 0 ? format_duration(eta).c_str() : "?");
    if (!messages_.empty()) mvprintw(y + 10, 1, "%.*s", w - 2, messages_.back().c_str());
    refresh();
  }

  SCREEN* screen_;
  bool closed_ = false, stop_ = false, recent_ = false;
  size_t selected_ = 0;
  StepStatus status_;
  std::vector<std::string> names_;
  std::map<std::pair<std::string, Split>, std::vector<Point>> series_;
  std::map<Split, std::vector<MetricView>> values_;
  std::deque<std::string> messages_;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace

std::shared_ptr<Renderer> make_dashboard() {
  // newterm, unlike initscr, returns null instead of exiting when the terminal is unknown.
  SCREEN* screen = newterm(nullptr, stdout, stdin);
  if (!screen) return std::make_shared<LogRenderer>();
  return std::make_shared<Dashboard>(screen);
}

}  // namespace burn::train
