// Writes the Rust Burn fixtures (burn_sample.hpp) into the folder argv[1], for check_with_numpy.py.
#include <iostream>

#include "burn_sample.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: burn-record-burn-sample OUT_DIR\n";
    return 2;
  }
  burn::record::test::write_burn_samples(argv[1]);
  return 0;
}
