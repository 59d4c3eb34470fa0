// An ONNX model's initializers as a lazy record: dotted initializer names become nested groups, as
// module paths do. Needs only protobuf and burn-record (the importer fuzzer compiles it alone).
#include "initializers.hpp"

#include <map>

#include "proto.hpp"

namespace burn::onnx {
namespace {

class OnnxReader final : public record::RecordReader {
 public:
  explicit OnnxReader(std::string path) : path_(std::move(path)) {
    parse_model_file(path_, proto_);
    meta_.producer = "onnx: " + proto_.producer_name() + " " + proto_.producer_version();
    for (const auto& o : proto_.opset_import())
      if (o.domain().empty() || o.domain() == "ai.onnx") meta_.set("onnx_opset", std::to_string(o.version()));
    meta_.set("onnx_ir_version", std::to_string(proto_.ir_version()));
    // A tree of the dotted names in first-appearance order, listed in pre-order.
    struct Node {
      std::vector<std::string> order;
      std::map<std::string, std::unique_ptr<Node>> kids;
      int leaf = -1;
    };
    Node root;
    const auto& inits = proto_.graph().initializer();
    for (int i = 0; i < inits.size(); ++i) {
      const auto& t = inits[i];
      std::string where = "'" + path_ + "' initializer '" + t.name() + "'";
      if (t.name().empty()) throw RecordError("onnx", "'" + path_ + "': an initializer has no name");
      Node* n = &root;
      size_t start = 0;
      while (true) {
        size_t dot = t.name().find('.', start);
        std::string seg = t.name().substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        auto& k = n->kids[seg];
        if (!k) {
          k = std::make_unique<Node>();
          n->order.push_back(seg);
        }
        n = k.get();
        if (dot == std::string::npos) break;
        start = dot + 1;
      }
      if (n->leaf >= 0 || !n->kids.empty())
        throw RecordError("onnx", where + ": the name clashes with another initializer's");
      n->leaf = i;
    }
    auto walk = [&](auto& self, const Node& n, const std::string& prefix) -> void {
      for (const auto& seg : n.order) {
        const Node& k = *n.kids.at(seg);
        std::string p = prefix.empty() ? seg : prefix + "." + seg;
        record::EntryInfo e;
        e.path = p;
        if (k.leaf >= 0) {
          if (!k.kids.empty()) throw RecordError("onnx", "'" + path_ + "': initializer '" + p + "' is also a group");
          const auto& t = inits[k.leaf];
          std::string where = "'" + path_ + "' initializer '" + t.name() + "'";
          e.kind = record::EntryKind::Tensor;
          e.dtype = dtype_from_onnx(t.data_type(), where);
          std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
          e.shape = Shape(dims);
          e.bytes = checked_bytes(e.shape, dtype_size(e.dtype), "onnx");
          leaf_of_.emplace(p, k.leaf);
          entries_.push_back(std::move(e));
        } else {
          e.kind = record::EntryKind::Group;
          entries_.push_back(std::move(e));
          self(self, k, p);
        }
      }
    };
    walk(walk, root, "");
  }

  const std::string& path() const override { return path_; }
  const record::Metadata& metadata() const override { return meta_; }
  const std::vector<record::EntryInfo>& entries() const override { return entries_; }

 protected:
  record::Value read_leaf(const record::EntryInfo& info) override {
    const auto& t = proto_.graph().initializer(leaf_of_.at(info.path));
    return record::Value(tensor_from_proto(t, "'" + path_ + "' initializer '" + t.name() + "'"));
  }

 private:
  std::string path_;
  ::onnx::ModelProto proto_;
  record::Metadata meta_;
  std::vector<record::EntryInfo> entries_;
  std::map<std::string, int> leaf_of_;
};

}  // namespace

std::unique_ptr<record::RecordReader> open_initializers(const std::string& path) {
  return std::make_unique<OnnxReader>(path);
}

}  // namespace burn::onnx
