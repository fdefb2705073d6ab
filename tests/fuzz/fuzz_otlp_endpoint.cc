// The OTLP endpoint URL rules (--otlp-endpoint, telemetry.otlp.endpoint) and
// the header check, on any bytes: no crash, and an accepted URL is http(s)
// with the path /v1/traces at its end, no credentials in its authority, no
// query or fragment.
// The first byte splits the input into a header name and value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "toolwire/telemetry/otlp_exporter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  if (auto url = toolwire::telemetry::otlp_traces_url(in); url.ok()) {
    const std::string& u = *url;
    if (u.size() < 10 || u.compare(u.size() - 10, 10, "/v1/traces") != 0) std::abort();
    if (u.find_first_of("?# \r\n") != std::string::npos) std::abort();
    const size_t host = u.find("://");
    if (host == std::string::npos) std::abort();
    const size_t path = u.find('/', host + 3);
    if (u.substr(host + 3, path - host - 3).find('@') != std::string::npos) std::abort();
    if (u.size() < 7 || (u[0] | 0x20) != 'h' || (u[1] | 0x20) != 't' || (u[2] | 0x20) != 't' ||
        (u[3] | 0x20) != 'p')
      std::abort();
  }
  if (!in.empty()) {
    size_t cut = static_cast<unsigned char>(in[0]) % in.size();
    std::string_view name = in.substr(1, cut), value = in.substr(1 + cut);  // cut < size
    if (toolwire::telemetry::otlp_header_problem(name, value).empty() &&
        value.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos)
      std::abort();
  }
  return 0;
}
