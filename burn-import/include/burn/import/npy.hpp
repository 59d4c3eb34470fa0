// NumPy's .npy files (format versions 1 to 3): what `burn run-onnx` reads its inputs from and writes
// its outputs to. Dtypes: <f8 <f4 <f2 <i8 <i4 <i2 (read as i32) |i1 |u1 |b1, little or big endian;
// C or Fortran order (Fortran data is reordered to C on reading).
#pragma once

#include <string>

#include "burn/import/export.hpp"
#include "burn/tensor/data.hpp"

namespace burn::import {

// Reads and validates a .npy file (magic, version, header, dtype, shape against the file's length)
// before allocating; RecordError naming the file and the problem, Unsupported for object or
// structured arrays and dtypes burn has not.
BURN_IMPORT_API TensorData read_npy(const std::string& path);
// Writes a .npy file (version 1, C order, little endian), atomically. bf16 has no NumPy dtype: it is
// written as f32.
BURN_IMPORT_API void write_npy(const std::string& path, const TensorData& data);

}  // namespace burn::import
