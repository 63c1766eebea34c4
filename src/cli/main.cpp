// SPDX-License-Identifier: MIT
// morphkit — command-line entry point. Subcommands live in *_command.cpp and register themselves.
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "command.h"
#include "morphkit/model/names.h"
#include "morphkit/model/text.h"
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

OutputFlags& outputFlags() {
  static OutputFlags flags;
  return flags;
}

void reportWarning(const std::string& message) {
  if (!outputFlags().quiet) fmt::print(stderr, "morphkit: warning: {}\n", shown(message));
}
void reportNote(const std::string& message) {
  if (!outputFlags().quiet) fmt::print(stderr, "morphkit: note: {}\n", shown(message));
}
void reportMessage(const std::string& message) {
  if (!outputFlags().quiet) fmt::print(stderr, "morphkit: {}\n", shown(message));
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
    : label_(std::move(label)),
      total_(total ? total : 1),
      active_(stderrIsTerminal() && !outputFlags().quiet && !outputFlags().no_progress) {}

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

constexpr const char* kVersionLine = "morphkit " MORPHKIT_VERSION_STRING;

const CLI::App* findCommand(const CLI::App& app, std::string_view name) {
  auto found = app.get_subcommands([name](const CLI::App* sub) { return sub->get_name() == name; });
  return found.empty() ? nullptr : found.front();
}

std::vector<std::string> commandNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  return names;
}

// Every spelling of the options `app` shows in --help ("--time", "-o"), for "did you mean".
std::vector<std::string> optionNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_group().empty()) continue;  // hidden (deprecated spellings)
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

bool looksNumeric(std::string_view arg) {
  return arg.size() > 1 && arg[0] == '-' && (std::isdigit(static_cast<unsigned char>(arg[1])) || arg[1] == '.');
}

// The first argument that is spelled like an option `app` does not have ("--tim" in `pose f.glb --tim 1`).
std::string firstUnknownOption(const CLI::App& app, const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-' || looksNumeric(arg)) continue;
    const std::string name = arg.starts_with("--") ? arg.substr(0, arg.find('=')) : arg.substr(0, 2);
    if (app.get_option_no_throw(name) == nullptr) return name;
  }
  return {};
}

std::string unknownOption(const CLI::App& app, const std::string& name, const std::string& where) {
  return "unknown option " + morphkit::quote(name) + morphkit::didYouMean(name, optionNames(app)) + " (`morphkit " +
         where + "--help` lists the options)";
}

// CLI11's parse errors as the one line every error is (docs/CLI.md), naming what is wrong and, for a typo, what
// was probably meant: "morphkit: error: pose: unknown option '--tim'; did you mean '--time'? (...)".
int reportParseError(const CLI::App& app, const CLI::ParseError& e, const std::vector<std::string>& args) {
  // The options before the command are morphkit's own (-q, -V ...); the first other argument is the command.
  size_t at = 0;
  while (at < args.size() && args[at].starts_with('-')) {
    const std::string name = args[at].substr(0, args[at].find('='));
    if (app.get_option_no_throw(name) == nullptr) return reportUsage(unknownOption(app, name, ""));
    ++at;
  }
  if (at == args.size()) return reportUsage("no command given; `morphkit --help` lists the commands");
  const std::string& first = args[at];
  const CLI::App* command = findCommand(app, first);
  if (!command) {
    std::string names;
    for (const std::string& name : commandNames(app)) names += (names.empty() ? "" : ", ") + name;
    return reportUsage("unknown command " + morphkit::quote(first) + morphkit::didYouMean(first, commandNames(app)) +
                       " (commands: " + names + ")");
  }
  const std::string help = " (`morphkit " + first + " --help` for usage)";
  // Not e.get_name(): a subcommand's ExtrasError carries the subcommand's name there.
  if (dynamic_cast<const CLI::ExtrasError*>(&e) == nullptr) return reportUsage(first + ": " + e.what() + help);
  const std::vector<std::string> rest(args.begin() + long(at) + 1, args.end());
  if (const std::string option = firstUnknownOption(*command, rest); !option.empty())
    return reportUsage(first + ": " + unknownOption(*command, option, first + " "));
  // Extra positional arguments, in the order given (CLI11 lists them last first).
  const std::vector<std::string> extras = app.remaining(true);  // the command's and any passed up to morphkit
  std::string listed;
  size_t count = 0;
  for (const std::string& arg : rest) {
    if (std::find(extras.begin(), extras.end(), arg) == extras.end()) continue;
    listed += (count++ ? " " : "") + morphkit::quote(arg);
  }
  if (count == 0) return reportUsage(first + ": " + e.what() + help);
  return reportUsage(first + ": unexpected argument" + (count > 1 ? "s " : " ") + listed + help);
}

