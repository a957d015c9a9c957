// Result<T>: the value of an operation that can fail in an expected way
// (bad input, a tool missing, a kernel that does not compile). Exceptions are
// reserved for aborting; they are caught once, in main.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace swz {

// What kind of failure: most are `failure`; two are outcomes a caller acts on
// rather than reports, and are told apart by kind, never by their message.
enum class ErrorKind {
  failure,
  interrupted,  // the user pressed Ctrl-C: stop at a clean point, exit 130
  exhausted,    // a proposer has nothing new to propose: the run ends normally
};

struct Error {
  std::string message;  // one line, no "swizzleperf: error:" prefix
  bool fatal = false;   // true: the run cannot go on (e.g. an LLM key was refused)
  ErrorKind kind = ErrorKind::failure;
  // Exhausted only: the sentence the run records as why it stopped, when the proposer ended
  // it for a reason of its own (its budget spent, its space covered). "": the loop says that
  // the proposer had nothing new left.
  std::string stop_reason = {};

  bool interrupted() const { return kind == ErrorKind::interrupted; }
  bool exhausted() const { return kind == ErrorKind::exhausted; }
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

struct Unit {};
using Status = Result<Unit>;
inline Status ok_status() { return Unit{}; }

inline Error make_error(std::string message) { return Error{std::move(message)}; }
// Ctrl-C stopped the operation.
inline Error interrupted_error() { return Error{"interrupted", false, ErrorKind::interrupted}; }
// Nothing new is left to propose; `why` says so in words. `stop_reason`, when given, is what
// the run's history and console say it stopped for (Error::stop_reason).
inline Error exhausted_error(std::string why = "nothing new to propose", std::string stop_reason = {}) {
  return Error{std::move(why), false, ErrorKind::exhausted, std::move(stop_reason)};
}

}  // namespace swz
