// A raw completion endpoint (`POST .../v1/completions`): the conversation
// written as one prompt in the family's chat template, the answer's text
// (whole, or SSE chunks of `choices[0].text`) parsed back into calls.
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "textprovider/text_turn.h"
#include "toolwire/core/http_status.h"
#include "toolwire/core/json_depth.h"
#include "toolwire/dialects/framing/sse.h"
#include "toolwire/provider/upstream_error.h"
#include "toolwire/textformats/renderer.h"
#include "toolwire/textprovider/text_provider.h"
#include "toolwire/transport/redact.h"

namespace toolwire::textprovider {

namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kMaxBody = 64u << 20;

std::shared_ptr<const textformats::ToolSet> tool_set(const ir::Request& r) {
  auto t = textformats::ToolSet::from_definitions(r.tools);
  return t ? std::make_shared<const textformats::ToolSet>(std::move(*t))
           : std::make_shared<const textformats::ToolSet>();
}

ir::FinishReason finish_of(const std::string& raw) {
  using K = ir::FinishReason::Kind;
  return {raw == "length" ? K::length : raw == "stop" || raw.empty() ? K::stop : K::other, raw};
}

ir::Usage usage_of(const nlohmann::json& u) {
  ir::Usage out;
  if (auto p = u.find("prompt_tokens"); p != u.end() && p->is_number_integer())
    out.input_tokens = p->get<int64_t>();
  if (auto c = u.find("completion_tokens"); c != u.end() && c->is_number_integer())
    out.output_tokens = c->get<int64_t>();
  return out;
}

// What the callbacks need after the provider may be gone.
struct Context {
  std::string url;
  std::string family;
  textformats::ParserOptions parser_options;  // the prompt may open reasoning
  std::string name;  // how messages name the upstream: never by its address
  transport::HttpHeaders secret_headers;

  Error upstream_error(int status, std::string_view body) const {
    std::string msg(body.substr(0, 2000));
    auto j = parse_json_bounded<nlohmann::json>(body);
    if (j.is_object() && j.contains("error")) {
      const auto& e = j["error"];
      if (e.is_object() && e.contains("message") && e["message"].is_string())
        msg = e["message"].get<std::string>();
      else if (e.is_string())
        msg = e.get<std::string>();
    }
    Error err{error_code_for_http_status(status), transport::scrub_secrets(msg, secret_headers)};
    return provider::upstream_status_error(name, status, std::move(err), {});
  }
  Error transport_error(Error e) const {
    e.message = transport::scrub_secrets(std::move(e.message), secret_headers);
    return provider::upstream_transport_error(name, std::move(e), url);
  }
};

class CompletionProvider final : public provider::Provider {
 public:
  CompletionProvider(provider::Profile profile, provider::ProviderConfig cfg,
                     transport::HttpTransport& client, std::string key, std::string family,
                     std::unique_ptr<textformats::PromptRenderer> renderer)
      : profile_(std::move(profile)),
        cfg_(std::move(cfg)),
        client_(client),
        renderer_(std::move(renderer)) {
    if (!cfg_.model.empty()) profile_.default_model = cfg_.model;
    profile_.capabilities.tools = true;
    profile_.capabilities.images = false;
    profile_.capabilities.thinking = false;
    auto ctx = std::make_shared<Context>();
    std::string base = profile_.base_url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    ctx->url = base + profile_.path;
    ctx->family = std::move(family);
    ctx->parser_options.reasoning_open = renderer_->opens_reasoning();
    ctx->name = cfg_.name.empty() ? profile_.name : cfg_.name;
    if (!profile_.auth_header.empty() && !key.empty())
      ctx->secret_headers.add(profile_.auth_header, profile_.auth_prefix + key);
    ctx_ = std::move(ctx);
  }

  std::string_view name() const override { return profile_.name; }
  const provider::Capabilities& capabilities() const override { return profile_.capabilities; }
  std::string_view default_model() const override { return profile_.default_model; }

