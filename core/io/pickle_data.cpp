#include "io/pickle_data.h"

#include <bit>
#include <cstdio>
#include <cstring>
#include <unordered_map>

namespace ts {

const char* toString(PickleKind k) {
  switch (k) {
    case PickleKind::None:
      return "None";
    case PickleKind::Bool:
      return "bool";
    case PickleKind::Int:
      return "int";
    case PickleKind::BigInt:
      return "int (past 64 bits)";
    case PickleKind::Float:
      return "float";
    case PickleKind::Text:
      return "str";
    case PickleKind::Bytes:
      return "bytes";
    case PickleKind::List:
      return "list";
    case PickleKind::Tuple:
      return "tuple";
    case PickleKind::Set:
      return "set";
    case PickleKind::Dict:
      return "dict";
  }
  return "?";
}

std::optional<uint32_t> PickleDoc::find(uint32_t dict, std::string_view key) const {
  const PickleNode& d = nodes[dict];
  if (d.kind != PickleKind::Dict) return std::nullopt;
  for (size_t i = 0; i + 1 < d.items.size(); i += 2) {
    const PickleNode& k = nodes[d.items[i]];
    if (k.kind == PickleKind::Text && k.text == key) return d.items[i + 1];
  }
  return std::nullopt;
}

bool looksLikePickle(std::string_view head) {
  return head.size() >= 2 && static_cast<uint8_t>(head[0]) == 0x80 &&
         static_cast<uint8_t>(head[1]) >= 2 && static_cast<uint8_t>(head[1]) <= 5;
}

namespace {

// Opcodes that make Python objects other than plain data, by what pickletools calls them.
const char* objectOpcode(uint8_t op) {
  switch (op) {
    case 'c':
      return "GLOBAL";
    case 0x93:
      return "STACK_GLOBAL";
    case 'R':
      return "REDUCE";
    case 'b':
      return "BUILD";
    case 'i':
      return "INST";
    case 'o':
      return "OBJ";
    case 0x81:
      return "NEWOBJ";
    case 0x92:
      return "NEWOBJ_EX";
    case 'P':
      return "PERSID";
    case 'Q':
      return "BINPERSID";
    case 0x82:
      return "EXT1";
    case 0x83:
      return "EXT2";
    case 0x84:
      return "EXT4";
    case 0x97:
      return "NEXT_BUFFER";
    case 0x98:
      return "READONLY_BUFFER";
    default:
      return nullptr;
  }
}

// Protocol 0 and 1 text opcodes: data, but not what pickle.dump has written since Python 3.0.
bool textOpcode(uint8_t op) {
  return op != 0 && std::strchr("ILFSVpgdl", op) != nullptr;
}

class Machine {
 public:
  explicit Machine(std::string_view bytes) : in_(bytes) {}
  Result<PickleDoc> run();

 private:
  std::string_view in_;
  size_t pos_ = 0, at_ = 0;  // the next byte; the current opcode's offset
  PickleDoc doc_;
  std::vector<uint32_t> stack_;
  std::vector<size_t> marks_;
  std::vector<uint32_t> memo_;  // indices written in order, as pickle.dump does
  std::unordered_map<uint64_t, uint32_t> sparseMemo_;

