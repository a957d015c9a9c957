// The kernel-program contract's conformance suite (docs/kernel-contract.md §2-§3 is the
// reference). One table of cases, tests/conformance/cases.json, runs against each of its four
// implementations:
//   harness       kernels/support/swz_harness.h, built for the host HIP emulator
//                 (tests/conformance/host_hip) as tests/conformance/harness_program.cpp;
//   python        kernels/support/swz_triton.py, through tests/fakes/fake_triton/fake_matmul.py on
//                 the emulated runtime (python3, no torch, no triton);
//   fake_nvcc     tests/fakes/fake_nvcc.cpp's emulator, built from tests/conformance/nvcc_program.cu;
//   fake_backend  tests/support/fake_backend.h, called in-process (run_program).
// Each case gives an argv, the exit code, the schemas of the JSON lines (keys in order, optional
// ones marked), values, or the error message (the last stdout line {"mode","ok":false,"error"}
// and `error: <message>` on stderr). A difference an implementation has by design is listed in
// the file's exceptions with its reason; the suite prints each one it applies and checks the
// declared behaviour instead where the exception states one. The digest vectors (bytes ->
// digest) check every digest: each implementation's hash mode over the vector's bytes, and the
// tool's own host digest (loop/output_check).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/fake_backend.h"
#include "support/scripted_runner.h"
#include "swizzleperf/loop/output_check.h"

namespace swz::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;

const fs::path kConformanceDir = SWZ_CONFORMANCE_DIR;
const fs::path kSourceDir = SWZ_CONFORMANCE_SOURCE_DIR;

const ordered_json& conformance_data() {
  static const ordered_json data = [] {
    std::ifstream in(kConformanceDir / "cases.json");
    return ordered_json::parse(in);
  }();
  return data;
}

// What one run of an implementation answered.
struct ConformanceAnswer {
  int exit = -1;
  std::string out, err;
};

using ConformanceEnv = std::vector<std::pair<std::string, std::string>>;

// Runs argv (no shell) with env added, stdin_text on its stdin; stdout and stderr captured.
ConformanceAnswer run_conformance_process(const std::vector<std::string>& argv, const ConformanceEnv& env,
                                          const std::string& stdin_text, const fs::path& tmp) {
  const fs::path in = tmp / ".stdin", out = tmp / ".stdout", err = tmp / ".stderr";
  { std::ofstream(in, std::ios::binary) << stdin_text; }
  const pid_t pid = fork();
  if (pid == 0) {
    const int fi = open(in.c_str(), O_RDONLY), fo = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644),
              fe = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fi < 0 || fo < 0 || fe < 0) _exit(127);
    dup2(fi, 0);
    dup2(fo, 1);
    dup2(fe, 2);
    // The case's environment alone: no SWZ_* switch of the caller's reaches the program.
    std::vector<std::string> inherited;
    for (char** e = environ; *e; ++e)
      if (std::strncmp(*e, "SWZ_", 4) == 0) inherited.emplace_back(*e, std::strchr(*e, '=') - *e);
    for (const auto& name : inherited) unsetenv(name.c_str());
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> av;
    for (const auto& a : argv) av.push_back(const_cast<char*>(a.c_str()));
    av.push_back(nullptr);
    execvp(av[0], av.data());
    _exit(127);
  }
  ConformanceAnswer a;
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      a.err = "timed out\n";
      return a;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  a.exit = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::stringstream o, e;
  o << std::ifstream(out, std::ios::binary).rdbuf();
  e << std::ifstream(err, std::ios::binary).rdbuf();
  a.out = o.str();
  a.err = e.str();
  return a;
}

// ---- the implementations ---------------------------------------------------------------
class ConformanceImpl {
 public:
  virtual ~ConformanceImpl() = default;
  virtual std::string name() const = 0;
  // variant "" or "wrong" (a program whose output is wrong: verify fails).
  virtual ConformanceAnswer run(const std::vector<std::string>& args, const ConformanceEnv& env,
                                const std::string& stdin_text, const std::string& variant, const fs::path& tmp) = 0;
};

