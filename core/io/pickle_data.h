// Python pickles read as data only: the opcodes that push None, booleans, integers, floats,
// strings, bytes, lists, tuples, sets and dicts (protocols 2 to 5, what pickle.dump writes
// today). Any opcode that would look up a global, call it or build an object (GLOBAL, REDUCE,
// BUILD, NEWOBJ, persistent ids, extension codes, out-of-band buffers) is refused with its byte
// offset: a file is never a way to run code. What PyTorch's memory snapshot
// (torch.cuda.memory._dump_snapshot) is written in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace ts {

enum class PickleKind : uint8_t {
  None,
  Bool,
  Int,
  BigInt,
  Float,
  Text,
  Bytes,
  List,
  Tuple,
  Set,
  Dict
};
const char* toString(PickleKind k);  // "None", "bool", "int", ... as Python names the types

// One value. Containers hold their items as node indices: a value the pickle memoised and
// fetched again is one node reached twice, as in Python (a dict's items are key, value pairs).
struct PickleNode {
  PickleKind kind = PickleKind::None;
  int64_t integer = 0;  // Bool (0/1), Int; BigInt: an integer past 64 bits, its value not kept
  double real = 0;
  std::string text;  // Text (UTF-8 as written), Bytes
  std::vector<uint32_t> items;
};

struct PickleDoc {
  std::vector<PickleNode> nodes;
  uint32_t root = 0;

  const PickleNode& at(uint32_t i) const { return nodes[i]; }
  // The value under a text key of a dict node; nullopt when the node is no dict or lacks the key.
  std::optional<uint32_t> find(uint32_t dict, std::string_view key) const;
};

// The value a pickle holds. Errors say "at byte N" and what was there; `bytes` past the STOP
// opcode are ignored, as Python's pickle.load does.
Result<PickleDoc> readPickle(std::string_view bytes);

// Whether the bytes start as a pickle of protocol 2 or later (the PROTO opcode).
bool looksLikePickle(std::string_view head);

}  // namespace ts
