// Reader of Rust Burn's NamedMpk records (.mpk, and .mpk.gz compressed with gzip): MessagePack with
// named fields, {metadata: {float, int, format, version, settings}, item: <the module's record>}.
#pragma once

#include <memory>
#include <string>

#include "burn/record/recorder.hpp"

namespace burn::import::burn_format {

// Opens and validates `path` (gzip when it starts with the gzip magic); RecordError naming the file,
// the entry and the problem.
std::unique_ptr<record::RecordReader> open_mpk(const std::string& path);
// Opens a burnpack file (.bpk: Burn's burn-store format, CBOR metadata and aligned tensor data).
std::unique_ptr<record::RecordReader> open_bpk(const std::string& path);

}  // namespace burn::import::burn_format
