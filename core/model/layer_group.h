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

// The layer of update/(optimizer): optimizer kernels whose parameter, so layer, is not known.
inline constexpr const char* kOptimizerLayer = "(optimizer)";

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

// How sure a kernel's layer group is, from least to most. Shown beside every mapped kernel, and
// what the summary's "checked" share counts (Checked and Stated).
enum class Certainty : uint8_t {
  None,     // unmapped
  Guess,    // no model op of its own: placed with the kernels launched just before it (a counter
            // update, a reshape, the loss); not counted as mapped in the coverage
  Order,    // by order alone: its op is of the layer's kind at the layer's place but no shapes
            // were recorded to check it, or one to one with the step's kernels by count
  Checked,  // its op is of the layer's kind and the shapes the profiler recorded agree
  Stated,   // the run says so itself (an NVTX forward/<layer> range) or the user did
};

std::string_view toString(Certainty certainty);  // "—", "guess", "order", "checked", "stated"
bool isChecked(Certainty certainty);             // Checked or Stated

}  // namespace ts::model
