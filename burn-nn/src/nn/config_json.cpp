// JSON of the types every config shares (Initializer), for BURN_CONFIG_JSON.
#include "config_json.hpp"

#include <fstream>
#include <sstream>

#include "burn/record/file.hpp"

namespace burn::nn {

void to_json(nlohmann::json& j, const Initializer& init) {
  j = {{"kind", initializer_name(init.kind)}, {"a", init.a}, {"b", init.b}, {"fan_out_only", init.fan_out_only}};
}

void from_json(const nlohmann::json& j, Initializer& init) {
  const std::string kind = j.at("kind").get<std::string>();
  bool known = false;
  for (int k = 0; k <= static_cast<int>(Initializer::Kind::Orthogonal); ++k)
    if (initializer_name(static_cast<Initializer::Kind>(k)) == kind) {
      init.kind = static_cast<Initializer::Kind>(k);
      known = true;
    }
  if (!known) throw ValueError("Initializer", "unknown initializer kind '" + kind + "'");
  init.a = j.value("a", init.a);
  init.b = j.value("b", init.b);
  init.fan_out_only = j.value("fan_out_only", init.fan_out_only);
}

namespace detail {

std::string read_text_file(const std::string& path, const char* op) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ValueError(op, path + ": cannot open the file");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text_file_atomically(const std::string& path, const std::string& text, const char* op) {
  record::AtomicFile file(path);
  {
    record::OutputFile out(file.path(), op);
    out.write(text.data(), text.size());
    out.close();
  }
  file.commit();
}

nlohmann::json parse_config(std::string_view text, const nlohmann::json& defaults, const char* type) {
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  const std::string op = std::string(type) + "::from_json";
  if (j.is_discarded()) throw ValueError(op, "not valid JSON");
  if (!j.is_object()) throw ValueError(op, "expected a JSON object, got " + std::string(j.type_name()));
  for (const auto& [key, value] : j.items())
    if (!defaults.contains(key)) throw ValueError(op, "unknown field '" + key + "'");
  return j;
}

}  // namespace detail
}  // namespace burn::nn
