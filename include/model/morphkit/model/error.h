// SPDX-License-Identifier: MIT
// morphkit/model/error.h — one error enum and a tiny Expected<T>; no exceptions cross the API.
#pragma once
#include <cassert>  // kept: files that include error.h use assert()
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace morphkit {

enum class Error {
  kFileNotFound,          // a file named by the user or by a URI does not exist
  kIo,                    // reading or writing failed
  kInvalidJson,           // the JSON text does not parse
  kInvalidCsv,            // a CSV file (face capture) breaks its layout: ragged row, bad number or timecode
  kInvalidGlb,            // GLB container: magic, version, chunk lengths (glTF 2.0 §4.4)
  kInvalidGltf,           // the JSON parses but breaks a glTF 2.0 rule (the message cites it)
  kUnsupportedExtension,  // an `extensionsRequired` entry morphkit does not implement
  kPathEscapesFolder,     // a URI points outside the asset's folder (see LoadOptions)
  kTooLarge,              // a declared size exceeds the bytes actually present or a sane limit
  kInvalidArgument,       // a caller passed something that cannot work (a job's validate() failed)
  kNoDevice,              // no Vulkan device
  kVulkan,                // a Vulkan call failed (the message keeps the VkResult)
  kOutOfMemory,           // host or device memory exhausted
  kDeviceLost,            // VK_ERROR_DEVICE_LOST
};

// A stable lower_snake name for an error code (used in --json output and tests).
const char* errorName(Error error);

// What went wrong: a code and one line "<where>: <what>" (e.g. "accessors[12]: byteOffset ... exceeds bufferView 3").
struct Failure {
  Error code;
  std::string message;
};

// Called by Expected::value() on an error (and error() on a value): prints
// "morphkit: fatal: value() on an error: <name>: <message>" to stderr and calls std::abort(). In every build
// type: a misuse never becomes an exception (std::bad_variant_access) or undefined behaviour.
[[noreturn]] void terminateOnMisuse(const Failure* failure) noexcept;

// Either a value or a Failure. Minimal by design: check `ok()` (or bool), then use `value()` / `error()`.
// value() on an error, or error() on a value, terminates with the message (terminateOnMisuse); it never throws.
template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}
  Expected(Failure failure) : state_(std::move(failure)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return *checkedValue(); }
  const T& value() const& { return *checkedValue(); }
  T&& value() && { return std::move(*checkedValue()); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Failure& error() const {
    if (const Failure* failure = std::get_if<1>(&state_)) return *failure;
    terminateOnMisuse(nullptr);
  }

 private:
  // get_if, not get: std::get would throw std::bad_variant_access.
  T* checkedValue() {
    if (T* v = std::get_if<0>(&state_)) return v;
    terminateOnMisuse(std::get_if<1>(&state_));
  }
  const T* checkedValue() const {
    if (const T* v = std::get_if<0>(&state_)) return v;
    terminateOnMisuse(std::get_if<1>(&state_));
  }

  std::variant<T, Failure> state_;
};

// Expected<void>: success or a Failure.
struct Ok {};
using Status = Expected<Ok>;

inline Failure fail(Error code, std::string message) {
  return Failure{code, std::move(message)};
}

// Runs `body` (returning an Expected or a Status) and turns a failed allocation (std::bad_alloc, or the
// std::length_error of an absurd size) into a kOutOfMemory Failure "<what>: out of memory". The API's entry
// points that allocate in proportion to a file wrap their work in it: no exception ever leaves the library.
template <class Body>
auto catchOutOfMemory(std::string_view what, Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(Error::kOutOfMemory, std::string(what) + ": out of memory");
  } catch (const std::length_error&) {
    return fail(Error::kOutOfMemory, std::string(what) + ": out of memory (a size beyond what can be allocated)");
  }
}

}  // namespace morphkit
