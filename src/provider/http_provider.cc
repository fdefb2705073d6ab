// HttpProvider: codec (the profile's dialect) + HttpClient + profile. The
// codec turns IR into the upstream's bytes and back; the client moves them;
// this file only wires the two and measures.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>

#include "toolwire/dialects/codec.h"
#include "toolwire/dialects/dialect.h"
#include "toolwire/ir/accumulator.h"
#include "toolwire/provider/factory.h"
#include "toolwire/provider/upstream_error.h"
#include "toolwire/transport/redact.h"

namespace toolwire::provider {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::microseconds;

constexpr size_t kMaxBody = 64u << 20;      // a whole JSON response
constexpr size_t kMaxErrorBody = 1u << 20;  // an error body kept for translation

bool is_limit_header(std::string_view name, std::string_view dialect_prefix) {
  auto starts = [&](std::string_view p) {
    return name.size() >= p.size() && transport::iequals(name.substr(0, p.size()), p);
  };
  return starts("x-ratelimit-") || (!dialect_prefix.empty() && starts(dialect_prefix)) ||
         transport::iequals(name, "retry-after") || transport::iequals(name, "retry-after-ms");
}

RateLimits limits_of(const transport::HttpHeaders& headers, std::string_view dialect_prefix) {
  RateLimits out;
  for (const auto& [k, v] : headers)
    if (is_limit_header(k, dialect_prefix)) {
      std::string name = k;
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      out.headers.emplace_back(std::move(name), v);
    }
  return out;
}

bool is_content(const ir::StreamEvent& e) {
  return std::holds_alternative<ir::TextDelta>(e) || std::holds_alternative<ir::ThinkingDelta>(e) ||
         std::holds_alternative<ir::ToolCallStart>(e) ||
         std::holds_alternative<ir::ToolCallDelta>(e);
}

void finish_timing(Timing& t, const ir::Usage& usage) {
  auto gen = t.total - t.time_to_first_token;
  if (usage.output_tokens && *usage.output_tokens > 0 && gen.count() > 0)
    t.output_tokens_per_second =
        static_cast<double>(*usage.output_tokens) / (static_cast<double>(gen.count()) / 1e6);
}

// What a call's callbacks need after the provider may be gone: a caller can
// destroy the provider while a cancelled call's completion is still on its way
// from the transport thread, so the callbacks hold this, never the provider.
struct CallContext {
  const dialects::Dialect* dialect;
  const dialects::Codec* codec;
  std::string name;  // how messages name the upstream: never by its address
  transport::HttpHeaders secret_headers;

  // A transport failure of a request to `url`; the message names the
  // upstream, not its address (a gateway's callers read it).
  Error transport_error(Error e, std::string_view url) const {
    e.message = transport::scrub_secrets(std::move(e.message), secret_headers);
    return upstream_transport_error(name, std::move(e), url);
  }

  // An answer that could not be read.
  Error bad_answer(std::string_view what, Error e) const {
    e.message = transport::scrub_secrets(std::move(e.message), secret_headers);
    return upstream_bad_answer(name, what, std::move(e));
  }

  // An `error` event that ended a stream, mapped by the dialect.
  ErrorCode stream_error_code(std::string_view type) const {
    return dialect->stream_error_code ? dialect->stream_error_code(type) : ErrorCode::unavailable;
  }

  // A non-2xx answer, translated from the dialect's error body.
  Error upstream_error(int status, std::string_view body, const RateLimits& limits) const {
    Error e = codec->decode_error(status, body);
    e.message = transport::scrub_secrets(std::move(e.message), secret_headers);
    return upstream_status_error(name, status, std::move(e), limits);
  }
};

class HttpProvider final : public Provider {
 public:
  HttpProvider(Profile profile, const dialects::Dialect& dialect, ProviderConfig cfg,
               transport::HttpTransport& client, std::string key)
      : profile_(std::move(profile)),
        dialect_(dialect),
        codec_(dialect.codec()),
        cfg_(std::move(cfg)),
        client_(client),
        key_(std::move(key)) {
    if (!cfg_.model.empty()) profile_.default_model = cfg_.model;
    // A profile's own path serves both kinds of call; else the dialect's.
    if (!profile_.path.empty()) {
      path_ = stream_path_ = profile_.path;
    } else {
      path_ = dialect_.path;
      stream_path_ = dialect_.stream_path.empty() ? dialect_.path : dialect_.stream_path;
    }
    std::string base = profile_.base_url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    auto ctx = std::make_shared<CallContext>();
    ctx->dialect = &dialect_;
    ctx->codec = &codec_;
    ctx->name = cfg_.name.empty() ? profile_.name : cfg_.name;
    if (!profile_.auth_header.empty() && !key_.empty())
      ctx->secret_headers.add(profile_.auth_header, profile_.auth_prefix + key_);
    ctx_ = std::move(ctx);
  }

