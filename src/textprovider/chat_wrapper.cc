// tool_format over a chat endpoint: the request rendered (no tools; their
// definitions, the calls and the results as text), the answer's text parsed.
#include "textprovider/text_turn.h"
#include "toolwire/textformats/renderer.h"
#include "toolwire/textprovider/text_provider.h"

namespace toolwire::textprovider {

Status check_family(std::string_view family) {
  auto p = textformats::make_parser(family);
  if (!p) return std::move(p).error();
  return {};
}

namespace {

std::shared_ptr<const textformats::ToolSet> tool_set(const ir::Request& r) {
  auto t = textformats::ToolSet::from_definitions(r.tools);
  // A schema the validator cannot compile only loses the checks.
  return t ? std::make_shared<const textformats::ToolSet>(std::move(*t))
           : std::make_shared<const textformats::ToolSet>();
}

class ChatWrapper final : public provider::Provider {
 public:
  ChatWrapper(std::unique_ptr<provider::Provider> inner, std::string family,
              std::unique_ptr<textformats::PromptRenderer> renderer)
      : inner_(std::move(inner)), family_(std::move(family)), renderer_(std::move(renderer)) {
    caps_ = inner_->capabilities();
    caps_.tools = true;  // written into the prompt
    caps_.thinking = false;
  }

  std::string_view name() const override { return inner_->name(); }
  const provider::Capabilities& capabilities() const override { return caps_; }
  std::string_view default_model() const override { return inner_->default_model(); }

  provider::ProviderCall generate(ir::Request request, provider::DoneCallback done) override {
    auto tools = tool_set(request);
    auto chat = textformats::render_chat(*renderer_, request);
    if (!chat) {
      done(std::move(chat).error());
      return {};
    }
    std::string family = family_;
    return inner_->generate(
        std::move(*chat), [done, tools, family](Result<provider::Generation> r) {
          if (!r) return done(std::move(r).error());
          TextTurn turn(textformats::make_parser(family, tools.get()).value(), tools, nullptr);
          // Reasoning the server split off stays; the text is parsed whole.
          for (const auto& p : r->response.parts)
            if (auto* t = std::get_if<ir::ThinkingPart>(&p))
              turn.upstream(ir::ThinkingDelta{t->text, t->signature, t->redacted});
          for (const auto& p : r->response.parts)
            if (auto* t = std::get_if<ir::TextPart>(&p)) turn.text(t->text);
          turn.upstream(ir::Finish{r->response.finish});
          turn.finish();
          provider::Generation g = std::move(*r);
          ir::Response parsed = std::move(turn).take_response();
          g.response.parts = std::move(parsed.parts);
          g.response.finish = parsed.finish;
          for (auto& w : std::move(turn).take_warnings()) g.warnings.push_back(std::move(w));
          done(std::move(g));
        });
  }

  provider::ProviderCall stream(ir::Request request, provider::EventCallback on_event,
                                provider::DoneCallback done) override {
    auto tools = tool_set(request);
    auto chat = textformats::render_chat(*renderer_, request);
    if (!chat) {
      done(std::move(chat).error());
      return {};
    }
    auto turn = std::make_shared<TextTurn>(textformats::make_parser(family_, tools.get()).value(),
                                           tools, std::move(on_event));
    return inner_->stream(
        std::move(*chat), [turn](const ir::StreamEvent& e) { turn->upstream(e); },
        [turn, done](Result<provider::Generation> r) {
          if (!r) return done(std::move(r).error());
          turn->finish();
          provider::Generation g = std::move(*r);
          ir::Response parsed = std::move(*turn).take_response();
          g.response.parts = std::move(parsed.parts);
          g.response.finish = parsed.finish;
          for (auto& w : std::move(*turn).take_warnings()) g.warnings.push_back(std::move(w));
          done(std::move(g));
        });
  }

 private:
  std::unique_ptr<provider::Provider> inner_;
  std::string family_;
  std::unique_ptr<textformats::PromptRenderer> renderer_;
  provider::Capabilities caps_;
};

}  // namespace

Result<std::unique_ptr<provider::Provider>> wrap_chat_provider(
    std::unique_ptr<provider::Provider> inner, std::string_view family) {
  auto r = textformats::make_renderer(family);
  if (!r) return std::move(r).error();
  return std::unique_ptr<provider::Provider>(
      std::make_unique<ChatWrapper>(std::move(inner), std::string(family), std::move(*r)));
}

Result<std::unique_ptr<provider::Provider>> make_text_provider(provider::Profile profile,
                                                               const provider::ProviderConfig& cfg,
                                                               transport::HttpTransport& client,
                                                               std::string_view family) {
  if (profile.dialect == kCompletionsDialect) {
    if (family.empty())
      return make_error(ErrorCode::invalid_argument,
                        "profile '" + profile.name +
                            "' is a raw completion endpoint: it needs a tool_format (the "
                            "family whose chat template writes the prompt)");
    return make_completion_provider(std::move(profile), cfg, client, family);
  }
  auto p = provider::make_http_provider(std::move(profile), cfg, client);
  if (!p || family.empty()) return p;
  return wrap_chat_provider(std::move(*p), family);
}

}  // namespace toolwire::textprovider
