// SPDX-License-Identifier: MIT
// `morphkit view` (docs/VIEW.md): the WGSL module in Chromium against the CPU reference, the server's security and a
// screenshot against `morphkit render`, driven by tests/view/check.mjs (headless Chromium, WebGPU on SwiftShader,
// puppeteer-core: scripts/install-fidelity; CI=true: missing fails). One browser for every model; about 40 s on the
// 2-core development machine.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <simdjson.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test_support.h"

namespace morphkit {
namespace {

bool harnessInstalled() {
  const std::filesystem::path modules = test::sourceDir() / "tools/fidelity/node_modules";
  return std::filesystem::exists("/usr/bin/chromium") &&
         std::filesystem::exists(modules / "puppeteer-core/package.json") &&
         std::system("command -v node >/dev/null 2>&1") == 0;
}

// Every shared model with morph targets or a skin (../shared/assets/gltf/MANIFEST.md), once: SimpleSkin's
// glTF-Embedded and skin_morph.gltf are the same models as SimpleSkin.gltf and skin_morph.glb in another container,
// and are left out.
std::vector<std::filesystem::path> morphAndSkinModels() {
  const auto a = test::assetsDir();
  return {a / "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf",
          a / "AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf",
          a / "BlenderIO_01_cs_morph/01_cs_morph.gltf",
          a / "BlenderIO_01_morphed_triangle/01_morphed_triangle.gltf",
          a / "BlenderIO_03_skinned_cylinder/03_skinned_cylinder.gltf",
          a / "Fox/glTF-Binary/Fox.glb",
          a / "MorphPrimitivesTest/glTF-Binary/MorphPrimitivesTest.glb",
          a / "MorphSkinBlob52/MorphSkinBlob52.glb",
          a / "MorphSkinBlob52/MorphSkinBlob52_quantized.glb",
          a / "MorphSkinBlob52/MorphSkinBlob52_sparse.glb",
          a / "RiggedFigure/glTF/RiggedFigure.gltf",
          a / "RiggedSimple/glTF-Binary/RiggedSimple.glb",
          a / "SimpleMorph/glTF/SimpleMorph.gltf",
          a / "SimpleSkin/glTF/SimpleSkin.gltf",
          a / "SkinMorphEdgeCases/skin_morph.glb"};
}

int64_t status(simdjson::dom::element probe) {
  int64_t code = 0;
  return probe["status"].get_int64().get(code) == simdjson::SUCCESS ? code : -1;  // a socket error is a string
}

// Rest, every target alone and 4 times per animation: the vertex path and the compute path's dense f32 and sparse
// layouts within 1e-5 of the diagonal of the CPU reference, dense f16 within that plus f16's own resolution (check.mjs
// fails a pose past its bound; the worst of each is printed).
TEST(View, WebGpuPathsMatchTheCpuReferenceInChromium) {
  MORPHKIT_REQUIRE_SHARED();
  if (!harnessInstalled()) {
    if (test::runningInCi()) FAIL() << "CI=true but chromium, node or tools/fidelity/node_modules is missing";
    GTEST_SKIP() << "run scripts/install-fidelity (chromium, puppeteer-core)";
  }
  const std::filesystem::path dir = test::scratchDir() / "view";
  std::filesystem::create_directories(dir);
  const std::vector<std::filesystem::path> models = morphAndSkinModels();
  std::string list;
  for (const auto& m : models) list += " '" + m.string() + "'";
  const std::string blob = (test::assetsDir() / "MorphSkinBlob52/MorphSkinBlob52.glb").string();
  const std::string capture = (test::sharedDir() / "assets/capture/sample_capture.csv").string();
  const std::string command = "node '" + (test::sourceDir() / "tests/view/check.mjs").string() + "' --morphkit '" +
                              test::cliPath().string() + "' --out '" + dir.string() + "' --screenshot '" + blob +
                              "' --capture '" + blob + ":" + capture + "' --names" + list + " > '" +
                              (dir / "table.md").string() + "' 2> '" + (dir / "log.txt").string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << test::slurp(dir / "log.txt");
  std::printf("%s", test::slurp(dir / "table.md").c_str());

  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.load((dir / "view.json").string()).get(root), simdjson::SUCCESS);
  size_t seen = 0;
  for (simdjson::dom::element model : root["models"].get_array()) {
    const std::string name(std::string_view(model["model"].get_string()));
    EXPECT_EQ(simdjson::dom::array(model["failures"]).size(), 0u)
        << name << ": " << simdjson::to_string(model["failures"]);
    EXPECT_EQ(simdjson::dom::array(model["errors"]).size(), 0u) << name << ": " << simdjson::to_string(model["errors"]);
    EXPECT_GE(int64_t(model["poses"]), 1) << name;
    EXPECT_EQ(int64_t(model["exit"]), 0) << name << ": SIGTERM stops the server cleanly";
    simdjson::dom::object worst = model["worst"];
    EXPECT_TRUE(worst["vertex"].error() == simdjson::SUCCESS) << name;
    EXPECT_TRUE(worst["dense_f32"].error() == simdjson::SUCCESS) << name;
    ++seen;
  }
  EXPECT_EQ(seen, models.size());

