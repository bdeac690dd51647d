// A small hand-built session that uses every entity, event kind and detail field, so round-trip
// tests can compare every column. Shared by the core and views tests.
#pragma once

#include "session/entities.h"
#include "session/session.h"

namespace ts::testing {

// The limits of an A100-SXM4-40GB as CUDA reports them (name, SMs, memory, per-SM limits).
Device a100Device();

// Two ranks when `multiRank`, else one. Deterministic.
SessionPtr makeFixtureSession(bool multiRank = false);

// True when both sessions hold the same entities, tracks (every column) and flows; else fills
// `why` with the first difference.
bool sameSession(const Session& a, const Session& b, std::string* why);

}  // namespace ts::testing
