// A record exercising every entry kind and every dtype, shared by the recorder suites.
#pragma once

#include <cmath>
#include <limits>
#include <string>

#include "burn/record/record.hpp"

namespace burn::record::test {

// Every dtype with values that catch byte-order, sign, rounding and special-value mistakes.
inline Record sample_record() {
  Record r;
  const float inf = std::numeric_limits<float>::infinity();
  r.set("blocks.0.attn.q.weight",
        TensorData::from_vector<float>({1.5f, -2.25f, 0.1f, -0.0f, inf, -inf, 3.4028235e38f, 1e-45f}, {2, 4}));
  r.set("blocks.0.attn.q.bias", TensorData::from_vector<double>({0.1, -1e300, 5e-324, 2.0 / 3.0}, {4}));
  r.set("blocks.0.norm.gamma",
        TensorData::from_vector<f16>({{0x3c00}, {0xc000}, {0x7bff}, {0x0001}, {0x8000}, {0x7c00}}, {3, 2}));
  r.set("blocks.0.norm.beta", TensorData::from_vector<bf16>({{0x3f80}, {0xc040}, {0x7f7f}, {0x0001}}, {2, 2}));
  r.set("blocks.1.count",
        TensorData::from_vector<int64_t>(
            {std::numeric_limits<int64_t>::min(), -1, 0, std::numeric_limits<int64_t>::max(), 9007199254740993}, {5}));
  r.set("blocks.1.index", TensorData::from_vector<int32_t>({-2147483647 - 1, 7, 2147483647}, {1, 3}));
  r.set("blocks.1.small", TensorData::from_vector<int8_t>({-128, -1, 0, 127}, {2, 1, 2}));
  r.set("blocks.1.bytes", TensorData::from_vector<uint8_t>({0, 1, 128, 255}, {4}));
  r.set("blocks.1.mask", TensorData::from_vector<bool>({true, false, false, true, true}, {5}));
  r.set("blocks.1.empty", TensorData(Shape{0, 3}, DType::F32));
  r.set("optim.step", Value(int64_t{1234567890123}));
  r.set("optim.lr", Value(3e-4));
  r.set("optim.nesterov", Value(true));
  r.set("optim.name", Value(std::string("adam \"w\"\n\ttab é ✓")));
  r.set("empty_group", Value());
  r.set("scheduler.warmup", Value(false));
  r.metadata().producer = "burn-record tests";
  r.metadata().set("epoch", "3");
  r.metadata().set("note", "free text: ünïcode");
  return r;
}

// "" when the entries are equal (kinds, names, order, tensors bit for bit), else the first
// difference by path, for readable test failures.
inline std::string first_difference(const Record& a, const Record& b) {
  const auto fa = a.flatten(), fb = b.flatten();
  for (size_t i = 0; i < std::min(fa.size(), fb.size()); ++i) {
    if (fa[i].path != fb[i].path)
      return "entry " + std::to_string(i) + ": '" + fa[i].path + "' vs '" + fb[i].path + "'";
    const Value& x = *fa[i].value;
    const Value& y = *fb[i].value;
    if (x.kind() != y.kind()) return fa[i].path + ": kind differs";
    if (x.kind() == EntryKind::Group) continue;
    if (x == y) continue;
    if (x.kind() == EntryKind::Tensor) {
      const TensorData& s = x.tensor();
      const TensorData& t = y.tensor();
      if (s.dtype() != t.dtype())
        return fa[i].path + ": dtype " + std::string(dtype_name(s.dtype())) + " vs " +
               std::string(dtype_name(t.dtype()));
      if (s.shape() != t.shape())
        return fa[i].path + ": shape " + s.shape().to_string() + " vs " + t.shape().to_string();
      return fa[i].path + ": values " + s.to_string() + " vs " + t.to_string();
    }
    return fa[i].path + ": value differs";
  }
  if (fa.size() != fb.size()) return "entry counts " + std::to_string(fa.size()) + " vs " + std::to_string(fb.size());
  return "";
}

}  // namespace burn::record::test
