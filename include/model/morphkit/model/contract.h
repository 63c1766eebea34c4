// SPDX-License-Identifier: MIT
// morphkit/model/contract.h — preconditions that the one trust gate guarantees (docs/ARCHITECTURE.md, "Validate").
// Every Asset that reaches the decoders, the frame step or the renderer has passed validateAsset (the loader runs it;
// make-demo and animate before they write; every test fixture built or edited in code goes through test::validated,
// tests/gltf_test_util.h; makeDemoAsset's output is valid by construction, which tests/demo/demo_test.cpp checks with
// validateAsset and the Khronos validator), so its indices are in range and its counts agree. Code
// downstream states those facts with MORPHKIT_EXPECTS instead of checking them again: a debug build (and so CI,
// whose ASan build is Debug) stops on a violation, naming it, because it is a bug in morphkit or in a caller that
// built an Asset without validating it; a release build compiles the check away.
#pragma once

namespace morphkit {
[[noreturn]] void contractViolated(const char* condition, const char* file, int line);
}  // namespace morphkit

#ifdef NDEBUG
#define MORPHKIT_EXPECTS(condition) static_cast<void>(sizeof(static_cast<bool>(condition)))
#else
#define MORPHKIT_EXPECTS(condition) \
  ((condition) ? static_cast<void>(0) : ::morphkit::contractViolated(#condition, __FILE__, __LINE__))
#endif
