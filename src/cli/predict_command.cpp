// `swizzleperf predict KERNEL`: the locality model's prediction of each die's L2 hit rate,
// DRAM bytes and cross-die traffic for one block order, on any machine (no GPU, no GPU
// compiler: the program's footprint section is compiled with the host compiler). Exit 0
// with a prediction; 2 when there is none (no footprint, a non-bijective order, bad input).
#include <unistd.h>

#include <filesystem>
#include <fmt/format.h>

#include "swizzleperf/backend/backend.h"
#include "swizzleperf/cli/app.h"
#include "swizzleperf/cli/commands.h"
#include "swizzleperf/cli/predict.h"
#include "swizzleperf/util/file_io.h"
#include "swizzleperf/util/text.h"

namespace swz::cli {

void add_model_options(cxxopts::Options& o, const std::string& arch_default_text) {
  o.add_options("Model")
      ("arch", "the machine to model: sm_90/h100, gfx942/mi300x, ... (default: " + arch_default_text + ")",
       cxxopts::value<std::string>()->default_value(""))
      ("dies", "override the die count (round-robin dispatch; 0: the arch's)", cxxopts::value<int>()->default_value("0"))
      ("probe", "use the dispatch table measured by `swizzleperf probe` (its hardware.json)", cxxopts::value<std::string>()->default_value(""))
      ("size", "problem size a,b,.. (default: the program's)", cxxopts::value<std::string>()->default_value(""))
      ("launches", "simulate N launches of one run (1 to 64)", cxxopts::value<int>()->default_value("3"))
      ("launch-window", "which N: middle (around the middle of the run, as the profiler's window) or first",
       cxxopts::value<std::string>()->default_value("middle"))
      ("host-cxx", "host C++ compiler for the footprint section and the region evaluator", cxxopts::value<std::string>()->default_value("c++"));
}

Result<ModelSettings> model_settings_from(const cxxopts::ParseResult& r, const std::filesystem::path& kernel) {
  ModelSettings s;
  std::string arch = r["arch"].as<std::string>();
  const std::string probe = r["probe"].as<std::string>();
  if (arch.empty() && probe.empty()) {
    s.arch_choice = default_arch({kernel}, machine_facts());
    arch = s.arch_choice->arch;
  }
  auto hw = hardware_from_options(arch, r["dies"].as<int>(), probe);
  if (!hw) return hw.error();
  s.hw = *hw;
  auto m = machine_model(s.hw);
  if (!m) return m.error();
  s.machine = *m;
  const int launches = r["launches"].as<int>();
  if (launches < 1 || launches > 64) return make_error(fmt::format("--launches {}: from 1 to 64", launches));
  if (const auto size = r["size"].as<std::string>(); !size.empty()) {
    auto v = parse_size_option(size);
    if (!v) return v.error();
    s.size.assign(v->begin(), v->end());
  }
  s.footprint.host_compiler = r["host-cxx"].as<std::string>();
  s.footprint.support_dir = support_dir();
  s.footprint.cache_dir = default_footprint_cache_dir();
  s.footprint.max_launches = static_cast<unsigned>(launches);
  const std::string window = r["launch-window"].as<std::string>();
  if (window != "middle" && window != "first")
    return make_error(fmt::format("--launch-window '{}': use middle or first", window.substr(0, 40)));
  s.footprint.middle = window == "middle";
  s.mapping = MappingCheckOptions{s.footprint.host_compiler,
                                  std::filesystem::temp_directory_path() / fmt::format("swizzleperf-predict-{}", ::getpid()),
                                  std::chrono::seconds(60)};
  return s;
}

int cmd_predict(const std::vector<std::string>& args) {
  cxxopts::Options o("swizzleperf predict",
                     "Predict each die's L2 hit rate, DRAM bytes and cross-die traffic for one block order of a kernel "
                     "program, from its declared footprint (no GPU needed).");
  o.positional_help("KERNEL.hip|.cu");
  o.add_options()("kernel", "kernel file", cxxopts::value<std::string>())("h,help", "show this help");
  add_model_options(o, "from the GPU present, else the file and the compilers present: sm_90 for a .cu file, else gfx942, "
                       "said in the first line");
  o.add_options("Order")
      ("region", "a file holding a swizzle region (a swizzle_pid definition) to predict", cxxopts::value<std::string>()->default_value(""))
      ("pattern", "a built-in order: identity, grouped_m:8, die_rr, ... (default: the kernel's own region)",
       cxxopts::value<std::string>()->default_value(""));
  o.add_options("Output")("json", "print the prediction as JSON on stdout");
  o.parse_positional({"kernel"});
  cxxopts::ParseResult r;
  if (auto done = parse_command(o, args, "predict", {"", "Model", "Order", "Output"}, r)) return *done;
  if (!r.count("kernel")) return report_error("predict needs a kernel file: swizzleperf predict KERNEL.hip");
  const std::string region_file = r["region"].as<std::string>(), pattern = r["pattern"].as<std::string>();
  if (!region_file.empty() && !pattern.empty()) return report_error("--region and --pattern name two orders: give one");
  auto k = KernelSource::load(r["kernel"].as<std::string>());
  if (!k) return report_error(k.error().message);
  auto s = model_settings_from(r, k->path());
  if (!s) return report_error(s.error().message);
  RealProcessRunner runner;
  struct Cleanup {
    std::filesystem::path p;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(p, ec);
    }
  } cleanup{s->mapping.work_dir};
  // The order first (cheap to refuse), then the footprint.
  std::string label = "the kernel's own region";
  OrderForGrid order;
  if (!pattern.empty()) {
    auto c = parse_pattern(pattern, s->hw, nlohmann::json::object());
    if (!c) return report_error(c.error().message);
    label = c->family == "identity" ? "identity" : c->label();
    order = family_order_for(*c, s->hw);
  } else {
    std::string region = k->region();
    if (!region_file.empty()) {
      auto text = read_file(region_file);
      if (!text) return report_error(fmt::format("--region {}: {}", region_file, text.error().message));
      if (text->size() > (64u << 10)) return report_error(fmt::format("--region {}: {} bytes; a region is at most 64 KB", region_file, text->size()));
      region = *text;
      label = region_file;
    }
    order = region_order(region, k->language(), s->hw, s->mapping, runner);
  }
  auto fp = load_footprint(*k, s->size, s->footprint, runner);
  if (!fp) {
    if (fp.error().interrupted()) return kExitInterrupted;
    return report_error(fp.error().message);
  }
  auto p = predict(*fp, order, s->machine);
  if (!p) {
    if (p.error().interrupted()) return kExitInterrupted;
    return report_error(fmt::format("{}: {}", label, p.error().message));
  }
  p->order = label;
  if (r.count("json")) {
    nlohmann::json j = to_json_value(*p);
    j["kernel"] = k->path().string();
    if (s->arch_choice) j["arch_chosen"] = {{"arch", s->arch_choice->arch}, {"because", s->arch_choice->why}};
    std::puts(j.dump(2).c_str());
  } else {
    if (s->arch_choice) std::printf("%s\n", model_line(s->hw, &*s->arch_choice).c_str());
    std::printf("%s: %s", k->path().string().c_str(), render_prediction(*p).c_str());
  }
  return kExitOk;
}

}  // namespace swz::cli
