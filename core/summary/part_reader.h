// Reading the parts `--shard I/N --summary-out PART` writes (stats and diagnose): a JSON reader
// that fails with the first thing wrong — which key, in which rank, what it held — and the checks
// that a set of parts is one sharded run.
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>
#include <vector>

#include "analysis/intervals.h"
#include "analysis/stats_summary.h"
#include "util/result.h"

namespace ts {

// What a part may hold: times and values within ±2^62 (times strictly, as sessions hold them;
// combining checks them again once shifted); at most a million shards.
inline constexpr int64_t kPartLimit = int64_t{1} << 62;
inline constexpr int64_t kMaxShards = 1'000'000;

// Reads a part, failing with the first thing wrong: which key, in which rank, and what it held.
class PartReader {
 public:
  explicit PartReader(const std::string& path) : path_(path) {}
  const std::string& error() const { return error_; }
  bool failed() const { return !error_.empty(); }

  bool fail(const std::string& what) {
    if (error_.empty()) error_ = path_ + ": " + where_ + what;
    return false;
  }
  void at(std::string where) { where_ = std::move(where); }

  bool field(simdjson::dom::object o, const char* key, simdjson::dom::element& out) {
    if (o[key].get(out)) return fail("no \"" + std::string(key) + "\"");
    return true;
  }
  bool integer(simdjson::dom::object o, const char* key, int64_t& out) {
    simdjson::dom::element e;
    if (!field(o, key, e)) return false;
    if (e.get_int64().get(out)) return fail("\"" + std::string(key) + "\" is not a whole number");
    return true;
  }
  bool count(simdjson::dom::object o, const char* key, int64_t& out) {
    if (!integer(o, key, out)) return false;
    if (out < 0) return fail("\"" + std::string(key) + "\" is negative");
    if (out > kPartLimit) return fail("\"" + std::string(key) + "\" is out of range");
    return true;
  }
  // A time or a clock offset, in ns.
  // Strictly within ±2^62: the difference of two times cannot overflow.
  bool time(simdjson::dom::object o, const char* key, int64_t& out) {
    if (!integer(o, key, out)) return false;
    if (out <= -kPartLimit || out >= kPartLimit)
      return fail("\"" + std::string(key) + "\" is out of range");
    return true;
  }
  bool boolean(simdjson::dom::object o, const char* key, bool& out) {
    simdjson::dom::element e;
    if (!field(o, key, e)) return false;
    if (e.get_bool().get(out)) return fail("\"" + std::string(key) + "\" is not true or false");
    return true;
  }
  bool text(simdjson::dom::object o, const char* key, std::string& out) {
    simdjson::dom::element e;
    if (!field(o, key, e)) return false;
    std::string_view v;
    if (e.get_string().get(v)) return fail("\"" + std::string(key) + "\" is not text");
    out = v;
    return true;
  }
  bool array(simdjson::dom::object o, const char* key, simdjson::dom::array& out) {
    simdjson::dom::element e;
    if (!field(o, key, e)) return false;
    if (e.get_array().get(out)) return fail("\"" + std::string(key) + "\" is not a list");
    return true;
  }
  bool object(simdjson::dom::element e, simdjson::dom::object& out, const char* what) {
    if (e.get_object().get(out)) return fail(std::string(what) + " is not an object");
    return true;
  }
  bool ints(simdjson::dom::object o, const char* key, std::vector<int64_t>& out) {
    simdjson::dom::array a;
    if (!array(o, key, a)) return false;
    out.reserve(a.size());
    for (simdjson::dom::element e : a) {
      int64_t v;
      if (e.get_int64().get(v)) return fail("\"" + std::string(key) + "\" holds a non-integer");
      out.push_back(v);
    }
    return true;
  }
  bool intervals(simdjson::dom::object o, const char* key, std::vector<Interval>& out) {
    std::vector<int64_t> v;
    if (!ints(o, key, v)) return false;
    if (v.size() % 2) return fail("\"" + std::string(key) + "\" holds an odd count of times");
    for (size_t i = 0; i < v.size(); i += 2) {
      if (v[i] <= -kPartLimit || v[i + 1] >= kPartLimit)
        return fail("\"" + std::string(key) + "\" holds a time out of range");
      if (v[i] > v[i + 1] || (!out.empty() && v[i] < out.back().end))
        return fail("\"" + std::string(key) + "\" is not a sorted list of disjoint intervals");
      out.push_back({v[i], v[i + 1]});
    }
    return true;
  }
  bool runs(simdjson::dom::object o, const char* key, ValueRuns& out) {
    std::vector<int64_t> v;
    if (!ints(o, key, v)) return false;
    if (v.size() % 2) return fail("\"" + std::string(key) + "\" holds an odd count of numbers");
    for (size_t i = 0; i < v.size(); i += 2) {
      if (v[i] < -kPartLimit || v[i] > kPartLimit || v[i + 1] > kPartLimit)
        return fail("\"" + std::string(key) + "\" holds a number out of range");
      if ((!out.value.empty() && v[i] <= out.value.back()) || v[i + 1] < 1)
        return fail("\"" + std::string(key) +
                    "\" is not a list of ascending values, each with a count of at least 1");
      out.value.push_back(v[i]);
      out.count.push_back(v[i + 1]);
    }
    return true;
  }
  // A GPU index: -1 (none) where `none` allows it, else below `devices`.
  bool device(simdjson::dom::object o, size_t devices, bool none, uint32_t& out) {
    int64_t d;
    if (!integer(o, "gpu", d)) return false;
    if (d == -1 && none) {
      out = kNone;
      return true;
    }
    if (d < 0 || d >= static_cast<int64_t>(kNone) || static_cast<uint64_t>(d) >= devices)
      return fail("\"gpu\" " + std::to_string(d) + " is not one of its " + std::to_string(devices) +
                  " GPUs");
    out = static_cast<uint32_t>(d);
    return true;
  }

