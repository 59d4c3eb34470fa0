// Running a program the way a user does, for the robustness suite: a new process with extra
// environment variables, its stdout and stderr together, killed when it runs past a time limit or
// (kill_when_exists) as soon as a file appears.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

extern char** environ;

namespace robustness {

struct ProcessResult {
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  bool timed_out = false;
  std::string output;  // stdout and stderr, interleaved as written
  bool ok() const { return signal == 0 && exit_code == 0; }
};

struct ProcessOptions {
  std::vector<std::pair<std::string, std::string>> env;  // set (or replaced) in the child
  std::chrono::milliseconds timeout{60000};              // then SIGKILL, and timed_out
  std::string kill_when_exists;                          // SIGKILL as soon as this path exists
};

inline ProcessResult run_process(const std::vector<std::string>& args, const ProcessOptions& options = {}) {
  namespace fs = std::filesystem;
  const fs::path out_file =
      fs::temp_directory_path() / ("burn-robustness-out-" + std::to_string(::getpid()) + "-" +
                                   std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    bool replaced = false;
    for (const auto& [k, v] : options.env) replaced = replaced || kv.rfind(k + "=", 0) == 0;
    if (!replaced) env_strings.push_back(kv);
  }
  for (const auto& [k, v] : options.env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args_copy = args;
  for (auto& a : args_copy) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  pid_t pid = 0;
  ProcessResult r;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    r.output = "cannot start " + args[0] + ": " + std::strerror(rc);
    return r;
  }
  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    std::error_code ec;
    const bool trigger = !options.kill_when_exists.empty() && fs::exists(options.kill_when_exists, ec);
    if (trigger || std::chrono::steady_clock::now() > deadline) {
      r.timed_out = !trigger;
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  std::ifstream in(out_file);
  std::stringstream text;
  text << in.rdbuf();
  r.output = text.str();
  std::error_code ec;
  fs::remove(out_file, ec);
  return r;
}

}  // namespace robustness
