// The record behind the committed safetensors fixture (fixtures/safetensors/sample.safetensors), which
// fixtures/safetensors/check_with_numpy.py reads with a NumPy reader written from the specification.
#pragma once

#include "burn/record/recorder.hpp"
#include "sample_record.hpp"

namespace burn::record::test {

// sample_record() with fixed metadata (no burn version), so the file's bytes change only with the writer.
inline Metadata safetensors_sample_metadata() {
  Metadata m = sample_record().metadata();
  m.burn_version = "fixture";
  m.set("format", "pt");  // what Hugging Face's transformers expects of a PyTorch checkpoint
  return m;
}

// Writes the fixture with the recorder's write() (no save(): no temporary file, no version).
inline void write_safetensors_sample(const std::string& path) {
  recorder("safetensors")->write(path, sample_record(), safetensors_sample_metadata(), {});
}

}  // namespace burn::record::test
