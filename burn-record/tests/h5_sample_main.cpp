// Writes h5_sample() with the hdf5 recorder to argv[1] (for make_fixtures.py).
#include <iostream>

#include "burn/record/recorder.hpp"
#include "h5_sample.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: burn-record-h5-sample OUT.h5\n";
    return 2;
  }
  burn::record::save(argv[1], burn::record::test::h5_sample(), {.recorder = "hdf5"});
  return 0;
}
