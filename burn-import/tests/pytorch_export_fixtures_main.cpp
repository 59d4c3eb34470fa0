// Writes the .pt export fixtures (pytorch_export_fixtures.hpp) into argv[1], for check_pytorch_export.py.
#include <iostream>

#include "pytorch_export_fixtures.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: burn-import-pytorch-export-fixtures DIR\n";
    return 2;
  }
  burn::import::test::write_export_fixtures(argv[1]);
  return 0;
}
