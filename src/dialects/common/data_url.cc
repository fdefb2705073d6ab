#include "dialects/common/data_url.h"

namespace toolwire::dialects {

bool split_data_url(std::string_view url, std::string_view& media, std::string_view& data) {
  if (!url.starts_with("data:")) return false;
  const size_t comma = url.find(',');
  if (comma == std::string_view::npos) return false;
  std::string_view head = url.substr(5, comma - 5);
  constexpr std::string_view kB64 = ";base64";
  if (!head.ends_with(kB64)) return false;
  media = head.substr(0, head.size() - kB64.size());
  data = url.substr(comma + 1);
  return true;
}

std::string make_data_url(std::string_view media, std::string_view data) {
  std::string url;
  url.reserve(media.size() + data.size() + 13);
  url.append("data:").append(media).append(";base64,").append(data);
  return url;
}

}  // namespace toolwire::dialects
