// The `burn` command-line tool: version, plugin discovery report and the available devices; other
// commands (inspect, convert, run-onnx, export-onnx) are executables of other components it finds and runs.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "burn/tensor/device.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/plugin.hpp"
#include "burn/tensor/version.hpp"

namespace po = boost::program_options;

namespace {

constexpr int kUsageError = 2;

const char* kUsage =
    "usage: burn [--help] [--version] <command> [<args>]\n"
    "\n"
    "commands:\n"
    "  plugins [--load PATH]...  find plugins and list what was loaded, selected and rejected, and why\n"
    "  devices                   list backends and decorators, the names device specs like autodiff<cpu> nest\n"
    "  <command> [<args>]        runs <libexec>/burn/burn-<command> (other components' commands, listed below)\n"
    "\n"
    "environment:\n"
    "  BURN_PLUGIN_PATH     ':'-separated plugin files or folders, searched first\n"
    "  BURN_PLUGIN_DISABLE  ','-separated plugin names to skip, e.g. vulkan,opencl\n"
    "  BURN_DEVICE          the default device spec (default: cpu)\n"
    "  BURN_LOG             log level: trace, debug, info, warn (default), error, off\n";

void print_version() {
  std::cout << "burn-tensor " << BURN_TENSOR_VERSION << "\n"
            << "plugin ABI " << BURN_PLUGIN_ABI_VERSION << "\n"
            << "toolchain " << BURN_TOOLCHAIN_TAG << "\n";
}

std::string status_of(const burn::plugins::PluginRecord& r) {
  if (r.selected) return "selected";
  return r.loaded ? "loaded" : "rejected";
}

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

void print_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()), 0);
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 2, ' ');
    }
    std::cout << line << "\n";
  }
}

int cmd_plugins(const std::vector<std::string>& args) {
  po::options_description opts("burn plugins options");
  opts.add_options()("help,h", "show this help")("load", po::value<std::vector<std::string>>()->composing(),
                                                 "load this plugin file before discovery (repeatable)");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << "usage: burn plugins [--load PATH]...\n\n" << opts;
    return 0;
  }

  // The table below shows every rejection and its reason; the same warnings on stderr are noise.
  setenv("BURN_LOG", "error", /*overwrite=*/0);
  int rc = 0;
  if (vm.count("load")) {
    for (const auto& path : vm["load"].as<std::vector<std::string>>()) {
      try {
        burn::plugins::load(path);
      } catch (const burn::Error& e) {
        std::cerr << "burn: " << e.what() << "\n";
        rc = 1;
      }
    }
  }
  burn::plugins::discover();

  const auto records = burn::plugins::report();
  if (records.empty()) {
    std::cout << "no plugins found\n";
  } else {
    std::vector<std::vector<std::string>> rows{{"STATUS", "NAME", "KIND", "VERSION", "SCORE", "PATH"}};
    for (const auto& r : records) {
      rows.push_back({status_of(r), or_dash(r.name), or_dash(r.kind), or_dash(r.version),
                      r.loaded ? std::to_string(r.score) : "-", r.path});
    }
    print_table(rows);
    bool any_reason = false;
    for (const auto& r : records) {
      if (r.reason.empty()) continue;
      if (!any_reason) std::cout << "\nreasons:\n";
      any_reason = true;
      std::cout << "  " << r.path << "\n    " << status_of(r) << ": " << r.reason << "\n";
    }
  }

  std::cout << "\nsearch paths, in order:\n";
  for (const auto& p : burn::plugins::search_paths()) {
    std::error_code ec;
    std::cout << "  " << p << (std::filesystem::exists(p, ec) ? "" : "  (missing)") << "\n";
  }
  return rc;
}

int cmd_devices(const std::vector<std::string>& args) {
  if (!args.empty()) {
    if (args.front() == "--help" || args.front() == "-h") {
      std::cout << "usage: burn devices\n\nlists the backend plugins found and the decorators of every built "
                   "component; a device spec nests them, e.g. autodiff<trace<cpu>>\n";
      return 0;
    }
    std::cerr << "burn devices: unexpected argument '" << args.front() << "'\n";
    return kUsageError;
  }
  const auto backends = burn::plugins::backend_names();
  std::cout << "backends (the innermost name of a spec):\n";
  if (backends.empty()) std::cout << "  (none found; run `burn plugins` to see why)\n";
  for (const auto& b : backends) {
    std::cout << "  " << b << "\n";
    // A backend of several devices (vulkan, opencl) lists them; `<name>:<index>` picks one.
    try {
      const burn::Device dev = burn::Device::get(b);
      if (auto* sel =
              static_cast<burn::DeviceSelector*>(dev.backend()->query_interface(burn::kDeviceSelectorInterface)))
        for (const auto& line : sel->list()) std::cout << "    " << line << "\n";
    } catch (const std::exception& e) {
      std::cout << "    (cannot open: " << e.what() << ")\n";
    }
  }
  // This tool links every decorator component that was built (see the top-level CMakeLists.txt),
  // so the list is what a program linking all of them has.
  const auto decorators = burn::registered_decorators();
  std::cout << "\ndecorators (each wraps a backend or another decorator; B below is any spec):\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& d : decorators) rows.push_back({"  " + d + "<B>", or_dash(burn::decorator_summary(d))});
  print_table(rows);
  if (!decorators.empty()) {
    const std::string leaf = backends.empty() ? "cpu" : backends.front();
    std::cout << "e.g. " << decorators.front() << "<" << leaf << ">";
    if (decorators.size() > 1)
      std::cout << ", " << decorators.front() << "<" << decorators.back() << "<" << leaf << ">>";
    std::cout << "\n";
  }
  // Decorators over an address instead of a backend (remote<tcp://HOST:PORT>).
  const auto address_decorators = burn::registered_address_decorators();
  if (!address_decorators.empty()) {
    std::cout << "\ndecorators over an address (the other end runs the ops):\n";
    rows.clear();
    for (const auto& d : address_decorators)
      rows.push_back({"  " + d + "<tcp://HOST:PORT>", or_dash(burn::decorator_summary(d))});
    print_table(rows);
  }
  const char* env = std::getenv("BURN_DEVICE");
  std::cout << "\ndefault device: " << (env && *env ? env : "cpu") << (env && *env ? " (from BURN_DEVICE)" : "")
            << "\n";
  return 0;
}

