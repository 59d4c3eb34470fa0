// A process that saves one generation of a checkpoint and may be killed while doing it (for
// sigkill_test.cpp): burn-record-save-victim RECORDER PATH GENERATION MEGABYTES [PHASE]. With PHASE
// (created, written, synced, renamed) it kills itself with SIGKILL when the save reaches it.
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "burn/record/file.hpp"
#include "burn/record/recorder.hpp"
#include "victim_record.hpp"

namespace {

burn::record::SavePhase g_phase;
void kill_at(burn::record::SavePhase p) {
  if (p == g_phase) std::raise(SIGKILL);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace burn::record;
  if (argc < 5) {
    std::cerr << "usage: burn-record-save-victim RECORDER PATH GENERATION MEGABYTES [PHASE]\n";
    return 2;
  }
  const Record r = test::victim_record(std::atoi(argv[3]), std::atoi(argv[4]));
  if (argc > 5) {
    const std::string p = argv[5];
    g_phase = p == "created"   ? SavePhase::TempCreated
              : p == "written" ? SavePhase::Written
              : p == "synced"  ? SavePhase::Synced
                               : SavePhase::Renamed;
    detail::set_save_hook(kill_at);
  }
  save(argv[2], r, {.recorder = argv[1], .threads = 2});
  return 0;
}