// A kernel program run as a process: argv prefix + the case's args.
class ProcessImpl : public ConformanceImpl {
 public:
  ProcessImpl(std::string name, std::vector<std::string> prefix, std::vector<std::string> wrong_prefix,
              ConformanceEnv env, ConformanceEnv wrong_env)
      : name_(std::move(name)), prefix_(std::move(prefix)), wrong_prefix_(std::move(wrong_prefix)),
        env_(std::move(env)), wrong_env_(std::move(wrong_env)) {}
  std::string name() const override { return name_; }
  ConformanceAnswer run(const std::vector<std::string>& args, const ConformanceEnv& env, const std::string& stdin_text,
                        const std::string& variant, const fs::path& tmp) override {
    const bool wrong = variant == "wrong";
    std::vector<std::string> argv = wrong ? wrong_prefix_ : prefix_;
    argv.insert(argv.end(), args.begin(), args.end());
    ConformanceEnv e = env_;
    if (wrong) e.insert(e.end(), wrong_env_.begin(), wrong_env_.end());
    e.insert(e.end(), env.begin(), env.end());
    return run_conformance_process(argv, e, stdin_text, tmp);
  }

 private:
  std::string name_;
  std::vector<std::string> prefix_, wrong_prefix_;
  ConformanceEnv env_, wrong_env_;
};

// The in-process fake backend: its "program" is a source file with a behaviour line.
class FakeBackendImpl : public ConformanceImpl {
 public:
  std::string name() const override { return "fake_backend"; }
  ConformanceAnswer run(const std::vector<std::string>& args, const ConformanceEnv&, const std::string&,
                        const std::string& variant, const fs::path& tmp) override {
    ScriptedRunner runner;
    FakeBackend backend(runner, TileGrid{16, 16});
    const fs::path exe = tmp / (variant == "wrong" ? "fake_wrong.prog" : "fake.prog");
    std::ofstream(exe) << fake_kernel_source(variant == "wrong" ? "verify=bad" : "");
    const ProgramRun r = backend.run_program(exe, args, std::chrono::seconds(60));
    return {r.process.exit_code, r.process.out, r.process.err};
  }
};

std::vector<std::unique_ptr<ConformanceImpl>> make_conformance_impls(const fs::path& tmp) {
  std::vector<std::unique_ptr<ConformanceImpl>> impls;
  const std::string harness = SWZ_CONFORMANCE_HARNESS;
  impls.push_back(std::make_unique<ProcessImpl>("harness", std::vector<std::string>{harness},
                                                std::vector<std::string>{harness}, ConformanceEnv{},
                                                ConformanceEnv{{"SWZ_FAKE_WRONG", "1"}}));
  // The Python harness: the fake Triton program, and a copy whose region holds SWZ_FAKE_WRONG.
  const fs::path fake_triton = kSourceDir / "tests/fakes/fake_triton";
  const fs::path program = fake_triton / "fake_matmul.py", wrong = tmp / "fake_matmul_wrong.py";
  {
    std::stringstream s;
    s << std::ifstream(program).rdbuf();
    std::string text = s.str();
    const std::string marker = "# swizzleperf:begin\n";
    text.insert(text.find(marker) + marker.size(), "# SWZ_FAKE_WRONG\n");
    std::ofstream(wrong) << text;
  }
  const ConformanceEnv py_env = {{"PYTHONPATH", (kSourceDir / "kernels/support").string() + ":" + fake_triton.string()},
                                 {"PYTHONDONTWRITEBYTECODE", "1"},
                                 {"SWZ_FAKE_TRITON_DIR", fake_triton.string()}};
  impls.push_back(std::make_unique<ProcessImpl>("python", std::vector<std::string>{"python3", program.string()},
                                                std::vector<std::string>{"python3", wrong.string()}, py_env,
                                                ConformanceEnv{}));
  const std::string nvcc_prog = SWZ_CONFORMANCE_NVCC_PROGRAM, nvcc_wrong = SWZ_CONFORMANCE_NVCC_PROGRAM_WRONG;
  impls.push_back(std::make_unique<ProcessImpl>("fake_nvcc", std::vector<std::string>{nvcc_prog},
                                                std::vector<std::string>{nvcc_wrong}, ConformanceEnv{},
                                                ConformanceEnv{}));
  impls.push_back(std::make_unique<FakeBackendImpl>());
  return impls;
}

// ---- checks --------------------------------------------------------------------------------
std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
  return s;
}

