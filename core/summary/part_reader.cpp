#include "summary/part_reader.h"

#include <map>

#include "summary/stats_part.h"

namespace ts {

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
    if (*part.files != *first.files)
      return Error{path + " summarises other files than " + paths[0] +
                   ": give every shard the same files in the same order"};
    if (part.shards != first.shards)
      return Error{path + " is a shard of " + std::to_string(part.shards) + ", " + paths[0] +
                   " of " + std::to_string(first.shards)};
    auto [it, fresh] = partOfShard.try_emplace(part.shard, p);
    if (!fresh)
      return Error{path + " and " + paths[it->second] + " are both shard " +
                   std::to_string(part.shard) + " of " + std::to_string(part.shards)};
    if (part.held != shardFiles(part.files->size(), part.shard, part.shards))
      return Error{path + ": shard " + std::to_string(part.shard) + " of " +
                   std::to_string(part.shards) + " does not hold its files (every " +
                   std::to_string(part.shards) + "th from file " + std::to_string(part.shard) +
                   ")"};
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
