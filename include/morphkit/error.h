// morphkit/error.h — one error enum and a tiny Expected<T>; no exceptions cross the API.
#pragma once
#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace morphkit {

enum class Error {
  kFileNotFound,         // a file named by the user or by a URI does not exist
  kIo,                   // reading or writing failed
  kInvalidJson,          // the JSON text does not parse
  kInvalidGlb,           // GLB container: magic, version, chunk lengths (glTF 2.0 §4.4)
  kInvalidGltf,          // the JSON parses but breaks a glTF 2.0 rule (the message cites it)
  kUnsupportedExtension, // an `extensionsRequired` entry morphkit does not implement
  kPathEscapesFolder,    // a URI points outside the asset's folder (see LoadOptions)
  kTooLarge,             // a declared size exceeds the bytes actually present or a sane limit
  kInvalidArgument,      // a caller passed something that cannot work (a job's validate() failed)
  kNoDevice,             // no Vulkan device
  kVulkan,               // a Vulkan call failed (the message keeps the VkResult)
  kOutOfMemory,          // host or device memory exhausted
  kDeviceLost,           // VK_ERROR_DEVICE_LOST
};

// A stable lower_snake name for an error code (used in --json output and tests).
const char* errorName(Error error);

// What went wrong: a code and one line "<where>: <what>" (e.g. "accessors[12]: byteOffset ... exceeds bufferView 3").
struct Failure {
  Error code;
  std::string message;
};

// Either a value or a Failure. Minimal by design: check `ok()` (or bool), then use `value()` / `error()`.
template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}
  Expected(Failure failure) : state_(std::move(failure)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { assert(ok()); return std::get<0>(state_); }
  const T& value() const& { assert(ok()); return std::get<0>(state_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Failure& error() const { assert(!ok()); return std::get<1>(state_); }

 private:
  std::variant<T, Failure> state_;
};

// Expected<void>: success or a Failure.
struct Ok {};
using Status = Expected<Ok>;

inline Failure fail(Error code, std::string message) { return Failure{code, std::move(message)}; }

}  // namespace morphkit
