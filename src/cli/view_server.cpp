// SPDX-License-Identifier: MIT
// `morphkit view`'s HTTP server: a fixed route table behind a token, on the loopback only.
#include "view_server.h"

#include <fmt/core.h>

#include <cmath>
#include <random>
#include <string_view>
#include <vector>

#if HAVE_httplib
#include <httplib.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "morphkit/model/text.h"
#include "morphkit_web/web_files.h"
#include "weight_options.h"
#endif

namespace morphkit::cli {

std::string newViewToken() {
  std::random_device random;
  std::string token;
  for (int i = 0; i < 4; ++i) token += fmt::format("{:08x}", uint32_t(random()));
  return token;
}

#if HAVE_httplib
namespace {

constexpr const char* kLoopback = "127.0.0.1";

// Compares every byte whatever the first difference, so the time taken says nothing about the token.
bool sameToken(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= unsigned(uint8_t(a[i]) ^ uint8_t(b[i]));
  return diff == 0;
}

const char* webFile(std::string_view name, std::string& type) {
  for (const auto& file : web::kIncludeFiles) {
    if (name != file.name) continue;
    const std::string_view n(file.name);
    type = n.ends_with(".html") ? "text/html; charset=utf-8"
           : n.ends_with(".js") ? "text/javascript; charset=utf-8"
                                : "text/plain; charset=utf-8";
    return file.text;
  }
  return nullptr;
}

// /frame?anim=N&time=S&capture=1&reference=1&w=NAME=VALUE...: each w item in --weights's syntax, read by its parser
// (names, VRM expressions, N=V and M:N=V, with the command's --ignore-case); a 400 with one line for a malformed
// parameter or an unknown name.
void serveFrame(const ViewContent& content, const httplib::Request& req, httplib::Response& res) {
  auto bad = [&res](const std::string& message) {
    res.status = 400;
    res.set_content(message + "\n", "text/plain; charset=utf-8");
  };
  FrameRequest request;
  double number = 0;
  if (req.has_param("anim")) {
    const std::string anim = req.get_param_value("anim");
    if (anim != "rest") {
      if (!parseFiniteDouble(anim, number) || number < 0 || number != std::floor(number) ||
          number >= double(content.prepared->animations.size()))
        return bad("anim=" + anim + ": not an animation index");
      request.animation = uint32_t(number);
    }
  }
  if (req.has_param("time")) {
    if (!parseFiniteDouble(req.get_param_value("time"), request.time)) return bad("time: not a number of seconds");
  }
  std::vector<WeightOverride> overrides;
  for (size_t i = 0; i < req.get_param_value_count("w"); ++i) {
    const std::string item = req.get_param_value("w", i);
    std::string why;
    if (!parseWeightItem(*content.asset, item, content.match, overrides.emplace_back(), why))
      return bad("w=" + item + ": " + why);
  }
  Expected<std::vector<WeightOverride>> expanded =
      applyExpressions(*content.asset, std::move(overrides), content.match);
  if (!expanded) return bad(expanded.error().message);
  request.weights.overrides = *expanded;
  request.weights.match = content.match;
  if (req.get_param_value("capture") == "1") {
    if (!content.capture) return bad("capture=1: no --capture was given");
    request.weights.track = content.capture;
  }
  Expected<std::vector<uint8_t>> frame =
      buildViewFrame(*content.prepared, request, req.get_param_value("reference") == "1");
  if (!frame) return bad(frame.error().message);
  res.set_content(reinterpret_cast<const char*>(frame->data()), frame->size(), "application/octet-stream");
}

void serveBlob(const std::vector<uint8_t>& blob, httplib::Response& res) {
  if (blob.empty()) {  // httplib never ends a response whose provider has nothing to give
    res.set_content("", "application/octet-stream");
    return;
  }
  // The blob lives as long as the server: stream it from where it is instead of copying it into the response.
  res.set_content_provider(blob.size(), "application/octet-stream",
                           [&blob](size_t offset, size_t length, httplib::DataSink& sink) {
                             sink.write(reinterpret_cast<const char*>(blob.data()) + offset, length);
                             return true;
                           });
}

// Everything is decided here, before httplib's router: the router is left empty, so nothing else can answer.
httplib::Server::HandlerResponse route(const ViewContent& content, const std::string& token, int port,
                                       const httplib::Request& req, httplib::Response& res) {
  res.status = 403;
  res.set_header("Cache-Control", "no-store");
  res.set_header("Referrer-Policy", "no-referrer");  // the token is in every URL
  res.set_header("X-Content-Type-Options", "nosniff");
  const std::string host = req.get_header_value("Host");
  const bool local_host = host == fmt::format("127.0.0.1:{}", port) || host == fmt::format("localhost:{}", port);
  // A DNS-rebinding page would send its own Host; a client elsewhere cannot reach a loopback socket, checked anyway.
  if (req.method != "GET" || req.remote_addr != kLoopback || !local_host)
    return httplib::Server::HandlerResponse::Handled;
  const std::string_view path(req.path);
  const std::string prefix = "/" + token + "/";
  if (path.size() < prefix.size() || !sameToken(path.substr(0, prefix.size()), prefix))
    return httplib::Server::HandlerResponse::Handled;
  const std::string_view route = path.substr(prefix.size());
  res.status = 200;
  std::string type;
  if (route.empty()) {
    res.set_content(webFile("view.html", type), type);
  } else if (const char* text = webFile(route, type)) {
    res.set_content(text, type);
  } else if (route == "meta") {
    res.set_content(content.payload.meta_json, "application/json");
  } else if (route == "blob/0" || route == "blob/1") {
    serveBlob(content.payload.blobs[route.back() - '0'], res);
  } else if (route == "frame") {
    serveFrame(content, req, res);
  } else {
    res.status = 403;
  }
  return httplib::Server::HandlerResponse::Handled;
}

}  // namespace

Status serveView(const ViewContent& content, const std::string& token, int port,
                 const std::function<void(int)>& listening) {
  // SIGINT/SIGTERM go to the sigwait below, never to httplib's threads (which inherit this mask).
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  httplib::Server server;
  int bound_port = port;
  server.set_pre_routing_handler(
      [&](const httplib::Request& req, httplib::Response& res) { return route(content, token, bound_port, req, res); });
  // An idle browser connection holds a worker until this runs out, and stop() waits for it (5 s by default).
  server.set_keep_alive_timeout(1);
  server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.status != 400) res.body.clear();  // a 400 keeps its one line; nothing else says anything
  });
  if (port == 0) {
    bound_port = server.bind_to_any_port(kLoopback);
    if (bound_port < 0) return fail(Error::kIo, "view: cannot bind 127.0.0.1 to any port");
  } else if (!server.bind_to_port(kLoopback, port)) {
    return fail(Error::kIo, fmt::format("view: cannot bind 127.0.0.1:{} (in use? --port 0 takes any free port)", port));
  }
  std::atomic<bool> ended = false;
  std::thread serving([&server, &ended] {
    server.listen_after_bind();
    ended = true;
  });
  // stop() does nothing before the loop runs: a signal right after the URL would otherwise be lost.
  while (!server.is_running() && !ended) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (ended) {
    serving.join();
    return fail(Error::kIo, "view: the server on 127.0.0.1 did not start");
  }
  listening(bound_port);
  int signal = 0;
  sigwait(&stop_signals, &signal);
  server.stop();
  serving.join();
  return Ok{};
}

#else
Status serveView(const ViewContent&, const std::string&, int, const std::function<void(int)>&) {
  return fail(Error::kInvalidArgument, "view: this morphkit was built without cpp-httplib (Debian libcpp-httplib-dev)");
}
#endif

}  // namespace morphkit::cli
