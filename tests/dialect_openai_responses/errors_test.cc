// openai_responses errors: {"error":{message,type,param,code}} both ways, HTTP statuses.
#include <gtest/gtest.h>

#include "test_util.h"

namespace toolwire::dialects::openai_responses_test {
namespace {

using nlohmann::json;

TEST(ResponsesErrors, EncodeGivesTheOpenAIShapeAndStatus) {
  struct Case {
    ErrorCode code;
    int status;
    const char* type;
  };
  const Case cases[] = {{ErrorCode::invalid_argument, 400, "invalid_request_error"},
                        {ErrorCode::unauthenticated, 401, "authentication_error"},
                        {ErrorCode::permission_denied, 403, "permission_error"},
                        {ErrorCode::not_found, 404, "not_found_error"},
                        {ErrorCode::resource_exhausted, 429, "rate_limit_error"},
                        {ErrorCode::unavailable, 503, "service_unavailable"},
                        {ErrorCode::internal, 500, "server_error"}};
  for (const auto& c : cases) {
    WireError e = responses().encode_error(make_error(c.code, "bad thing", "$.input[2].call_id"));
    EXPECT_EQ(e.http_status, c.status);
    json body = json::parse(e.body);
    EXPECT_EQ(body["error"]["type"], c.type);
    EXPECT_EQ(body["error"]["param"], "$.input[2].call_id");
    EXPECT_NE(body["error"]["message"].get<std::string>().find("bad thing"), std::string::npos);
    EXPECT_TRUE(body["error"].contains("code"));
  }
  json unauth =
      json::parse(responses().encode_error(make_error(ErrorCode::unauthenticated, "k")).body);
  EXPECT_EQ(unauth["error"]["code"], "invalid_api_key");
  EXPECT_TRUE(unauth["error"]["param"].is_null());
}

TEST(ResponsesErrors, DecodeReadsTheShapeOrKeepsTheText) {
  Error e = responses().decode_error(
      404, R"({"error":{"message":"Previous response with id 'resp_x' not found.",
               "type":"invalid_request_error","param":"previous_response_id",
               "code":"previous_response_not_found"}})");
  EXPECT_EQ(e.code, ErrorCode::not_found);
  EXPECT_EQ(e.message, "Previous response with id 'resp_x' not found.");
  EXPECT_EQ(e.path, "previous_response_id");
  EXPECT_EQ(responses().decode_error(429, R"({"error":"slow"})").message, "slow");
  Error text = responses().decode_error(502, "<html>bad gateway</html>");
  EXPECT_EQ(text.code, ErrorCode::unavailable);
  EXPECT_EQ(text.message, "<html>bad gateway</html>");
  // Our own error body round-trips to the same message and path.
  Error own = make_error(ErrorCode::invalid_argument, "missing call_id", "$.input[0].call_id");
  Error back = responses().decode_error(400, responses().encode_error(own).body);
  EXPECT_EQ(back.message, "missing call_id");
  EXPECT_EQ(back.path, "$.input[0].call_id");
  EXPECT_EQ(back.code, ErrorCode::invalid_argument);
}

}  // namespace
}  // namespace toolwire::dialects::openai_responses_test
