// Valid client batches, written with the protocol's own writer: the seeds of the fuzz driver and the
// starting point of the decoder tests, which then break them one field at a time.
#pragma once

#include <vector>

#include "protocol.hpp"

namespace burn::remote::samples {

// A batch body (after the frame's length): the records `fill` writes, counted.
template <typename Fill>
std::vector<uint8_t> batch(Fill fill) {
  Writer w;
  w.u8(static_cast<uint8_t>(Frame::Batch));
  w.u32(0);
  uint32_t n = fill(w);
  w.patch_u32(1, n);
  return w.bytes();
}

// op from_data(data) -> handle `out`, no prediction, reply with metas to `request` (0: none).
inline void from_data(Writer& w, uint64_t out, uint64_t request, const TensorData& data) {
  const size_t rec = begin_record(w, Record::Op);
  w.u16(static_cast<uint16_t>(OpId::from_data));
  w.u64(out);
  w.u64(request);
  w.u32(0);
  put(w, data);
  end_record(w, rec);
}

inline void binary(Writer& w, OpId op, uint64_t out, uint64_t request, uint64_t lhs, uint64_t rhs) {
  const size_t rec = begin_record(w, Record::Op);
  w.u16(static_cast<uint16_t>(op));
  w.u64(out);
  w.u64(request);
  w.u32(0);
  w.u64(lhs);
  w.u64(rhs);
  end_record(w, rec);
}

inline void read(Writer& w, uint64_t request, uint64_t handle) {
  const size_t rec = begin_record(w, Record::Read);
  w.u64(request);
  w.u64(handle);
  end_record(w, rec);
}

inline void sync(Writer& w, uint64_t request) {
  const size_t rec = begin_record(w, Record::Sync);
  w.u64(request);
  end_record(w, rec);
}

inline void free_handle(Writer& w, uint64_t handle) {
  const size_t rec = begin_record(w, Record::Free);
  w.u64(handle);
  end_record(w, rec);
}

// from_data twice, add, matmul, read, free, sync: the shape of a client's first batch.
inline std::vector<uint8_t> typical() {
  return batch([](Writer& w) {
    const auto a = TensorData::from_vector<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
    const auto b = TensorData::from_vector<float>({1, 0, 0, 1, 1, 1}, Shape{3, 2});
    from_data(w, 1, 0, a);
    from_data(w, 2, 0, b);
    binary(w, OpId::matmul, 3, 7, 1, 2);
    binary(w, OpId::add, 4, 0, 1, 1);
    read(w, 8, 3);
    free_handle(w, 4);
    sync(w, 9);
    return 7u;
  });
}

}  // namespace burn::remote::samples
