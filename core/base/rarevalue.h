#pragma once

// RareValue<T>: a field that most values leave at its default, held on the heap only when set.
// A GPU profile's 640k steps each carried 120 bytes of TPU details nobody wrote; as a RareValue
// each carries one pointer. Value semantics: a copy copies the T. Reading one never set gives a
// default T; edit() allocates it. Not thread-safe for concurrent edits, like any member.

#include <memory>

namespace tracedesk::core {

template<typename T>
class RareValue
{
public:
    RareValue() = default;
    RareValue(const RareValue &other)
        : m_value(other.m_value ? std::make_unique<T>(*other.m_value) : nullptr)
    {}
    RareValue(RareValue &&) noexcept = default;
    RareValue &operator=(const RareValue &other)
    {
        if (this != &other)
            m_value = other.m_value ? std::make_unique<T>(*other.m_value) : nullptr;
        return *this;
    }
    RareValue &operator=(RareValue &&) noexcept = default;

    const T &operator*() const { return m_value ? *m_value : defaultValue(); }
    const T *operator->() const { return &**this; }
    bool isSet() const { return m_value != nullptr; }
    T &edit()
    {
        if (!m_value)
            m_value = std::make_unique<T>();
        return *m_value;
    }

private:
    static const T &defaultValue()
    {
        static const T value{};
        return value;
    }

    std::unique_ptr<T> m_value;
};

} // namespace tracedesk::core
