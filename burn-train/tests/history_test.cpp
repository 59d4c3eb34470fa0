// The metric history: best epochs and early stopping's counter, the summary, the checkpoint record,
// the CSV files and the PNG (read back with cairo).
#include <cairo.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "burn/train/history.hpp"

namespace {

using namespace burn;
using namespace burn::train;
namespace fs = std::filesystem;

MetricHistory sample() {
  MetricHistory h;
  h.declare(Split::Train, "Loss", false, "");
  h.declare(Split::Valid, "Loss", false, "");
  h.declare(Split::Valid, "Accuracy", true, "%");
  const double train_loss[] = {2.0, 1.0, 0.8, 0.7};
  const double valid_loss[] = {1.5, 0.9, 1.1, 1.0};
  const double valid_acc[] = {60, 80, 80, 75};
  for (int e = 1; e <= 4; ++e) {
    for (int it = 1; it <= 3; ++it) h.add_step(Split::Train, "Loss", e, it, train_loss[e - 1] + 0.1 * (3 - it));
    h.end_epoch(Split::Train, "Loss", e, train_loss[e - 1]);
    h.add_step(Split::Valid, "Loss", e, 1, valid_loss[e - 1]);
    h.add_step(Split::Valid, "Accuracy", e, 1, valid_acc[e - 1]);
    h.end_epoch(Split::Valid, "Loss", e, valid_loss[e - 1]);
    h.end_epoch(Split::Valid, "Accuracy", e, valid_acc[e - 1]);
  }
  return h;
}

fs::path temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("burn_train_history_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(History, BestFollowsTheMetricsDirectionAndKeepsTheEarlierOfEqualValues) {
  const MetricHistory h = sample();
  EXPECT_EQ(h.best(Split::Valid, "Loss")->first, 2);
  EXPECT_DOUBLE_EQ(h.best(Split::Valid, "Loss")->second, 0.9);
  EXPECT_EQ(h.best(Split::Valid, "Accuracy")->first, 2);  // 80 at epochs 2 and 3
  EXPECT_EQ(h.epochs_since_best(Split::Valid, "Loss"), 2);
  EXPECT_EQ(h.epochs_since_best(Split::Train, "Loss"), 0);
  EXPECT_FALSE(h.best(Split::Test, "Loss").has_value());
}

TEST(History, SummaryHasBestAndLastPerSplit) {
  const auto rows = sample().summary();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].split, "valid");
  EXPECT_EQ(rows[1].metric, "Loss");
  EXPECT_DOUBLE_EQ(rows[1].best, 0.9);
  EXPECT_EQ(rows[1].best_epoch, 2);
  EXPECT_DOUBLE_EQ(rows[1].last, 1.0);
  EXPECT_EQ(rows[1].last_epoch, 4);
  const std::string table = sample().summary_table();
  EXPECT_NE(table.find("Accuracy"), std::string::npos);
  EXPECT_NE(table.find("80 % (2)"), std::string::npos) << table;
  EXPECT_NE(table.find("0.9  (2)"), std::string::npos) << table;
}

TEST(History, RecordRoundTripKeepsEpochValuesAndDirections) {
  const MetricHistory h = sample();
  MetricHistory back;
  back.load_record(h.to_record());
  EXPECT_EQ(back.metrics(Split::Valid), (std::vector<std::string>{"Loss", "Accuracy"}));
  EXPECT_TRUE(back.find(Split::Valid, "Accuracy")->higher_is_better);
  EXPECT_EQ(back.find(Split::Valid, "Accuracy")->unit, "%");
  EXPECT_EQ(back.find(Split::Train, "Loss")->epochs, h.find(Split::Train, "Loss")->epochs);
  EXPECT_EQ(back.epochs_since_best(Split::Valid, "Loss"), 2);
}

TEST(History, CsvHasOneRowPerStepAndOnePerEpoch) {
  const fs::path dir = temp_dir("csv");
  const MetricHistory h = sample();
  write_metric_csv(h, dir.string(), Split::Train, 2);
  EXPECT_EQ(read(dir / "train" / "epoch-2.csv"), "epoch,iteration,Loss\n2,1,1.2\n2,2,1.1\n2,3,1\n");
  EXPECT_EQ(read(dir / "train" / "epochs.csv"), "epoch,Loss\n1,2\n2,1\n3,0.8\n4,0.7\n");
  write_metric_csv(h, dir.string(), Split::Valid, 4);
  EXPECT_EQ(read(dir / "valid" / "epochs.csv"), "epoch,Loss,Accuracy\n1,1.5,60\n2,0.9,80\n3,1.1,80\n4,1,75\n");
  fs::remove_all(dir);
}

// Counts pixels close to a colour in an RGB24 surface.
int count_color(cairo_surface_t* s, int r, int g, int b) {
  const int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
  const int stride = cairo_image_surface_get_stride(s);
  const unsigned char* data = cairo_image_surface_get_data(s);
  int n = 0;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const auto px = *reinterpret_cast<const uint32_t*>(data + y * stride + x * 4);
      const int pr = (px >> 16) & 255, pg = (px >> 8) & 255, pb = px & 255;
      n += std::abs(pr - r) < 8 && std::abs(pg - g) < 8 && std::abs(pb - b) < 8;
    }
  }
  return n;
}

TEST(History, PlotDrawsOnePanelPerMetricWithBothSeries) {
  const fs::path dir = temp_dir("png");
  const fs::path png = dir / "curves.png";
  plot_metrics_png(sample(), png.string(), 900);
  cairo_surface_t* s = cairo_image_surface_create_from_png(png.c_str());
  ASSERT_EQ(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
  EXPECT_EQ(cairo_image_surface_get_width(s), 900);
  EXPECT_EQ(cairo_image_surface_get_height(s), 300);  // two metrics: one row of panels
  cairo_surface_flush(s);
  EXPECT_GT(count_color(s, 31, 120, 181), 100);  // train blue
  EXPECT_GT(count_color(s, 255, 128, 13), 100);  // valid orange
  cairo_surface_destroy(s);
  EXPECT_THROW(plot_metrics_png(MetricHistory{}, (dir / "empty.png").string()), ValueError);
  EXPECT_FALSE(fs::exists(dir / "empty.png"));
  fs::remove_all(dir);
}

}  // namespace
