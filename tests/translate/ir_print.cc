#include "ir_print.h"

#include <algorithm>
#include <functional>
#include <sstream>
#include <type_traits>

#include "toolwire/core/json_writer.h"

namespace toolwire::testing {
namespace {

// A quoted, escaped string; long ones (base64 images) shortened with their
// length and a hash so two different payloads still print differently.
std::string q(const std::string& s) {
  std::string out;
  if (s.size() <= 160) {
    JsonWriter::append_escaped(out, s);
    return out;
  }
  JsonWriter::append_escaped(out, s.substr(0, 60));
  out += "...(" + std::to_string(s.size()) + " bytes, hash " +
         std::to_string(std::hash<std::string>{}(s) % 1000000007) + ")";
  return out;
}

template <class T>
std::string opt(const std::optional<T>& v) {
  if (!v) return "-";
  std::ostringstream s;
  s << *v;
  return s.str();
}

std::string finish_str(const ir::FinishReason& f) {
  return std::string(ir::to_string(f.kind)) + " raw=" + q(f.raw);
}

std::string usage_str(const ir::Usage& u) {
  return "in=" + opt(u.input_tokens) + " out=" + opt(u.output_tokens) +
         " cache_read=" + opt(u.cache_read_tokens) + " cache_write=" + opt(u.cache_write_tokens);
}

void print_result_content(std::ostringstream& o, const ir::ResultContent& c,
                          const std::string& indent) {
  std::visit(
      [&](const auto& p) {
        using T = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<T, ir::TextPart>) {
          o << indent << "text " << q(p.text) << "\n";
        } else if constexpr (std::is_same_v<T, ir::ImagePart>) {
          o << indent << "image url=" << q(p.url) << " media=" << q(p.media_type)
            << " data=" << q(p.data) << " detail=" << q(p.detail) << "\n";
        } else {
          o << indent << "unknown " << p.dialect << " type=" << q(p.type) << " " << q(p.raw_json)
            << "\n";
        }
      },
      c);
}

void print_part(std::ostringstream& o, const ir::Part& part, const std::string& indent) {
  std::visit(
      [&](const auto& p) {
        using T = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<T, ir::TextPart>) {
          o << indent << "text " << q(p.text) << "\n";
        } else if constexpr (std::is_same_v<T, ir::ImagePart>) {
          o << indent << "image url=" << q(p.url) << " media=" << q(p.media_type)
            << " data=" << q(p.data) << " detail=" << q(p.detail) << "\n";
        } else if constexpr (std::is_same_v<T, ir::ToolCallPart>) {
          o << indent << "tool_call id=" << q(p.id) << " name=" << q(p.name)
            << (p.arguments_valid ? "" : " INVALID")
            << (p.signature.empty() ? "" : " signature=" + q(p.signature)) << "\n"
            << indent << "  args " << q(p.arguments) << "\n";
        } else if constexpr (std::is_same_v<T, ir::ToolResultPart>) {
          o << indent << "tool_result call_id=" << q(p.call_id) << (p.is_error ? " is_error" : "")
            << "\n";
          for (const auto& c : p.content) print_result_content(o, c, indent + "  ");
        } else if constexpr (std::is_same_v<T, ir::ThinkingPart>) {
          o << indent << "thinking " << q(p.text) << " signature=" << q(p.signature)
            << (p.redacted ? " redacted data=" + q(p.redacted_data) : "")
            << (p.item_id.empty() ? "" : " item_id=" + q(p.item_id))
            << (p.encrypted_content.empty() ? "" : " encrypted=" + q(p.encrypted_content)) << "\n";
        } else {
          o << indent << "unknown " << p.dialect << " type=" << q(p.type) << " " << q(p.raw_json)
            << "\n";
        }
      },
      part);
}

void print_extra(std::ostringstream& o, const std::vector<ir::ExtraField>& extra) {
  for (const auto& f : extra) o << "extra " << q(f.key) << " = " << q(f.raw_json) << "\n";
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> lines;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

}  // namespace