  std::string_view name() const override { return profile_.name; }
  const Capabilities& capabilities() const override { return profile_.capabilities; }
  std::string_view default_model() const override { return profile_.default_model; }

  ProviderCall generate(ir::Request request, DoneCallback done) override {
    Warnings warnings;
    auto http = build(std::move(request), false, warnings);
    if (!http) {
      done(std::move(http).error());
      return ProviderCall();
    }
    struct State {
      int status = 0;
      RateLimits limits;
      transport::BoundedBody body;
    };
    auto st = std::make_shared<State>();
    transport::HttpCallbacks cb;
    cb.on_head = [st, prefix = dialect_.rate_limit_prefix](const transport::HttpResponseHead& h) {
      st->status = h.status;
      st->limits = limits_of(h.headers, prefix);
      return true;
    };
    std::string url = http->url;
    cb.on_body = [st](std::string_view bytes) { return st->body.append(bytes, kMaxBody); };
    cb.on_complete = [ctx = ctx_, st, done, warnings, url](
                         const Status& s, const transport::HttpStats& stats) mutable {
      if (st->body.too_big)
        return done(ctx->bad_answer("an answer larger than 64 MiB",
                                    make_error(ErrorCode::resource_exhausted, "")));
      if (!s) return done(ctx->transport_error(s.error(), url));
      if (st->status < 200 || st->status > 299)
        return done(ctx->upstream_error(st->status, st->body.text, st->limits));
      auto resp = ctx->codec->decode_response(st->body.text, warnings);
      if (!resp) return done(ctx->bad_answer("an answer it could not read", resp.error()));
      Generation g;
      g.response = std::move(*resp);
      g.limits = std::move(st->limits);
      g.warnings = std::move(warnings);
      g.timing.total = stats.total_time;
      g.timing.time_to_first_token = stats.time_to_first_byte;
      g.timing.attempts = stats.attempts;
      finish_timing(g.timing, g.response.usage);
      done(std::move(g));
    };
    transport::HttpCall call = client_.start(std::move(*http), std::move(cb));
    return ProviderCall([call] { call.cancel(); }, warnings,
                        [call](bool paused) { call.set_paused(paused); });
  }

