// PromptBuilder: template filling, the committed prompts/ files (loadable, every
// placeholder filled, a strict-mode schema), and the three context arms — the
// aware prompt carries the die count, L2 per die, dispatch and baseline hit
// rate; the unaware prompt carries none of them; overload swaps in the long text.
#include "swizzleperf/proposer/prompt_builder.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"

namespace swz {
namespace {

using test::has;

const char* kPromptKernel =
    "// A small test kernel: each block scales one tile.\n"
    "#include <hip/hip_runtime.h>\n"
    "// swizzleperf:default-grid 12x10\n"
    "struct SwizzleGrid { unsigned m, n; };\n"
    "// swizzleperf:begin\n"
    "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
    "  return pid;\n"
    "}\n"
    "// swizzleperf:end\n"
    "__global__ void scale_tiles(float* out) { out[blockIdx.x] *= 2.0f; }\n";

struct Fixture {
  KernelSource kernel;
  HardwareProfile hw;
  RunHistory history;
};

Fixture make_fixture() {
  auto k = KernelSource::parse(kPromptKernel, "tiles.hip");
  EXPECT_TRUE(k) << k.error().message;
  Fixture f{std::move(*k), {}, {}};
  f.hw.vendor = "amd";
  f.hw.name = "AMD Instinct MI300A";
  f.hw.arch = "gfx942";
  f.hw.compute_units = 228;
  f.hw.num_dies = 6;
  f.hw.l2_bytes = 6ll * 4 * 1024 * 1024;
  f.hw.l2_bytes_per_die = 4ll * 1024 * 1024;
  f.hw.dispatch.kind = "round_robin";
  f.hw.dispatch.source = "documented";
  f.hw.dispatch.note = "AMD's kernels remap with xcd = pid % dies.";
  f.hw.provenance = {{"num_dies", "arch table"}, {"compute_units", "queried"}};

  f.history.kernel_name = "tiles";
  f.history.original_region = f.kernel.region();
  Attempt base;
  base.iteration = 0;
  base.proposer = "baseline";
  base.label = "original";
  base.region = f.kernel.region();
  Metrics m;
  m.l2_hit_pct = 43.72;
  m.l2_hits = 1234567;
  m.l2_sectors = 2823800;
  m.dram_read_bytes = 8.085788928e9;
  m.fabric_sectors = 142000000;
  m.launches = 1;
  base.metrics = m;
  base.timing = Timing{1.25, 1.2, 1.4, 20};
  f.history.baseline = base;

  Attempt a1;
  a1.iteration = 1;
  a1.proposer = "llm";
  a1.label = "stride-seven";
  a1.status = AttemptStatus::ok;
  a1.region =
      "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
      "  return (pid * 7u) % num_pids;\n"
      "}\n";
  Metrics m1;
  m1.l2_hit_pct = 51.5;
  a1.metrics = m1;
  a1.timing = Timing{1.1, 1.0, 1.2, 20};
  a1.speedup = 1.136;
  f.history.attempts.push_back(a1);

  Attempt a2;
  a2.iteration = 2;
  a2.proposer = "llm";
  a2.label = "halves";
  a2.status = AttemptStatus::rejected_mapping;
  a2.reason = "not a bijection on grid 7x13: 12 collisions";
  a2.region =
      "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n"
      "  return pid / 2;\n"
      "}\n";
  f.history.attempts.push_back(a2);
  return f;
}

PromptBuilder builder(ContextMode mode) {
  auto b = PromptBuilder::load(test::source_dir() / "prompts", mode);
  EXPECT_TRUE(b) << b.error().message;
  return std::move(*b);
}

std::string optimize(ContextMode mode, const OptimizeExtras& extras = {}) {
  Fixture f = make_fixture();
  ProposalContext ctx{f.kernel, TileGrid{12, 10}, f.hw, f.history, {}, {}, 3};
  auto p = builder(mode).optimize_prompt(ctx, "Rows of tiles share the A panel.", extras);
  EXPECT_TRUE(p) << p.error().message;
  return p ? *p : std::string();
}

TEST(FillTemplate, SubstitutesNamesAndLeavesOtherBracesAlone) {
  auto r = fill_template("a {{x}} b {{ y }} c {{}} d {{x}}", {{"x", "1"}}, "t.txt");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, "a 1 b {{ y }} c {{}} d 1");
}

TEST(FillTemplate, UnknownPlaceholderIsAnErrorNamingIt) {
  auto r = fill_template("hello {{who}}", {{"x", "1"}}, "greeting.txt");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "prompt template greeting.txt: unknown placeholder {{who}}");
}

