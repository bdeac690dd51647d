// The inputs the PyTorch profiler records for an operator when shapes are recorded
// (record_shapes=True: the args "Input Dims" and "Input type"), kept with the op's range as one
// short text, "float[32,3,224,224]; float[64,3,7,7]; Int[]": a type and its dimensions per input,
// "[]" for a scalar or an input without a shape. The kernel mapping checks model layers against
// them; Details shows them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ts {

struct OpInput {
  std::string type;           // as the profiler writes it: "float", "long int", "Int", "TensorList"
  std::vector<int64_t> dims;  // empty: a scalar, or not a tensor
  bool operator==(const OpInput&) const = default;
};

// The stored text; "" for no inputs. Types lose any ';', '[' or ']' (none are known to hold one).
std::string formatOpInputs(const std::vector<OpInput>& inputs);
// One input appended to such a text (a reader's way, without building OpInputs first).
void appendOpInput(std::string& text, std::string_view type, const int64_t* dims, size_t count);
// Reads formatOpInputs' text back; a part that is not "type[d,...]" is kept as a type alone.
std::vector<OpInput> parseOpInputs(std::string_view text);

// A tensor of floating-point elements with at least one dimension (not a scalar, an index or a
// counter such as BatchNorm's num_batches_tracked).
bool isFloatingTensor(const OpInput& input);

}  // namespace ts