  ProviderCall stream(ir::Request request, EventCallback on_event, DoneCallback done) override {
    Warnings warnings;
    auto http = build(std::move(request), true, warnings);
    if (!http) {
      done(std::move(http).error());
      return ProviderCall();
    }
    struct State {
      Clock::time_point start = Clock::now();
      std::optional<Clock::time_point> first_token;
      int status = 0;
      RateLimits limits;
      std::unique_ptr<dialects::StreamDecoder> decoder;
      ir::StreamAccumulator acc;
      std::vector<ir::StreamEvent> events;
      std::string error_body;
      std::optional<Error> error;  // a malformed stream: reported instead of `cancelled`
      EventCallback on_event;
    };
    auto st = std::make_shared<State>();
    st->decoder = codec_.make_stream_decoder();
    st->on_event = std::move(on_event);
    auto deliver = [](State& s) {
      for (const auto& e : s.events) {
        if (!s.first_token && is_content(e)) s.first_token = Clock::now();
        s.acc.add(e);
        if (s.on_event) s.on_event(e);
      }
      s.events.clear();
    };
    transport::HttpCallbacks cb;
    cb.on_head = [st, prefix = dialect_.rate_limit_prefix](const transport::HttpResponseHead& h) {
      st->status = h.status;
      st->limits = limits_of(h.headers, prefix);
      return true;
    };
    std::string url = http->url;
    cb.on_body = [st, deliver, ctx = ctx_](std::string_view bytes) {
      if (st->status < 200 || st->status > 299) {
        if (st->error_body.size() < kMaxErrorBody)
          st->error_body.append(bytes.substr(0, kMaxErrorBody - st->error_body.size()));
        return true;
      }
      Status s = st->decoder->feed(bytes, st->events);
      deliver(*st);
      if (!s) {
        st->error = ctx->bad_answer("a malformed stream", s.error());
        return false;  // stop reading: nothing after a broken frame can be trusted
      }
      return true;
    };
    cb.on_complete = [ctx = ctx_, st, done, deliver, warnings, url](
                         const Status& s, const transport::HttpStats& stats) mutable {
      if (st->error) return done(*st->error);
      if (!s) return done(ctx->transport_error(s.error(), url));
      if (st->status < 200 || st->status > 299)
        return done(ctx->upstream_error(st->status, st->error_body, st->limits));
      Status fin = st->decoder->finish(st->events);
      deliver(*st);
      if (!fin) {
        Error e = fin.error();
        e.code = ErrorCode::unavailable;
        return done(ctx->bad_answer("a stream that ended early", std::move(e)));
      }
      if (const auto& err = st->acc.error())
        return done(
            upstream_error_event(ctx->name, ctx->stream_error_code(err->type), err->type,
                                 transport::scrub_secrets(err->message, ctx->secret_headers)));
      Generation g;
      g.response = std::move(st->acc).take();
      g.limits = std::move(st->limits);
      g.warnings = std::move(warnings);
      // What the stream carried that its events could not (as decode_response
      // adds to a whole answer's): after the request's own.
      for (const auto& w : st->decoder->warnings()) g.warnings.push_back(w);
      auto now = Clock::now();
      g.timing.total = std::chrono::duration_cast<microseconds>(now - st->start);
      g.timing.time_to_first_token =
          std::chrono::duration_cast<microseconds>(st->first_token.value_or(now) - st->start);
      g.timing.attempts = stats.attempts;
      finish_timing(g.timing, g.response.usage);
      done(std::move(g));
    };
    transport::HttpCall call = client_.start(std::move(*http), std::move(cb));
    return ProviderCall([call] { call.cancel(); }, warnings,
                        [call](bool paused) { call.set_paused(paused); });
  }

 private:
  Result<transport::HttpRequest> build(ir::Request req, bool stream, Warnings& warnings) const {
    if (req.model.empty()) req.model = profile_.default_model;
    if (req.model.empty())
      return make_error(ErrorCode::invalid_argument,
                        "no model given for provider '" + profile_.name +
                            "' (set --model or the profile's default_model)",
                        "$.model");
    if (stream && !profile_.capabilities.streaming)
      return make_error(ErrorCode::unimplemented,
                        "provider '" + profile_.name + "' does not stream");
    auto adapted = adapt_request(std::move(req), profile_.capabilities, profile_.name, warnings);
    if (!adapted) return std::move(adapted).error();
    ir::Request& r = *adapted;
    r.stream = stream;
    // The dialect's usage request for streams (OpenAI's stream_options).
    const std::string_view usage_key = dialect_.stream_usage_key;
    const bool ask_usage = stream && profile_.stream_usage && !usage_key.empty();
    const bool same_dialect = r.source_dialect.empty() || r.source_dialect == dialect_.name;
    if (ask_usage && same_dialect) {
      bool has = std::any_of(r.extra.begin(), r.extra.end(),
                             [&](const auto& x) { return x.key == usage_key; });
      if (!has) {
        // Extra fields are written by a same-dialect encoder only.
        r.source_dialect = std::string(dialect_.name);
        r.extra.push_back({std::string(usage_key), std::string(dialect_.stream_usage_value)});
      }
    }
    auto body = codec_.encode_request(r, warnings);
    if (!body) return std::move(body).error();
    // Refused before anything is sent (a route's `on_loss: error`).
    if (auto refused =
            r.on_loss.check(warnings, "translating it for " + std::string(dialect_.name)))
      return std::move(*refused);
    // A request from another dialect (an Anthropic client through the
    // gateway) has no extra fields to carry it: add the usage request to the
    // encoded object itself, or an OpenAI server sends no usage at all.
    if (ask_usage && !same_dialect && !body->empty() && body->back() == '}') {
      std::string member =
          ",\"" + std::string(usage_key) + "\":" + std::string(dialect_.stream_usage_value);
      body->insert(body->size() - 1, member);
    }
    transport::HttpRequest http;
    http.method = "POST";
    http.url = dialects::url_for(profile_.base_url, stream ? stream_path_ : path_, r.model);
    http.body = std::move(*body);
    http.headers.add("content-type", "application/json");
    http.headers.add("accept", stream ? std::string(dialect_.stream_media_type)
                                      : std::string("application/json"));
    for (const auto& [k, v] : profile_.headers) http.headers.add(k, v);
    // The dialect's auth hook sees the finished request (SigV4 signs it all).
    dialects::HeaderList plain, auth;
    for (const auto& [k, v] : http.headers) plain.emplace_back(k, v);
    dialect_.auth({.method = http.method,
                   .url = http.url,
                   .body = http.body,
                   .headers = &plain,
                   .header = profile_.auth_header,
                   .prefix = profile_.auth_prefix,
                   .key = key_},
                  auth);
    for (auto& [k, v] : auth) http.headers.add(std::move(k), std::move(v));
    http.deadline = cfg_.deadline;
    // The caller's own deadline, when shorter: an answer after it is read by
    // no one, and a retry-after wait must not outlast it.
    if (r.deadline_ms && *r.deadline_ms > 0 &&
        (http.deadline.count() <= 0 || *r.deadline_ms < http.deadline.count()))
      http.deadline = std::chrono::milliseconds(*r.deadline_ms);
    http.idle_timeout = cfg_.idle_timeout;
    http.retry = cfg_.retry;
    return http;
  }

