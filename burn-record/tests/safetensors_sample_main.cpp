// Writes the safetensors fixture (safetensors_sample.hpp) to argv[1], for check_with_numpy.py.
#include <iostream>

#include "safetensors_sample.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: burn-record-safetensors-sample OUT.safetensors\n";
    return 2;
  }
  burn::record::test::write_safetensors_sample(argv[1]);
  return 0;
}
