#include "model/onnx_strip.h"

#include <cstdint>

namespace ts::model {

namespace {

// Field numbers of onnx.proto (ONNX's published schema) that the walk goes into or changes.
constexpr uint32_t kModelGraph = 7;        // ModelProto.graph
constexpr uint32_t kGraphNode = 1;         // GraphProto.node
constexpr uint32_t kGraphInitializer = 5;  // GraphProto.initializer
constexpr uint32_t kNodeAttribute = 5;     // NodeProto.attribute
constexpr uint32_t kAttributeTensor = 5;   // AttributeProto.t
constexpr uint32_t kAttributeGraph = 6;    // AttributeProto.g (If / Loop bodies)
constexpr uint32_t kAttributeTensors = 10;
constexpr uint32_t kAttributeGraphs = 11;
constexpr uint32_t kTensorRawData = 9;  // TensorProto.raw_data
// TensorProto's numeric value lists, packed (one length-delimited field each), and the bytes of
// one zero element in each: float_data (fixed32), int32_data, int64_data, uint64_data (varints),
// double_data (fixed64).
struct ValueList {
  uint32_t number;
  std::string_view oneValue;
};
constexpr ValueList kTensorValueLists[] = {{4, std::string_view("\0\0\0\0", 4)},
                                           {5, std::string_view("\0", 1)},
                                           {7, std::string_view("\0", 1)},
                                           {10, std::string_view("\0\0\0\0\0\0\0\0", 8)},
                                           {11, std::string_view("\0", 1)}};

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLength = 2, kFixed32 = 5 };

constexpr int kMaxDepth = 32;  // nested graphs: deeper is not a model worth walking

struct Reader {
  std::string_view s;
  size_t i = 0;
  bool varint(uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (i >= s.size()) return false;
      const auto b = static_cast<uint8_t>(s[i++]);
      v |= uint64_t{b & 0x7Fu} << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  }
};

void putVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

// One field at the reader: its number, wire type, where it starts and (length-delimited) its
// payload. False when the bytes end or are not a field.
struct Field {
  uint32_t number = 0;
  uint32_t type = 0;
  size_t begin = 0, end = 0;  // the whole field
  std::string_view payload;   // length-delimited only
};

bool nextField(Reader& r, Field& f) {
  f.begin = r.i;
  uint64_t key = 0;
  if (!r.varint(key) || (key >> 3) == 0 || (key >> 3) > UINT32_MAX) return false;
  f.number = static_cast<uint32_t>(key >> 3);
  f.type = static_cast<uint32_t>(key & 7);
  uint64_t v = 0;
  switch (f.type) {
    case kVarint:
      if (!r.varint(v)) return false;
      break;
    case kFixed64:
      if (r.s.size() - r.i < 8) return false;
      r.i += 8;
      break;
    case kFixed32:
      if (r.s.size() - r.i < 4) return false;
      r.i += 4;
      break;
    case kLength:
      if (!r.varint(v) || v > r.s.size() - r.i) return false;
      f.payload = r.s.substr(r.i, static_cast<size_t>(v));
      r.i += static_cast<size_t>(v);
      break;
    default:  // groups: not in onnx.proto
      return false;
  }
  f.end = r.i;
  return true;
}

void putLengthField(std::string& out, uint32_t number, std::string_view payload) {
  putVarint(out, (uint64_t{number} << 3) | kLength);
  putVarint(out, payload.size());
  out.append(payload);
}

// What a large value field of a tensor becomes: one zero value in the same field, so that the
// checker still sees which fields hold values (one and only one, of the type's field), not how
// many; empty when the field is not one of them.
std::string_view placeholderFor(uint32_t number) {
  if (number == kTensorRawData) return std::string_view("\0", 1);
  for (const ValueList& list : kTensorValueLists)
    if (list.number == number) return list.oneValue;
  return {};
}

// A TensorProto: each large value field shrunk to one value.
bool tensor(std::string_view in, std::string& out) {
  Reader r{in};
  Field f;
  while (r.i < in.size()) {
    if (!nextField(r, f)) return false;
    const std::string_view placeholder = f.type == kLength ? placeholderFor(f.number) : "";
    if (!placeholder.empty() && f.payload.size() > kKeptValueBytes) {
      putLengthField(out, f.number, placeholder);
      continue;
    }
    out.append(in.substr(f.begin, f.end - f.begin));
  }
  return true;
}

bool graph(std::string_view in, std::string& out, int depth);

// A message whose fields `inner` says how to rewrite: (field number) → rewriter, else copied.
template <typename Inner>
bool message(std::string_view in, std::string& out, Inner inner) {
  Reader r{in};
  Field f;
  std::string part;
  while (r.i < in.size()) {
    if (!nextField(r, f)) return false;
    part.clear();
    if (f.type == kLength) {
      int how = inner(f.number, f.payload, part);
      if (how < 0) return false;
      if (how > 0) {
        putLengthField(out, f.number, part);
        continue;
      }
    }
    out.append(in.substr(f.begin, f.end - f.begin));
  }
  return true;
}

bool attribute(std::string_view in, std::string& out, int depth) {
  return message(in, out, [&](uint32_t number, std::string_view payload, std::string& part) {
    if (number == kAttributeTensor || number == kAttributeTensors)
      return tensor(payload, part) ? 1 : -1;
    if (number == kAttributeGraph || number == kAttributeGraphs)
      return graph(payload, part, depth + 1) ? 1 : -1;
    return 0;
  });
}

bool graph(std::string_view in, std::string& out, int depth) {
  if (depth > kMaxDepth) return false;
  return message(in, out, [&](uint32_t number, std::string_view payload, std::string& part) {
    if (number == kGraphInitializer) return tensor(payload, part) ? 1 : -1;
    if (number == kGraphNode) {
      return message(payload, part,
                     [&](uint32_t n, std::string_view p, std::string& attr) {
                       if (n != kNodeAttribute) return 0;
                       return attribute(p, attr, depth) ? 1 : -1;
                     })
                 ? 1
                 : -1;
    }
    return 0;
  });
}

}  // namespace

std::optional<std::string> withoutWeightValues(std::string_view model) {
  std::string out;
  out.reserve(std::min<size_t>(model.size(), size_t{1} << 20));
  const bool ok =
      message(model, out, [&](uint32_t number, std::string_view payload, std::string& part) {
        if (number != kModelGraph) return 0;
        return graph(payload, part, 0) ? 1 : -1;
      });
  if (!ok) return std::nullopt;
  return out;
}

}  // namespace ts::model