  Error fail(const std::string& what) const {
    return Error{"at byte " + std::to_string(at_) + ": " + what};
  }
  Status need(size_t n) const {
    if (in_.size() - pos_ < n) return fail("the pickle ends inside an opcode (truncated)");
    return {};
  }
  Result<uint64_t> unsignedLE(size_t n);
  Result<std::string_view> take(uint64_t n);
  uint32_t push(PickleNode node);
  Result<uint32_t> pop();
  Result<std::vector<uint32_t>> popToMark();
  Status scalar(uint8_t op, bool& handled);
  Status text(uint8_t op, bool& handled);
  Status container(uint8_t op, bool& handled);
  Status memo(uint8_t op, bool& handled);
  Status put(uint64_t index);
  Status get(uint64_t index);
  Status step(uint8_t op, bool& stop);
};

Result<uint64_t> Machine::unsignedLE(size_t n) {
  TS_RETURN_IF_ERROR(need(n));
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t{static_cast<uint8_t>(in_[pos_ + i])} << (8 * i);
  pos_ += n;
  return v;
}

Result<std::string_view> Machine::take(uint64_t n) {
  if (n > in_.size() - pos_)
    return fail("a length of " + std::to_string(n) + " bytes runs past the end of the file");
  std::string_view s = in_.substr(pos_, n);
  pos_ += n;
  return s;
}

uint32_t Machine::push(PickleNode node) {
  doc_.nodes.push_back(std::move(node));
  const auto i = static_cast<uint32_t>(doc_.nodes.size() - 1);
  stack_.push_back(i);
  return i;
}

Result<uint32_t> Machine::pop() {
  if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back()))
    return fail("an opcode takes a value from an empty stack");
  const uint32_t v = stack_.back();
  stack_.pop_back();
  return v;
}

Result<std::vector<uint32_t>> Machine::popToMark() {
  if (marks_.empty()) return fail("an opcode needs a MARK that was never set");
  const size_t m = marks_.back();
  marks_.pop_back();
  std::vector<uint32_t> items(stack_.begin() + static_cast<std::ptrdiff_t>(m), stack_.end());
  stack_.resize(m);
  return items;
}

// None, booleans, integers and floats.
Status Machine::scalar(uint8_t op, bool& handled) {
  handled = true;
  PickleNode n;
  switch (op) {
    case 'N':
      break;
    case 0x88:
    case 0x89:
      n.kind = PickleKind::Bool;
      n.integer = op == 0x88;
      break;
    case 'K':
    case 'M':
    case 'J': {
      const size_t width = op == 'K' ? 1 : op == 'M' ? 2 : 4;
      TS_ASSIGN_OR_RETURN(uint64_t v, unsignedLE(width));
      n.kind = PickleKind::Int;
      n.integer =
          op == 'J' ? static_cast<int32_t>(static_cast<uint32_t>(v)) : static_cast<int64_t>(v);
      break;
    }
    case 0x8a:
    case 0x8b: {  // LONG1, LONG4: little-endian two's complement of n bytes
      TS_ASSIGN_OR_RETURN(uint64_t len, unsignedLE(op == 0x8a ? 1 : 4));
      TS_ASSIGN_OR_RETURN(std::string_view digits, take(len));
      n.kind = PickleKind::Int;
      // Nine bytes hold an unsigned 64-bit value (an address) when the last is a sign byte 0.
      const bool fits =
          len <= 8 || (len == 9 && digits[8] == 0 && static_cast<int8_t>(digits[7]) < 0);
      if (!fits) {
        n.kind = PickleKind::BigInt;
        break;
      }
      uint64_t v = 0;
      for (size_t i = 0; i < std::min<size_t>(len, 8); ++i)
        v |= uint64_t{static_cast<uint8_t>(digits[i])} << (8 * i);
      if (len > 0 && len < 8 && static_cast<int8_t>(digits[len - 1]) < 0)
        v |= ~uint64_t{0} << (8 * len);
      n.integer = static_cast<int64_t>(v);
      break;
    }
    case 'G': {  // an IEEE double, big-endian
      TS_ASSIGN_OR_RETURN(uint64_t le, unsignedLE(8));
      n.kind = PickleKind::Float;
      n.real = std::bit_cast<double>(__builtin_bswap64(le));
      break;
    }
    default:
      handled = false;
      return {};
  }
  push(std::move(n));
  return {};
}

