// ir_print.h — readable text dumps of IR values and a line diff, so a failed
// round trip shows *where* two IRs part ways instead of "objects differ".
//
//   EXPECT_EQ(ir_diff(print(a), print(b)), "");
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "toolwire/ir/request.h"
#include "toolwire/ir/response.h"
#include "toolwire/ir/stream.h"

namespace toolwire::testing {

std::string print(const ir::Request& r);
std::string print(const ir::Response& r);
std::string print(const ir::StreamEvent& e);
std::string print(const std::vector<ir::StreamEvent>& events);

// "" when equal; else a unified-style diff of the lines ("-" only in a, "+"
// only in b) with a few lines of context, headed by the labels.
std::string ir_diff(const std::string& a, const std::string& b,
                    const std::string& label_a = "expected", const std::string& label_b = "actual");

// For EXPECT_TRUE(same_ir(print(a), print(b), "source", "round trip")) << more;
// the failure message is the diff alone.
inline ::testing::AssertionResult same_ir(const std::string& a, const std::string& b,
                                          const std::string& label_a = "expected",
                                          const std::string& label_b = "actual") {
  std::string d = ir_diff(a, b, label_a, label_b);
  if (d.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "IR differs:\n" << d;
}

}  // namespace toolwire::testing