  // Security (docs/VIEW.md): only the token's fixed routes answer, only on the loopback.
  simdjson::dom::element security = root["security"];
  EXPECT_EQ(status(security["ok"]), 200);
  for (const char* probe :
       {"wrongToken", "noToken", "root", "dotDot", "encodedDotDot", "sourceFile", "otherFile", "foreignHost", "post"}) {
    EXPECT_EQ(status(security[probe]), 403) << probe;
    EXPECT_EQ(int64_t(security[probe]["bytes"]), 0) << probe;
  }
  for (simdjson::dom::element other : security["interfaces"].get_array()) {
    EXPECT_EQ(status(other), -1) << "the server answered on " << std::string_view(other["address"].get_string());
  }

  // The page's frame against `morphkit render` (lavapipe) of the same pose and camera at 128²: model-pixel masks.
  // Measured 2026-12-06: IoU 0.9941 on MorphSkinBlob52 (animation 0, t = 0), 0.9991 on Fox (rest); the two
  // rasterizers differ only along the silhouette.
  simdjson::dom::element shot = root["screenshot"];
  EXPECT_GE(double(shot["iou"]), 0.98);
  EXPECT_GT(int64_t(shot["morphkitPixels"]), 1000);
  // A draw in flight leaves the last whole frame on the canvas (a canvas cleared by a draw gave IoU 0.39 under load).
  ASSERT_TRUE(shot["midDraw"].is_object()) << "no read landed inside a draw";
  EXPECT_GE(double(shot["midDraw"]["iou"]), 0.98);
  // A slider's input event: the next frame drawn after it shows the new weight.
  EXPECT_GT(int64_t(shot["slider"]["changedPixels"]), 0);

  // check() and setPose() before window.morphkit.ready: they wait for the first frame, then measure as after it.
  ASSERT_TRUE(root["early"].is_array()) << simdjson::to_string(root["early"]);
  size_t early = 0;
  for (simdjson::dom::element r : root["early"].get_array()) {
    const std::string hold(std::string_view(r["hold"].get_string()));
    EXPECT_TRUE(r["error"].is_null()) << hold << ": " << simdjson::to_string(r["error"]);
    EXPECT_EQ(simdjson::dom::array(r["failures"]).size(), 0u) << hold << ": " << simdjson::to_string(r["failures"]);
    EXPECT_GT(int64_t(r["nonZeroWeights"]), 0) << hold;
    EXPECT_EQ(std::string_view(r["setPose"].get_string()), "ok") << hold;
    ++early;
  }
  EXPECT_EQ(early, 2u);

  // One name resolution (--ignore-case, a VRM expression) for the page and the reference, one --weights syntax.
  simdjson::dom::element names = root["names"];
  ASSERT_TRUE(names["error"].error() != simdjson::SUCCESS) << simdjson::to_string(names);
  EXPECT_EQ(simdjson::dom::array(names["shown"]["failures"]).size(), 0u) << simdjson::to_string(names["shown"]);
  EXPECT_GT(int64_t(names["shown"]["nonZeroWeights"]), 1) << "happy's targets and jawOpen on screen";
  EXPECT_EQ(simdjson::dom::array(names["expression"]["failures"]).size(), 0u);
  EXPECT_GT(int64_t(names["expression"]["nonZeroWeights"]), 0);
  EXPECT_EQ(std::string_view(names["stderr"].get_string()), "") << "no warning about the weights";
  for (const char* ok : {"expression", "otherCase", "meshTarget"}) EXPECT_EQ(status(names["query"][ok]), 200) << ok;
  for (const char* bad : {"oldSyntax", "unknown"}) {
    EXPECT_EQ(status(names["query"][bad]), 400) << bad;
    const std::string_view text = names["query"][bad]["text"].get_string();
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  }
  EXPECT_NE(std::string_view(names["query"]["unknown"]["text"].get_string()).find("no target named 'nosuch'"),
            std::string_view::npos);

