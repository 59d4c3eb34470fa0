// What burn_format.cpp shares with the two writers (not part of the plugins' interface).
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "burn_format.hpp"

namespace burn::record::burn_format {

// Metadata key the NamedMpk reader adds for a gzip file; never written.
inline constexpr const char* kCompressionKey = "compression";

// burn's fields under the k*Key names, then the extra pairs; RecordError for an extra key burn reserves.
std::vector<std::pair<std::string, std::string>> metadata_pairs(const Metadata& m, const std::string& file,
                                                                const char* op);
// Rust Burn's DType variant name ("F32", "BF16", "Bool", ...).
const char* burn_dtype_name(DType d);

// The record's tensors in record order with the ParamId each gets, and the `_param_ids` entries.
struct Contents {
  struct Tensor {
    std::string path;
    const TensorData* data;
    uint64_t id;
    bool id_from_record;
  };
  std::vector<Tensor> tensors;
  std::map<std::string, int64_t> ids;  // `_param_ids.<path>` Int entries, by <path>
  std::set<std::string> consumed;      // the ids that went into a tensor's Param
};
Contents collect(const Record& record, const std::string& file, const char* op);

// Reads `back` (the file just written) and checks every tensor's name, dtype, shape, bytes and param
// id, and (with_values) every other leaf; RecordError naming the entry otherwise.
void verify_written(RecordReader& back, const Contents& c, const Record& record, bool with_values,
                    const std::string& file, const char* op);

}  // namespace burn::record::burn_format