TEST(FillTemplate, ValuesAreNotScannedAgain) {
  auto r = fill_template("{{a}}", {{"a", "{{b}}"}}, "t");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, "{{b}}");
}

TEST(FillTemplate, EmptyPlaceholderAloneOnItsLineLeavesNoHole) {
  auto r = fill_template("top\n\n{{gone}}\n\nbottom {{inline}}.\n  {{kept}}\n", {{"gone", ""}, {"inline", ""}, {"kept", "k"}}, "t");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, "top\n\nbottom .\n  k\n");
}

TEST(ContextModeNames, RoundTrip) {
  for (auto m : {ContextMode::aware, ContextMode::unaware, ContextMode::overload}) {
    auto p = parse_context_mode(to_string(m));
    ASSERT_TRUE(p);
    EXPECT_EQ(*p, m);
  }
  auto bad = parse_context_mode("smart");
  ASSERT_FALSE(bad);
  EXPECT_TRUE(has(bad.error().message, "aware, unaware or overload"));
}

TEST(PromptTemplates, MissingDirectoryNamesTheFile) {
  test::TempDir dir;
  auto t = load_prompt_templates(dir.path());
  ASSERT_FALSE(t);
  EXPECT_TRUE(has(t.error().message, "system.txt"));
}

TEST(PromptTemplates, BadSchemaIsReported) {
  test::TempDir dir;
  for (const char* f : {"system.txt", "memory_analysis.txt", "optimize.txt", "hardware_aware.txt",
                        "architecture_overload.md", "objective_time.txt", "objective_l2.txt"})
    test::write_text(dir / f, "x");
  test::write_text(dir / "reply_schema.json", "{not json");
  auto t = load_prompt_templates(dir.path());
  ASSERT_FALSE(t);
  EXPECT_TRUE(has(t.error().message, "reply_schema.json"));
}

// Strict structured output requires additionalProperties false and every
// property required, at every object level.
void expect_strict(const nlohmann::json& schema, const std::string& where) {
  if (schema.value("type", "") == "object") {
    EXPECT_EQ(schema.value("additionalProperties", true), false) << where;
    ASSERT_TRUE(schema.contains("properties")) << where;
    ASSERT_TRUE(schema.contains("required")) << where;
    std::set<std::string> required = schema["required"].get<std::set<std::string>>();
    for (const auto& [name, sub] : schema["properties"].items()) {
      EXPECT_TRUE(required.count(name)) << where << "." << name << " is not required";
      expect_strict(sub, where + "." + name);
    }
    EXPECT_EQ(required.size(), schema["properties"].size()) << where;
  }
  if (schema.value("type", "") == "array") expect_strict(schema["items"], where + "[]");
}

TEST(PromptTemplates, ReplySchemaIsStrictAndHasTheFourFields) {
  auto t = load_prompt_templates(test::source_dir() / "prompts");
  ASSERT_TRUE(t) << t.error().message;
  const auto& s = t->reply_schema;
  expect_strict(s, "reply");
  for (const char* f : {"reasoning", "critique", "rationale", "code"}) EXPECT_TRUE(s["properties"].contains(f)) << f;
  auto item = s["properties"]["critique"]["items"]["properties"];
  for (const char* f : {"attempt", "what_it_did", "why_it_fell_short"}) EXPECT_TRUE(item.contains(f)) << f;
}

