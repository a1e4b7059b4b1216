#include "ttlplan/support/Process.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ttlplan {

Expected<ProcessResult> runProcess(const std::vector<std::string>& argv,
                                   const std::vector<std::string>& environment) {
  if (argv.empty()) return Error{"runProcess: no command"};
  // The output goes to an unlinked temporary file: a pipe would need a reader thread to avoid
  // blocking a chatty child.
  char path[] = "/tmp/ttlplan-output-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return Error{fmt::format("cannot create a temporary file: {}", std::strerror(errno))};
  unlink(path);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fd, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);

  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    env.emplace_back(*e);
  env.insert(env.end(), environment.begin(), environment.end());
  std::vector<char*> envp, args;
  for (std::string& e : env)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argvCopy = argv;
  for (std::string& a : argvCopy)
    args.push_back(a.data());
  args.push_back(nullptr);

  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    close(fd);
    return Error{fmt::format("cannot run {}: {}", argv[0], std::strerror(rc))};
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ProcessResult result;
  result.exitCode = WIFEXITED(status)     ? WEXITSTATUS(status)
                    : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                          : 1;
  lseek(fd, 0, SEEK_SET);
  char buffer[65536];
  ssize_t n = 0;
  while ((n = read(fd, buffer, sizeof buffer)) > 0)
    result.output.append(buffer, static_cast<size_t>(n));
  close(fd);
  return result;
}

} // namespace ttlplan