std::string print(const ir::Request& r) {
  std::ostringstream o;
  o << "request model=" << q(r.model) << " stream=" << r.stream << " source=" << r.source_dialect
    << "\n";
  for (const auto& s : r.system)
    o << "system" << (s.developer ? "(developer) " : " ") << q(s.text) << "\n";
  for (const auto& t : r.tools) {
    o << "tool " << q(t.name) << " strict=" << opt(t.strict) << "\n  desc " << q(t.description)
      << "\n  schema " << q(t.input_schema) << "\n";
  }
  if (r.tool_choice) {
    static const char* kinds[] = {"auto", "none", "required", "tool"};
    o << "tool_choice " << kinds[static_cast<int>(r.tool_choice->kind)] << " "
      << q(r.tool_choice->name) << "\n";
  }
  o << "parallel_tool_calls=" << opt(r.parallel_tool_calls) << " max_tokens=" << opt(r.max_tokens)
    << " temperature=" << opt(r.temperature) << " top_p=" << opt(r.top_p) << "\n";
  for (const auto& s : r.stop) o << "stop " << q(s) << "\n";
  o << "seed=" << opt(r.seed) << " top_k=" << opt(r.top_k)
    << " frequency_penalty=" << opt(r.frequency_penalty)
    << " presence_penalty=" << opt(r.presence_penalty) << " verbosity=" << q(r.verbosity) << "\n";
  if (const auto& re = r.reasoning)
    o << "reasoning effort=" << q(re->effort) << " budget=" << opt(re->budget_tokens)
      << " enabled=" << opt(re->enabled) << " summary=" << q(re->summary) << "\n";
  if (const auto& f = r.response_format) {
    static const char* kinds[] = {"text", "json_object", "json_schema"};
    o << "response_format " << kinds[static_cast<int>(f->kind)] << " name=" << q(f->name)
      << " strict=" << opt(f->strict) << "\n  desc " << q(f->description) << "\n  schema "
      << q(f->schema) << "\n";
  }
  if (!r.metadata.empty()) o << "metadata " << q(r.metadata) << "\n";
  for (size_t i = 0; i < r.messages.size(); ++i) {
    const auto& m = r.messages[i];
    o << "[" << i << "] " << ir::to_string(m.role) << (m.name.empty() ? "" : " name=" + q(m.name))
      << "\n";
    for (const auto& p : m.parts) print_part(o, p, "    ");
  }
  print_extra(o, r.extra);
  return o.str();
}

std::string print(const ir::Response& r) {
  std::ostringstream o;
  o << "response id=" << q(r.id) << " model=" << q(r.model) << " created=" << r.created
    << " source=" << r.source_dialect << "\n";
  for (const auto& p : r.parts) print_part(o, p, "  ");
  o << "finish " << finish_str(r.finish) << "\n";
  o << "usage " << usage_str(r.usage) << "\n";
  print_extra(o, r.extra);
  return o.str();
}

std::string print(const ir::StreamEvent& event) {
  return std::visit(
      [](const auto& e) -> std::string {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, ir::MessageStart>) {
          return "MessageStart id=" + q(e.id) + " model=" + q(e.model) +
                 " created=" + std::to_string(e.created);
        } else if constexpr (std::is_same_v<T, ir::TextDelta>) {
          return "TextDelta " + q(e.text);
        } else if constexpr (std::is_same_v<T, ir::ThinkingDelta>) {
          return "ThinkingDelta " + q(e.text) + " sig=" + q(e.signature) +
                 (e.redacted ? " redacted" : "") +
                 (e.item_id.empty() ? "" : " item_id=" + q(e.item_id)) +
                 (e.encrypted_content.empty() ? "" : " encrypted=" + q(e.encrypted_content));
        } else if constexpr (std::is_same_v<T, ir::ToolCallStart>) {
          return "ToolCallStart #" + std::to_string(e.index) + " id=" + q(e.id) +
                 " name=" + q(e.name) + (e.signature.empty() ? "" : " sig=" + q(e.signature));
        } else if constexpr (std::is_same_v<T, ir::ToolCallDelta>) {
          return "ToolCallDelta #" + std::to_string(e.index) + " " + q(e.fragment);
        } else if constexpr (std::is_same_v<T, ir::ToolCallEnd>) {
          return "ToolCallEnd #" + std::to_string(e.index);
        } else if constexpr (std::is_same_v<T, ir::UsageEvent>) {
          return "Usage " + usage_str(e.usage);
        } else if constexpr (std::is_same_v<T, ir::Finish>) {
          return "Finish " + finish_str(e.reason);
        } else {
          return "Error type=" + q(e.type) + " message=" + q(e.message);
        }
      },
      event);
}

std::string print(const std::vector<ir::StreamEvent>& events) {
  std::string out;
  for (const auto& e : events) out += print(e) + "\n";
  return out;
}

std::string ir_diff(const std::string& a, const std::string& b, const std::string& label_a,
                    const std::string& label_b) {
  if (a == b) return "";
  const auto la = lines_of(a), lb = lines_of(b);
  const size_t n = la.size(), m = lb.size();
  // Longest common subsequence table; dumps are at most a few thousand lines.
  std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = la[i] == lb[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  struct Line {
    char tag;
    const std::string* text;
  };
  std::vector<Line> script;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && la[i] == lb[j]) {
      script.push_back({' ', &la[i++]});
      ++j;
    } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      script.push_back({'+', &lb[j++]});
    } else {
      script.push_back({'-', &la[i++]});
    }
  }
  constexpr size_t kContext = 3;
  std::string out = "--- " + label_a + "\n+++ " + label_b + "\n";
  size_t last_printed = SIZE_MAX;
  for (size_t k = 0; k < script.size(); ++k) {
    bool near_change = false;
    for (size_t d = k >= kContext ? k - kContext : 0; d < std::min(script.size(), k + kContext + 1);
         ++d)
      near_change |= script[d].tag != ' ';
    if (!near_change) continue;
    if (last_printed != SIZE_MAX && k != last_printed + 1) out += "@@\n";
    out += script[k].tag;
    out += *script[k].text + "\n";
    last_printed = k;
  }
  return out;
}

}  // namespace toolwire::testing
