#include "support/cli_process.h"

#include <fcntl.h>
#include <spawn.h>

#include <nlohmann/json.hpp>

extern char** environ;

namespace swz::test {

pid_t spawn_cli(const std::vector<std::string>& args, const fs::path& cwd, const std::vector<std::string>& env) {
  std::vector<std::string> full{binary_path().string()};
  full.insert(full.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : full) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> envs;
  for (char** e = environ; *e; ++e) envs.emplace_back(*e);
  envs.insert(envs.end(), env.begin(), env.end());
  std::vector<char*> envp;
  for (auto& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data()) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

int attempts_recorded(const fs::path& history) {
  std::error_code ec;
  if (!fs::exists(history, ec)) return 0;
  auto j = nlohmann::json::parse(read_text(history), nullptr, false);
  return j.is_discarded() || !j.contains("attempts") ? 0 : static_cast<int>(j["attempts"].size());
}

}  // namespace swz::test
