// The CNN model files of G10's frontend (frontend/Nets/<Net>.txt): the text PyTorch prints for a
// module, e.g.
//   ResNet(
//     (conv1): Conv2d(3, 64, kernel_size=(7, 7), stride=(2, 2), padding=(3, 3), bias=False)
//     (layer1): Sequential(
//       (0): Bottleneck( ... )
// read into a tree of blocks and operators. Only the operators G10's grammar knows are accepted
// (Conv2d, ReLU, MaxPool2d, AdaptiveAvgPool2d, Linear, Dropout, BatchNorm2d); anything else is an
// error naming the file and line, since G10 would build a different network without it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace ts::memsim {

// An operator argument: a number, a boolean (1/0) or a tuple of numbers.
struct NetValue {
  std::vector<double> numbers;
};

struct NetNode {
  enum class Kind { Operator, Block, Sequential };
  Kind kind = Kind::Block;
  std::string type;  // operator or block class ("Conv2d", "Bottleneck", "Sequential")
  std::string name;  // the "(name):" before it; empty for the root
  int line = 0;
  std::vector<NetValue> positional;       // operators only
  std::map<std::string, NetValue> named;  // operators only: kernel_size=(3, 3), ...
  std::vector<NetNode> children;          // blocks and sequentials
};

// `file` names the text in errors.
Result<NetNode> parseNetText(std::string_view text, const std::string& file);

// The operators G10's grammar accepts.
bool isNetOperator(std::string_view type);

}  // namespace ts::memsim
