#include "child_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace llama::cli {

namespace {
namespace fs = std::filesystem;

std::string readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}
}  // namespace

ProcessResult runProcess(const std::vector<std::string>& args) {
    const fs::path stem = fs::temp_directory_path() / fmt::format("llama_walkthrough_child_{}", getpid());
    const std::string outPath = stem.string() + ".out", errPath = stem.string() + ".err";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    int status = 0;
    if (rc == 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    ProcessResult result{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), readFile(outPath), readFile(errPath)};
    fs::remove(outPath);
    fs::remove(errPath);
    if (rc != 0) throw std::runtime_error(fmt::format("cannot start '{}': {}", args[0], std::strerror(rc)));
    return result;
}

std::string lastLines(const std::string& text, size_t count) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    size_t first = lines.size() > count ? lines.size() - count : 0;
    std::string out;
    for (size_t i = first; i < lines.size(); ++i) out += "  | " + lines[i] + "\n";
    return out.empty() ? "  (stderr was empty)\n" : out;
}

}  // namespace llama::cli
