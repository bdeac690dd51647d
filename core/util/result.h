// Result<T>: a value or an Error; Status: success or an Error. An Error has a code (what kind of
// failure, for callers to branch on) and a message that names the file and the problem (for the
// user). Errors are values in core: nothing throws across a module boundary.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace ts {

enum class ErrorCode : uint8_t {
  Invalid,    // the input is wrong: a bad file, an impossible configuration (the default)
  NotFound,   // a file, a layer, a device that does not exist
  Io,         // reading or writing failed (permissions, a full disk, a broken pipe)
  Cancelled,  // the user (or a newer request) stopped the work: not a failure to report
  Damaged,    // a damaged input whose intact part can be opened if the user agrees (recover)
};

struct Error {
  std::string message;
  ErrorCode code = ErrorCode::Invalid;

  static Error cancelled(std::string message = "cancelled") {
    return {std::move(message), ErrorCode::Cancelled};
  }
  static Error notFound(std::string message) { return {std::move(message), ErrorCode::NotFound}; }
  static Error io(std::string message) { return {std::move(message), ErrorCode::Io}; }
  bool isCancelled() const { return code == ErrorCode::Cancelled; }
  // The same failure with context in front ("run.json: " + "line 3: ..."), its code kept.
  Error prefixed(const std::string& context) const { return {context + message, code}; }
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  // The message; failure() is the whole Error (code included), to pass on unchanged.
  const std::string& error() const { return std::get<1>(v_).message; }
  const Error& failure() const& { return std::get<1>(v_); }
  Error&& failure() && { return std::get<1>(std::move(v_)); }
  bool cancelled() const { return !ok() && failure().isCancelled(); }

 private:
  std::variant<T, Error> v_;
};

// For operations that produce no value.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), failed_(true) {}  // NOLINT
  static Status success() { return {}; }
  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const std::string& error() const { return error_.message; }
  const Error& failure() const& { return error_; }
  Error&& failure() && { return std::move(error_); }
  bool cancelled() const { return failed_ && error_.isCancelled(); }

 private:
  Error error_;
  bool failed_ = false;
};

}  // namespace ts

// Early returns that pass an Error on with its code, from a function returning Result or Status:
//   TS_RETURN_IF_ERROR(writeHeader(out));            // a Status or a Result
//   TS_ASSIGN_OR_RETURN(auto text, readTextFile(p));  // declares (or assigns) the value
#define TS_RETURN_IF_ERROR(expr)                                                            \
  do {                                                                                      \
    if (auto ts_status_ = (expr); !ts_status_.ok()) return std::move(ts_status_).failure(); \
  } while (false)

#define TS_ERROR_CONCAT_(a, b) a##b
#define TS_ERROR_CONCAT(a, b) TS_ERROR_CONCAT_(a, b)
#define TS_ASSIGN_OR_RETURN(lhs, expr) \
  TS_ASSIGN_OR_RETURN_IMPL_(TS_ERROR_CONCAT(ts_result_, __LINE__), lhs, expr)
#define TS_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return std::move(tmp).failure(); \
  lhs = std::move(tmp).value()