// Strings and byte strings.
Status Machine::text(uint8_t op, bool& handled) {
  handled = true;
  size_t width = 0;
  PickleKind kind = PickleKind::Text;
  switch (op) {
    case 0x8c:
      width = 1;
      break;  // SHORT_BINUNICODE
    case 'X':
      width = 4;
      break;  // BINUNICODE
    case 0x8d:
      width = 8;
      break;  // BINUNICODE8
    case 'U':
      width = 1;
      break;  // SHORT_BINSTRING (protocol 1 str)
    case 'T':
      width = 4;
      break;  // BINSTRING
    case 'C':
      width = 1;
      kind = PickleKind::Bytes;
      break;  // SHORT_BINBYTES
    case 'B':
      width = 4;
      kind = PickleKind::Bytes;
      break;  // BINBYTES
    case 0x8e:
    case 0x96:
      width = 8;
      kind = PickleKind::Bytes;
      break;  // BINBYTES8, BYTEARRAY8
    default:
      handled = false;
      return {};
  }
  TS_ASSIGN_OR_RETURN(uint64_t len, unsignedLE(width));
  if (op == 'T' && static_cast<int32_t>(len) < 0) return fail("BINSTRING with a negative length");
  TS_ASSIGN_OR_RETURN(std::string_view s, take(len));
  PickleNode n;
  n.kind = kind;
  n.text = std::string(s);
  push(std::move(n));
  return {};
}

// Lists, tuples, sets and dicts: made empty or from the items since the last MARK, then filled.
Status Machine::container(uint8_t op, bool& handled) {
  handled = true;
  auto made = [&](PickleKind kind, std::vector<uint32_t> items) {
    PickleNode n;
    n.kind = kind;
    n.items = std::move(items);
    push(std::move(n));
  };
  auto extend = [&](std::vector<uint32_t> items, PickleKind want, bool pairs) -> Status {
    if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back()))
      return fail("items added to nothing");
    PickleNode& target = doc_.nodes[stack_.back()];
    if (target.kind != want)
      return fail(std::string("items added to a ") + toString(target.kind) + ", not a " +
                  toString(want));
    if (pairs && items.size() % 2) return fail("a dict given a key without a value");
    target.items.insert(target.items.end(), items.begin(), items.end());
    return {};
  };
  switch (op) {
    case ']':
      made(PickleKind::List, {});
      return {};
    case '}':
      made(PickleKind::Dict, {});
      return {};
    case ')':
      made(PickleKind::Tuple, {});
      return {};
    case 0x8f:
      made(PickleKind::Set, {});
      return {};
    case '(':
      marks_.push_back(stack_.size());
      return {};
    case 't':
    case 0x91: {
      TS_ASSIGN_OR_RETURN(std::vector<uint32_t> items, popToMark());
      made(op == 't' ? PickleKind::Tuple : PickleKind::Set, std::move(items));
      return {};
    }
    case 0x85:
    case 0x86:
    case 0x87: {  // TUPLE1..3
      std::vector<uint32_t> items(static_cast<size_t>(op - 0x84));
      for (size_t i = items.size(); i-- > 0;) {
        TS_ASSIGN_OR_RETURN(items[i], pop());
      }
      made(PickleKind::Tuple, std::move(items));
      return {};
    }
    case 'a':
    case 's': {  // APPEND one value, SETITEM one pair
      std::vector<uint32_t> items(op == 'a' ? 1 : 2);
      for (size_t i = items.size(); i-- > 0;) {
        TS_ASSIGN_OR_RETURN(items[i], pop());
      }
      return extend(std::move(items), op == 'a' ? PickleKind::List : PickleKind::Dict, op == 's');
    }
    case 'e':
    case 'u':
    case 0x90: {  // APPENDS, SETITEMS, ADDITEMS
      TS_ASSIGN_OR_RETURN(std::vector<uint32_t> items, popToMark());
      const PickleKind want = op == 'e'   ? PickleKind::List
                              : op == 'u' ? PickleKind::Dict
                                          : PickleKind::Set;
      return extend(std::move(items), want, op == 'u');
    }
    default:
      handled = false;
      return {};
  }
}

Status Machine::put(uint64_t index) {
  if (stack_.empty()) return fail("memoising an empty stack");
  if (index < memo_.size()) {
    memo_[index] = stack_.back();
  } else if (index == memo_.size()) {
    memo_.push_back(stack_.back());
  } else {
    sparseMemo_[index] = stack_.back();
  }
  return {};
}

