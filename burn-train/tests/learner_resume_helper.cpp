// The first part of a resumed run, in its own process: `learner_resume_helper DIR EPOCHS
// [kill-at-save N]` trains the fixture's Net for EPOCHS epochs with checkpoints in DIR. With
// kill-at-save N, the process SIGKILLs itself after writing the data of its N-th checkpoint save,
// before the rename: what a crash mid-save leaves behind.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "burn/record/file.hpp"
#include "learner_fixture.hpp"

namespace {
int saves_left = 0;
void kill_at_save(burn::record::SavePhase phase) {
  if (phase == burn::record::SavePhase::Written && --saves_left == 0) std::raise(SIGKILL);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 5) {
    std::fprintf(stderr, "usage: %s DIR EPOCHS [kill-at-save N]\n", argv[0]);
    return 2;
  }
  learner_fixture::Run r;
  r.artifact_dir = argv[1];
  r.epochs = std::atoll(argv[2]);
  r.checkpoint_every = 4;
  if (argc == 5 && std::strcmp(argv[3], "kill-at-save") == 0) {
    saves_left = std::atoi(argv[4]);
    burn::record::detail::set_save_hook(&kill_at_save);
    r.epochs = 4;
  }
  learner_fixture::run(r);
  return 0;
}