void addQuietOptions(CLI::App& app) {
  app.add_flag("-q,--quiet", morphkit::cli::outputFlags().quiet,
               "errors only: no warnings, notes, progress or summaries on stderr");
  app.add_flag("--no-progress", morphkit::cli::outputFlags().no_progress, "no progress bar");
}

// -V/--version, -q/--quiet and --no-progress on every command, as on `morphkit` itself (before or after the
// command's name).
void addCommonOptions(CLI::App& app) {
  addQuietOptions(app);
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    sub->set_version_flag("-V,--version", kVersionLine, "print the version and exit");
    addQuietOptions(*sub);
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace morphkit::cli;
  // The name is fixed: CLI11 would otherwise show argv[0], the binary's full path, in every usage line.
  CLI::App app{"morphkit — glTF 2.0 morph targets and skinning on the GPU (Vulkan) and the CPU", "morphkit"};
  app.require_subcommand(1);
  app.set_version_flag("-V,--version", kVersionLine, "print the version and exit");
  int exit_code = 0;
  auto specs = registry();
  std::sort(specs.begin(), specs.end(), [](const CommandSpec& a, const CommandSpec& b) { return a.order < b.order; });
  // Two commands at one position would list in static-initialisation order, which no one chose: refused at once,
  // so every test that runs the tool catches it.
  const auto same = std::adjacent_find(specs.begin(), specs.end(),
                                       [](const CommandSpec& a, const CommandSpec& b) { return a.order == b.order; });
  if (same != specs.end())
    return reportError(fmt::format("internal: two commands registered at order {}", same->order));
  for (const auto& spec : specs) spec.add(app, exit_code);
  addCommonOptions(app);
  // `morphkit help [COMMAND]` is `morphkit [COMMAND] --help`.
  std::vector<char*> args(argv, argv + argc);
  static char help_flag[] = "--help";
  if (argc >= 2 && std::string_view(argv[1]) == "help") {
    args.erase(args.begin() + 1);
    args.push_back(help_flag);
  }
  const std::vector<std::string> given(args.begin() + 1, args.end());
  // An unknown command or top-level option: said before CLI11, which would call it a missing subcommand.
  for (const std::string& arg : given) {
    const bool known = arg.starts_with('-') ? app.get_option_no_throw(arg.substr(0, arg.find('='))) != nullptr
                                            : findCommand(app, arg) != nullptr;
    if (!known) return reportParseError(app, CLI::ExtrasError({arg}), given);
    if (!arg.starts_with('-')) break;  // the command: the rest is its own
  }
  try {
    app.parse(int(args.size()), args.data());
  } catch (const CLI::ParseError& e) {
    // --help / --version are "errors" with code 0; everything else is a usage error (exit 2), one line.
    if (e.get_exit_code() == 0) return app.exit(e);
    return reportParseError(app, e, given);
  } catch (const std::bad_alloc&) {
    // The library reports its own allocation failures as values; this catches the CLI's (output text, PNGs).
    return reportError("out of memory (docs/SECURITY.md: the budgets bound what a file may cost)");
  } catch (const std::length_error&) {
    return reportError("out of memory: a size beyond what can be allocated");
  }
  return exit_code;
}