Status Machine::get(uint64_t index) {
  if (index < memo_.size()) {
    stack_.push_back(memo_[index]);
    return {};
  }
  auto it = sparseMemo_.find(index);
  if (it == sparseMemo_.end())
    return fail("fetches memo entry " + std::to_string(index) + ", which was never stored");
  stack_.push_back(it->second);
  return {};
}

// The memo, and the stack opcodes POP, POP_MARK and DUP.
Status Machine::memo(uint8_t op, bool& handled) {
  handled = true;
  switch (op) {
    case 0x94:
      return put(memo_.size() + sparseMemo_.size());  // MEMOIZE: the next free index
    case 'q':
    case 'r': {
      TS_ASSIGN_OR_RETURN(uint64_t index, unsignedLE(op == 'q' ? 1 : 4));
      return put(index);
    }
    case 'h':
    case 'j': {
      TS_ASSIGN_OR_RETURN(uint64_t index, unsignedLE(op == 'h' ? 1 : 4));
      return get(index);
    }
    case '0': {
      if (!stack_.empty() && (marks_.empty() || stack_.size() > marks_.back())) {
        stack_.pop_back();
      } else if (!marks_.empty()) {
        marks_.pop_back();  // POP of a bare MARK removes the mark, as Python's unpickler does
      } else {
        return fail("POP from an empty stack");
      }
      return {};
    }
    case '1':
      return popToMark().ok() ? Status{} : fail("POP_MARK without a MARK");
    case '2': {
      if (stack_.empty()) return fail("DUP of an empty stack");
      stack_.push_back(stack_.back());
      return {};
    }
    default:
      handled = false;
      return {};
  }
}

Status Machine::step(uint8_t op, bool& stop) {
  if (const char* name = objectOpcode(op))
    return fail(std::string("opcode ") + name +
                " asks to look up or build a Python object; refused (only data is read)");
  if (op == 0x80) {  // PROTO
    TS_ASSIGN_OR_RETURN(uint64_t proto, unsignedLE(1));
    if (proto > 5) return fail("pickle protocol " + std::to_string(proto) + " is newer than 5");
    return {};
  }
  if (op == 0x95) {  // FRAME: a length hint for buffered readers; the bytes follow inline
    TS_ASSIGN_OR_RETURN(uint64_t ignored, unsignedLE(8));
    (void)ignored;
    return {};
  }
  if (op == '.') {
    stop = true;
    return {};
  }
  bool handled = false;
  TS_RETURN_IF_ERROR(scalar(op, handled));
  if (!handled) TS_RETURN_IF_ERROR(text(op, handled));
  if (!handled) TS_RETURN_IF_ERROR(container(op, handled));
  if (!handled) TS_RETURN_IF_ERROR(memo(op, handled));
  if (handled) return {};
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", op);
  if (textOpcode(op))
    return fail(std::string("protocol 0 opcode '") + static_cast<char>(op) +
                "' is not read (write the pickle with protocol 2 or later)");
  return fail(std::string("byte ") + hex + " is no pickle opcode");
}

Result<PickleDoc> Machine::run() {
  if (in_.empty()) return Error{"at byte 0: the file is empty, not a pickle"};
  if (!looksLikePickle(in_))
    return Error{"at byte 0: not a pickle of protocol 2 or later (no PROTO opcode)"};
  bool stop = false;
  while (!stop) {
    at_ = pos_;
    if (pos_ >= in_.size()) return fail("the pickle ends before its STOP opcode (truncated)");
    const auto op = static_cast<uint8_t>(in_[pos_++]);
    TS_RETURN_IF_ERROR(step(op, stop));
  }
  if (stack_.size() != 1 || !marks_.empty())
    return fail("STOP with " + std::to_string(stack_.size()) + " values on the stack, not one");
  doc_.root = stack_.back();
  return std::move(doc_);
}

}  // namespace

Result<PickleDoc> readPickle(std::string_view bytes) {
  Machine m(bytes);
  return m.run();
}

}  // namespace ts
