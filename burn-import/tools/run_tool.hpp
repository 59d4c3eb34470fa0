// The main() of each `burn <command>` executable here: runs the command and turns what it throws into one
// line on stderr and an exit status, 2 for bad arguments (boost::program_options), 1 for anything else.
#pragma once

#include <boost/program_options/errors.hpp>
#include <exception>
#include <iostream>

namespace burn::tools {

// `name` is the command as typed ("burn convert"); `run` parses argv, does the work and returns the status.
inline int run_tool(const char* name, int (*run)(int, char**), int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const boost::program_options::error& e) {
    std::cerr << name << ": " << e.what() << " (see --help)\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << name << ": " << e.what() << "\n";
    return 1;
  }
}

}  // namespace burn::tools