bool glob_match(const std::string& pattern, const std::string& s) {  // '*' only, iterative
  size_t p = 0, i = 0, star = std::string::npos, mark = 0;
  while (i < s.size()) {
    if (p < pattern.size() && pattern[p] == s[i]) { ++p; ++i; }
    else if (p < pattern.size() && pattern[p] == '*') { star = p++; mark = i; }
    else if (star != std::string::npos) { p = star + 1; i = ++mark; }
    else return false;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

// The exception declared for implementation `impl` and case `name`, or null.
const ordered_json* declared_exception(const std::string& impl, const std::string& name) {
  for (const auto& e : conformance_data()["exceptions"]) {
    if (e["implementation"] != impl) continue;
    for (const auto& pat : e["cases"])
      if (glob_match(pat.get<std::string>(), name)) return &e;
  }
  return nullptr;
}

// Problems of `obj` against schema `schema_name`: keys in the schema's order, optional ones
// ("key?") may be absent, no other key; nested objects and arrays of objects checked too.
void check_schema(const ordered_json& obj, const std::string& schema_name, const std::string& where,
                  std::vector<std::string>* problems) {
  const auto& schema = conformance_data()["schemas"][schema_name];
  if (!obj.is_object()) {
    problems->push_back(where + ": not a JSON object");
    return;
  }
  std::vector<std::pair<std::string, bool>> keys;  // name, required
  for (const auto& k : schema["keys"]) {
    std::string s = k.get<std::string>();
    const bool optional = !s.empty() && s.back() == '?';
    if (optional) s.pop_back();
    keys.emplace_back(s, !optional);
  }
  size_t next = 0;
  std::string order;
  for (const auto& [key, value] : obj.items()) order += (order.empty() ? "" : ",") + key;
  for (const auto& [key, value] : obj.items()) {
    size_t at = next;
    while (at < keys.size() && keys[at].first != key) ++at;
    if (at == keys.size()) {
      problems->push_back(where + ": key '" + key + "' unknown or out of order (keys: " + order + ")");
      return;
    }
    for (size_t k = next; k < at; ++k)
      if (keys[k].second) problems->push_back(where + ": required key '" + keys[k].first + "' missing before '" + key + "'");
    next = at + 1;
    if (schema.contains("nested")) {
      const auto& nested = schema["nested"];
      if (nested.contains(key)) check_schema(value, nested[key], where + "." + key, problems);
      if (nested.contains(key + "[]")) {
        if (!value.is_array()) problems->push_back(where + "." + key + ": not an array");
        else
          for (size_t i = 0; i < value.size(); ++i)
            check_schema(value[i], nested[key + "[]"], where + "." + key + "[" + std::to_string(i) + "]", problems);
      }
    }
  }
  for (size_t k = next; k < keys.size(); ++k)
    if (keys[k].second) problems->push_back(where + ": required key '" + keys[k].first + "' missing at the end");
}

std::vector<std::string> json_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);)
    if (!l.empty() && l[0] == '{') lines.push_back(l);
  return lines;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

std::string read_bytes_of(const fs::path& p) {
  std::stringstream s;
  s << std::ifstream(p, std::ios::binary).rdbuf();
  return s.str();
}

// Does `got` hold `want`? Numbers compare as doubles; an object's keys in `want` (a subset)
// must be equal in `got`; arrays element by element.
bool values_equal(const ordered_json& want, const ordered_json& got) {
  if (want.is_number() && got.is_number()) return want.get<double>() == got.get<double>();
  if (want.is_object() && got.is_object()) {
    for (const auto& [k, v] : want.items())
      if (!got.contains(k) || !values_equal(v, got[k])) return false;
    return true;
  }
  if (want.is_array() && got.is_array()) {
    if (want.size() != got.size()) return false;
    for (size_t i = 0; i < want.size(); ++i)
      if (!values_equal(want[i], got[i])) return false;
    return true;
  }
  return want == got;
}

// The usage text an implementation's usage errors end with.
std::string usage_text(const std::string& impl) {
  const auto& d = conformance_data();
  std::string modes = d["usage_modes"]["all"];
  for (const auto& e : d["exceptions"])
    if (e["implementation"] == impl && e.contains("usage_modes")) modes = d["usage_modes"][e["usage_modes"].get<std::string>()];
  return replace_all(d["usage"].get<std::string>(), "{modes}", modes);
}