  provider::ProviderCall generate(ir::Request request, provider::DoneCallback done) override {
    auto tools = tool_set(request);
    auto http = build(request, false);
    if (!http) {
      done(std::move(http).error());
      return {};
    }
    struct State {
      int status = 0;
      provider::RateLimits limits;
      transport::BoundedBody body;
    };
    auto st = std::make_shared<State>();
    transport::HttpCallbacks cb;
    cb.on_head = [st](const transport::HttpResponseHead& h) {
      st->status = h.status;
      return true;
    };
    cb.on_body = [st](std::string_view bytes) { return st->body.append(bytes, kMaxBody); };
    // `done` (and what it holds: the caller's whole request) is moved out and
    // released when the call ends, not when the transport frees the transfer,
    // which may be after the caller's executor is gone.
    cb.on_complete = [ctx = ctx_, st, tools, done = std::move(done)](
                         const Status& s, const transport::HttpStats& stats) mutable {
      auto finish = std::move(done);
      if (st->body.too_big)
        return finish(provider::upstream_bad_answer(ctx->name, "an answer larger than 64 MiB",
                                                    make_error(ErrorCode::unavailable, "")));
      if (!s) return finish(ctx->transport_error(s.error()));
      if (st->status < 200 || st->status > 299)
        return finish(ctx->upstream_error(st->status, st->body.text));
      auto j = parse_json_bounded<nlohmann::json>(st->body.text);
      if (!j.is_object() || !j.contains("choices") || !j["choices"].is_array() ||
          j["choices"].empty() || !j["choices"][0].is_object())
        return finish(make_error(ErrorCode::unavailable,
                                 "upstream response: not a completion (no choices[0])"));
      const auto& c = j["choices"][0];
      TextTurn turn(textformats::make_parser(ctx->family, tools.get(), ctx->parser_options).value(),
                    tools, nullptr);
      ir::MessageStart start;
      if (j.contains("id") && j["id"].is_string()) start.id = j["id"];
      if (j.contains("model") && j["model"].is_string()) start.model = j["model"];
      turn.upstream(start);
      if (c.contains("text") && c["text"].is_string()) turn.text(c["text"].get<std::string>());
      std::string reason;
      if (c.contains("finish_reason") && c["finish_reason"].is_string())
        reason = c["finish_reason"];
      turn.upstream(ir::Finish{finish_of(reason)});
      if (j.contains("usage") && j["usage"].is_object())
        turn.upstream(ir::UsageEvent{usage_of(j["usage"])});
      turn.finish();
      provider::Generation g;
      g.response = std::move(turn).take_response();
      g.warnings = std::move(turn).take_warnings();
      g.timing.total = stats.total_time;
      g.timing.time_to_first_token = stats.time_to_first_byte;
      g.timing.attempts = stats.attempts;
      finish(std::move(g));
    };
    transport::HttpCall call = client_.start(std::move(*http), std::move(cb));
    return provider::ProviderCall([call] { call.cancel(); }, {},
                                  [call](bool paused) { call.set_paused(paused); });
  }

  provider::ProviderCall stream(ir::Request request, provider::EventCallback on_event,
                                provider::DoneCallback done) override {
    auto tools = tool_set(request);
    auto http = build(request, true);
    if (!http) {
      done(std::move(http).error());
      return {};
    }
    struct State {
      Clock::time_point start = Clock::now();
      int status = 0;
      std::string error_body;
      dialects::SseParser sse;
      std::vector<dialects::SseEvent> events;
      std::unique_ptr<TextTurn> turn;
      bool started = false;
      bool done_seen = false;
      std::optional<Error> error;
    };
    auto st = std::make_shared<State>();
    st->turn = std::make_unique<TextTurn>(
        textformats::make_parser(ctx_->family, tools.get(), ctx_->parser_options).value(), tools,
        std::move(on_event));
    transport::HttpCallbacks cb;
    cb.on_head = [st](const transport::HttpResponseHead& h) {
      st->status = h.status;
      return true;
    };
    cb.on_body = [st](std::string_view bytes) {
      if (st->status < 200 || st->status > 299) {
        if (st->error_body.size() < (1u << 20)) st->error_body.append(bytes);
        return true;
      }
      Status s = st->sse.feed(bytes, st->events);
      for (auto& ev : st->events) {
        if (ev.data == "[DONE]") {
          st->done_seen = true;
          continue;
        }
        auto j = parse_json_bounded<nlohmann::json>(ev.data);
        if (!j.is_object()) {
          st->error =
              make_error(ErrorCode::unavailable, "malformed upstream stream: a chunk is not JSON");
          return false;
        }
        if (j.contains("error")) {
          const auto& e = j["error"];
          std::string msg = e.is_object() && e.contains("message") && e["message"].is_string()
                                ? e["message"].get<std::string>()
                                : e.dump();
          st->error = make_error(ErrorCode::unavailable, "upstream error: " + msg);
          return false;
        }
        if (!st->started) {
          st->started = true;
          ir::MessageStart m;
          if (j.contains("id") && j["id"].is_string()) m.id = j["id"];
          if (j.contains("model") && j["model"].is_string()) m.model = j["model"];
          st->turn->upstream(m);
        }
        if (j.contains("choices") && j["choices"].is_array() && !j["choices"].empty()) {
          const auto& c = j["choices"][0];
          if (c.contains("text") && c["text"].is_string())
            st->turn->text(c["text"].get<std::string>());
          if (c.contains("finish_reason") && c["finish_reason"].is_string())
            st->turn->upstream(ir::Finish{finish_of(c["finish_reason"])});
        }
        if (j.contains("usage") && j["usage"].is_object())
          st->turn->upstream(ir::UsageEvent{usage_of(j["usage"])});
      }
      st->events.clear();
      if (!s) {
        st->error =
            make_error(ErrorCode::unavailable, "malformed upstream stream: " + s.error().message);
        return false;
      }
      return true;
    };
    // As in generate(): `done` and the turn (which holds `on_event`) are released
    // when the call ends.
    cb.on_complete = [ctx = ctx_, st, done = std::move(done)](
                         const Status& s, const transport::HttpStats& stats) mutable {
      auto finish = std::move(done);
      auto turn = std::move(st->turn);
      if (st->error) return finish(*st->error);
      if (!s) return finish(ctx->transport_error(s.error()));
      if (st->status < 200 || st->status > 299)
        return finish(ctx->upstream_error(st->status, st->error_body));
      if (!st->done_seen && st->sse.has_partial_event())
        return finish(make_error(ErrorCode::unavailable, "upstream stream ended early"));
      turn->finish();
      provider::Generation g;
      g.response = std::move(*turn).take_response();
      g.warnings = std::move(*turn).take_warnings();
      g.timing.total =
          std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - st->start);
      g.timing.attempts = stats.attempts;
      finish(std::move(g));
    };
    transport::HttpCall call = client_.start(std::move(*http), std::move(cb));
    return provider::ProviderCall([call] { call.cancel(); }, {},
                                  [call](bool paused) { call.set_paused(paused); });
  }

