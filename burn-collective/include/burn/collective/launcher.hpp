// Starting the ranks of a job on this machine with torchrun's conventions (RANK, LOCAL_RANK,
// WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK) and burn's rendezvous (BURN_RENDEZVOUS, BURN_RUN_ID): every rank is
// watched, one that fails stops the others, and nothing is left running. `burn run` is this.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "burn/collective/export.hpp"

namespace burn::collective {

struct LaunchOptions {
  std::vector<std::string> command;  // the program (searched in PATH without a '/') and its arguments
  int nproc = 1;                     // ranks started here
  // A job on several machines: one launcher per machine, each with its node_rank; the ranks here are
  // node_rank * nproc + local rank, of nnodes * nproc. They need a shared rendezvous and one run_id.
  int nnodes = 1;
  int node_rank = 0;
  std::string run_id;  // the job's keys in the rendezvous; empty: a random one (one machine only)
  // Where the ranks meet: empty makes a fresh directory under $TMPDIR (removed at the end).
  std::string rendezvous;
  std::vector<std::pair<std::string, std::string>> env;  // set for every rank, after the launcher's
  std::chrono::milliseconds timeout{0};                  // the whole job; 0: none. Past it every rank is stopped
  std::chrono::milliseconds grace{5000};                 // a rank asked to stop (SIGTERM) is killed after this
  std::string output_dir;       // empty: the ranks share the launcher's stdout/stderr; else rank-<r>.log there
  bool forward_signals = true;  // SIGINT, SIGTERM, SIGHUP sent to the launcher go to every rank
  // false: a failed rank does not stop the others (they run to their own end, or to the timeout); for
  // tests of what the other ranks see when a peer dies.
  bool stop_on_failure = true;
};

struct RankStatus {
  int rank = 0;
  int pid = 0;
  int exit_code = -1;    // when it exited
  int signal = 0;        // when a signal ended it
  bool stopped = false;  // stopped by the launcher (another rank failed, a timeout, a forwarded signal)
};

struct LaunchResult {
  int exit_code = 0;     // 0, the first failed rank's code (128 + signal when a signal ended it), 124 on
                         // timeout, 128 + signal when a forwarded signal ended the job
  int failed_rank = -1;  // the first rank that failed, -1 when none did
  bool timed_out = false;
  std::vector<RankStatus> ranks;
  std::string summary;  // one line: what ended the job
};

// Runs the job to its end. Throws ValueError for bad options and Error when a rank cannot start.
// Each rank gets SIGKILL if the thread that called launch() ends (Linux's parent-death signal), so call
// it from a thread that lives as long as the job; with forward_signals, the other threads of the
// program should block SIGINT, SIGTERM and SIGHUP, which this thread takes.
BURN_COLLECTIVE_API LaunchResult launch(const LaunchOptions& options);

}  // namespace burn::collective
