#include "swizzleperf/loop/run_state.h"

#include "swizzleperf/util/hash.h"
#include "swizzleperf/util/text.h"

namespace swz {

namespace fs = std::filesystem;

namespace {

struct LoadedKernel {
  KernelSource kernel;
  ValidRegion region;
};

Result<LoadedKernel> load_kernel(const fs::path& path) {
  auto k = KernelSource::load(path);
  if (!k) return k.error();
  if (auto st = check_no_todo(*k); !st) return st.error();
  auto region = ValidRegion::make(k->region(), k->language());
  if (!region) return make_error(path.string() + ": " + region.error().message);
  return LoadedKernel{std::move(*k), std::move(*region)};
}

}  // namespace

Result<RunState> open_new_run(const RunConfig& config, const fs::path& kernel, const fs::path& run_dir) {
  auto k = load_kernel(kernel);
  if (!k) return k.error();
  std::error_code ec;
  if (fs::exists(run_dir / "history.json", ec))
    return make_error("run dir " + run_dir.string() + " already holds a run: use --resume " + run_dir.string() +
                      " or another --run-dir");
  RunHistory h;
  h.kernel_path = fs::absolute(kernel, ec).string();
  h.kernel_name = k->kernel.name();
  h.original_region = k->kernel.region();
  h.kernel_hash = content_hash(k->kernel.text());
  h.config = config;
  h.created_at = now_iso8601();
  return RunState{run_dir, std::move(k->kernel), std::move(k->region), std::move(h), {}, false};
}

Result<RunState> open_resumed_run(const fs::path& run_dir, const fs::path& kernel, const RunConfig& asked,
                                  const std::set<std::string>& given) {
  const auto path = run_dir / "history.json";
  std::error_code ec;
  if (!fs::exists(path, ec)) return make_error("nothing to resume: " + path.string() + " does not exist");
  auto h = load_history(path);
  if (!h) return h.error();
  // Before anything else runs: a history holding a rejected or oversized region is
  // refused with its reason.
  const fs::path kernel_path = kernel.empty() ? fs::path(h->kernel_path) : kernel;
  auto valid = validate_recorded_regions(*h, language_of(kernel_path));
  if (!valid) return make_error(path.string() + ": " + valid.error().message);
  auto k = load_kernel(kernel_path);
  if (!k) return k.error();
  if (h->kernel_hash != content_hash(k->kernel.text()))
    return make_error("kernel " + kernel_path.string() + " changed since run " + run_dir.string() +
                      " started; resume needs the same file (or start a new run)");
  auto config = resume_config(h->config, asked, given, now_iso8601(), h->next_iteration());
  if (!config) return config.error();
  h->config = std::move(*config);
  return RunState{run_dir, std::move(k->kernel), std::move(k->region), std::move(*h), std::move(*valid), true};
}

Status check_same_device(const RunHistory& history, const HardwareProfile& now) {
  if (!history.hardware) return ok_status();
  const HardwareProfile& then = *history.hardware;
  if (then.name == now.name && then.arch == now.arch && then.num_dies == now.num_dies) return ok_status();
  return make_error("the run was measured on " + then.summary() + ", this machine has " + now.summary() +
                    ": resume it on the same device, or start a new run");
}

}  // namespace swz