 private:
  const std::string& path_;
  std::string where_;
  std::string error_;
};

// What every part starts with, read and checked: its format and version, which shard of how many,
// every file of the run, and its "options" and "ranks" for the reader of that kind of part.
struct PartHead {
  size_t shard = 0, shards = 1;
  std::vector<std::string> files;
  simdjson::dom::object root;
  simdjson::dom::object options;
  simdjson::dom::array ranks;
};
struct PartKind {
  const char* format;  // "tensorscope stats summary"
  const char* what;    // "stats summary", in errors
  const char* madeBy;  // "tensorscope-cli stats FILE... --shard I/N --summary-out PART"
  int64_t version;
};
// `doc` is what `path` parsed to; errors name the path and say what it is not.
Result<PartHead> readPartHead(PartReader& in, const std::string& path, simdjson::dom::element doc,
                              const PartKind& kind);
// The text parsed into `doc` (with `parser`, which must outlive it), or an error naming the path.
Status parsePart(simdjson::dom::parser& parser, simdjson::padded_string& padded,
                 const std::string& path, const PartKind& kind, simdjson::dom::element& doc);

// One part's place in a sharded run, for checkShards.
struct PartShard {
  const std::vector<std::string>* files = nullptr;  // every file of the run, in order
  size_t shard = 0, shards = 1;
  std::vector<size_t> held;  // the indexes of the files it holds
};
// The parts (named by `paths`) are of one run: the same files, the same shard count, every shard
// once, each holding its own files (every N-th from file I).
Status checkShards(const std::vector<PartShard>& parts, const std::vector<std::string>& paths);
// The "format" a part's text starts with ("tensorscope stats summary", "tensorscope diagnosis
// summary"), or "" when it does not start as a part does.
std::string partFormat(std::string_view text);
// "shard 3 of 4"-style reading of a part's header: shard and shards within bounds.
Status checkShardNumbers(const std::string& path, int64_t shard, int64_t shards);

}  // namespace ts
