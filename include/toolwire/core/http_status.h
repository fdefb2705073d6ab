// toolwire/core/http_status.h — ErrorCode <-> HTTP status, the convention
// every layer shares: codecs write a dialect's error with it, providers read
// an upstream's status with it, the gateway answers with it.
#pragma once

#include "toolwire/core/result.h"

namespace toolwire {

// The HTTP status that conventionally carries `code`.
int http_status_for(ErrorCode code);
// The ErrorCode conventionally meant by an HTTP status.
ErrorCode error_code_for_http_status(int status);

}  // namespace toolwire