// Checks one answer against the expectation `want` (a case, or an exception's "instead").
void check_answer(const std::string& impl, const ordered_json& c, const ordered_json& want, const ConformanceAnswer& a,
                  const fs::path& tmp, std::vector<std::string>* problems) {
  const std::string t = tmp.string();
  auto sub = [&](const std::string& s) { return replace_all(s, "{tmp}", t); };
  const int exit = want["exit"];
  if (a.exit != exit)
    problems->push_back("exit code " + std::to_string(a.exit) + ", the contract's " + std::to_string(exit) +
                        " (stderr: " + first_line(a.err) + ")");
  const std::vector<std::string> lines = json_lines(a.out);
  if (lines.empty()) {
    problems->push_back("no JSON line on stdout");
    return;
  }
  ordered_json last;
  try {
    last = ordered_json::parse(lines.back());
  } catch (const std::exception& e) {
    problems->push_back(std::string("last line is not JSON: ") + e.what());
    return;
  }
  if (want.contains("error") || want.contains("error_prefix")) {
    check_schema(last, "error", "error line", problems);
    if (last.value("mode", "") != want["mode"].get<std::string>())
      problems->push_back("error line mode '" + last.value("mode", "") + "', the contract's '" + want["mode"].get<std::string>() + "'");
    const std::string got = last.value("error", "");
    std::string msg;
    if (want.contains("error")) {
      msg = sub(want["error"]) + (want.value("usage", false) ? usage_text(impl) : "");
      if (got != msg) problems->push_back("error '" + got + "', the contract's '" + msg + "'");
    } else {
      msg = sub(want["error_prefix"]);
      if (got.rfind(msg, 0) != 0) problems->push_back("error '" + got + "' does not start with '" + msg + "'");
    }
    if (impl != "fake_backend") {  // in-process: no stderr
      const std::string err = first_line(a.err);
      if (want.contains("error") ? err != "error: " + msg : err.rfind("error: " + msg, 0) != 0)
        problems->push_back("stderr '" + err + "', the contract's 'error: " + msg + "'");
    }
    return;
  }
  const auto& schemas = want["lines"];
  if (lines.size() < schemas.size()) {
    problems->push_back(std::to_string(lines.size()) + " JSON lines, the case wants " + std::to_string(schemas.size()));
    return;
  }
  std::vector<ordered_json> objs;
  for (size_t i = 0; i < schemas.size(); ++i) {
    const ordered_json o = ordered_json::parse(lines[lines.size() - schemas.size() + i]);
    check_schema(o, schemas[i], schemas[i].get<std::string>() + " line", problems);
    objs.push_back(o);
  }
  const bool values = !(declared_exception(impl, c["name"]) && declared_exception(impl, c["name"])->value("no_values", false));
  if (values && want.contains("values"))
    for (const auto& [k, v] : want["values"].items())
      if (!last.contains(k) || !values_equal(v, last[k]))
        problems->push_back("value of '" + k + "': " + (last.contains(k) ? last[k].dump() : "absent") + ", the case's " + v.dump());
  if (want.contains("values_first"))
    for (const auto& [k, v] : want["values_first"].items())
      if (!objs.front().contains(k) || !values_equal(v, objs.front()[k]))
        problems->push_back("first line's '" + k + "': " + (objs.front().contains(k) ? objs.front()[k].dump() : "absent"));
  if (want.contains("serve_error") && last.value("error", "") != want["serve_error"].get<std::string>())
    problems->push_back("serve's error '" + last.value("error", "") + "', the contract's '" + want["serve_error"].get<std::string>() + "'");
  if (want.contains("file_bytes")) {
    const fs::path f = sub(want["file_bytes"]);
    if (!fs::exists(f) || fs::file_size(f) != last.value("bytes", 0ull))
      problems->push_back("the dump file does not hold the line's 'bytes'");
  }
  if (want.contains("digest_of")) {  // the hash of the dumped bytes, by the tool's host digest
    const std::string bytes = read_bytes_of(sub(want["digest_of"]));
    const HostDigest d = digest_bytes(bytes, last.value("chunk_bytes", 1ull));
    if (last.value("hash", "") != d.hash)
      problems->push_back("hash " + last.value("hash", "") + " of the dumped bytes, their digest " + d.hash);
    if (last.value("chunks", 0ull) != d.chunks.size()) problems->push_back("chunk count differs from the digest's");
    if (want.contains("chunks_file")) {
      std::string expect;
      for (const auto x : d.chunks) {
        char b[20];
        std::snprintf(b, sizeof b, "%016llx\n", static_cast<unsigned long long>(x));
        expect += b;
      }
      if (read_bytes_of(sub(want["chunks_file"])) != expect) problems->push_back("the chunks file differs from the chunk digests");
    }
  }
}

