#include "gateway/routes/stream_relay.h"

#include "toolwire/dialects/ingress.h"

#include "gateway/routes/upstream_failure.h"

namespace toolwire::gateway::routes {

StreamRelay::StreamRelay(std::shared_ptr<http::Exchange> ex, RouteContext& ctx,
                         const dialects::Codec& codec)
    : ex_(std::move(ex)),
      ctx_(ctx),
      shape_(stream_shape(codec)),
      encoder_(codec.make_stream_encoder()),
      keepalive_(ex_->executor()) {}

void StreamRelay::begin(http::Headers headers) {
  begun_ = true;
  headers.emplace_back("cache-control", "no-cache");
  headers.emplace_back("x-accel-buffering", "no");
  ex_->begin_stream(200, std::string(shape_.media_type), headers);
  ctx_.metrics.stream_opened();
  last_write_ = http::Clock::now();
  arm_keepalive();
}

void StreamRelay::send(const ir::StreamEvent& e) {
  buf_.clear();
  encoder_->encode(e, buf_);
  write(buf_);
}

void StreamRelay::send(ir::StreamEvent e, ResponseRecorder& recorder) {
  recorder.saw(e);
  send(e);
}

void StreamRelay::write(std::string_view bytes) {
  if (bytes.empty()) return;
  ex_->write(bytes);
  ctx_.metrics.bytes_out(bytes.size());
  last_write_ = http::Clock::now();
  if (on_behind && ex_->queued_bytes() > ex_->max_queued_bytes()) on_behind();
}

void StreamRelay::send_error(const Error& e) {
  send(ir::ErrorEvent{dialects::stream_error_type(e), e.to_string()});
}

void StreamRelay::end() {
  over_ = true;
  keepalive_.cancel();
  ex_->end_stream();
  ctx_.metrics.stream_closed();
}

void StreamRelay::cancel() {
  if (over_) return;
  over_ = true;
  keepalive_.cancel();
  if (begun_) ctx_.metrics.stream_closed();
}

void StreamRelay::arm_keepalive() {
  if (over_) return;
  keepalive_.expires_at(last_write_ + ctx_.options.stream_keepalive);
  keepalive_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (ec || self->over_) return;
    auto now = http::Clock::now();
    if (now - self->last_write_ >= self->ctx_.options.stream_keepalive) {
      if (self->shape_.keepalive.empty())
        self->last_write_ = now;  // nothing valid to send: wait another period
      else
        self->write(self->shape_.keepalive);
    }
    self->arm_keepalive();
  });
}

}  // namespace toolwire::gateway::routes
