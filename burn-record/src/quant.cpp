// QTensors as record groups (burn/record/quant.hpp): the writer reads the parts back to the host; the reader makes
// the QTensor on a device once quant_check.cpp has checked the entry.
#include "burn/record/quant.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "burn/tensor/api.hpp"
#include "burn/tensor/error.hpp"
#include "quant_layout.hpp"

namespace burn::record {

using namespace quant_layout;

Record quantized_record(const QTensor& q) {
  if (q.empty()) throw RecordError("quantized_record", "the QTensor is empty");
  const QuantScheme& s = q.scheme();
  const auto scale_code =
      static_cast<int64_t>(std::find(kScaleDTypes.begin(), kScaleDTypes.end(), s.scale_dtype) - kScaleDTypes.begin());
  std::vector<int64_t> head{kQuantRecordVersion,
                            static_cast<int64_t>(s.value),
                            static_cast<int64_t>(s.mode),
                            static_cast<int64_t>(s.level),
                            s.axis,
                            s.block_size,
                            scale_code};
  head.insert(head.end(), q.shape().begin(), q.shape().end());
  Record g;
  const auto n = static_cast<int64_t>(head.size());
  g.set(kQuantSchemeEntry, TensorData::from_vector<int64_t>(head, Shape{n}));
  g.set("values", api::into_data(q.values()));
  g.set("scales", api::into_data(q.scales()));
  if (q.zero_points()) g.set("zero_points", api::into_data(*q.zero_points()));
  return g;
}

QTensor read_quantized(const Value& v, std::string_view path, const Device& device, const char* op) {
  const QuantizedEntry e = check_quantized(v, path, op);
  const Record& g = v.group();
  const TensorData& scales = g.at("scales").tensor();
  std::optional<TensorHandle> zp;
  if (const Value* z = g.find("zero_points")) zp = api::from_data(device, z->tensor(), Kind::Int);
  return QTensor(
      api::from_data(device, g.at("values").tensor(), Kind::Int),
      api::from_data(device, scales.dtype() == e.scheme.scale_dtype ? scales : scales.convert(e.scheme.scale_dtype),
                     Kind::Float),
      std::move(zp), e.scheme, e.shape);
}

}  // namespace burn::record