  // --capture: the Live Link Face CSV on the timeline, at its start, middle and end.
  size_t capture_times = 0;
  for (simdjson::dom::element r : root["capture"]["results"].get_array()) {
    for (const char* path : {"vertex", "dense_f32", "sparse"}) EXPECT_LE(double(r[path]), 1e-5) << path;
    EXPECT_LE(double(r["dense_f16"]), 1e-5 + double(r["f16Bound"]));
    ++capture_times;
  }
  EXPECT_EQ(capture_times, 3u);
}

// Bad input is one error line and a non-zero exit, before any server starts.
TEST(View, RefusesBadInput) {
  const std::string cli = "'" + test::cliPath().string() + "' view ";
  const std::filesystem::path err = test::scratchDir() / "view_err.txt";
  auto run = [&](const std::string& args) {
    const int rc = std::system((cli + args + " --no-open > /dev/null 2> '" + err.string() + "'").c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  };
  EXPECT_EQ(run("'" + (test::scratchDir() / "missing.glb").string() + "'"), 1);
  EXPECT_NE(test::slurp(err).find("missing.glb"), std::string::npos) << test::slurp(err);
  EXPECT_EQ(run("x.glb --port 70000"), 2);
}

// A port already taken is one error line naming it, exit 1, after the file loaded and before anything is served.
TEST(View, APortInUseIsOneErrorLine) {
  MORPHKIT_REQUIRE_SHARED();
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  socklen_t length = sizeof(address);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const int port = ntohs(address.sin_port);
  const std::filesystem::path err = test::scratchDir() / "view_port.txt";
  const std::string command = "'" + test::cliPath().string() + "' view '" +
                              (test::assetsDir() / "SimpleMorph/glTF/SimpleMorph.gltf").string() +
                              "' --no-open --port " + std::to_string(port) + " > /dev/null 2> '" + err.string() + "'";
  const int rc = std::system(command.c_str());
  close(fd);
  EXPECT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 1) << rc;
  const std::string text = test::slurp(err);
  EXPECT_NE(text.find("cannot bind 127.0.0.1:" + std::to_string(port)), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
}

// Without a browser, xdg-open's own lines (one per browser it tried) stay off the terminal: one note under the URL.
// PATH's first xdg-open fails as Debian's does on a machine with none (its lines, then exit 3).
TEST(View, NoBrowserIsOneNote) {
  MORPHKIT_REQUIRE_SHARED();
  const std::filesystem::path dir = test::scratchDir() / "view_no_browser";
  std::filesystem::create_directories(dir);
  {
    std::ofstream script(dir / "xdg-open");
    script << "#!/bin/sh\nfor b in www-browser links2 elinks links lynx w3m; do\n"
              "  echo \"/usr/bin/xdg-open: 882: $b: not found\" >&2\ndone\n"
              "echo \"xdg-open: no method available for opening '$1'\" >&2\nexit 3\n";
  }
  std::filesystem::permissions(dir / "xdg-open", std::filesystem::perms::owner_all);
  int err[2];
  ASSERT_EQ(pipe(err), 0);
  const std::string path = dir.string() + ":" + std::getenv("PATH");
  const std::string cli = test::cliPath().string();
  const std::string model = (test::assetsDir() / "SimpleMorph/glTF/SimpleMorph.gltf").string();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(err[1], 2);
    close(err[0]);
    dup2(open("/dev/null", O_WRONLY), 1);
    setenv("PATH", path.c_str(), 1);
    execl(cli.c_str(), "morphkit", "view", model.c_str(), "--port", "0", nullptr);
    _exit(127);
  }
  close(err[1]);
  FILE* in = fdopen(err[0], "r");
  std::string text;
  char* line = nullptr;
  size_t capacity = 0;
  // Until the note, or xdg-open's last line (before the fix), or the end: no waiting by time.
  while (getline(&line, &capacity, in) > 0) {
    text += line;
    if (text.find("open the URL above") != std::string::npos || text.find("no method available") != std::string::npos)
      break;
  }
  kill(pid, SIGTERM);
  while (getline(&line, &capacity, in) > 0) text += line;
  std::free(line);
  std::fclose(in);
  int rc = 0;
  waitpid(pid, &rc, 0);
  EXPECT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << rc;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  EXPECT_NE(text.find("open the URL above"), std::string::npos) << text;
  EXPECT_EQ(text.find("not found"), std::string::npos) << text;
}

}  // namespace
}  // namespace morphkit