class Conformance : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/swz_conformance_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    tmp_ = pattern;
    impls_ = make_conformance_impls(tmp_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(tmp_, ec);
  }
  fs::path case_dir(const std::string& impl, const std::string& name) {
    const fs::path d = tmp_ / impl / name;
    fs::create_directories(d);
    return d;
  }
  fs::path tmp_;
  std::vector<std::unique_ptr<ConformanceImpl>> impls_;
};

std::vector<std::string> case_args(const ordered_json& argv, const fs::path& dir) {
  std::vector<std::string> args;
  for (const auto& a : argv) args.push_back(replace_all(a.get<std::string>(), "{tmp}", dir.string()));
  return args;
}

// Every case against every implementation.
TEST_F(Conformance, EveryCaseAgainstEveryImplementation) {
  int checked = 0, declared = 0;
  for (const auto& impl : impls_) {
    for (const auto& c : conformance_data()["cases"]) {
      const std::string name = c["name"];
      const ordered_json* exc = declared_exception(impl->name(), name);
      if (exc && exc->value("skip", false)) {
        std::cout << "[ declared ] " << impl->name() << " " << name << ": " << (*exc)["what"].get<std::string>() << " — "
                  << (*exc)["reason"].get<std::string>() << "\n";
        ++declared;
        continue;
      }
      const ordered_json& want = exc && exc->contains("instead") ? (*exc)["instead"] : c;
      if (&want != &c) {
        std::cout << "[ declared ] " << impl->name() << " " << name << ": " << (*exc)["what"].get<std::string>()
                  << " (checked as declared)\n";
        ++declared;
      }
      const fs::path dir = case_dir(impl->name(), name);
      ConformanceEnv env;
      if (c.contains("env"))
        for (const auto& [k, v] : c["env"].items()) env.emplace_back(k, v.get<std::string>());
      if (c.contains("files"))
        for (const auto& [f, n] : c["files"].items())
          std::ofstream(replace_all(f, "{tmp}", dir.string()), std::ios::binary) << std::string(n.get<size_t>(), 'x');
      if (c.contains("before"))
        for (const auto& b : c["before"]) {
          const ConformanceAnswer pre = impl->run(case_args(b, dir), env, "", c.value("variant", ""), dir);
          EXPECT_EQ(pre.exit, 0) << impl->name() << " " << name << ": a step before the case failed: " << pre.out << pre.err;
        }
      const ConformanceAnswer a = impl->run(case_args(c["argv"], dir), env, c.value("stdin", ""), c.value("variant", ""), dir);
      std::vector<std::string> problems;
      check_answer(impl->name(), c, want, a, dir, &problems);
      for (const auto& p : problems) ADD_FAILURE() << impl->name() << " " << name << ": " << p;
      ++checked;
    }
  }
  std::cout << checked << " case runs checked, " << declared << " declared exceptions applied\n";
  EXPECT_GT(checked, 100);
}

// The two harnesses run the same program, so beyond keys and codes their lines are the same
// text: default verify sizes, resolved tolerances, number formatting, dumped bytes.
TEST_F(Conformance, TheTwoHarnessesAnswerAlikeByteForByte) {
  const auto& twins = conformance_data()["twins"];
  ConformanceImpl* impl[2] = {nullptr, nullptr};
  for (int k = 0; k < 2; ++k)
    for (const auto& i : impls_)
      if (i->name() == twins["implementations"][k]) impl[k] = i.get();
  ASSERT_TRUE(impl[0] && impl[1]);
  int n = 0;
  for (const auto& argv : twins["argv"]) {
    // ["verify", "wrong"]: verify of the variant whose output is wrong.
    ordered_json args = argv;
    const bool wrong = args.size() == 2 && args[1] == "wrong";
    if (wrong) args.erase(1);
    std::string line[2], dumped[2];
    for (int k = 0; k < 2; ++k) {
      const fs::path dir = case_dir(impl[k]->name(), "twins");  // one per harness: compare reads the dump
      const ConformanceAnswer a =
          impl[k]->run(case_args(args, dir), {}, "", wrong ? "wrong" : "", dir);
      const auto lines = json_lines(a.out);
      ASSERT_FALSE(lines.empty()) << impl[k]->name() << ": " << a.err;
      ordered_json j = ordered_json::parse(lines.back());
      for (const auto& key : twins["drop_keys"][impl[k]->name()]) j.erase(key.get<std::string>());
      line[k] = std::to_string(a.exit) + " " + j.dump();
      if (args[0] == "dump") dumped[k] = read_bytes_of(dir / "out.bin");
    }
    EXPECT_EQ(line[0], line[1]) << "argv " << argv.dump();
    EXPECT_EQ(dumped[0], dumped[1]) << "argv " << argv.dump() << ": the dumped bytes differ";
    ++n;
  }
}

