// Where a test finds the toolwire binary, the test data and the source tree.
//
// The values live in a file the build generates (build/tests/test_paths.cc),
// not on the compile lines: a compile line with an absolute path differs per
// checkout, and ccache could not reuse a test's object in CI's fresh clone.
// Every test target gets this header by -include (tests/CMakeLists.txt).
#pragma once

namespace toolwire_test_paths {
const char* binary();  // the toolwire executable
const char* data();    // tests/data
const char* source();  // the source tree's root
}  // namespace toolwire_test_paths

#define TOOLWIRE_BINARY (::toolwire_test_paths::binary())
#define TOOLWIRE_TEST_DATA (::toolwire_test_paths::data())
#define TOOLWIRE_SOURCE_DIR (::toolwire_test_paths::source())
