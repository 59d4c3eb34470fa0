// The terminal dashboard (ncurses): a plot of one numeric metric at a time (train and valid series
// over the epochs, the left/right arrows switch metric, up/down switch between the full history and
// the recent window), a status panel, the metric values, a progress bar with the ETA, and `q` to stop
// after the next checkpoint. Drawn at most every 100 ms from the training thread.
#pragma once

#include <memory>

#include "burn/train/renderer.hpp"

namespace burn::train {

// The dashboard on this process's terminal; a LogRenderer when the terminal cannot be opened
// (TERM unset or unknown).
BURN_TRAIN_API std::shared_ptr<Renderer> make_dashboard();

}  // namespace burn::train
