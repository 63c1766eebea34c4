// SPDX-License-Identifier: MIT
// Shared by the extension's source files (src/python): Failure → Python exception, and the batch bindings.
#pragma once
#include <pybind11/pybind11.h>

#include <string>

#include "morphkit/error.h"

namespace morphkit::python {

// Throws a C++ exception that the module's translator turns into the morphkit.Error subclass for the code,
// with "<where>: <message>" (or the message alone) as its text.
[[noreturn]] void raise(const Failure& failure, const std::string& where = {});
template <class T>
T take(Expected<T>&& value, const std::string& where = {}) {
  if (!value) raise(value.error(), where);
  return std::move(*value);
}

void addBatchBindings(pybind11::module_& m);

}  // namespace morphkit::python