TEST(PromptTemplates, OverloadTextIsLong) {
  auto t = load_prompt_templates(test::source_dir() / "prompts");
  ASSERT_TRUE(t) << t.error().message;
  std::size_t words = 0;
  bool in_word = false;
  for (char c : t->architecture_overload) {
    bool w = !std::isspace(static_cast<unsigned char>(c));
    words += w && !in_word;
    in_word = w;
  }
  EXPECT_GT(words, 3000u);
}

TEST(PromptBuilder, RejectedRegionIsShownWithItsStatusAndReason) {
  Fixture f = make_fixture();
  Attempt a3;
  a3.iteration = 3;
  a3.proposer = "llm";
  a3.label = "shell-out";
  a3.status = AttemptStatus::rejected_region;
  a3.reason = "line 2: 'system': call to a function not defined in the region";
  a3.region = "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid) {\n  system(pid);\n  return pid;\n}\n";
  f.history.attempts.push_back(a3);
  const std::string h = builder(ContextMode::aware).history_section(f.history);
  EXPECT_TRUE(has(h, "Iteration 3: shell-out (llm, status: rejected_region)")) << h;
  EXPECT_TRUE(has(h, "- Reason: line 2: 'system': call to a function not defined in the region")) << h;
  EXPECT_TRUE(has(h, "+  system(pid);")) << h;
}

TEST(PromptBuilder, SystemAndMemoryAnalysisPrompts) {
  Fixture f = make_fixture();
  auto b = builder(ContextMode::aware);
  auto sys = b.system_prompt();
  ASSERT_TRUE(sys) << sys.error().message;
  EXPECT_TRUE(has(*sys, "swizzle_pid"));
  auto mem = b.memory_analysis_prompt(f.kernel, TileGrid{12, 10});
  ASSERT_TRUE(mem) << mem.error().message;
  EXPECT_TRUE(has(*mem, "scale_tiles"));
  EXPECT_TRUE(has(*mem, "12 x 10 tiles"));
  EXPECT_TRUE(has(*mem, "120 workgroups"));
  EXPECT_FALSE(has(*mem, "{{"));
}

TEST(PromptBuilder, AwarePromptCarriesTheHardwareAndTheBottleneck) {
  std::string p = optimize(ContextMode::aware);
  EXPECT_FALSE(has(p, "{{")) << p;
  // The kernel, the region, the signature rule.
  EXPECT_TRUE(has(p, "scale_tiles"));
  EXPECT_TRUE(has(p, "`SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid)`"));
  EXPECT_TRUE(has(p, "12 x 10 tiles, 120 workgroups"));
  // Hardware: die count, L2 per die, CUs per die, dispatch and its provenance.
  EXPECT_TRUE(has(p, "6 XCDs"));
  EXPECT_TRUE(has(p, "4 MiB per die"));
  EXPECT_TRUE(has(p, "24 MiB in all"));
  EXPECT_TRUE(has(p, "228 CUs in all, 38 per die"));
  EXPECT_TRUE(has(p, "p % 6"));
  EXPECT_TRUE(has(p, "(source: documented)"));
  EXPECT_TRUE(has(p, "AMD's kernels remap"));
  EXPECT_TRUE(has(p, "num_dies: arch table"));
  EXPECT_TRUE(has(p, "SWZ_NUM_DIES"));
  // Baseline bottleneck report.
  EXPECT_TRUE(has(p, "L2 hit rate: 43.72 %"));
  EXPECT_TRUE(has(p, "1,234,567 hits of 2,823,800 sectors"));
  EXPECT_TRUE(has(p, "8.086 GB read"));
  EXPECT_TRUE(has(p, "142,000,000"));
  EXPECT_TRUE(has(p, "median 1.25 ms"));
  // Memory analysis and every earlier attempt.
  EXPECT_TRUE(has(p, "Rows of tiles share the A panel."));
  EXPECT_TRUE(has(p, "Iteration 1: stride-seven (llm, status: ok)"));
  EXPECT_TRUE(has(p, "L2 hit rate 51.50 % (baseline 43.72 %)"));
  EXPECT_TRUE(has(p, "speedup 1.136x"));
  EXPECT_TRUE(has(p, "+  return (pid * 7u) % num_pids;"));
  EXPECT_TRUE(has(p, "Iteration 2: halves (llm, status: rejected_mapping)"));
  EXPECT_TRUE(has(p, "not a bijection on grid 7x13: 12 collisions"));
  EXPECT_TRUE(has(p, "+  return pid / 2;"));
  // Rules.
  EXPECT_TRUE(has(p, "bijection on [0, num_pids)"));
  EXPECT_TRUE(has(p, "Never repeat an earlier attempt"));
  EXPECT_TRUE(has(p, "response format"));
}

