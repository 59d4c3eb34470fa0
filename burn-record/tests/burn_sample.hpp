// The records behind the committed Rust Burn fixtures (fixtures/burn/sample.mpk, sample.mpk.gz,
// sample.bpk), which fixtures/burn/check_with_numpy.py reads with MessagePack and CBOR readers written
// from their specifications.
#pragma once

#include "burn/record/recorder.hpp"
#include "sample_record.hpp"

namespace burn::record::test {

// sample_record() with one Burn ParamId given (the other tensors get generated ones).
inline Record burn_mpk_sample() {
  Record r = sample_record();
  r.set("_param_ids.blocks.0.attn.q.weight", Value(int64_t{1007}));
  return r;
}
// Only its tensors and that id: burnpack holds nothing else.
inline Record burn_bpk_sample() {
  const Record full = burn_mpk_sample();
  Record r;
  r.metadata() = full.metadata();
  for (const FlatEntry& e : full.flatten()) {
    if (e.value->kind() == EntryKind::Tensor) r.set(e.path, *e.value);
  }
  r.set("_param_ids.blocks.0.attn.q.weight", Value(int64_t{1007}));
  return r;
}
// Fixed metadata (no burn version), so the files' bytes change only with the writers.
inline Metadata burn_sample_metadata() {
  Metadata m = sample_record().metadata();
  m.burn_version = "fixture";
  return m;
}

// Writes the three fixtures into `dir` with the recorders' write() (no save(): no temporary file, no
// version); gzip at level 9.
inline void write_burn_samples(const std::string& dir) {
  recorder("namedmpk")->write(dir + "/sample.mpk", burn_mpk_sample(), burn_sample_metadata(), {});
  recorder("namedmpkgz")
      ->write(dir + "/sample.mpk.gz", burn_mpk_sample(), burn_sample_metadata(), {.compression_level = 9});
  recorder("burnpack")->write(dir + "/sample.bpk", burn_bpk_sample(), burn_sample_metadata(), {});
}

}  // namespace burn::record::test
