// The small core helpers every layer shares: is_valid_json and the
// ErrorCode <-> HTTP status convention.
#include <gtest/gtest.h>

#include "toolwire/core/http_status.h"
#include "toolwire/core/json_valid.h"
#include "toolwire/dialects/codec.h"

namespace toolwire {
namespace {

TEST(IsValidJson, AcceptsOneValueAndRejectsTheRest) {
  EXPECT_TRUE(is_valid_json(R"({"city":"Paris","n":[1,2.5,null,true]})"));
  EXPECT_TRUE(is_valid_json(" \n[] \t"));
  EXPECT_TRUE(is_valid_json("\"text\""));
  EXPECT_FALSE(is_valid_json(""));
  EXPECT_FALSE(is_valid_json(R"({"city":"Paris")"));  // truncated
  EXPECT_FALSE(is_valid_json(R"({"a":1} {"b":2})"));  // two values
  EXPECT_FALSE(is_valid_json("{'a':1}"));
  EXPECT_FALSE(is_valid_json(std::string_view("\"\xff\"", 3)));  // invalid UTF-8
}

TEST(HttpStatus, EveryCodeRoundTripsThroughItsStatus) {
  for (ErrorCode code :
       {ErrorCode::invalid_argument, ErrorCode::not_found, ErrorCode::permission_denied,
        ErrorCode::unauthenticated, ErrorCode::resource_exhausted, ErrorCode::deadline_exceeded,
        ErrorCode::unavailable, ErrorCode::unimplemented, ErrorCode::internal}) {
    EXPECT_EQ(error_code_for_http_status(http_status_for(code)), code) << to_string(code);
  }
  // Codes that share a status come back as the status's usual meaning.
  EXPECT_EQ(http_status_for(ErrorCode::parse_error), 400);
  EXPECT_EQ(http_status_for(ErrorCode::failed_precondition), 400);
  EXPECT_EQ(http_status_for(ErrorCode::cancelled), 499);
}

TEST(HttpStatus, UpstreamStatusesMapToTheirMeaning) {
  EXPECT_EQ(error_code_for_http_status(422), ErrorCode::invalid_argument);
  EXPECT_EQ(error_code_for_http_status(408), ErrorCode::deadline_exceeded);
  EXPECT_EQ(error_code_for_http_status(409), ErrorCode::failed_precondition);
  EXPECT_EQ(error_code_for_http_status(413), ErrorCode::resource_exhausted);
  EXPECT_EQ(error_code_for_http_status(529), ErrorCode::unavailable);  // Anthropic overloaded
  EXPECT_EQ(error_code_for_http_status(418), ErrorCode::invalid_argument);
  EXPECT_EQ(error_code_for_http_status(599), ErrorCode::internal);
}

TEST(HttpStatus, CodecNamesStillWork) {
  EXPECT_EQ(http_status_for(ErrorCode::resource_exhausted), 429);
  EXPECT_EQ(error_code_for_http_status(401), ErrorCode::unauthenticated);
}

}  // namespace
}  // namespace toolwire
