// Imports Chrome Trace Event JSON, including the PyTorch profiler's (Kineto) dialect: kernels,
// copies, memsets, CUDA runtime/driver calls, CPU ops and annotations (as NVTX-like ranges), device
// properties, distributed info. Anything it does not model is kept as a generic range.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "io/import_info.h"
#include "session/session_builder.h"
#include "util/progress.h"
#include "util/result.h"

namespace ts {

// Looks at the first bytes: true for text that starts like a JSON object or array.
bool looksLikeJson(std::string_view head);

struct JsonReadOptions {
  // A damaged trace (cut short by a killed job or a partial copy; events with impossible fields
  // such as a negative 'dur' or a 'ts' that is no number) is an error with code Damaged that names
  // the first problem and what recovery would keep — unless `recover`: then every complete event
  // is imported, the damaged ones are skipped and counted by problem, and info.damage says so.
  bool recover = false;
  // Above 1: the events' text is read on that many threads besides the caller's, in blocks of
  // about `blockBytes` (0: 256 KiB; see chrome_event_blocks.h), in traces of two blocks or more.
  // The session and every error are the same as with one thread (tested).
  unsigned threads = 1;
  size_t blockBytes = 0;
  // Told, now and then, a byte offset before which the text is never read again: the caller may
  // release that part (a mapped file's pages), so that a huge trace is not resident all at once.
  std::function<void(size_t)> consumed;
  // When set, the text is still arriving (a gzip trace inflated on another thread,
  // arriving_text.h): `json` is the span it fills, of which only the first arrive(n) bytes may be
  // read; arrive(n) waits until n bytes are in or the text is whole, and returns how many are in
  // (its size, once whole). Events are read as the text comes; the session is the same.
  std::function<size_t(size_t)> arrive;
  size_t expectedBytes = 0;  // the text's size as far as known beforehand, for progress
};

// Parses `json` into `builder` as rank index `rank`. Nothing past json's end is read. Errors name
// `path` and the byte offset of the offending event.
Result<ImportInfo> importChromeJson(const std::string& path, std::string_view json,
                                    SessionBuilder& builder, uint32_t rank,
                                    const Progress& progress = {},
                                    const JsonReadOptions& options = {});

}  // namespace ts
