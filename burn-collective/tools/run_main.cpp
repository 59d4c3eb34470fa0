// `burn run`: starts the ranks of a job on this machine with torchrun's environment (RANK,
// LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE) and a fresh rendezvous (BURN_RENDEZVOUS, BURN_RUN_ID),
// forwards SIGINT/SIGTERM/SIGHUP to every rank, stops them all when one fails and exits with its code.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "burn/collective/launcher.hpp"

namespace po = boost::program_options;

namespace {

constexpr int kUsageError = 2;
const char* kUsage = "usage: burn run [--nproc-per-node N] [options] [--] PROGRAM [ARGS...]\n";

// Options end at "--" or at the first word that is not an option or an option's value: the rest is
// the program and its arguments, passed on unchanged.
size_t program_start(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") return i;
    if (a.empty() || a[0] != '-') return i;
    if (a == "-h" || a == "--help" || a.find('=') != std::string::npos) continue;
    ++i;  // every other option takes a value
  }
  return args.size();
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts("burn run options");
  opts.add_options()("help,h", "show this help")("nproc-per-node", po::value<int>()->default_value(1),
                                                 "ranks to start on this machine")(
      "nnodes", po::value<int>()->default_value(1), "machines in the job (one `burn run` on each)")(
      "node-rank", po::value<int>()->default_value(0), "this machine's index in [0, nnodes)")(
      "rendezvous", po::value<std::string>()->default_value(""),
      "where the ranks meet, file:///dir or redis://host[:port] (default: a fresh directory under $TMPDIR, "
      "removed at the end; several machines: a directory they share, or a Redis server they reach)")(
      "run-id", po::value<std::string>()->default_value(""),
      "the job's name in the rendezvous, the same on every machine (default: a random one)")(
      "timeout", po::value<double>()->default_value(0),
      "seconds the whole job may run, then it is stopped (0: no limit)")(
      "grace", po::value<double>()->default_value(5), "seconds a rank asked to stop has before it is killed")(
      "log-dir", po::value<std::string>()->default_value(""),
      "write each rank's stdout and stderr to DIR/rank-<r>.log instead of the terminal");

  const std::vector<std::string> args(argv + 1, argv + argc);
  const size_t start = program_start(args);
  std::vector<std::string> command(args.begin() + static_cast<std::ptrdiff_t>(start), args.end());
  if (!command.empty() && command.front() == "--") command.erase(command.begin());
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(
                  std::vector<std::string>(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(start)))
                  .options(opts)
                  .run(),
              vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << kUsage << "\n"
                << "Every rank gets RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, BURN_RENDEZVOUS and\n"
                << "BURN_RUN_ID"
                << " (docs/environment.md); burn::collective::Communicator::from_environment() reads them.\n\n"
                << opts;
      return 0;
    }
    if (command.empty()) {
      std::cerr << "burn run: no program given\n" << kUsage;
      return kUsageError;
    }
    for (const char* name : {"timeout", "grace"}) {
      const double v = vm[name].as<double>();
      if (!(v >= 0 && v < 1e9)) {
        std::cerr << "burn run: --" << name << " " << v << ": expected a number of seconds, at least 0\n" << kUsage;
        return kUsageError;
      }
    }
    burn::collective::LaunchOptions o;
    o.command = command;
    o.nproc = vm["nproc-per-node"].as<int>();
    o.nnodes = vm["nnodes"].as<int>();
    o.node_rank = vm["node-rank"].as<int>();
    o.rendezvous = vm["rendezvous"].as<std::string>();
    o.run_id = vm["run-id"].as<std::string>();
    o.timeout = std::chrono::milliseconds(static_cast<long long>(vm["timeout"].as<double>() * 1000));
    o.grace = std::chrono::milliseconds(static_cast<long long>(vm["grace"].as<double>() * 1000));
    o.output_dir = vm["log-dir"].as<std::string>();
    const burn::collective::LaunchResult r = burn::collective::launch(o);
    if (r.exit_code != 0) std::cerr << "burn run: " << r.summary << "\n";
    return r.exit_code;
  } catch (const po::error& e) {
    std::cerr << "burn run: " << e.what() << "\n" << kUsage;
    return kUsageError;
  } catch (const std::exception& e) {
    std::cerr << "burn run: " << e.what() << "\n";
    return 1;
  }
}