  Profile profile_;
  const dialects::Dialect& dialect_;
  std::string path_, stream_path_;  // URL templates after the base URL
  const dialects::Codec& codec_;
  ProviderConfig cfg_;
  transport::HttpTransport& client_;
  std::string key_;
  std::shared_ptr<const CallContext> ctx_;
};

}  // namespace

Result<Profile> resolve_profile(const ProviderConfig& cfg) {
  auto p =
      cfg.profile_file.empty() ? builtin_profile(cfg.profile) : load_profile_file(cfg.profile_file);
  if (!p) return p;
  if (!cfg.base_url.empty()) p->base_url = cfg.base_url;
  if (!cfg.api_key_env.empty()) p->api_key_env = cfg.api_key_env;
  if (!cfg.model.empty()) p->default_model = cfg.model;
  return p;
}

Result<std::unique_ptr<Provider>> make_http_provider(Profile profile, const ProviderConfig& cfg,
                                                     transport::HttpTransport& client) {
  const dialects::Dialect* dialect = dialects::find_dialect(profile.dialect);
  if (!dialect || !dialect->has_codec())
    return make_error(ErrorCode::not_found,
                      "profile '" + profile.name + "': unknown dialect '" + profile.dialect + "'",
                      "$.dialect");
  if (profile.base_url.empty())
    return make_error(ErrorCode::invalid_argument,
                      "provider '" + profile.name + "' needs a base URL (--base-url)",
                      "$.base_url");
  std::string key;
  if (!profile.auth_header.empty() && !profile.api_key_env.empty()) {
    const char* v = std::getenv(profile.api_key_env.c_str());
    if (v) key = v;
  }
  // The variable's name is safe to show; its value never is.
  if (key.empty() && profile.api_key_required)
    return make_error(
        ErrorCode::unauthenticated,
        "environment variable " +
            (profile.api_key_env.empty() ? std::string("(none named)") : profile.api_key_env) +
            " is not set (API key for provider '" + profile.name + "')");
  return std::unique_ptr<Provider>(
      std::make_unique<HttpProvider>(std::move(profile), *dialect, cfg, client, std::move(key)));
}

Result<std::unique_ptr<Provider>> make_provider(const ProviderConfig& cfg,
                                                transport::HttpTransport& client) {
  auto p = resolve_profile(cfg);
  if (!p) return std::move(p).error();
  return make_http_provider(std::move(*p), cfg, client);
}

}  // namespace toolwire::provider
