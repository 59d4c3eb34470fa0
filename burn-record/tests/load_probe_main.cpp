// burn-record-load-probe FILE...: loads each file (recorder by extension) and prints one line per
// file, "ok" or the error, then the number of HDF5 objects still open, and exits normally, so that
// whatever a library prints on stderr while loading or at exit (libhdf5's shutdown) is seen by
// corruption_test.cpp.
#include <hdf5.h>

#include <exception>
#include <iostream>

#include "burn/record/recorder.hpp"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    try {
      burn::record::load(argv[i]);
      std::cout << "ok\n";
    } catch (const burn::Error& e) {
      std::cout << e.what() << "\n";
    } catch (const std::exception& e) {
      std::cout << "not a burn::Error: " << e.what() << "\n";
    }
  }
  // Files, groups, datasets, datatypes and attributes the recorder left open, in every file.
  std::cout << "open HDF5 objects: " << H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) << "\n";
  return 0;
}
