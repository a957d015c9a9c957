// OutputCheck: see the header. The digest algorithm here must stay identical to
// kernels/support/swz_harness.h (device) and tests/fakes/fake_nvcc.cpp (emulator).
#include "swizzleperf/loop/output_check.h"
#include "swizzleperf/util/file_io.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <sstream>


namespace swz {

namespace fs = std::filesystem;

namespace {

// The baseline's output file: the one its reference names, else where it is kept.
std::string baseline_file(const std::optional<OutputReference>& reference, const fs::path& baseline_dir) {
  return reference && !reference->file.empty() ? reference->file : (baseline_dir / "output.bin").string();
}

std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
constexpr std::uint64_t kStep = 0x9E3779B97F4A7C15ull;

std::string hex16(std::uint64_t v) { return fmt::format("{:016x}", v); }

// A field of a program's JSON line, or `fallback` when the line was missing or not an object.
template <class T>
T field(const nlohmann::json& j, const char* key, T fallback) {
  if (!j.is_object() || !j.contains(key)) return fallback;
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    return fallback;
  }
}

}  // namespace

HostDigest digest_bytes(const std::string& bytes, std::uint64_t chunk_bytes) {
  HostDigest d;
  const std::uint64_t n = bytes.size();
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  for (std::uint64_t begin = 0; begin < n; begin += chunk_bytes) {
    const std::uint64_t end = std::min(begin + chunk_bytes, n);
    std::uint64_t sum = 0;
    for (std::uint64_t w = begin / 8; w < (end + 7) / 8; ++w) {
      std::uint64_t v = 0;
      for (std::uint64_t b = w * 8; b < end && b < w * 8 + 8; ++b) v |= std::uint64_t{p[b]} << (8 * (b - w * 8));
      sum += mix(v ^ mix(w + kStep));
    }
    d.chunks.push_back(mix(sum + (end - begin)));
  }
  std::uint64_t h = mix(n ^ kStep);
  for (std::uint64_t c : d.chunks) h = mix(h ^ c);
  d.hash = hex16(h);
  return d;
}

Result<std::vector<std::uint64_t>> read_chunk_digests(const fs::path& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  std::vector<std::uint64_t> out;
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if (line.size() != 16 || line.find_first_not_of("0123456789abcdef") != std::string::npos)
      return make_error(fmt::format("{}: line {} is not a 16-hex-digit digest", path.string(), out.size() + 1));
    out.push_back(std::stoull(line, nullptr, 16));
  }
  return out;
}

std::optional<std::size_t> first_differing_chunk(const std::vector<std::uint64_t>& a,
                                                 const std::vector<std::uint64_t>& b) {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return i;
  if (a.size() != b.size()) return n;
  return std::nullopt;
}

OutputCheck::OutputCheck(Backend& backend, std::vector<std::string> size_args, double dump_tol)
    : backend_(backend), size_args_(std::move(size_args)), dump_tol_(dump_tol) {}

ProgramRun OutputCheck::run(const fs::path& exe, std::vector<std::string> args) {
  args.insert(args.end(), size_args_.begin(), size_args_.end());
  return backend_.run_program(exe, args, backend_.tools().run_timeout);
}

OutputCheckResult OutputCheck::run_failed(const char* mode, const ProgramRun& r) {
  return {OutputCheckResult::Kind::run_failed, r.failure(mode)};
}

std::string OutputCheck::keep_dump(const fs::path& exe, const fs::path& dir) {
  const auto file = dir / "output.bin";
  auto r = run(exe, {"dump", file.string()});
  if (!r.process.success())
    return fmt::format(" (dump failed: {}: {})", r.process.describe(), tail_lines(r.process.err + r.process.out, 1));
  return " (candidate output kept in " + file.string() + ")";
}

