// SPDX-License-Identifier: MIT
#include "output_folder.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <system_error>
#include <vector>

#include "command.h"
#include "morphkit/model/files.h"

namespace morphkit::cli {
namespace {

bool isFrameName(std::string_view name) {
  constexpr std::string_view kPrefix = "frame_", kSuffix = ".png";
  if (name.size() <= kPrefix.size() + kSuffix.size() || !name.starts_with(kPrefix) || !name.ends_with(kSuffix))
    return false;
  const std::string_view digits = name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  return std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// Creates the missing folders above `file`; returns the outermost one it created (empty: none).
Expected<std::filesystem::path> createParentFolders(const std::filesystem::path& file) {
  const std::filesystem::path parent = file.parent_path();
  if (parent.empty()) return std::filesystem::path();
  std::filesystem::path outermost;
  std::error_code ec;
  for (std::filesystem::path p = parent; !p.empty() && !std::filesystem::exists(p, ec); p = p.parent_path()) {
    outermost = p;
    if (p == p.parent_path()) break;
  }
  std::filesystem::create_directories(parent, ec);
  if (ec) return fail(Error::kIo, "cannot create the folder: " + ec.message());
  return outermost;
}

template <typename Bytes>
Expected<bool> writeOutput(const std::filesystem::path& file, Bytes bytes) {
  std::error_code exists_ec;
  const bool existed = std::filesystem::exists(file, exists_ec);
  Expected<std::filesystem::path> created = createParentFolders(file);
  if (!created) return created.error();
  Status written = writeFileAtomic(file, bytes);
  if (written) return existed;
  if (!created->empty()) {
    std::error_code ec;
    std::filesystem::remove_all(*created, ec);
  }
  // writeFileAtomic's message starts with the path, which the CLI's error line already names.
  Failure failure = written.error();
  if (const std::string prefix = file.string() + ": "; failure.message.starts_with(prefix))
    failure.message.erase(0, prefix.size());
  return failure;
}

}  // namespace

Expected<bool> writeOutputFile(const std::filesystem::path& file, std::span<const uint8_t> bytes) {
  return writeOutput(file, bytes);
}
Expected<bool> writeOutputFile(const std::filesystem::path& file, std::string_view text) {
  return writeOutput(file, text);
}
Expected<bool> writeOutputFile(const std::filesystem::path& file, std::span<const std::span<const uint8_t>> parts) {
  return writeOutput(file, parts);
}

int writeReportedOutput(const std::filesystem::path& file, std::span<const uint8_t> bytes) {
  return writeReportedOutput(file, std::span<const std::span<const uint8_t>>(&bytes, 1));
}

int writeReportedOutput(const std::filesystem::path& file, std::span<const std::span<const uint8_t>> parts) {
  size_t total = 0;
  for (std::span<const uint8_t> part : parts) total += part.size();
  if (file.native() == "-") {
    bool ok = true;
    for (std::span<const uint8_t> part : parts)
      ok = ok && std::fwrite(part.data(), 1, part.size(), stdout) == part.size();
    ok = ok && std::fflush(stdout) == 0;
    return ok ? 0 : reportFailure("-", fail(Error::kIo, "cannot write to stdout"));
  }
  Expected<bool> replaced = writeOutputFile(file, parts);
  if (!replaced) return reportFailure(file, replaced.error());
  reportMessage(fmt::format("{} {} ({} bytes)", *replaced ? "replaced" : "wrote", file.string(), total));
  return 0;
}

int writeReportedOutput(const std::filesystem::path& file, std::string_view text) {
  return writeReportedOutput(file,
                             std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

bool hasExtension(const std::filesystem::path& path, std::string_view ext) {
  const std::string actual = path.extension().string();
  if (actual.size() != ext.size()) return false;
  for (size_t i = 0; i < ext.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(actual[i])) != std::tolower(static_cast<unsigned char>(ext[i])))
      return false;
  }
  return true;
}

std::string frameFileName(uint32_t frame) {
  return fmt::format("frame_{:04d}.png", frame);
}

bool isRenderOutputName(std::string_view name) {
  // writeFileAtomic's temporary: "<final name>.tmp-<digits>", left behind only by a killed process.
  if (const size_t tmp = name.rfind(".tmp-"); tmp != std::string_view::npos) {
    const std::string_view digits = name.substr(tmp + 5);
    if (!digits.empty() &&
        std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
      name = name.substr(0, tmp);
    }
  }
  return isFrameName(name) || name == "contact_sheet.png" || name == "animation.mp4";
}

Status prepareOutputFolder(const std::filesystem::path& dir, ExistingOutput policy) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return fail(Error::kIo, "cannot create the folder: " + ec.message());
  std::vector<std::filesystem::path> ours;
  size_t others = 0;
  std::string first_other;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (isRenderOutputName(name) && it->is_regular_file(ec)) {
      ours.push_back(it->path());
    } else {
      if (others++ == 0) first_other = name;
    }
  }
  if (ec) return fail(Error::kIo, "cannot list the folder: " + ec.message());
  switch (policy) {
    case ExistingOutput::kRefuse:
      if (ours.empty() && others == 0) return Ok{};
      return fail(
          Error::kInvalidArgument,
          fmt::format("the output folder is not empty ({} morphkit output(s), {} other file(s){}); use --force to "
                      "replace morphkit's outputs or --resume to render only the missing frames",
                      ours.size(), others, others ? ", e.g. " + first_other : ""));
    case ExistingOutput::kForce:
      for (const auto& path : ours) {
        if (!std::filesystem::remove(path, ec) && ec)
          return fail(Error::kIo, path.filename().string() + ": cannot remove: " + ec.message());
      }
      return Ok{};
    case ExistingOutput::kResume:
      // Everything stays: a frame_N.png present was renamed into place complete (writeFileAtomic), and a
      // ".tmp-N" may belong to another worker writing into the same folder right now.
      return Ok{};
  }
  return Ok{};
}

}  // namespace morphkit::cli
