// Rust Burn's record files, read and written: NamedMpk (.mpk, and .mpk.gz compressed with gzip):
// MessagePack with named fields, {metadata: {float, int, format, version, settings}, item: <the
// module's record>}; burnpack (.bpk, burn-store's format): a 10-byte header, CBOR metadata and
// 256-byte-aligned tensor data. One reader and one writer per format, shared by the `namedmpk`,
// `namedmpkgz` and `burnpack` recorders (burn-record) and the `burn` importer (burn-import).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "burn/record/recorder.hpp"

namespace burn::record::burn_format {

// Burnpack's layout, written and read: "BURN" magic, a 10-byte header, tensor data at multiples of 256
// bytes, at most 100 MiB of CBOR metadata.
inline constexpr uint32_t kBurnpackMagic = 0x4255524E;
inline constexpr uint64_t kBurnpackHeaderSize = 10;
inline constexpr uint64_t kBurnpackAlignment = 256;
inline constexpr uint64_t kBurnpackMaxMetadata = 100u << 20;

// Opens and validates `path` (gzip when it starts with the gzip magic); RecordError(op) naming the
// file, the entry and the problem.
std::unique_ptr<RecordReader> open_mpk(const std::string& path, const std::string& op = "namedmpk");
// Opens a burnpack file (.bpk).
std::unique_ptr<RecordReader> open_bpk(const std::string& path, const std::string& op = "burnpack");

// Writes `record` as a NamedMpk file (gzip-compressed when `gzip`; level -1: zlib's default). Each
// tensor becomes a Param {id, param: {bytes, shape, dtype}} whose id is the record's
// `_param_ids.<path>` or else param_id_for(path); metadata as described in burn-record/README.md.
// RecordError naming the entry for what the format cannot hold.
void write_mpk(const std::string& path, const Record& record, const Metadata& metadata, bool gzip, int level);
// Writes `record` as a burnpack file: its tensors (sorted by name, each at a multiple of 256 in the data
// section) with their param ids, metadata as string pairs. RecordError naming the entry for a value
// that is not a tensor (burnpack holds only tensors).
void write_bpk(const std::string& path, const Record& record, const Metadata& metadata);

// The ParamId given to a tensor that has no `_param_ids` entry: the 64-bit FNV-1a hash of its dotted
// path (stable across runs and machines). ParamIds are u64 (Burn's and burn-nn's); a record's
// `_param_ids` Int entry holds the u64's bits, so a negative Int is an id of 2^63 or more.
uint64_t param_id_for(std::string_view path);

// Metadata keys that carry burn-record's own fields (the other keys are Metadata::extra); the readers
// map them back.
inline constexpr const char* kFormatVersionKey = "burn.format_version";
inline constexpr const char* kBurnVersionKey = "burn.burn_version";
inline constexpr const char* kProducerKey = "burn.producer";
inline constexpr const char* kDTypePolicyKey = "burn.dtype_policy";
// Stores one metadata pair read from a file: burn's fields by the keys above, anything else in extra.
void take_metadata(Metadata& m, std::string key, std::string value);

// burn-nn's kParamIdsGroup (burn-record cannot depend on burn-nn).
inline constexpr const char* kParamIds = "_param_ids";

}  // namespace burn::record::burn_format