TEST(PromptBuilder, PromptStatesTheObjectiveAndShowsBothMetricsWithIntervals) {
  Fixture f = make_fixture();
  f.history.config.objective = Objective::time;
  auto& a1 = f.history.attempts[0];
  a1.speedup = 0.931;
  a1.speedup_ci_low = 0.912;
  a1.speedup_ci_high = 0.948;
  a1.significant = true;
  ProposalContext ctx{f.kernel, TileGrid{12, 10}, f.hw, f.history, {}, {}, 3};
  auto p = builder(ContextMode::aware).optimize_prompt(ctx, "", {});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_FALSE(has(*p, "{{")) << *p;
  EXPECT_TRUE(has(*p, "Goal: make the kernel measurably faster")) << *p;
  EXPECT_TRUE(has(*p, "Objective: time. Measured speed decides.")) << *p;
  EXPECT_TRUE(has(*p, "L2 hit rate 51.50 % (baseline 43.72 %); median 1.1 ms; speedup 0.931x, 95 % interval "
                      "[0.912, 0.948], significantly slower")) << *p;
  f.history.config.objective = Objective::l2;
  ProposalContext ctx2{f.kernel, TileGrid{12, 10}, f.hw, f.history, {}, {}, 3};
  auto q = builder(ContextMode::aware).optimize_prompt(ctx2, "", {});
  ASSERT_TRUE(q) << q.error().message;
  EXPECT_TRUE(has(*q, "Goal: raise the kernel's L2 cache hit rate")) << *q;
  EXPECT_TRUE(has(*q, "Objective: l2 (the SwizzlePerf paper's ranking)")) << *q;
}

TEST(PromptBuilder, AWindowedBaselineProfileSaysWhichLaunchesItCovers) {
  Fixture f = make_fixture();
  auto& m = *f.history.baseline->metrics;
  m.launches = 24;
  m.launch_skip = 115;
  m.launches_total = 255;
  ProposalContext ctx{f.kernel, TileGrid{12, 10}, f.hw, f.history, {}, {}, 3};
  auto p = builder(ContextMode::aware).optimize_prompt(ctx, "", {});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(has(*p, "Kernel launches profiled together: 24 of the run's 255 (launches 116..139, the middle)")) << *p;
}

TEST(PromptBuilder, UnawarePromptHasNoHardwareDieOrL2Information) {
  std::string p = optimize(ContextMode::unaware);
  EXPECT_FALSE(has(p, "{{")) << p;
  for (const char* banned : {"XCD", "6 XCDs", "dies", "die ", "SWZ_NUM_DIES", "L2", "MiB", "43.72", "51.50",
                             "1,234,567", "142,000,000", "GB read", "round-robin", "dispatch", "228",
                             "MI300", "gfx942", "Hardware", "partition", "fabric"})
    EXPECT_FALSE(has(p, banned)) << "unaware prompt contains '" << banned << "'";
  // Still the kernel, the task, the times and the history.
  EXPECT_TRUE(has(p, "scale_tiles"));
  EXPECT_TRUE(has(p, "median 1.25 ms"));
  EXPECT_TRUE(has(p, "Iteration 1: stride-seven"));
  EXPECT_TRUE(has(p, "speedup 1.136x"));
  EXPECT_TRUE(has(p, "not a bijection on grid 7x13"));
  EXPECT_TRUE(has(p, "Rows of tiles share the A panel."));
  EXPECT_TRUE(has(p, "bijection on [0, num_pids)"));
}

