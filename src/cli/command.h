// SPDX-License-Identifier: MIT
// The CLI's plumbing: self-registering subcommands, the error line format, exit codes.
#pragma once
#include <CLI/CLI.hpp>
#include <filesystem>
#include <functional>
#include <string>

#include "morphkit/gltf/gltf.h"
#include "morphkit/model/budget.h"
#include "morphkit/model/error.h"
#include "morphkit/model/text.h"

namespace morphkit::cli {

// Exit codes (docs/CLI.md): 0 success; 1 a bad input or a failed operation (a file, its content, or an option
// naming something the file lacks); 2 a usage error: the command line is wrong whatever the files hold (CLI11's
// parse errors, a malformed or out-of-range option value, options that contradict each other).
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// Each command file registers itself with a static CommandRegistration; main() builds them in `order`.
struct CommandSpec {
  int order;                                               // position in --help, one per command (main.cpp)
  std::function<void(CLI::App& app, int& exit_code)> add;  // adds the subcommand; its callback sets exit_code
};
struct CommandRegistration {
  explicit CommandRegistration(CommandSpec spec);
};

// Every line the CLI prints about an input holds text from outside (file names, names and URIs from the file,
// messages quoting them): it goes through shown() (morphkit/model/text.h: controls escaped, one line, cut to a sane
// length with the total size). The sinks below apply it to the whole line, so no caller can forget.
inline constexpr size_t kLineMaxBytes = 4096;
std::string shown(std::string_view text, size_t max_bytes = kLineMaxBytes);

// Prints "morphkit: error: FILE: <message>" (or without FILE when empty) and returns kExitFailure.
int reportFailure(const std::filesystem::path& file, const Failure& failure);
int reportError(const std::string& message);  // "morphkit: error: <message>", returns kExitFailure
// The same line for a usage error (the command line is wrong whatever the files hold), returns kExitUsage.
int reportUsage(const std::string& message);
// "morphkit: warning: <message>" / "morphkit: note: <message>" / "morphkit: <message>" on stderr, escaped.
void reportWarning(const std::string& message);
void reportNote(const std::string& message);
void reportMessage(const std::string& message);

// --max-decoded-mb / --max-posed-mb on every command that loads a glTF file (morphkit/model/budget.h).
struct BudgetFlags {
  uint64_t decoded_mb = Budget{}.max_decoded_bytes >> 20;
  uint64_t posed_mb = Budget{}.max_posed_bytes >> 20;
  Budget budget() const;
};
void addBudgetOptions(CLI::App* sub, BudgetFlags& flags);

// --allow-external-paths / --read-files on every command that loads a glTF file (docs/CLI.md).
struct FileAccessFlags {
  bool allow_external_paths = false;
  bool read_files = false;  // LoadOptions::map_files = false
  void applyTo(LoadOptions& load) const;
};
// `help_prefix` starts each flag's help ("FILE: " where only one mode of the command loads a file).
void addFileAccessOptions(CLI::App* sub, FileAccessFlags& flags, const char* help_prefix = "");

// -q/--quiet and --no-progress, which main() adds to every command (docs/CLI.md, "Conventions"). Quiet: errors
// only on stderr (no warnings, notes, progress or "wrote"/"replaced" summaries); what a command was asked to
// print on stdout (a table, --json, a pose summary) still comes.
struct OutputFlags {
  bool quiet = false;
  bool no_progress = false;
};
OutputFlags& outputFlags();

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
