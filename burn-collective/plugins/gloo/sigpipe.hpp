// Gloo writes to its sockets with writev, which raises SIGPIPE when a peer has gone: by default that
// kills the process before the error can be reported. SIGPIPE is blocked in the thread that runs Gloo
// (and so in the I/O thread Gloo starts from it) and any pending one is discarded before the mask is
// restored; the process's own SIGPIPE handling is left alone. Private to the gloo plugin.
#pragma once

#include <signal.h>
#include <time.h>

namespace burn::collective::gloo_engine {

class SigpipeBlocked {
 public:
  SigpipeBlocked() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeBlocked() {
    if (!sigismember(&old_, SIGPIPE)) {
      const timespec now{0, 0};
      while (sigtimedwait(&pipe_, nullptr, &now) > 0) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;

 private:
  sigset_t pipe_{};
  sigset_t old_{};
};

}  // namespace burn::collective::gloo_engine