TEST(PromptBuilder, OverloadPromptSwapsInTheLongArchitectureText) {
  std::string p = optimize(ContextMode::overload);
  std::string aware = optimize(ContextMode::aware);
  EXPECT_FALSE(has(p, "{{"));
  EXPECT_TRUE(has(p, "Infinity Fabric"));
  EXPECT_TRUE(has(p, "GPCs"));
  EXPECT_FALSE(has(p, "6 XCDs"));           // the filtered facts are gone
  EXPECT_FALSE(has(p, "4 MiB per die"));
  EXPECT_TRUE(has(p, "L2 hit rate: 43.72 %"));  // the bottleneck report stays
  EXPECT_TRUE(has(p, "SWZ_NUM_DIES"));
  EXPECT_GT(p.size(), aware.size() + 15000);
}

TEST(PromptBuilder, SchemaInPromptAndRetryNote) {
  OptimizeExtras extras;
  extras.schema_in_prompt = true;
  extras.retry_note = "# Note\nYour previous answer repeated iteration 1 (stride-seven).";
  std::string p = optimize(ContextMode::aware, extras);
  EXPECT_TRUE(has(p, "```json"));
  EXPECT_TRUE(has(p, "\"why_it_fell_short\""));
  EXPECT_TRUE(has(p, "\"additionalProperties\": false"));
  EXPECT_TRUE(has(p, "repeated iteration 1 (stride-seven)"));
  std::string plain = optimize(ContextMode::aware);
  EXPECT_FALSE(has(plain, "\"why_it_fell_short\""));
  EXPECT_FALSE(has(plain, "# Note"));
}

TEST(PromptBuilder, FirstAttemptAndMissingBaseline) {
  Fixture f = make_fixture();
  f.history.attempts.clear();
  f.history.baseline.reset();
  auto b = builder(ContextMode::aware);
  EXPECT_EQ(b.history_section(f.history), "(none yet: this is the first attempt)");
  EXPECT_EQ(b.baseline_report(f.history), "(no baseline measurements yet)");
}

TEST(PromptBuilder, NvidiaMeasuredTableDispatch) {
  Fixture f = make_fixture();
  f.hw.vendor = "nvidia";
  f.hw.name = "NVIDIA H100 80GB HBM3";
  f.hw.arch = "sm_90";
  f.hw.compute_units = 132;
  f.hw.num_dies = 2;
  f.hw.l2_bytes = 52428800;
  f.hw.l2_bytes_per_die = 26214400;
  f.hw.dispatch.kind = "table";
  f.hw.dispatch.first_wave_die = {1, 1, 0, 0};
  f.hw.dispatch.source = "measured";
  f.hw.dispatch.note = "";
  auto hw = builder(ContextMode::aware).hardware_section(f.hw);
  ASSERT_TRUE(hw) << hw.error().message;
  EXPECT_TRUE(has(*hw, "2 partitions"));
  EXPECT_TRUE(has(*hw, "25 MiB per die"));
  EXPECT_TRUE(has(*hw, "132 SMs in all, 66 per die"));
  EXPECT_TRUE(has(*hw, "table = [1, 1, 0, 0]"));
  EXPECT_TRUE(has(*hw, "(source: measured)"));
  EXPECT_TRUE(builder(ContextMode::unaware).hardware_section(f.hw)->empty());
}