OutputCheckResult OutputCheck::record_baseline(const fs::path& exe, const fs::path& dir, ValidationRecord& validation) {
  if (dump_tol_ <= 0) {
    const auto chunks = dir / "chunks.txt";
    auto r = run(exe, {"hash", "--chunks", chunks.string()});
    if (r.process.success() && r.json.contains("hash")) {
      OutputReference ref;
      ref.mode = "hash";
      ref.hash = field(r.json, "hash", std::string());
      ref.bytes = field(r.json, "bytes", std::uint64_t{0});
      ref.chunk_bytes = field(r.json, "chunk_bytes", std::uint64_t{0});
      ref.chunks_file = chunks.string();
      validation.output_check = ref;
      return {};
    }
    // Exit 2 is a usage error: a program written before hash mode existed.
    const bool no_hash_mode = r.process.exited_with(2);
    if (!no_hash_mode) return run_failed("hash", r);
  }
  const auto file = dir / "output.bin";
  auto r = run(exe, {"dump", file.string()});
  if (!r.process.success()) return run_failed("dump", r);
  OutputReference ref;
  ref.mode = dump_tol_ > 0 ? "compare" : "dump";
  ref.bytes = field(r.json, "bytes", std::uint64_t{0});
  ref.file = file.string();
  validation.output_check = ref;
  return {};
}

std::optional<std::vector<std::string>> OutputCheck::evaluate_args(const fs::path& dir, const fs::path& baseline_dir,
                                                                   const std::optional<OutputReference>& reference) const {
  const std::string mode = reference ? reference->mode_or_dump() : "dump";
  if (mode == "hash") return std::vector<std::string>{"--chunks", (dir / "chunks.txt").string()};
  if (mode == "compare")
    return std::vector<std::string>{"--baseline", baseline_file(reference, baseline_dir), "--tol",
                                    fmt::format("{}", dump_tol_)};
  return std::nullopt;
}

OutputCheckResult OutputCheck::judge_hash(const nlohmann::json& line, const fs::path& exe, const fs::path& dir,
                                          const fs::path& baseline_dir, const OutputReference& ref,
                                          ValidationRecord& validation) {
  const auto chunks = dir / "chunks.txt";
  const std::string base_hash = ref.hash, hash = field(line, "hash", std::string());
  const auto base_bytes = ref.bytes, bytes = field(line, "bytes", std::uint64_t{0});
  validation.output_hash = hash;
  if (hash == base_hash && bytes == base_bytes) {
    validation.full_size_output = "matches the baseline (digest " + hash + ")";
    std::error_code ec;
    fs::remove(chunks, ec);
    return {};
  }
  std::string where;
  if (bytes != base_bytes) {
    where = fmt::format("output sizes differ ({} vs {} bytes)", base_bytes, bytes);
  } else {
    auto a = read_chunk_digests(baseline_dir / "chunks.txt");
    auto b = read_chunk_digests(chunks);
    const auto cb = field(line, "chunk_bytes", std::uint64_t{0});
    if (!a || !b) {
      where = fmt::format("digest {} differs from the baseline's {} (chunk digests unreadable: {})", hash, base_hash,
                          !a ? a.error().message : b.error().message);
    } else if (auto c = first_differing_chunk(*a, *b)) {
      const std::uint64_t lo = *c * cb, hi = std::min<std::uint64_t>(lo + cb, bytes);
      where = fmt::format("digest {} differs from the baseline's {}; first differing chunk {} of {} (bytes {}..{})",
                          hash, base_hash, *c, b->size(), lo, hi == 0 ? 0 : hi - 1);
    } else {
      where = fmt::format("digest {} differs from the baseline's {} (every chunk digest matches)", hash, base_hash);
    }
  }
  return mismatch(exe, dir, where, validation);
}

OutputCheckResult OutputCheck::judge_compare(const nlohmann::json& line, bool exited_1, const fs::path& exe,
                                             const fs::path& dir, ValidationRecord& validation) {
  if (!exited_1 && field(line, "ok", false)) {
    validation.full_size_output = fmt::format("matches the baseline within rel tol {}", dump_tol_);
    return {};
  }
  if (exited_1 && line.is_object() && line.contains("mismatches"))
    return mismatch(exe, dir,
                    fmt::format("{} of {} output values differ from the baseline's beyond rel tol {} (first at index {})",
                                field(line, "mismatches", std::uint64_t{0}), field(line, "values", std::uint64_t{0}),
                                dump_tol_, field(line, "first_index", std::int64_t{-1})),
                    validation);
  if (exited_1 && line.is_object() && line.contains("error"))
    return mismatch(exe, dir, field(line, "error", std::string()), validation);
  return {OutputCheckResult::Kind::run_failed, "compare: the program's line says neither ok nor how many values differ"};
}