 private:
  Result<transport::HttpRequest> build(const ir::Request& req, bool stream) const {
    std::string model = req.model.empty() ? profile_.default_model : req.model;
    if (model.empty())
      return make_error(ErrorCode::invalid_argument,
                        "no model given for provider '" + profile_.name + "'", "$.model");
    auto prompt = textformats::render_prompt(*renderer_, req);
    if (!prompt) return std::move(prompt).error();
    nlohmann::json body = {{"model", model}, {"prompt", std::move(*prompt)}, {"stream", stream}};
    if (req.max_tokens) body["max_tokens"] = *req.max_tokens;
    if (req.temperature) body["temperature"] = *req.temperature;
    if (req.top_p) body["top_p"] = *req.top_p;
    // The completions API's own (vLLM and llama.cpp's server take top_k too).
    if (req.seed) body["seed"] = *req.seed;
    if (req.top_k) body["top_k"] = *req.top_k;
    if (req.frequency_penalty) body["frequency_penalty"] = *req.frequency_penalty;
    if (req.presence_penalty) body["presence_penalty"] = *req.presence_penalty;
    if (!req.stop.empty()) body["stop"] = req.stop;
    if (stream && profile_.stream_usage) body["stream_options"] = {{"include_usage", true}};
    transport::HttpRequest http;
    http.method = "POST";
    http.url = ctx_->url;
    http.body = body.dump();
    http.headers.add("content-type", "application/json");
    http.headers.add("accept", stream ? "text/event-stream" : "application/json");
    for (const auto& [k, v] : profile_.headers) http.headers.add(k, v);
    for (const auto& [k, v] : ctx_->secret_headers) http.headers.add(k, v);
    http.deadline = cfg_.deadline;
    http.idle_timeout = cfg_.idle_timeout;
    http.retry = cfg_.retry;
    return http;
  }

  provider::Profile profile_;
  provider::ProviderConfig cfg_;
  transport::HttpTransport& client_;
  std::unique_ptr<textformats::PromptRenderer> renderer_;
  std::shared_ptr<const Context> ctx_;
};

}  // namespace

Result<std::unique_ptr<provider::Provider>> make_completion_provider(
    provider::Profile profile, const provider::ProviderConfig& cfg,
    transport::HttpTransport& client, std::string_view family) {
  auto r = textformats::make_renderer(family);
  if (!r) return std::move(r).error();
  if (profile.base_url.empty())
    return make_error(ErrorCode::invalid_argument,
                      "provider '" + profile.name + "' needs a base URL (--base-url)",
                      "$.base_url");
  std::string key;
  if (!profile.auth_header.empty() && !profile.api_key_env.empty())
    if (const char* v = std::getenv(profile.api_key_env.c_str())) key = v;
  if (key.empty() && profile.api_key_required)
    return make_error(ErrorCode::unauthenticated, "environment variable " + profile.api_key_env +
                                                      " is not set (API key for provider '" +
                                                      profile.name + "')");
  return std::unique_ptr<provider::Provider>(std::make_unique<CompletionProvider>(
      std::move(profile), cfg, client, std::move(key), std::string(family), std::move(*r)));
}

}  // namespace toolwire::textprovider
