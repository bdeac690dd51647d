#include "summary/part_reader.h"

#include <map>

#include "summary/stats_part.h"

namespace ts {

std::string partFormat(std::string_view text) {
  // The writers put the format first: {"format":"tensorscope ... summary", ...
  size_t at = text.find_first_not_of(" \t\r\n");
  if (at == std::string_view::npos || text[at] != '{') return {};
  at = text.find_first_not_of(" \t\r\n", at + 1);
  constexpr std::string_view key = "\"format\"";
  if (at == std::string_view::npos || text.substr(at, key.size()) != key) return {};
  at = text.find_first_not_of(" \t\r\n:", at + key.size());
  if (at == std::string_view::npos || text[at] != '"') return {};
  const size_t end = text.find('"', at + 1);
  if (end == std::string_view::npos || end - at > 64) return {};
  return std::string(text.substr(at + 1, end - at - 1));
}

Status parsePart(simdjson::dom::parser& parser, simdjson::padded_string& padded,
                 const std::string& path, const PartKind& kind, simdjson::dom::element& doc) {
  if (auto err = parser.parse(padded).get(doc))
    return Error{path + ": not a " + kind.what + ": not valid JSON (" +
                 std::string(simdjson::error_message(err)) + ")"};
  return {};
}

Result<PartHead> readPartHead(PartReader& in, const std::string& path, simdjson::dom::element doc,
                              const PartKind& kind) {
  PartHead head;
  std::string format;
  if (!in.object(doc, head.root, "the file") || !in.text(head.root, "format", format) ||
      format != kind.format)
    return Error{path + ": not a " + kind.what + " (made by '" + kind.madeBy + "')"};
  int64_t version = 0, shard = 0, shards = 0;
  if (!in.integer(head.root, "version", version)) return Error{in.error()};
  if (version != kind.version)
    return Error{path + ": a " + kind.what + " of version " + std::to_string(version) +
                 "; this Tensorscope reads version " + std::to_string(kind.version)};
  simdjson::dom::array files;
  simdjson::dom::element options;
  if (!in.count(head.root, "shard", shard) || !in.count(head.root, "shards", shards) ||
      !in.array(head.root, "files", files) || !in.field(head.root, "options", options) ||
      !in.object(options, head.options, "\"options\"") || !in.array(head.root, "ranks", head.ranks))
    return Error{in.error()};
  TS_RETURN_IF_ERROR(checkShardNumbers(path, shard, shards));
  head.shard = static_cast<size_t>(shard);
  head.shards = static_cast<size_t>(shards);
  for (simdjson::dom::element f : files) {
    std::string_view v;
    if (f.get_string().get(v)) return Error{path + ": \"files\" holds something not a path"};
    head.files.emplace_back(v);
  }
  return head;
}

Status checkShardNumbers(const std::string& path, int64_t shard, int64_t shards) {
  if (shards < 1 || shards > kMaxShards || shard < 0 || shard >= shards)
    return Error{path + ": shard " + std::to_string(shard) + " of " + std::to_string(shards) +
                 " is not a shard (0 <= I < N)"};
  return {};
}

Status checkShards(const std::vector<PartShard>& parts, const std::vector<std::string>& paths) {
  if (parts.empty()) return Error{"no part to merge"};
  const PartShard& first = parts[0];
  std::map<size_t, size_t> partOfShard;
  for (size_t p = 0; p < parts.size(); ++p) {
    const PartShard& part = parts[p];
    const std::string& path = paths.at(p);
    if (*part.files != *first.files) {
      // Which entry differs: shards run from other folders spell the same file differently.
      const auto& a = *part.files;
      const auto& b = *first.files;
      size_t k = 0;
      while (k < a.size() && k < b.size() && a[k] == b[k]) ++k;
      std::string which =
          k < a.size() && k < b.size()
              ? "file " + std::to_string(k) + " is " + a[k] + " there, " + b[k] + " in " + paths[0]
              : std::to_string(a.size()) + " files there, " + std::to_string(b.size()) + " in " +
                    paths[0];
      return Error{path + " summarises other files than " + paths[0] + " (" + which +
                   "): give every shard the same files, spelled the same, in the same order"};
    }
    if (part.shards != first.shards)
      return Error{path + " is a shard of " + std::to_string(part.shards) + ", " + paths[0] +
                   " of " + std::to_string(first.shards)};
    auto [it, fresh] = partOfShard.try_emplace(part.shard, p);
    if (!fresh)
      return Error{path + " and " + paths[it->second] + " are both shard " +
                   std::to_string(part.shard) + " of " + std::to_string(part.shards)};
    if (part.held != shardFiles(part.files->size(), part.shard, part.shards))
      return Error{path + ": shard " + std::to_string(part.shard) + " of " +
                   std::to_string(part.shards) + " does not hold its files (files " +
                   std::to_string(part.shard) + ", " + std::to_string(part.shard + part.shards) +
                   ", … of the list)"};
  }
  if (partOfShard.size() != first.shards) {
    std::string missing;
    size_t listed = 0;
    for (size_t i = 0; i < first.shards; ++i) {
      if (partOfShard.count(i)) continue;
      if (++listed > 20) {
        missing += ", …";
        break;
      }
      if (!missing.empty()) missing += ", ";
      missing += std::to_string(i);
    }
    return Error{"shards missing: " + missing + " of " + std::to_string(first.shards) +
                 " (the files they hold are in no part given)"};
  }
  return {};
}

}  // namespace ts