OutputCheckResult OutputCheck::mismatch(const fs::path& exe, const fs::path& dir, const std::string& what,
                                        ValidationRecord& validation) {
  const std::string why = what + keep_dump(exe, dir);
  validation.full_size_output = why;
  return {OutputCheckResult::Kind::mismatch, "full-size output: " + why};
}

OutputCheckResult OutputCheck::judge_evaluated(const nlohmann::json& part, bool exited_1, const fs::path& exe,
                                               const fs::path& dir, const fs::path& baseline_dir,
                                               const std::optional<OutputReference>& reference, ValidationRecord& validation) {
  if (reference && reference->mode_or_dump() == "hash") {
    if (!part.is_object() || !part.contains("hash"))
      return {OutputCheckResult::Kind::run_failed, "evaluate mode: no digest in the program's hash part"};
    return judge_hash(part, exe, dir, baseline_dir, *reference, validation);
  }
  return judge_compare(part, exited_1, exe, dir, validation);
}

OutputCheckResult OutputCheck::check_candidate(const fs::path& exe, const fs::path& dir, const fs::path& baseline_dir,
                                               const std::optional<OutputReference>& reference, ValidationRecord& validation) {
  using Kind = OutputCheckResult::Kind;
  const std::string mode = reference ? reference->mode_or_dump() : "dump";
  if (mode == "hash") {
    auto r = run(exe, {"hash", "--chunks", (dir / "chunks.txt").string()});
    if (!r.process.success() || !r.json.contains("hash")) return run_failed("hash", r);
    return judge_hash(r.json, exe, dir, baseline_dir, *reference, validation);
  }
  if (mode == "compare") {
    const fs::path base_file = baseline_file(reference, baseline_dir);
    auto r = run(exe, {"compare", base_file.string(), "--tol", fmt::format("{}", dump_tol_)});
    const bool exited_1 = r.process.exited_with(1);
    if (!r.process.success() && !exited_1) return run_failed("compare", r);
    auto o = judge_compare(r.json, exited_1, exe, dir, validation);
    if (o.kind == Kind::run_failed) return run_failed("compare", r);
    return o;
  }
  // "dump": both outputs on disk, compared on the host (histories from before hash mode).
  auto r = run(exe, {"dump", (dir / "output.bin").string()});
  if (!r.process.success()) return run_failed("dump", r);
  auto diff = compare_outputs(baseline_dir / "output.bin", dir / "output.bin", dump_tol_);
  validation.full_size_output = diff.empty() ? "matches the baseline" : diff;
  if (!diff.empty()) return {Kind::mismatch, "full-size output: " + diff + " (candidate output kept in " +
                                                 (dir / "output.bin").string() + ")"};
  std::error_code ec;
  fs::remove(dir / "output.bin", ec);
  return {};
}

std::string compare_outputs(const fs::path& a, const fs::path& b, double tol) {
  auto ra = read_file(a), rb = read_file(b);
  if (!ra) return ra.error().message;
  if (!rb) return rb.error().message;
  const std::string& x = *ra;
  const std::string& y = *rb;
  if (x.size() != y.size()) return fmt::format("output sizes differ ({} vs {} bytes)", x.size(), y.size());
  if (tol <= 0) {
    std::size_t diff = 0, first = std::string::npos;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (x[i] != y[i]) {
        if (first == std::string::npos) first = i;
        ++diff;
      }
    return diff == 0 ? "" : fmt::format("{} of {} output bytes differ from the baseline's (first at byte {})", diff, x.size(), first);
  }
  const std::size_t n = x.size() / sizeof(float);
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < n; ++i) {
    // Bit-identical values are equal, inf and NaN included.
    if (std::memcmp(x.data() + i * 4, y.data() + i * 4, 4) == 0) continue;
    float fa, fb;
    std::memcpy(&fa, x.data() + i * 4, 4);
    std::memcpy(&fb, y.data() + i * 4, 4);
    const double err = std::fabs(static_cast<double>(fa) - fb);
    if (!(err <= tol * std::max(1.0, std::fabs(static_cast<double>(fa))))) {
      if (bad++ == 0) first = i;
    }
  }
  // Bytes past the last whole float are compared exactly.
  for (std::size_t i = n * 4; i < x.size(); ++i)
    if (x[i] != y[i] && bad++ == 0) first = n;
  return bad == 0 ? "" : fmt::format("{} of {} output values differ from the baseline's beyond rel tol {} (first at index {})", bad, n, tol, first);
}

}  // namespace swz