TEST(PromptBuilder, LongDiffsAreShortened) {
  Fixture f = make_fixture();
  std::string big;
  for (int i = 0; i < 200; ++i) big += "+ line " + std::to_string(i) + "\n";
  f.history.attempts[0].diff = big;
  std::string h = builder(ContextMode::aware).history_section(f.history);
  EXPECT_TRUE(has(h, "+ line 79\n"));
  EXPECT_FALSE(has(h, "+ line 80\n"));
  EXPECT_TRUE(has(h, "(120 more lines)"));
}

TEST(SwizzleSignature, FromTheRegion) {
  EXPECT_EQ(swizzle_signature("// c\nSWZ_HD unsigned swizzle_pid(unsigned pid,\n   unsigned num_pids, SwizzleGrid grid) {\n}"),
            "SWZ_HD unsigned swizzle_pid(unsigned pid, unsigned num_pids, SwizzleGrid grid)");
  EXPECT_EQ(swizzle_signature("int f();"), "");
}

}  // namespace
}  // namespace swz

namespace swz {
namespace {

TEST(PromptBuilderTriton, ATritonProgramGetsThePythonTemplatesAndSignature) {
  const std::string program =
      "# swizzleperf:default-grid 12x10\n"
      "import triton\nimport triton.language as tl\n"
      "# swizzleperf:begin\n"
      "@triton.jit\n"
      "def swizzle_pid(pid, num_pids, grid_m, grid_n):\n"
      "    return pid\n"
      "# swizzleperf:end\n";
  auto k = KernelSource::parse(program, "tiles.py");
  ASSERT_TRUE(k) << k.error().message;
  Fixture f = make_fixture();
  RunHistory h = f.history;
  h.original_region = k->region();
  h.baseline->region = k->region();
  ProposalContext ctx{*k, TileGrid{12, 10}, f.hw, h, {}, {}, 3};
  auto b = builder(ContextMode::aware);
  auto p = b.optimize_prompt(ctx, "", {});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_FALSE(has(*p, "{{")) << *p;
  EXPECT_TRUE(has(*p, "```python\n# swizzleperf:default-grid 12x10")) << *p;
  EXPECT_TRUE(has(*p, "`@triton.jit` on the line before\n  `def swizzle_pid(pid, num_pids, grid_m, grid_n):`")) << *p;
  EXPECT_TRUE(has(*p, "truncate toward zero like C")) << *p;
  EXPECT_FALSE(has(*p, "```cpp")) << *p;
  auto m = b.memory_analysis_prompt(*k, TileGrid{12, 10});
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_TRUE(has(*m, "between the `# swizzleperf:begin` and\n`# swizzleperf:end` lines")) << *m;
  EXPECT_TRUE(has(*m, "```python")) << *m;
}

TEST(PromptBuilder, PredictionsStandBesideMeasurementsAndAreLeftOutWhenUnaware) {
  Fixture f = make_fixture();
  ASSERT_TRUE(f.history.baseline);
  f.history.baseline->predicted = PredictionSummary{};
  f.history.baseline->predicted->l2_hit_pct = 41.25;
  Attempt a;
  a.iteration = 3;
  a.proposer = "builtin";
  a.label = "grouped_m(G=8)";
  a.status = AttemptStatus::rejected_mapping;
  a.reason = "not a bijection";
  a.predicted = PredictionSummary{};
  a.predicted->l2_hit_pct = 88.5;
  f.history.attempts.push_back(a);
  const auto aware = builder(ContextMode::aware);
  EXPECT_TRUE(has(aware.baseline_report(f.history), "predicted an L2 hit rate of 41.25 %")) << aware.baseline_report(f.history);
  EXPECT_TRUE(has(aware.history_section(f.history), "locality model predicted L2 hit rate 88.50 %")) << aware.history_section(f.history);
  const auto unaware = builder(ContextMode::unaware);
  EXPECT_FALSE(has(unaware.baseline_report(f.history), "predicted"));
  EXPECT_FALSE(has(unaware.history_section(f.history), "predicted"));
}

}  // namespace
}  // namespace swz
