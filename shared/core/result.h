#pragma once

#include <QString>

#include <utility>
#include <variant>

namespace Countersign {

// The error half of a Result: a message meant for a human (a log line, a CLI, a tool's isError text).
struct Error final
{
    QString message;
};

// The one convention for synchronous calls that can fail: a value or an Error, never an exception.
template <typename T> class [[nodiscard]] Result final
{
public:
    Result(T value) : m_state(std::move(value)) {}
    Result(Error error) : m_state(std::move(error)) {}

    bool ok() const { return std::holds_alternative<T>(m_state); }
    explicit operator bool() const { return ok(); }

    const T &value() const & { return std::get<T>(m_state); }
    T &value() & { return std::get<T>(m_state); }
    T &&value() && { return std::get<T>(std::move(m_state)); }
    const QString &error() const { return std::get<Error>(m_state).message; }

private:
    std::variant<T, Error> m_state;
};

// For calls that return nothing but can fail.
struct Done final
{
};
using Status = Result<Done>;

inline Status success()
{
    return Done{};
}
inline Error failure(QString message)
{
    return Error{std::move(message)};
}

} // namespace Countersign
