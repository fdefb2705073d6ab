// MCP content blocks <-> IR result content (see content.h for the table).
#include "toolwire/mcp/content.h"
#include "toolwire/core/json_depth.h"

namespace toolwire::mcp {

using nlohmann::json;

namespace {

std::string str(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void add_text(tools::ToolOutput& out, std::string text) {
  out.content.emplace_back(ir::TextPart{std::move(text)});
}

void add_opaque(tools::ToolOutput& out, const json& block, const std::string& type,
                const std::string& mime, size_t b64_bytes, const std::string& uri) {
  std::string note = "[" + type + (mime.empty() ? "" : " " + mime) +
                     (uri.empty() ? "" : " " + uri) + ", " + std::to_string(b64_bytes * 3 / 4) +
                     " bytes, not shown]";
  add_text(out, std::move(note));
  out.content.emplace_back(ir::UnknownPart{"mcp", type, block.dump()});
}

}  // namespace

tools::ToolOutput to_tool_output(const CallResult& r, const tools::CompiledSchema* output_schema) {
  tools::ToolOutput out;
  out.is_error = r.is_error;
  for (const json& b : r.content) {
    if (!b.is_object()) continue;
    std::string type = str(b, "type");
    if (type == "text") {
      add_text(out, str(b, "text"));
    } else if (type == "image") {
      out.content.emplace_back(ir::ImagePart{"", str(b, "mimeType"), str(b, "data"), ""});
    } else if (type == "audio") {
      add_opaque(out, b, "audio", str(b, "mimeType"), str(b, "data").size(), "");
    } else if (type == "resource" && b.contains("resource") && b["resource"].is_object()) {
      const json& res = b["resource"];
      std::string uri = str(res, "uri"), mime = str(res, "mimeType");
      if (res.contains("text")) {
        add_text(out, "resource " + uri + ":\n" + str(res, "text"));
      } else if (mime.starts_with("image/")) {
        out.content.emplace_back(ir::ImagePart{"", mime, str(res, "blob"), ""});
      } else {
        add_opaque(out, b, "resource", mime, str(res, "blob").size(), uri);
      }
    } else if (type == "resource_link") {
      std::string line = "resource link: " + str(b, "name") + " " + str(b, "uri");
      if (std::string mime = str(b, "mimeType"); !mime.empty()) line += " (" + mime + ")";
      if (std::string d = str(b, "description"); !d.empty()) line += " — " + d;
      add_text(out, std::move(line));
    } else {
      out.content.emplace_back(ir::UnknownPart{"mcp", type, b.dump()});
    }
  }
  if (r.structured_content) {
    if (out.content.empty()) add_text(out, r.structured_content->dump());
    if (output_schema && !r.is_error) {
      if (Status st = output_schema->validate(*r.structured_content); !st) {
        out.is_error = true;
        add_text(out, "the tool's structuredContent does not match its outputSchema:\n" +
                          st.error().message);
      }
    }
  } else if (output_schema && !r.is_error) {
    // The spec: a tool with an outputSchema MUST return structuredContent.
    out.is_error = true;
    add_text(out, "the tool declares an outputSchema but returned no structuredContent");
  }
  return out;
}

json to_mcp_content(const std::vector<ir::ResultContent>& content) {
  json arr = json::array();
  for (const auto& c : content) {
    if (auto* t = std::get_if<ir::TextPart>(&c)) {
      arr.push_back({{"type", "text"}, {"text", t->text}});
    } else if (auto* i = std::get_if<ir::ImagePart>(&c)) {
      if (!i->data.empty())
        arr.push_back(
            {{"type", "image"},
             {"data", i->data},
             {"mimeType", i->media_type.empty() ? "application/octet-stream" : i->media_type}});
      else
        arr.push_back({{"type", "text"}, {"text", "image: " + i->url}});
    } else if (auto* u = std::get_if<ir::UnknownPart>(&c)) {
      json raw = parse_json_bounded<json>(u->raw_json);
      if (u->dialect == "mcp" && raw.is_object() && raw.contains("type"))
        arr.push_back(raw);
      else
        arr.push_back({{"type", "text"}, {"text", u->raw_json}});
    }
  }
  return arr;
}

}  // namespace toolwire::mcp
