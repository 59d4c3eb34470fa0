// Linked into burn-robustness-demo (burn-demo's own source plus this file): with
// BURN_ROBUSTNESS_KILL="N:phase" the process SIGKILLs itself when its N-th atomic save (records,
// run.json, config.json, CSVs; counted from 1) reaches `phase`: created (the temporary file exists),
// written (its data is written), synced (fsynced, not yet renamed) or renamed (in place). What a
// crash or a power cut at that point leaves behind, at a point chosen exactly. "count:" kills nothing
// and prints "burn-robustness: <N> saves" at exit, so a test can aim at the last saves of a run.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "burn/record/file.hpp"

namespace {

using burn::record::SavePhase;

long g_save = 0;     // saves that reached TempCreated so far
long g_kill_at = 0;  // the save to kill in (0: none)
SavePhase g_phase = SavePhase::Written;

void hook(SavePhase phase) {
  if (phase == SavePhase::TempCreated) ++g_save;
  if (g_save == g_kill_at && phase == g_phase) std::raise(SIGKILL);
}

void print_count() { std::fprintf(stderr, "burn-robustness: %ld saves\n", g_save); }

struct Install {
  Install() {
    const char* spec = std::getenv("BURN_ROBUSTNESS_KILL");
    if (!spec || !*spec) return;
    const std::string s = spec;
    const auto colon = s.find(':');
    const std::string phase = colon == std::string::npos ? "" : s.substr(colon + 1);
    if (s == "count:") {
      std::atexit(&print_count);
      burn::record::detail::set_save_hook(&hook);
      return;
    }
    g_kill_at = std::atol(s.substr(0, colon).c_str());
    if (phase == "created") {
      g_phase = SavePhase::TempCreated;
    } else if (phase == "written") {
      g_phase = SavePhase::Written;
    } else if (phase == "synced") {
      g_phase = SavePhase::Synced;
    } else if (phase == "renamed") {
      g_phase = SavePhase::Renamed;
    } else {
      std::fprintf(stderr, "BURN_ROBUSTNESS_KILL: expected N:created|written|synced|renamed, got '%s'\n", spec);
      std::exit(2);
    }
    burn::record::detail::set_save_hook(&hook);
  }
} install;

}  // namespace
