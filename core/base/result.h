#pragma once

// Result<T>: a value or an error message that names the file and the problem.
// core/ never throws across layers; readers and analyses return this instead.

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace tracedesk::core {

struct Error
{
    std::string message;
    bool cancelled = false;
};

template<typename T>
class Result
{
public:
    Result(T value) : m_data(std::move(value)) {}
    Result(Error error) : m_data(std::move(error)) {}

    static Result cancelled() { return Error{"cancelled", true}; }

    bool ok() const { return std::holds_alternative<T>(m_data); }
    explicit operator bool() const { return ok(); }
    bool isCancelled() const { return !ok() && error().cancelled; }

    const T &value() const & { return std::get<T>(m_data); }
    T &value() & { return std::get<T>(m_data); }
    T &&value() && { return std::get<T>(std::move(m_data)); }
    const Error &error() const { return std::get<Error>(m_data); }
    const std::string &message() const { return error().message; }

private:
    std::variant<T, Error> m_data;
};

inline Error fileError(const std::string &path, const std::string &problem)
{
    return Error{path + ": " + problem, false};
}

} // namespace tracedesk::core
