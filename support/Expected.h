#pragma once
// Expected<T>: a value or an error message. The library API never throws (docs/architecture.md,
// contracts); functions that can fail return Expected<T> or Status instead.
#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace ttlplan {

/// A failure with a human-readable message (already formatted for the user).
struct Error {
  std::string message;
};

/// The result of an operation that can fail. Holds either a T or an E (an Error by default; the
/// driver library's structured driver::Error elsewhere).
template <typename T, typename E = Error> class [[nodiscard]] Expected {
public:
  Expected(T value) : state_(std::move(value)) {}
  Expected(E error) : state_(std::move(error)) {}

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<T>(state_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<T>(state_);
  }
  T&& value() && {
    assert(ok());
    return std::get<T>(std::move(state_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const E& error() const {
    assert(!ok());
    return std::get<E>(state_);
  }
  /// The value, or `fallback` when this holds an error.
  T value_or(T fallback) const& { return ok() ? std::get<T>(state_) : std::move(fallback); }

private:
  std::variant<T, E> state_;
};

/// Success or an Error, for functions with no value to return.
class [[nodiscard]] Status {
public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}
  static Status success() { return Status(); }

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const {
    assert(!ok());
    return *error_;
  }

private:
  std::optional<Error> error_;
};

} // namespace ttlplan
