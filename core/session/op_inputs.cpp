#include "session/op_inputs.h"

#include <charconv>

namespace ts {

void appendOpInput(std::string& out, std::string_view type, const int64_t* dims, size_t count) {
  if (!out.empty()) out += "; ";  // never empty after an input: it holds at least "[]"
  for (char c : type) {
    if (c != ';' && c != '[' && c != ']') out.push_back(c);
  }
  out.push_back('[');
  char buf[24];
  for (size_t d = 0; d < count; ++d) {
    if (d) out.push_back(',');
    auto r = std::to_chars(buf, buf + sizeof buf, dims[d]);
    out.append(buf, r.ptr);
  }
  out.push_back(']');
}

std::string formatOpInputs(const std::vector<OpInput>& inputs) {
  std::string out;
  for (const OpInput& in : inputs) {
    appendOpInput(out, in.type, in.dims.data(), in.dims.size());
  }
  return out;
}

std::vector<OpInput> parseOpInputs(std::string_view text) {
  std::vector<OpInput> inputs;
  while (!text.empty()) {
    size_t end = text.find("; ");
    std::string_view part = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 2);
    OpInput in;
    size_t open = part.rfind('[');
    if (open == std::string_view::npos || part.back() != ']') {
      in.type = std::string(part);
      inputs.push_back(std::move(in));
      continue;
    }
    in.type = std::string(part.substr(0, open));
    std::string_view dims = part.substr(open + 1, part.size() - open - 2);
    while (!dims.empty()) {
      size_t comma = dims.find(',');
      std::string_view d = dims.substr(0, comma);
      int64_t v = 0;
      auto [ptr, ec] = std::from_chars(d.data(), d.data() + d.size(), v);
      if (ec == std::errc{} && ptr == d.data() + d.size()) in.dims.push_back(v);
      dims = comma == std::string_view::npos ? std::string_view{} : dims.substr(comma + 1);
    }
    inputs.push_back(std::move(in));
  }
  return inputs;
}

bool isFloatingTensor(const OpInput& input) {
  if (input.dims.empty()) return false;
  const std::string& t = input.type;
  return t == "float" || t == "double" || t == "c10::Half" || t == "c10::BFloat16" || t == "Half" ||
         t == "BFloat16" || t.find("float") != std::string::npos;
}

}  // namespace ts
