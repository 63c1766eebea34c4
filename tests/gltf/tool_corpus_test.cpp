// SPDX-License-Identifier: MIT
// The other-tools corpus (issue 46): every shared morph/skin asset written by gltf-transform (draco, meshopt,
// quantize, sparse, dedup, prune) and gltfpack (-c, -cc, -noq, -vpf), made by scripts/make-tool-corpus into the
// build tree once (kept while the script, the pinned tools and the shared files are unchanged). Every file the
// Khronos validator accepts must load, pose on the CPU, and pose as three.js poses it (tools/engines/engine_pose.mjs,
// the same comparison as check_engines_test.cpp: morphkit under the three.js profile) within 1e-5 of the posed
// primitive's bounding-box diagonal, at the rest pose and in every animation. A file the validator rejects must
// still load or fail with one line. The summary (per tool and flag: files, accepted, loaded, worst deviation) is
// printed and written to the corpus folder's summary.tsv.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine_pose_support.h"
#include "gltf_test_util.h"
#include "morphkit/check/check.h"
#include "morphkit/core/animation.h"
#include "morphkit/core/pose.h"

namespace morphkit {
namespace {

namespace fs = std::filesystem;

const fs::path kCompressors = "tools/compressors/node_modules";

bool toolsInstalled() {
  const fs::path root = test::sourceDir();
  return test::validatorAvailable() && fs::exists(root / kCompressors / ".bin/gltf-transform") &&
         fs::exists(root / kCompressors / ".bin/gltfpack") &&
         fs::exists(root / "tools/engines/node_modules/three/package.json");
}

#define REQUIRE_TOOLS()                                                                                         \
  do {                                                                                                          \
    MORPHKIT_REQUIRE_SHARED();                                                                                  \
    if (!toolsInstalled()) {                                                                                    \
      if (test::runningInCi()) FAIL() << "CI=true but the compressors, the validator or three.js are missing";  \
      GTEST_SKIP() << "run scripts/install-compressors, scripts/install-validator and scripts/install-engines"; \
    }                                                                                                           \
  } while (0)

// One line of corpus.tsv (scripts/make-tool-corpus describes the columns).
struct Entry {
  std::string name, source, tool, flag, status;
  int validator_errors = -1;
  std::string first_error, three_file;
  bool accepted() const { return status == "ok" && validator_errors == 0; }
};

// The corpus folder in the build tree (ctest's MORPHKIT_TEST_TMP), made or kept by the script.
fs::path corpusDir() {
  const char* tmp = std::getenv("MORPHKIT_TEST_TMP");
  return fs::path(tmp ? tmp : "/tmp/morphkit-test") / "tool-corpus";
}

std::vector<Entry> makeCorpus(const fs::path& dir) {
  fs::create_directories(dir.parent_path());
  const std::string command = "MORPHKIT_SHARED_DIR='" + fs::absolute(test::sharedDir()).string() + "' '" +
                              (test::sourceDir() / "scripts/make-tool-corpus").string() + "' '" + dir.string() + "'";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::vector<Entry> entries;
  std::ifstream in(dir / "corpus.tsv");
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string field; std::getline(fields, field, '\t');) f.push_back(field);
    if (f.size() != 8) {
      ADD_FAILURE() << "corpus.tsv: " << line;
      continue;
    }
    entries.push_back({f[0], f[1], f[2], f[3], f[4], std::stoi(f[5]), f[6], f[7]});
  }
  return entries;
}

struct Frame {
  uint32_t animation = kNone;  // kNone: the rest pose
  double time = 0.0;
};

// The rest pose and every animation at 37 % of its duration (between keys).
std::vector<Frame> framesOf(const Asset& asset) {
  std::vector<Frame> frames = {Frame{}};
  for (uint32_t a = 0; a < asset.animations.size(); ++a) frames.push_back({a, 0.37 * animationDuration(asset, a)});
  return frames;
}

std::string framesArgument(const std::vector<Frame>& frames) {
  std::string list;
  for (const Frame& f : frames) {
    list += (list.empty() ? "" : ",") +
            (f.animation == kNone ? std::string("rest") : std::to_string(f.animation) + ":" + std::to_string(f.time));
  }
  return list;
}

// morphkit's pose under three.js's profile (check_engines_test.cpp's profilePose).
Expected<PoseResult> threeProfilePose(const Asset& asset, const Frame& frame) {
  bool raw = false;
  const EngineRules rules = engineRules(*findEngineProfile("three"), &raw);
  Asset copy = asset;
  copy.keep_skin_weights = raw;
  Expected<PosePrepared> prepared = preparePose(copy);
  if (!prepared) return prepared.error();
  PoseOptions options;
  options.animation = frame.animation;
  options.time = frame.time;
  options.rules = rules;
  return evaluatePose(*prepared, options);
}

// The worst deviation (relative to the matched primitive's diagonal) of three.js's meshes from morphkit's pose;
// every engine mesh must match a posed primitive of the same vertex count.
double compareFrame(const PoseResult& pose, const std::vector<std::vector<double>>& engine, size_t& meshes) {
  double worst = 0;
  for (const std::vector<double>& mesh : engine) {
    const PosedPrimitive* best = nullptr;
    double best_difference = INFINITY;
    for (const PosedPrimitive& m : pose.meshes) {
      if (m.positions.size() != mesh.size()) continue;
      const double d = test::maxDifference(m.positions, mesh);
      if (d < best_difference) best = &m, best_difference = d;
    }
    if (!best) {
      ADD_FAILURE() << "a three.js mesh of " << mesh.size() / 3 << " vertices matches no posed primitive";
      continue;
    }
    worst = std::max(worst, best_difference / std::max(test::diagonal(best->positions), 1e-12));
    ++meshes;
  }
  return worst;
}

