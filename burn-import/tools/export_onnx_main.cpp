// burn export-onnx MODEL[:WEIGHTS] OUT.onnx [options]: builds a model the command knows by name
// (models::exportable_models()), loads its weights from any importable file, traces one forward call
// on example inputs into an ONNX graph (burn::import::export_onnx_bytes) and writes it atomically,
// then reads it back and validates it (libonnx's checker and strict shape inference).
#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "burn/import/npy.hpp"
#include "burn/tensor/error.hpp"
#include "exportable.hpp"
#include "run_tool.hpp"

namespace po = boost::program_options;
using namespace burn;

namespace {

std::string models_help() {
  std::string s = "\nMODEL is one of:\n";
  for (const auto& m : models::exportable_models()) s += "  " + std::string(m.name) + ": " + m.summary + "\n";
  s += "MODEL:WEIGHTS loads WEIGHTS (any file `burn convert` reads) into it first; without WEIGHTS the model keeps\n"
       "the initial weights of --seed.\n";
  return s;
}

int run(int argc, char** argv) {
  std::string spec, out, save_example, adapter = "none";
  models::ExportSpec s;
  s.load.strict = true;
  po::options_description opts(
      "burn export-onnx MODEL[:WEIGHTS] OUT.onnx [options]\n\n"
      "Exports a model to ONNX by tracing one forward call on example inputs" +
      models_help() + "\nOptions");
  opts.add_options()("help,h", "this help")(
      "opset", po::value<int>(), "ONNX opset of the default domain (13 to 22; default 17, op-sweep-19's 19)")(
      "dynamic-batch", po::bool_switch(&s.onnx.dynamic_batch), "dim 0 of the inputs and outputs is symbolic ('batch')")(
      "batch", po::value(&s.batch)->default_value(s.batch), "batch size of the example inputs")(
      "image-size", po::value(&s.image_size)->default_value(s.image_size), "resnet18's input height and width")(
      "seed", po::value(&s.seed)->default_value(s.seed), "initial weights (without WEIGHTS) and example inputs")(
      "adapter", po::value(&adapter)->default_value(adapter),
      "names and layouts of WEIGHTS: none (burn's) or pytorch (a torchvision/PyTorch state dict)")(
      "random-norms", po::bool_switch(&s.random_norms),
      "draw batch norm statistics and norm affine parameters at random (for testing the exported normalisation)")(
      "save-example", po::value(&save_example),
      "folder: write the example inputs (input_N.npy) and the model's own outputs (output_N.npy) there")(
      "device,d", po::value<std::string>(), "device to trace on (default: cpu)");
  po::options_description hidden;
  hidden.add_options()("model", po::value(&spec))("out", po::value(&out));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("model", 1).add("out", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  if (spec.empty() || out.empty()) throw po::error("needs MODEL and OUT.onnx");
  if (adapter == "pytorch")
    s.load.adapter = import::Adapter::PyTorch;
  else if (adapter != "none")
    throw po::error("--adapter '" + adapter + "' is not none or pytorch");
  if (vm.count("device")) s.device = Device::get(vm["device"].as<std::string>());
  const size_t colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  if (colon != std::string::npos) s.weights = spec.substr(colon + 1);

  const models::ExportableModel& entry = models::exportable_model(name);
  s.onnx.opset = vm.count("opset") ? vm["opset"].as<int>() : entry.opset;
  const models::ExportedModel m = entry.run(s);
  import::write_onnx_file(m.bytes, out);
  std::printf("%s -> %s (%zu bytes, opset %d%s), read back and validated\n", spec.c_str(), out.c_str(), m.bytes.size(),
              s.onnx.opset, s.onnx.dynamic_batch ? ", dynamic batch" : "");
  if (!save_example.empty()) {
    std::filesystem::create_directories(save_example);
    for (size_t i = 0; i < m.inputs.size(); ++i)
      import::write_npy((std::filesystem::path(save_example) / ("input_" + std::to_string(i) + ".npy")).string(),
                        api::into_data(m.inputs[i]));
    for (size_t i = 0; i < m.outputs.size(); ++i)
      import::write_npy((std::filesystem::path(save_example) / ("output_" + std::to_string(i) + ".npy")).string(),
                        api::into_data(m.outputs[i]));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return burn::tools::run_tool("burn export-onnx", run, argc, argv); }