// Other components install their commands as <prefix>/libexec/burn/burn-<name> (git-style), so this
// tool of burn-tensor runs burn-import's commands without linking burn-import. The build tree mirrors it.
std::filesystem::path external_command_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return exe.parent_path().parent_path() / "libexec" / "burn";
}

// Names of the external commands found, sorted.
std::vector<std::string> external_commands() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(external_command_dir(), ec)) {
    const std::string file = e.path().filename().string();
    if (file.rfind("burn-", 0) == 0 && ::access(e.path().c_str(), X_OK) == 0) names.push_back(file.substr(5));
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool is_command_name(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

// Replaces this process with the external command, given the arguments after the command exactly as
// typed (so its own option parser sees them unchanged). Returns only when there is no such command.
int run_external(const std::string& command, int argc, char** argv) {
  if (!is_command_name(command)) return -1;
  const auto path = external_command_dir() / ("burn-" + command);
  if (::access(path.c_str(), X_OK) != 0) return -1;
  int first = 1;
  while (first < argc && argv[first] != command) ++first;
  std::vector<char*> args{const_cast<char*>(path.c_str())};
  // `burn --help convert` asks the command for its help.
  static char help[] = "--help";
  for (int i = 1; i < first; ++i) {
    if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) args.push_back(help);
  }
  for (int i = first + 1; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  ::execv(path.c_str(), args.data());
  std::cerr << "burn: cannot run " << path << ": " << std::strerror(errno) << "\n";
  return 1;
}

void print_help(const po::options_description& global) {
  std::cout << kUsage;
  const auto external = external_commands();
  if (!external.empty()) {
    std::cout << "\nmore commands (" << external_command_dir().string() << "):\n";
    for (const auto& c : external) std::cout << "  " << c << "\n";
  }
  std::cout << "\n" << global;
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description global("options");
  global.add_options()("help,h", "show this help")("version,V", "print versions and the toolchain tag");
  po::options_description hidden;
  hidden.add_options()("command", po::value<std::string>())("args", po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(global).add(hidden);
  po::positional_options_description positional;
  positional.add("command", 1).add("args", -1);

  try {
    po::variables_map vm;
    // allow_unregistered + collect_unrecognized hands a command's own options to that command.
    po::parsed_options parsed =
        po::command_line_parser(argc, argv).options(all).positional(positional).allow_unregistered().run();
    po::store(parsed, vm);
    po::notify(vm);

    if (!vm.count("command")) {
      const auto extra = po::collect_unrecognized(parsed.options, po::include_positional);
      if (!extra.empty()) {
        std::cerr << "burn: unknown option '" << extra.front() << "'\n" << kUsage;
        return kUsageError;
      }
      if (vm.count("version")) {
        print_version();
        return 0;
      }
      if (!vm.count("help")) {
        std::cerr << "burn: no command given\n" << kUsage;
        return kUsageError;
      }
      print_help(global);
      return 0;
    }

    const std::string command = vm["command"].as<std::string>();
    std::vector<std::string> args = po::collect_unrecognized(parsed.options, po::include_positional);
    args.erase(std::find(args.begin(), args.end(), command));  // the command itself
    // A global --help or --version after the command applies to the command.
    if (vm.count("help")) args.insert(args.begin(), "--help");

    if (command == "plugins") return cmd_plugins(args);
    if (command == "devices") return cmd_devices(args);
    if (command == "help") {
      print_help(global);
      return 0;
    }
    if (command == "version") {
      print_version();
      return 0;
    }
    if (const int rc = run_external(command, argc, argv); rc >= 0) return rc;
    std::string known = "plugins, devices";
    for (const auto& c : external_commands()) known += ", " + c;
    std::cerr << "burn: unknown command '" << command << "'; commands: " << known << " (see `burn --help`)\n";
    return kUsageError;
  } catch (const po::error& e) {
    std::cerr << "burn: " << e.what() << "\n" << kUsage;
    return kUsageError;
  } catch (const std::exception& e) {
    std::cerr << "burn: " << e.what() << "\n";
    return 1;
  }
}
