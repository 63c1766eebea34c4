// SPDX-License-Identifier: MIT
// morphkit — command-line entry point. Subcommands live in *_command.cpp and register themselves.
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "command.h"
#include "morphkit/text.h"
#include "morphkit/version.h"

namespace morphkit::cli {

static std::vector<CommandSpec>& registry() {
  static std::vector<CommandSpec> specs;
  return specs;
}

CommandRegistration::CommandRegistration(CommandSpec spec) {
  registry().push_back(std::move(spec));
}

std::string shown(std::string_view text, size_t max_bytes) {
  return printable(text, max_bytes);
}

int reportFailure(const std::filesystem::path& file, const Failure& failure) {
  if (file.empty()) {
    fmt::print(stderr, "morphkit: error: {}\n", shown(failure.message));
  } else {
    fmt::print(stderr, "morphkit: error: {}: {}\n", shown(file.string(), 1024), shown(failure.message));
  }
  return kExitFailure;
}

int reportError(const std::string& message) {
  fmt::print(stderr, "morphkit: error: {}\n", shown(message));
  return kExitFailure;
}

int reportUsage(const std::string& message) {
  fmt::print(stderr, "morphkit: error: {}\n", shown(message));
  return kExitUsage;
}

void reportWarning(const std::string& message) {
  fmt::print(stderr, "morphkit: warning: {}\n", shown(message));
}
void reportNote(const std::string& message) {
  fmt::print(stderr, "morphkit: note: {}\n", shown(message));
}
void reportMessage(const std::string& message) {
  fmt::print(stderr, "morphkit: {}\n", shown(message));
}

Budget BudgetFlags::budget() const {
  Budget b;
  b.max_decoded_bytes = decoded_mb > (UINT64_MAX >> 20) ? UINT64_MAX : decoded_mb << 20;
  b.max_posed_bytes = posed_mb > (UINT64_MAX >> 20) ? UINT64_MAX : posed_mb << 20;
  return b;
}

void addBudgetOptions(CLI::App* sub, BudgetFlags& flags) {
  sub->add_option("--max-decoded-mb", flags.decoded_mb, "budget: MiB of accessor data decoded (docs/SECURITY.md)")
      ->capture_default_str();
  sub->add_option("--max-posed-mb", flags.posed_mb, "budget: MiB of posed data, one pose of every mesh instance")
      ->capture_default_str();
}

void FileAccessFlags::applyTo(LoadOptions& load) const {
  load.allow_external_paths = allow_external_paths;
  load.map_files = !read_files;
}

void addFileAccessOptions(CLI::App* sub, FileAccessFlags& flags, const char* help_prefix) {
  sub->add_flag("--allow-external-paths", flags.allow_external_paths,
                std::string(help_prefix) + "let URIs point outside the file's folder");
  sub->add_flag("--read-files", flags.read_files,
                std::string(help_prefix) +
                    "read .glb/.bin files into memory instead of mapping them (where page faults are slow, or a file "
                    "may change while in use)");
}

bool stderrIsTerminal() {
  return isatty(fileno(stderr)) != 0;
}

ProgressBar::ProgressBar(std::string label, size_t total)
    : label_(std::move(label)), total_(total ? total : 1), active_(stderrIsTerminal()) {}

void ProgressBar::update(size_t done) {
  if (!active_) return;
  int percent = int(100 * std::min(done, total_) / total_);
  if (percent == last_percent_) return;
  last_percent_ = percent;
  int filled = percent * 30 / 100;
  fmt::print(stderr, "\r{} [{:<30}] {:3}% ({}/{})", label_, std::string(size_t(filled), '#'), percent, done, total_);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (!active_) return;
  fmt::print(stderr, "\r\033[K");
  std::fflush(stderr);
  active_ = false;
}

}  // namespace morphkit::cli

namespace {

using morphkit::cli::kExitUsage;
using morphkit::cli::reportUsage;

bool isCommand(const CLI::App& app, std::string_view name) {
  return !app.get_subcommands([name](const CLI::App* sub) { return sub->get_name() == name; }).empty();
}

// CLI11's parse error as the one line every error is (docs/CLI.md): "morphkit: error: <what> (<where --help is>)".
int reportParseError(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  const std::string what = e.what();
  if (argc < 2) return reportUsage("no command given; `morphkit --help` lists the commands");
  // An unknown command: CLI11 reports a required subcommand or an unexpected argument; name the commands.
  const std::string first = argv[1];
  if (!first.starts_with('-')) {
    std::string names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!isCommand(app, first)) return reportUsage("unknown command '" + first + "' (commands: " + names + ")");
    return reportUsage(what + " (`morphkit " + first + " --help` for usage)");
  }
  return reportUsage(what + " (`morphkit --help` for usage)");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace morphkit::cli;
  // The name is fixed: CLI11 would otherwise show argv[0], the binary's full path, in every usage line.
  CLI::App app{"morphkit — glTF 2.0 morph targets and skinning on the GPU (Vulkan) and the CPU", "morphkit"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "morphkit " MORPHKIT_VERSION_STRING);
  int exit_code = 0;
  auto specs = registry();
  std::sort(specs.begin(), specs.end(), [](const CommandSpec& a, const CommandSpec& b) { return a.order < b.order; });
  for (const auto& spec : specs) spec.add(app, exit_code);
  // `morphkit help [COMMAND]` is `morphkit [COMMAND] --help`.
  std::vector<char*> args(argv, argv + argc);
  static char help_flag[] = "--help";
  if (argc >= 2 && std::string_view(argv[1]) == "help") {
    args.erase(args.begin() + 1);
    args.push_back(help_flag);
  }
  if (args.size() >= 2 && !std::string_view(args[1]).starts_with('-')) {
    if (!isCommand(app, args[1]))
      return reportParseError(app, CLI::ExtrasError({args[1]}), int(args.size()), args.data());
  }
  try {
    app.parse(int(args.size()), args.data());
  } catch (const CLI::ParseError& e) {
    // --help / --version are "errors" with code 0; everything else is a usage error (exit 2), one line.
    if (e.get_exit_code() == 0) return app.exit(e);
    return reportParseError(app, e, int(args.size()), args.data());
  } catch (const std::bad_alloc&) {
    // The library reports its own allocation failures as values; this catches the CLI's (output text, PNGs).
    return reportError("out of memory (docs/SECURITY.md: the budgets bound what a file may cost)");
  } catch (const std::length_error&) {
    return reportError("out of memory: a size beyond what can be allocated");
  }
  return exit_code;
}
