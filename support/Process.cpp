#include "ttlplan/support/Process.h"

#include "ttlplan/support/Deadline.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <iterator>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ttlplan {

namespace {

/// The running child's process group and the signal that interrupted us (for the handler).
volatile sig_atomic_t gChildGroup = 0;
volatile sig_atomic_t gInterruptedBy = 0;

extern "C" void killChildGroup(int signal) {
  gInterruptedBy = signal;
  if (gChildGroup > 0) kill(-gChildGroup, SIGKILL);
}

constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP};

/// While it lives, SIGINT, SIGTERM and SIGHUP kill the child's group (which a terminal's ^C no
/// longer reaches) and are remembered instead of ending us, so the caller can clean up.
class ChildGroupGuard {
public:
  explicit ChildGroupGuard(pid_t group) {
    gInterruptedBy = 0;
    gChildGroup = group;
    struct sigaction action {};
    action.sa_handler = killChildGroup;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < std::size(kForwardedSignals); ++i)
      sigaction(kForwardedSignals[i], &action, &previous_[i]);
  }
  ~ChildGroupGuard() {
    for (size_t i = 0; i < std::size(kForwardedSignals); ++i)
      sigaction(kForwardedSignals[i], &previous_[i], nullptr);
    gChildGroup = 0;
  }

private:
  struct sigaction previous_[std::size(kForwardedSignals)];
};

/// Waits for `pid`; kills its group when `deadline` passes (sets timedOut). The child's status.
int waitFor(pid_t pid, const Deadline& deadline, bool& timedOut) {
  int status = 0;
  while (true) {
    pid_t done = waitpid(pid, &status, deadline.isSet() ? WNOHANG : 0);
    if (done == pid) return status;
    if (done < 0 && errno != EINTR) return status;
    if (done == 0 && deadline.passed() && !timedOut) {
      timedOut = true;
      kill(-pid, SIGKILL);
    }
    if (done == 0) usleep(10000);
  }
}

} // namespace

Expected<ProcessResult> runProcess(const std::vector<std::string>& argv,
                                   const std::vector<std::string>& environment,
                                   double timeLimitSeconds) {
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

  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0); // its own group, numbered by its pid
  Deadline deadline = Deadline::in(timeLimitSeconds);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) {
    close(fd);
    return Error{fmt::format("cannot run {}: {}", argv[0], std::strerror(rc))};
  }
  ProcessResult result;
  int status = 0;
  {
    ChildGroupGuard guard(pid);
    status = waitFor(pid, deadline, result.timedOut);
    result.interruptedBy = gInterruptedBy;
  }
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
