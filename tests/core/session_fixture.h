// A small hand-built session that uses every entity, event kind and detail field, so round-trip
// tests can compare every column. Shared by the core and views tests.
#pragma once

#include "session/session.h"

namespace ts::testing {

// Two ranks when `multiRank`, else one. Deterministic.
SessionPtr makeFixtureSession(bool multiRank = false);

// True when both sessions hold the same entities, tracks (every column) and flows; else fills
// `why` with the first difference.
bool sameSession(const Session& a, const Session& b, std::string* why);

}  // namespace ts::testing
