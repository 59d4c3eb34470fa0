// burn run-onnx MODEL --input NAME=FILE.npy... [--output-dir DIR] [--device SPEC]: runs an ONNX model
// (through the onnx importer plugin) on NumPy inputs and writes each output as DIR/<output>.npy,
// printing names, dtypes, shapes and the time taken.
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

#include "burn/import/importer.hpp"
#include "burn/import/npy.hpp"
#include "burn/tensor/error.hpp"
#include "run_tool.hpp"

namespace po = boost::program_options;
using namespace burn;

namespace {

std::string shape_text(const Shape& s) { return s.to_string(); }

// An output name as a file name: characters other than letters, digits, '.', '_' and '-' become '_'.
std::string file_name_of(const std::string& name) {
  std::string out = name.empty() ? "output" : name;
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  }
  if (out == "." || out == "..") out = "_" + out;
  return out;
}

int run(int argc, char** argv) {
  std::string model_path, out_dir = ".", device_spec;
  std::vector<std::string> inputs;
  po::options_description opts(
      "burn run-onnx MODEL --input NAME=FILE.npy... [options]\n\n"
      "Runs an ONNX model (opsets 1-17) on NumPy inputs; writes each output as DIR/<output name>.npy");
  opts.add_options()("help,h", "this help")("input,i", po::value(&inputs)->composing(),
                                            "NAME=FILE.npy: a graph input (repeat for each)")(
      "output-dir,o", po::value(&out_dir)->default_value(out_dir), "folder for the outputs' .npy files")(
      "device,d", po::value(&device_spec), "device spec (default: $BURN_DEVICE or cpu)");
  po::options_description hidden;
  hidden.add_options()("model", po::value(&model_path));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("model", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  if (model_path.empty()) throw po::error("no MODEL given");

  import::ModelOptions mo;
  mo.device = device_spec.empty() ? Device::default_device() : Device::get(device_spec);
  mo.trainable = false;
  const auto load_start = std::chrono::steady_clock::now();
  std::unique_ptr<import::Model> model = import::load_model(model_path, mo);
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();

  std::map<std::string, TensorData> given;
  std::map<std::string, std::string> given_files;  // name -> file, to name both files of a repeated input
  for (const auto& spec : inputs) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0) throw po::error("--input '" + spec + "' is not NAME=FILE.npy");
    const std::string name = spec.substr(0, eq), file = spec.substr(eq + 1);
    if (const auto it = given_files.find(name); it != given_files.end()) {
      throw po::error("input '" + name + "' is given twice (" + it->second + ", then " + file + ")");
    }
    given_files[name] = file;
    given[name] = import::read_npy(file);
  }
  std::vector<TensorHandle> args;
  std::string missing;
  for (const auto& name : model->input_names()) {
    const auto it = given.find(name);
    if (it == given.end()) {
      missing += (missing.empty() ? "" : ", ") + name;
      continue;
    }
    args.push_back(api::from_data(mo.device, it->second, api::kind_of(it->second.dtype())));
    given.erase(it);
  }
  std::string known;
  for (const auto& n : model->input_names()) known += (known.empty() ? "" : ", ") + n;
  if (!given.empty()) {
    throw ValueError("run-onnx",
                     "'" + given.begin()->first + "' is not an input of " + model_path + " (inputs: " + known + ")");
  }
  if (!missing.empty())
    throw ValueError("run-onnx", model_path + " needs inputs " + missing + " (inputs: " + known + ")");

  const auto start = std::chrono::steady_clock::now();
  std::vector<TensorHandle> outs = model->forward(args);
  std::vector<TensorData> data;
  for (const auto& h : outs) data.push_back(api::into_data(h));  // the run ends when its results are read
  const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::filesystem::create_directories(out_dir);
  std::printf("model %s (%zu inputs, %zu outputs) on %s: loaded in %.1f ms, ran in %.2f ms\n", model_path.c_str(),
              model->input_names().size(), outs.size(), mo.device.name().c_str(), load_s * 1e3, run_s * 1e3);
  for (size_t i = 0; i < data.size(); ++i) {
    const std::string& name = model->output_names()[i];
    const std::string file = (std::filesystem::path(out_dir) / (file_name_of(name) + ".npy")).string();
    import::write_npy(file, data[i]);
    std::printf("  %s  %s %s  -> %s\n", name.c_str(), std::string(dtype_name(data[i].dtype())).c_str(),
                shape_text(data[i].shape()).c_str(), file.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return burn::tools::run_tool("burn run-onnx", run, argc, argv); }