// The digest of the same bytes is the same everywhere: each implementation's hash mode over the
// vectors' bytes (SWZ_FAKE_OUTPUT_FILE makes them the program's output), at its chunk size.
TEST_F(Conformance, DigestVectorsInEveryImplementation) {
  const auto& vectors = conformance_data()["digest_vectors"]["vectors"];
  for (const auto& impl : impls_) {
    const ordered_json* exc = declared_exception(impl->name(), "digest_vectors");
    if (exc && exc->value("skip", false)) {
      std::cout << "[ declared ] " << impl->name() << " digest_vectors: " << (*exc)["reason"].get<std::string>() << "\n";
      continue;
    }
    const unsigned long long chunk = exc ? exc->value("chunk_bytes", 1048576ull) : 1048576ull;
    int n = 0;
    for (const auto& v : vectors) {
      if (v["chunk_bytes"].get<unsigned long long>() != chunk) continue;
      const size_t len = v["length"];
      const fs::path dir = case_dir(impl->name(), "digest_" + std::to_string(len));
      std::string bytes(len, '\0');
      for (size_t i = 0; i < len; ++i) bytes[i] = static_cast<char>((i * 131 + 7) & 0xFF);
      std::ofstream(dir / "bytes.bin", std::ios::binary) << bytes;
      const ConformanceAnswer a = impl->run({"hash"}, {{"SWZ_FAKE_OUTPUT_FILE", (dir / "bytes.bin").string()}}, "", "", dir);
      ASSERT_EQ(a.exit, 0) << impl->name() << " hash of " << len << " bytes: " << a.out << a.err;
      const auto lines = json_lines(a.out);
      ASSERT_FALSE(lines.empty());
      const json line = json::parse(lines.back());
      EXPECT_EQ(line.value("bytes", -1ll), static_cast<long long>(len)) << impl->name();
      EXPECT_EQ(line.value("chunk_bytes", 0ull), chunk) << impl->name();
      EXPECT_EQ(line.value("chunks", -1ll), v["chunks"].get<long long>()) << impl->name() << " " << len << " bytes";
      EXPECT_EQ(line.value("hash", ""), v["digest"].get<std::string>()) << impl->name() << " " << len << " bytes";
      ++n;
    }
    EXPECT_EQ(n, 5) << impl->name();
  }
}

// The tool's own host digest (loop/output_check), which checks the fakes' hashes above and the
// loop's chunk files, against every vector at both chunk sizes.
TEST(ConformanceDigest, ToolHostDigestMatchesTheVectors) {
  for (const auto& v : conformance_data()["digest_vectors"]["vectors"]) {
    const size_t len = v["length"];
    std::string bytes(len, '\0');
    for (size_t i = 0; i < len; ++i) bytes[i] = static_cast<char>((i * 131 + 7) & 0xFF);
    const HostDigest d = digest_bytes(bytes, v["chunk_bytes"].get<unsigned long long>());
    EXPECT_EQ(d.hash, v["digest"].get<std::string>()) << len << " bytes";
    EXPECT_EQ(d.chunks.size(), v["chunks"].get<size_t>()) << len << " bytes";
    if (!d.chunks.empty()) {
      char first[20];
      std::snprintf(first, sizeof first, "%016llx", static_cast<unsigned long long>(d.chunks[0]));
      EXPECT_EQ(first, v["first_chunk"].get<std::string>()) << len << " bytes";
    }
  }
}

// The usage text of cases.json is the one docs/kernel-contract.md gives.
TEST(ConformanceDocs, ContractGivesTheUsageText) {
  const std::string doc = read_bytes_of(kSourceDir / "docs/kernel-contract.md");
  const std::string usage = replace_all(conformance_data()["usage"].get<std::string>(), "{modes}",
                                        conformance_data()["usage_modes"]["all"].get<std::string>());
  EXPECT_NE(doc.find("`" + usage.substr(1) + "`"), std::string::npos) << "docs/kernel-contract.md lacks" << usage;
}

}  // namespace
}  // namespace swz::test
