// Writing an exported model: atomically through burn-record's AtomicFile, then read back and checked
// by ONNX's own checker and strict shape inference (Debian's libonnx), so a file that ONNX Runtime or
// onnx.checker would refuse is never left behind as a success.
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <fstream>
#include <sstream>
#include <unordered_set>

#include "burn/import/onnx_export.hpp"
#include "burn/record/file.hpp"

namespace burn::import {

namespace {

// What the checker leaves to the runtime: every node input is defined before it is read, and every
// initializer holds exactly its shape's bytes.
void check_graph(const ::onnx::GraphProto& g, const std::string& path) {
  std::unordered_set<std::string> defined{""};
  for (const auto& i : g.input()) defined.insert(i.name());
  for (const auto& t : g.initializer()) {
    int64_t n = 1;
    for (int64_t d : t.dims()) n *= d;
    const size_t width =
        t.data_type() == ::onnx::TensorProto::DOUBLE || t.data_type() == ::onnx::TensorProto::INT64       ? 8
        : t.data_type() == ::onnx::TensorProto::FLOAT || t.data_type() == ::onnx::TensorProto::INT32      ? 4
        : t.data_type() == ::onnx::TensorProto::FLOAT16 || t.data_type() == ::onnx::TensorProto::BFLOAT16 ? 2
                                                                                                          : 1;
    if (t.raw_data().size() != static_cast<size_t>(n) * width)
      throw record::record_error("export-onnx", path, t.name(),
                                 "initializer holds " + std::to_string(t.raw_data().size()) + " bytes, its shape " +
                                     std::to_string(n * static_cast<int64_t>(width)));
    defined.insert(t.name());
  }
  for (const auto& n : g.node()) {
    for (const auto& i : n.input())
      if (!defined.count(i))
        throw record::record_error("export-onnx", path, n.name(), "reads '" + i + "', which is not defined before it");
    for (const auto& o : n.output()) defined.insert(o);
  }
  for (const auto& o : g.output())
    if (!defined.count(o.name()))
      throw record::record_error("export-onnx", path, o.name(), "graph output is not defined");
}

// libonnx knows the schemas of its own release only (Debian's 1.12: to opset 17): a model of a newer opset
// (GroupNormalization, DeformConv, reductions with axes as an input) gets the structural checks of
// check_graph alone; ONNX Runtime and the project's engine check the rest (tests/gen_onnx_export_fixtures.py).
bool libonnx_knows(const ::onnx::ModelProto& m) {
  const int known = ::onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map().at(::onnx::ONNX_DOMAIN).second;
  for (const auto& o : m.opset_import())
    if ((o.domain().empty() || o.domain() == "ai.onnx") && o.version() > known) return false;
  return true;
}

}  // namespace

// Checks `bytes` before anything is written (a model the checker refuses never lands), writes it
// atomically, then reads the file back and compares.
void write_onnx_file(const std::string& bytes, const std::string& path) {
  auto validate = [&](const std::string& b, const char* what) {
    ::onnx::ModelProto m;
    if (!m.ParseFromString(b))
      throw record::record_error("export-onnx", path, "", std::string(what) + " does not parse as an ONNX model");
    check_graph(m.graph(), path);
    if (!libonnx_knows(m)) return;
    try {
      ::onnx::checker::check_model(m);
      ::onnx::shape_inference::InferShapes(m, ::onnx::OpSchemaRegistry::Instance(),
                                           ::onnx::ShapeInferenceOptions(true, 1, false));
    } catch (const std::exception& e) {
      throw record::record_error("export-onnx", path, "",
                                 std::string(what) + ": the ONNX checker refuses it: " + e.what());
    }
  };
  validate(bytes, "the model");
  {
    record::AtomicFile file(path);
    {
      std::ofstream out(file.path(), std::ios::binary | std::ios::trunc);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      out.flush();
      if (!out) throw record::record_error("export-onnx", file.path(), "", "write failed");
    }
    file.commit();
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream back;
  back << in.rdbuf();
  if (!in || back.str() != bytes)
    throw record::record_error("export-onnx", path, "", "reads back different from what was written");
  validate(back.str(), "the file read back");
}

}  // namespace burn::import
