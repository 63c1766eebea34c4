// SPDX-License-Identifier: MIT
// The CLI's plumbing: self-registering subcommands, the error line format, exit codes.
#pragma once
#include <CLI/CLI.hpp>

#include <filesystem>
#include <functional>
#include <string>

#include "morphkit/error.h"

namespace morphkit::cli {

// Exit codes: 0 success, 1 invalid input or failed operation, 2 usage error (CLI11's parse errors).
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// Each command file registers itself with a static CommandRegistration; main() builds them in `order`.
struct CommandSpec {
  int order;  // position in --help
  std::function<void(CLI::App& app, int& exit_code)> add;  // adds the subcommand; its callback sets exit_code
};
struct CommandRegistration {
  explicit CommandRegistration(CommandSpec spec);
};

// Prints "morphkit: error: FILE: <message>" (or without FILE when empty) and returns kExitFailure.
int reportFailure(const std::filesystem::path& file, const Failure& failure);
int reportError(const std::string& message);  // "morphkit: error: <message>", returns kExitFailure

// True when stderr is a terminal: progress bars only then.
bool stderrIsTerminal();

// A one-line progress bar on stderr, drawn only on a terminal; finish() clears it.
class ProgressBar {
 public:
  ProgressBar(std::string label, size_t total);
  void update(size_t done);
  void finish();
  ~ProgressBar() { finish(); }

 private:
  std::string label_;
  size_t total_;
  bool active_;
  int last_percent_ = -1;
};

}  // namespace morphkit::cli
