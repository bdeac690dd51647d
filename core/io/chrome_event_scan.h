// The reading of one Chrome / Kineto trace event's text into its raw fields: the part of JSON
// import that needs nothing but the text, so that several threads can do it for one file (see
// chrome_event_blocks.h). What the fields mean is decided by the importer, in file order.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/json_cursor.h"

namespace ts {

// The args Kineto puts on GPU events and API calls.
struct KinetoArgs {
  int64_t device = -1, stream = -1, context = 0, correlation = 0, registers = 0, sharedMemory = 0;
  int64_t bytes = 0, fromDevice = -1, toDevice = -1;
  int64_t externalId = -1, graphId = -1;
  int64_t migration = 0, migrationCause = 0, address = 0;  // Tensorscope's own exports
  // The profiler's own estimates for a kernel; negative: not reported.
  double estOccupancy = -1, blocksPerSm = -1, warpsPerSm = -1;
  std::array<int64_t, 3> grid{0, 0, 0}, block{0, 0, 0};
  std::string_view domain;    // NVTX domain (Tensorscope's own exports)
  std::string_view kind;      // copy kind ("HtoD"), when the name does not say
  std::string_view opInputs;  // a PyTorch op's inputs as session/op_inputs.h writes them
};

// The fields of one trace event that Tensorscope reads, as raw JSON text (numbers are converted
// exactly later; strings are already unescaped).
struct RawEvent {
  std::string_view ph, cat, name, ts, dur, id, bp, scope;
  std::string_view pid, tid;  // number text, or the string itself
  bool pidIsString = false, tidIsString = false;
  std::string_view args;    // raw JSON of the args object, empty when absent
  bool argsParsed = false;  // args already read into parsedArgs (and `args` left empty)
  // 'ts' and 'dur' in nanoseconds when their text is a number that fits (else the importer
  // says what is wrong with the text).
  bool tsRead = false, durRead = false;
  int64_t tsNs = 0, durNs = 0;
  KinetoArgs parsedArgs;
};

// Which args an event's category has that are ours: API calls carry other args (AMD: "stream":
// "0x0"), ops whatever their framework adds (a Triton kernel's "grid" as text).
enum class ArgsWanted : uint8_t { Gpu, Correlation, OpInputs };
ArgsWanted argsWantedFor(std::string_view cat);

class EventScanner {
 public:
  // `json`: the whole trace text; raw args are handed out as views of it.
  explicit EventScanner(std::string_view json) : json_(json) {}

  // The trace event at the cursor, which is at its '{'. False when it does not read; problem()
  // then says why, without file or byte ("'ts' has the wrong type").
  bool event(JsonCursor& c, RawEvent& e);
  // An args object kept as text (`args`, a view of the trace or not).
  bool args(std::string_view args, KinetoArgs& out, ArgsWanted wanted);
  const std::string& problem() const { return problem_; }

  // Strings decoded from now on are new; those handed out before may be reused. The importer
  // calls it for every event, a block reader for every block.
  void reset() { strings_.reset(); }

 private:
  // Failures are rare: kept out of line, so that the per-event paths stay small.
  [[gnu::cold, gnu::noinline]] bool fail(std::string what) {
    problem_ = std::move(what);
    return false;
  }
  // A cursor error: "truncated" when the text simply ended.
  [[gnu::cold, gnu::noinline]] bool cursorFail(const JsonCursor& c);
  // The cursor is at the args object's '{'.
  bool argsObject(JsonCursor& c, KinetoArgs& out, ArgsWanted wanted);
  // "Input Dims" (`dims`) or "Input type" at the cursor: what is not a list of integers or a
  // string (a TensorList's nested lists, a null) is kept as an input without dimensions or type.
  bool opInputs(JsonCursor& c, bool dims);
  // The op's inputs as read, written into a string of the pool; empty when it recorded none.
  std::string_view opInputsText();

  std::string_view json_;
  std::string problem_;
  StringPool strings_;  // decoded strings and op inputs of the current event or block
  // A PyTorch op's recorded inputs ("Input Dims", "Input type"; record_shapes=True) as they are
  // read: reused from event to event, so an op costs no allocation.
  std::vector<int64_t> dims_;      // every input's dimensions, one after another
  std::vector<uint32_t> dimsEnd_;  // where each input's end in `dims_`
  std::vector<std::string_view> types_;
};

}  // namespace ts
