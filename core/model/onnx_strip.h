// An ONNX file's bytes without its weights' values, read straight off the protobuf wire format:
// Tensorscope needs the graph, the names, types and dimensions, never the values, so a model of
// gigabytes is parsed (and handed to the ONNX library's child process) as the few hundred
// kilobytes of its graph, and the values' pages of a mapped file are never even read.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ts::model {

// Tensors whose values take more than this many bytes lose them: smaller ones stay, since shape
// inference reads some values (a Reshape's shape, a Slice's starts) and those are tiny.
constexpr size_t kKeptValueBytes = 4096;

// `model` (a serialized ModelProto) with the values of its large initializers and Constant
// tensors (raw_data, or the packed float/int32/int64/double/uint64 lists) cut to one value each,
// in the same field: the ONNX checker looks at which fields hold values, not at how many (a model
// it refuses is refused the same), and shape inference reads dimensions; everything else byte for
// byte.
// nullopt when the bytes are not protobuf as far as that walk reads them (the caller then parses
// them as they are, so that the error is the usual one).
std::optional<std::string> withoutWeightValues(std::string_view model);

}  // namespace ts::model
