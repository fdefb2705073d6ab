// read, write, edit: whole-file operations through the Workspace.
#include <cstdio>
#include <vector>

#include "tools/builtin/common.h"

namespace toolwire::tools::builtin {
namespace {

constexpr std::int64_t kDefaultLineLimit = 2000;

Result<ToolOutput> do_read(const nlohmann::json& args, const BuiltinContext& bc, ToolContext&) {
  auto path = arg_string(args, "path");
  if (!path) return path.error();
  auto offset = arg_int(args, "offset", 1, 1);
  if (!offset) return offset.error();
  auto limit = arg_int(args, "limit", kDefaultLineLimit, 1);
  if (!limit) return limit.error();

  auto data = bc.workspace.read_file(*path);
  if (!data) return data.error();
  if (data->empty()) return ToolOutput::text("(empty file)");
  if (looks_binary(*data))
    return sandbox_error(ErrorCode::invalid_argument, *path,
                         "is a binary file (" + std::to_string(data->size()) +
                             " bytes); read shows text files only");

  // Split into lines; a final newline does not start another line.
  std::vector<std::string_view> lines;
  std::string_view rest = *data;
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    if (nl == std::string_view::npos) {
      lines.push_back(rest);
      break;
    }
    lines.push_back(rest.substr(0, nl));
    rest.remove_prefix(nl + 1);
  }
  const size_t total = lines.size();
  const size_t first = static_cast<size_t>(*offset);
  if (first > total)
    return make_error(ErrorCode::invalid_argument,
                      "offset " + std::to_string(first) + " is past the end ('" + *path + "' has " +
                          std::to_string(total) + " lines)",
                      "$.offset");
  size_t last = std::min(total, first - 1 + static_cast<size_t>(*limit));
  std::string out;
  size_t shown_last = first - 1;
  char num[32];
  for (size_t i = first; i <= last; ++i) {
    std::string_view line = lines[i - 1];
    bool cut = line.size() > bc.options.max_line_chars;
    if (cut) line = utf8_prefix(line, bc.options.max_line_chars);
    std::snprintf(num, sizeof num, "%6zu\t", i);
    size_t need = std::char_traits<char>::length(num) + line.size() + 1 + (cut ? 24 : 0);
    if (out.size() + need > bc.options.max_output_bytes && i > first) break;
    out += num;
    out.append(line);
    if (cut) out += " [... line truncated]";
    out += '\n';
    shown_last = i;
  }
  if (shown_last < total)
    out += "[showing lines " + std::to_string(first) + "-" + std::to_string(shown_last) + " of " +
           std::to_string(total) + "; continue with offset=" + std::to_string(shown_last + 1) +
           "]\n";
  return ToolOutput::text(std::move(out));
}

Result<ToolOutput> do_write(const nlohmann::json& args, const BuiltinContext& bc, ToolContext&) {
  auto path = arg_string(args, "path");
  if (!path) return path.error();
  auto content = arg_string(args, "content");
  if (!content) return content.error();
  TW_TRY(bc.workspace.write_file(*path, *content));
  return ToolOutput::text("wrote " + std::to_string(content->size()) + " bytes to '" + *path + "'");
}

size_t count_matches(std::string_view hay, std::string_view needle) {
  size_t n = 0;
  for (size_t pos = hay.find(needle); pos != std::string_view::npos;
       pos = hay.find(needle, pos + needle.size()))
    ++n;
  return n;
}

Result<ToolOutput> do_edit(const nlohmann::json& args, const BuiltinContext& bc, ToolContext&) {
  auto path = arg_string(args, "path");
  if (!path) return path.error();
  auto old_s = arg_string(args, "old_string");
  if (!old_s) return old_s.error();
  auto new_s = arg_string(args, "new_string");
  if (!new_s) return new_s.error();
  auto all = arg_bool(args, "replace_all", false);
  if (!all) return all.error();
  if (old_s->empty())
    return make_error(ErrorCode::invalid_argument, "must not be empty", "$.old_string");
  if (*old_s == *new_s)
    return make_error(ErrorCode::invalid_argument, "new_string is identical to old_string",
                      "$.new_string");

  auto data = bc.workspace.read_file(*path);
  if (!data) return data.error();
  if (looks_binary(*data))
    return sandbox_error(ErrorCode::invalid_argument, *path,
                         "is a binary file; edit changes text files only");
  size_t n = count_matches(*data, *old_s);
  if (n == 0)
    return make_error(
        ErrorCode::invalid_argument,
        "old_string not found in '" + *path +
            "' (0 matches); it must match the file exactly, including whitespace and indentation",
        "$.old_string");
  if (n > 1 && !*all)
    return make_error(
        ErrorCode::invalid_argument,
        "old_string matches " + std::to_string(n) + " times in '" + *path +
            "'; include more surrounding text so it matches exactly once, or set replace_all",
        "$.old_string");
  std::string out;
  out.reserve(data->size() + n * new_s->size());
  size_t pos = 0;
  for (size_t hit = data->find(*old_s); hit != std::string::npos; hit = data->find(*old_s, pos)) {
    out.append(*data, pos, hit - pos);
    out += *new_s;
    pos = hit + old_s->size();
  }
  out.append(*data, pos, std::string::npos);
  TW_TRY(bc.workspace.write_file(*path, out, /*create_parents=*/false));
  return ToolOutput::text("replaced " + std::to_string(n) +
                          (n == 1 ? " occurrence" : " occurrences") + " in '" + *path + "'");
}

}  // namespace

ToolSpec read_spec(Ctx bc) {
  return spec(
      "read",
      "Read a text file in the workspace. Returns numbered lines (line number, tab, text). "
      "Use offset (1-based first line) and limit (number of lines) to page through long files.",
      R"json({"type":"object","properties":{
    "path":{"type":"string","description":"File path relative to the workspace root"},
    "offset":{"type":"integer","minimum":1,"description":"First line to show, 1-based (default 1)"},
    "limit":{"type":"integer","minimum":1,"description":"Maximum number of lines (default 2000)"}},
    "required":["path"],"additionalProperties":false})json",
      std::move(bc), do_read);
}

ToolSpec write_spec(Ctx bc) {
  ToolSpec s =
      spec("write",
           "Create or overwrite a file in the workspace with the given content. Missing parent "
           "directories are created.",
           R"json({"type":"object","properties":{
    "path":{"type":"string","description":"File path relative to the workspace root"},
    "content":{"type":"string","description":"The complete new file content"}},
    "required":["path","content"],"additionalProperties":false})json",
           std::move(bc), do_write);
  s.exclusive = true;
  return s;
}

ToolSpec edit_spec(Ctx bc) {
  ToolSpec s =
      spec("edit",
           "Replace old_string with new_string in a workspace file. old_string must match the file "
           "exactly "
           "(whitespace included) and exactly once, unless replace_all is true.",
           R"json({"type":"object","properties":{
    "path":{"type":"string","description":"File path relative to the workspace root"},
    "old_string":{"type":"string","minLength":1,"description":"Exact text to replace"},
    "new_string":{"type":"string","description":"Replacement text"},
    "replace_all":{"type":"boolean","description":"Replace every occurrence (default false)"}},
    "required":["path","old_string","new_string"],"additionalProperties":false})json",
           std::move(bc), do_edit);
  s.exclusive = true;
  return s;
}

}  // namespace toolwire::tools::builtin
