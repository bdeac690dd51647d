#include "io/chrome_event_scan.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "io/decimal_time.h"
#include "session/op_inputs.h"

namespace ts {

ArgsWanted argsWantedFor(std::string_view cat) {
  if (cat == "cuda_runtime" || cat == "Runtime" || cat == "cuda_driver")
    return ArgsWanted::Correlation;
  if (cat == "cpu_op" || cat == "Operator" || cat == "user_annotation") return ArgsWanted::OpInputs;
  return ArgsWanted::Gpu;
}

bool EventScanner::cursorFail(const JsonCursor& c) {
  if (c.truncated() || c.atEnd()) return fail("truncated: the trace ends inside a trace event");
  return fail(c.error().empty() ? "malformed JSON" : c.error());
}

bool EventScanner::args(std::string_view args, KinetoArgs& out, ArgsWanted wanted) {
  if (args.empty()) return true;
  JsonCursor c(args);
  c.skipSpace();
  if (c.peek() != '{') return fail("'args' is not an object");
  return argsObject(c, out, wanted);
}

std::string_view EventScanner::opInputsText() {
  const size_t n = std::max(dimsEnd_.size(), types_.size());
  if (n == 0) return {};
  std::string& text = strings_.next();
  text.clear();
  for (size_t i = 0; i < n; ++i) {
    const size_t from = i == 0 || i > dimsEnd_.size() ? 0 : dimsEnd_[i - 1];
    const size_t to = i < dimsEnd_.size() ? dimsEnd_[i] : from;
    appendOpInput(text, i < types_.size() ? types_[i] : std::string_view{}, dims_.data() + from,
                  to - from);
  }
  return text;
}

bool EventScanner::opInputs(JsonCursor& c, bool dims) {
  const char* key = dims ? "args 'Input Dims'" : "args 'Input type'";
  if (!c.consume('[')) {
    if (!c.skipValue()) return cursorFail(c);
    return true;
  }
  if (c.consume(']')) return true;
  for (;;) {
    c.skipSpace();
    if (dims) {
      const size_t at = c.pos(), kept = dims_.size();
      bool flat = c.consume('[');
      if (flat && !c.consume(']')) {
        for (;;) {
          c.skipSpace();
          const char f = c.peek();
          std::string_view text;
          if (!(f == '-' || (f >= '0' && f <= '9'))) {  // nested (a TensorList) or odd: skip it
            dims_.resize(kept);
            flat = false;
            break;
          }
          if (!c.number(text)) return cursorFail(c);
          auto x = parseJsonInteger(text);
          if (!x) return fail(std::string(key) + " holds a non-integer");
          dims_.push_back(*x);
          if (c.consume(',')) continue;
          if (c.consume(']')) break;
          return c.atEnd() ? cursorFail(c) : fail("expected ',' or ']' in " + std::string(key));
        }
      }
      if (!flat) {
        c.setPos(at);
        if (!c.skipValue()) return cursorFail(c);
      }
      dimsEnd_.push_back(static_cast<uint32_t>(dims_.size()));
    } else if (c.peek() == '"') {
      std::string_view text;
      if (!c.string(text, strings_)) return cursorFail(c);
      types_.push_back(text);
    } else {
      types_.emplace_back();
      if (!c.skipValue()) return cursorFail(c);
    }
    if (c.consume(',')) continue;
    if (c.consume(']')) return true;
    return c.atEnd() ? cursorFail(c) : fail("expected ',' or ']' in " + std::string(key));
  }
}

bool EventScanner::argsObject(JsonCursor& c, KinetoArgs& out, ArgsWanted wanted) {
  if (wanted == ArgsWanted::OpInputs) dims_.clear(), dimsEnd_.clear(), types_.clear();
  c.setPos(c.pos() + 1);
  if (c.consume('}')) return true;
  for (;;) {
    c.skipSpace();
    std::string_view key;
    if (!c.string(key, strings_)) return cursorFail(c);
    if (!c.consume(':')) return c.atEnd() ? cursorFail(c) : fail("expected ':' in 'args'");
    c.skipSpace();
    const char first = c.peek();
    const bool isNumber = first == '-' || (first >= '0' && first <= '9');
    auto integer = [&](int64_t& dst) -> bool {
      std::string_view text;
      if (!isNumber) return fail("args '" + std::string(key) + "' is not an integer");
      if (!c.number(text)) return cursorFail(c);
      auto x = parseJsonInteger(text);
      if (!x) return fail("args '" + std::string(key) + "' is not an integer");
      dst = *x;
      return true;
    };
    auto real = [&](double& dst) -> bool {
      std::string_view text;
      if (!isNumber) return fail("args '" + std::string(key) + "' is not a number");
      if (!c.number(text)) return cursorFail(c);
      const std::string digits(text);
      char* end = nullptr;
      dst = std::strtod(digits.c_str(), &end);
      if (!end || *end != '\0' || !std::isfinite(dst) || dst < 0)
        return fail("args '" + std::string(key) + "' is not a non-negative number");
      return true;
    };
    auto triple = [&](std::array<int64_t, 3>& dst) -> bool {
      if (first != '[') return fail("args '" + std::string(key) + "' is not an array");
      c.setPos(c.pos() + 1);
      if (c.consume(']')) return true;
      for (size_t i = 0;; ++i) {
        c.skipSpace();
        std::string_view text;
        char f = c.peek();
        if (!(f == '-' || (f >= '0' && f <= '9'))) {
          if (!c.skipValue()) return cursorFail(c);
          return fail("args '" + std::string(key) + "' holds a non-integer");
        }
        if (!c.number(text)) return cursorFail(c);
        auto x = parseJsonInteger(text);
        if (!x) return fail("args '" + std::string(key) + "' holds a non-integer");
        if (i < 3) dst[i] = *x;
        if (c.consume(',')) continue;
        if (c.consume(']')) return true;
        return c.atEnd() ? cursorFail(c)
                         : fail("expected ',' or ']' in args '" + std::string(key) + "'");
      }
    };
    bool skip = false;
    int64_t* number = nullptr;
    double* fraction = nullptr;
    std::array<int64_t, 3>* dims = nullptr;
    if (wanted == ArgsWanted::OpInputs) {
      if (key == "Input Dims" || key == "Input type") {
        if (!opInputs(c, key == "Input Dims")) return false;
      } else {
        skip = true;
      }
    } else if (wanted == ArgsWanted::Correlation && key != "correlation") {
      skip = true;
    } else if (key == "domain" || key == "kind") {
      if (first == '"') {
        std::string_view text;
        if (!c.string(text, strings_)) return cursorFail(c);
        (key == "domain" ? out.domain : out.kind) = text;
      } else {
        skip = true;
      }
    } else if (key == "device")
      number = &out.device;
    else if (key == "stream")
      number = &out.stream;
    else if (key == "context")
      number = &out.context;
    else if (key == "correlation")
      number = &out.correlation;
    else if (key == "registers per thread")
      number = &out.registers;
    else if (key == "shared memory")
      number = &out.sharedMemory;
    else if (key == "bytes")
      number = &out.bytes;
    else if (key == "fromDevice" || key == "src device")
      number = &out.fromDevice;
    else if (key == "toDevice" || key == "dst device")
      number = &out.toDevice;
    else if (key == "external id" || key == "External id")
      number = &out.externalId;
    else if (key == "graph id")
      number = &out.graphId;
    else if (key == "unified memory migration")
      number = &out.migration;
    else if (key == "migration cause")
      number = &out.migrationCause;
    else if (key == "address")
      number = &out.address;
    else if (key == "est. achieved occupancy %")
      fraction = &out.estOccupancy;
    else if (key == "blocks per SM")
      fraction = &out.blocksPerSm;
    else if (key == "warps per SM")
      fraction = &out.warpsPerSm;
    else if (key == "grid")
      dims = &out.grid;
    else if (key == "block")
      dims = &out.block;
    else
      skip = true;
    if (number) {
      if (!integer(*number)) return false;
    } else if (fraction) {
      if (!real(*fraction)) return false;
    } else if (dims) {
      if (!triple(*dims)) return false;
    }
    if (skip && !c.skipValue()) return cursorFail(c);
    if (c.consume(',')) continue;
    if (c.consume('}')) {
      if (wanted == ArgsWanted::OpInputs) out.opInputs = opInputsText();
      return true;
    }
    return c.atEnd() ? cursorFail(c) : fail("expected ',' or '}' in 'args'");
  }
}

bool EventScanner::event(JsonCursor& c, RawEvent& e) {
  if (c.peek() != '{') return c.atEnd() ? cursorFail(c) : fail("a trace event is not an object");
  c.setPos(c.pos() + 1);
  e = RawEvent{};
  bool done = c.consume('}');
  while (!done) {
    c.skipSpace();
    std::string_view key;
    if (!c.string(key, strings_)) return cursorFail(c);
    if (!c.consume(':'))
      return c.atEnd() ? cursorFail(c) : fail("expected ':' after \"" + std::string(key) + "\"");
    c.skipSpace();
    const char first = c.peek();
    // A field read as text: a string, or a number kept as written (converted exactly later).
    auto text = [&](std::string_view& dst, bool* isString) -> bool {
      if (first == '"') {
        if (!c.string(dst, strings_)) return cursorFail(c);
        if (isString) *isString = true;
      } else if (first == '-' || (first >= '0' && first <= '9')) {
        if (!c.number(dst)) return cursorFail(c);
      } else {
        return c.atEnd() ? cursorFail(c) : fail("'" + std::string(key) + "' has the wrong type");
      }
      return true;
    };
    bool ok = true;
    // Dispatch on length, then bytes: cheaper than a chain of string compares.
    auto is = [&](const char(&lit)[3]) { return key[0] == lit[0] && key[1] == lit[1]; };
    auto is3 = [&](const char(&lit)[4]) {
      return key[0] == lit[0] && key[1] == lit[1] && key[2] == lit[2];
    };
    const size_t n = key.size();
    if (n == 2 && is("ph"))
      ok = text(e.ph, nullptr);
    else if (n == 3 && is3("cat"))
      ok = text(e.cat, nullptr);
    else if (n == 4 && key == "name")
      ok = text(e.name, nullptr);
    else if (n == 2 && is("ts"))
      ok = text(e.ts, nullptr);
    else if (n == 3 && is3("dur"))
      ok = text(e.dur, nullptr);
    else if (n == 2 && is("id"))
      ok = text(e.id, nullptr);
    else if (n == 2 && is("bp"))
      ok = text(e.bp, nullptr);
    else if (n == 1 && key[0] == 's')
      ok = text(e.scope, nullptr);
    else if (n == 3 && is3("pid"))
      ok = text(e.pid, &e.pidIsString);
    else if (n == 3 && is3("tid"))
      ok = text(e.tid, &e.tidIsString);
    else if (n == 4 && key == "args") {
      if (first != '{') return c.atEnd() ? cursorFail(c) : fail("'args' is not an object");
      // Categories whose args are read field by field, not kept as text.
      bool apiCall = e.cat == "cuda_runtime" || e.cat == "Runtime" || e.cat == "cuda_driver";
      bool readHere =
          e.ph == "X" && (apiCall || e.cat == "kernel" || e.cat == "Kernel" ||
                          e.cat == "gpu_memcpy" || e.cat == "Memcpy" || e.cat == "gpu_memset" ||
                          e.cat == "Memset" || e.cat == "gpu_user_annotation" || e.cat == "nvtx" ||
                          e.cat == "cpu_op" || e.cat == "Operator");
      if (readHere) {
        if (!argsObject(c, e.parsedArgs, argsWantedFor(e.cat))) return false;
        e.argsParsed = true;
      } else {
        size_t from = c.pos();
        if (!c.skipValue()) return cursorFail(c);
        e.args = json_.substr(from, c.pos() - from);
      }
    } else if (!c.skipValue()) {
      return cursorFail(c);
    }
    if (!ok) return false;
    if (c.consume(',')) continue;
    if (c.consume('}')) break;
    return c.atEnd() ? cursorFail(c) : fail("expected ',' or '}' in a trace event");
  }
  // Converted here, where it costs the reading threads, not the importer's.
  if (!e.ts.empty()) {
    if (auto ns = parseMicrosToNs(e.ts)) e.tsNs = *ns, e.tsRead = true;
  }
  if (!e.dur.empty()) {
    if (auto ns = parseMicrosToNs(e.dur)) e.durNs = *ns, e.durRead = true;
  }
  return true;
}

}  // namespace ts
