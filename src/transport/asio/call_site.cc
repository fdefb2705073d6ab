#include "transport/asio/call_site.h"

#include <array>
#include <cstdint>
#include <typeinfo>

namespace toolwire::transport::asio_detail {

namespace asio = boost::asio;

Serial serial_for(asio::io_context& ioc, const asio::any_io_executor& ex, bool one_thread) {
  // target<T>() does not check the type in every Boost (1.74 casts blindly):
  // compare the type first.
  if (ex && ex.target_type() == typeid(Strand)) {
    const Strand& s = *ex.target<Strand>();
    return {s, &s.get_inner_executor().context()};
  }
  asio::io_context* ctx = &ioc;
  if (ex && ex.target_type() == typeid(PlainExecutor)) ctx = &ex.target<PlainExecutor>()->context();
  if (one_thread) return {ctx->get_executor(), ctx};
  return {asio::make_strand(*ctx), ctx};
}

Result<std::shared_ptr<const Upstream>> upstream_for(std::string_view url,
                                                     const asio::io_context& ctx) {
  struct Entry {
    std::string url;
    const asio::io_context* ctx = nullptr;
    std::shared_ptr<const Upstream> upstream;
  };
  thread_local std::array<Entry, 8> recent;
  thread_local size_t next = 0;
  for (const Entry& e : recent)
    if (e.ctx == &ctx && e.url == url) return e.upstream;
  auto parsed = parse_url(url);
  if (!parsed) return std::move(parsed).error();
  std::string key = std::to_string(reinterpret_cast<uintptr_t>(&ctx)) + ' ' + parsed->pool_key;
  auto up = std::make_shared<const Upstream>(Upstream{std::move(*parsed), std::move(key)});
  recent[next++ % recent.size()] = Entry{std::string(url), &ctx, up};
  return up;
}

}  // namespace toolwire::transport::asio_detail
