// The glslang front end: one process-wide initialisation, one TShader/TProgram per compile.
#include "runtime/compiler.hpp"

#include <mutex>
#include <sstream>

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>
#include <glslang/build_info.h>

#include "burn/tensor/error.hpp"
#include "runtime/kernel_sources.hpp"
#include "runtime/vk_error.hpp"

namespace burn::vulkan {

namespace {

void init_once() {
  static std::once_flag once;
  std::call_once(once, [] { glslang::InitializeProcess(); });
}

// glslang's log names lines of the assembled text; quote the failing ones so the message stands alone.
std::string with_lines(const std::string& log, const std::string& source) {
  std::vector<std::string> lines;
  std::istringstream in(source);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::string out;
  std::istringstream logs(log);
  for (std::string l; std::getline(logs, l);) {
    out += "\n  " + l;
    // "ERROR: 0:123: ..."
    const size_t a = l.find("0:");
    if (a == std::string::npos) continue;
    const size_t b = l.find(':', a + 2);
    if (b == std::string::npos) continue;
    try {
      const size_t n = std::stoul(l.substr(a + 2, b - a - 2));
      if (n >= 1 && n <= lines.size()) out += "\n    > " + lines[n - 1];
    } catch (...) {
    }
  }
  return out;
}

std::string describe(const Defines& defines) {
  std::string s;
  for (const auto& [k, v] : defines) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s.empty() ? "(no defines)" : s;
}

}  // namespace

std::string compiler_version() {
  return std::to_string(GLSLANG_VERSION_MAJOR) + "." + std::to_string(GLSLANG_VERSION_MINOR) + "." +
         std::to_string(GLSLANG_VERSION_PATCH);
}

std::string assemble_source(std::string_view kernel_name, const Defines& defines, std::string_view kernel_text) {
  const std::string_view kernel = kernel_text.empty() ? kernel_source(kernel_name) : kernel_text;
  if (kernel.empty()) throw Unsupported(op_name(), "no Vulkan kernel named '" + std::string(kernel_name) + "'");
  std::string src = "#version 460\n";
  for (const auto& [k, v] : defines) src += "#define " + k + " " + v + "\n";
  // The dialect: the prelude, then the math every kernel and generated program may call, then the dialect's
  // shared helpers (burn-gpu/kernels/dialect.kernelh).
  for (const char* part : {"prelude", "math", "math_f64", "dialect"}) {
    src += kernel_source(part);
    src += "\n";
  }
  src += kernel;
  return src;
}

std::vector<uint32_t> compile_glsl(std::string_view kernel_name, const std::string& source, const Defines& defines) {
  init_once();
  glslang::TShader shader(EShLangCompute);
  const char* text = source.c_str();
  shader.setStrings(&text, 1);
  shader.setEnvInput(glslang::EShSourceGlsl, EShLangCompute, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_2);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_5);
  const auto messages = static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);
  const std::string what = "Vulkan kernel '" + std::string(kernel_name) + "' [" + describe(defines) + "]";
  if (!shader.parse(GetDefaultResources(), 460, false, messages))
    throw DeviceError(op_name(), what + " does not compile:" + with_lines(shader.getInfoLog(), source));
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages)) throw DeviceError(op_name(), what + " does not link:" + program.getInfoLog());
  std::vector<uint32_t> spirv;
  glslang::SpvOptions options;
  options.disableOptimizer = false;
  options.validate = false;
  glslang::GlslangToSpv(*program.getIntermediate(EShLangCompute), spirv, &options);
  return spirv;
}

}  // namespace burn::vulkan
