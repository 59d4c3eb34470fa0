// Writing a record as torch.save writes a state dict (its zip layout): `archive/data.pkl`, a pickle
// of protocol 2 that calls only torch's tensor-rebuild functions (torch._utils._rebuild_tensor_v2,
// collections.OrderedDict, the typed storage classes), each tensor's little-endian storage in
// `archive/data/<n>` (stored, not deflated), `archive/byteorder` and `archive/version`. Used by the
// `pytorch` recorder plugin; read back by the pytorch importer's reader.
#pragma once

#include <string>

#include "burn/record/record.hpp"

namespace burn::import::pytorch {

// Writes `record` to `path` (a new file; burn::record::save makes it atomic) as an OrderedDict of
// its leaves under their dotted paths: tensors, ints, floats, bools and strings, and empty groups
// as empty dicts. RecordError naming the file (and the entry) when libzip fails.
void write_file(const std::string& path, const record::Record& record);

// The pickle alone (data.pkl's bytes), the storages named "0", "1", ... in record order.
std::string state_dict_pickle(const record::Record& record);

}  // namespace burn::import::pytorch
