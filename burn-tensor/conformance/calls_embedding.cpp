// burn-conformance: the calls of the embedding module ops.
#include "burn/tensor/module.hpp"
#include "call_helpers.hpp"

namespace burn::conformance {

void add_embedding_calls(CallTable& t) {
  t["embedding"] = [](const Device&, Hs& in, const json&) {
    return one(api::embedding(std::move(in.at(0)), in.at(1)));
  };
  t["embedding_backward"] = [](const Device&, Hs& in, const json&) {
    return one(api::embedding_backward(std::move(in.at(0)), in.at(1), in.at(2)));
  };
}

}  // namespace burn::conformance
