// A layer group: one phase of one model layer, written "forward/<layer>", "backward/<layer>" or
// "update/<layer>" — how NVTX ranges name them, how the simulated timeline draws them and how the
// user's corrections assign kernels. Parsed here, once, instead of by prefix length everywhere.
// Also how a kernel came to its layer (MappingMethod).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ts::model {

enum class Phase : uint8_t { Forward, Backward, Update };

std::string_view toString(Phase phase);  // "forward", "backward", "update"

struct LayerGroup {
  Phase phase = Phase::Forward;
  std::string layer;

  // nullopt unless `text` is "<phase>/<layer>" with a known phase and a non-empty layer.
  static std::optional<LayerGroup> parse(std::string_view text);
  std::string text() const;   // "forward/conv1"
  std::string label() const;  // "conv1 (forward)", for tables
  bool operator==(const LayerGroup&) const = default;
};

// How a measured kernel was assigned to its layer group, from most to least direct evidence.
enum class MappingMethod : uint8_t {
  None,   // not mapped (the roofline stays)
  Nvtx,   // inside an NVTX forward/<layer> ... range
  Aten,   // by the PyTorch aten:: op (or autograd node) that launched it
  Order,  // one to one with the step's kernels, by order
  User,   // the user's correction
};

std::string_view toString(MappingMethod method);  // "none", "nvtx", "aten", "order", "user"

}  // namespace ts::model