struct Tally {
  size_t files = 0, accepted = 0, loaded = 0;
  double worst = 0;
};

TEST(ToolCorpus, EveryFileTheValidatorAcceptsLoadsAndPosesAsThreeJsDoes) {
  REQUIRE_TOOLS();
  const fs::path dir = corpusDir();
  const std::vector<Entry> entries = makeCorpus(dir);
  ASSERT_FALSE(entries.empty());

  // Load every written file; the accepted ones are posed by three.js below, all engine runs at once.
  std::map<std::string, Asset> loaded;
  std::ofstream jobs(dir / "engine_jobs.txt");
  fs::create_directories(dir / "engine");
  for (const Entry& e : entries) {
    SCOPED_TRACE(e.name + " (" + e.tool + " " + e.flag + " of " + e.source + ")");
    EXPECT_EQ(e.status, "ok") << "the tool failed: " << test::slurp(dir / "logs" / (e.name + ".log"));
    if (e.status != "ok") continue;
    Expected<Asset> asset = loadAsset(dir / (e.name + ".glb"));
    if (!e.accepted()) {  // rejected by the validator: loaded or refused in one line, never a crash
      if (!asset) {
        EXPECT_EQ(asset.error().message.find('\n'), std::string::npos) << asset.error().message;
      }
      continue;
    }
    if (!asset) {
      ADD_FAILURE() << "the validator accepts it, morphkit refuses it: " << asset.error().message;
      continue;
    }
    EXPECT_NE(e.three_file, "-") << "no file for three.js (see logs/" << e.name << ".log)";
    if (e.three_file == "-") continue;
    jobs << (dir / e.three_file).string() << '\t' << framesArgument(framesOf(*asset)) << '\t'
         << (dir / "engine" / (e.name + ".json")).string() << '\n';
    loaded.emplace(e.name, std::move(asset).value());
  }
  jobs.close();
  const std::string engines = "cd '" + dir.string() +
                              "' && tr '\\t' '\\n' < engine_jobs.txt | xargs -d '\\n' -n 3 -P " +
                              "\"$(nproc)\" sh -c 'node \"$0\" three \"$1\" --frames \"$2\" > \"$3\" 2> \"$3.err\"' '" +
                              (test::sourceDir() / "tools/engines/engine_pose.mjs").string() + "'";
  EXPECT_EQ(std::system(engines.c_str()), 0) << engines;

  std::map<std::string, Tally> tallies;  // "tool flag"
  Tally all;
  for (const Entry& e : entries) {
    SCOPED_TRACE(e.name);
    Tally& t = tallies[e.tool + " " + e.flag];
    ++t.files, ++all.files;
    if (!e.accepted()) continue;
    ++t.accepted, ++all.accepted;
    const auto it = loaded.find(e.name);
    if (it == loaded.end()) continue;
    ++t.loaded, ++all.loaded;
    const std::vector<Frame> frames = framesOf(it->second);
    const fs::path json = dir / "engine" / (e.name + ".json");
    const auto engine = test::parseEnginePositions(test::slurp(json));
    ASSERT_EQ(engine.size(), frames.size()) << json << ": " << test::slurp(json.string() + ".err");
    size_t meshes = 0;
    for (size_t f = 0; f < frames.size(); ++f) {
      SCOPED_TRACE("animation " + std::to_string(int(frames[f].animation)) + " t=" + std::to_string(frames[f].time));
      Expected<PoseResult> pose = threeProfilePose(it->second, frames[f]);
      ASSERT_TRUE(pose) << pose.error().message;
      const double worst = compareFrame(*pose, engine[f], meshes);
      EXPECT_LE(worst, 1e-5);
      t.worst = std::max(t.worst, worst);
      all.worst = std::max(all.worst, worst);
    }
    EXPECT_GT(meshes, 0u) << "three.js posed no mesh";
  }

  std::ofstream summary(dir / "summary.tsv");
  summary << "tool\tflag\tfiles\tvalidator_accepted\tloaded\tmax_deviation_vs_three\n";
  std::printf("  %-26s %6s %9s %7s %14s\n", "tool flag", "files", "accepted", "loaded", "worst vs three");
  for (const auto& [variant, t] : tallies) {
    std::printf("  %-26s %6zu %9zu %7zu %14.3g\n", variant.c_str(), t.files, t.accepted, t.loaded, t.worst);
    summary << variant.substr(0, variant.find(' ')) << '\t' << variant.substr(variant.find(' ') + 1) << '\t' << t.files
            << '\t' << t.accepted << '\t' << t.loaded << '\t' << t.worst << '\n';
  }
  std::printf("  %-26s %6zu %9zu %7zu %14.3g\n", "all", all.files, all.accepted, all.loaded, all.worst);
  for (const Entry& e : entries) {
    if (e.status == "ok" && !e.accepted()) {
      std::printf("  rejected by the validator: %s (%s %s of %s): %d errors, first %s\n", e.name.c_str(),
                  e.tool.c_str(), e.flag.c_str(), e.source.c_str(), e.validator_errors, e.first_error.c_str());
    }
  }
  EXPECT_EQ(all.loaded, all.accepted);
  EXPECT_GT(all.accepted, all.files / 2);  // a corpus the validator mostly rejects means a broken tool install
}

}  // namespace
}  // namespace morphkit
