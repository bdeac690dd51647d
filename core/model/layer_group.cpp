#include "model/layer_group.h"

namespace ts::model {

std::string_view toString(Phase phase) {
  switch (phase) {
    case Phase::Forward:
      return "forward";
    case Phase::Backward:
      return "backward";
    case Phase::Update:
      return "update";
  }
  return "?";
}

std::optional<LayerGroup> LayerGroup::parse(std::string_view text) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos || slash + 1 == text.size()) return std::nullopt;
  const std::string_view phase = text.substr(0, slash);
  LayerGroup g;
  if (phase == "forward")
    g.phase = Phase::Forward;
  else if (phase == "backward")
    g.phase = Phase::Backward;
  else if (phase == "update")
    g.phase = Phase::Update;
  else
    return std::nullopt;
  g.layer = text.substr(slash + 1);
  return g;
}

std::string LayerGroup::text() const {
  return std::string(toString(phase)) + "/" + layer;
}

std::string LayerGroup::label() const {
  return layer + " (" + std::string(toString(phase)) + ")";
}

std::string_view toString(MappingMethod method) {
  switch (method) {
    case MappingMethod::None:
      return "none";
    case MappingMethod::Nvtx:
      return "nvtx";
    case MappingMethod::Aten:
      return "aten";
    case MappingMethod::Order:
      return "order";
    case MappingMethod::User:
      return "user";
  }
  return "?";
}

std::string_view toString(Certainty certainty) {
  switch (certainty) {
    case Certainty::None:
      return "—";
    case Certainty::Guess:
      return "guess";
    case Certainty::Order:
      return "order";
    case Certainty::Checked:
      return "checked";
    case Certainty::Stated:
      return "stated";
  }
  return "?";
}

bool isChecked(Certainty certainty) {
  return certainty == Certainty::Checked || certainty == Certainty::Stated;
}

}  // namespace ts::model
