#pragma once

// IndexIterator: a random-access iterator over a table that decodes its values by index
// (PackedInts, FlowTable), yielding values rather than references.

#include <cstddef>
#include <iterator> // also brings operator<=>'s ordering types

namespace tracedesk::core {

template<typename Table, typename Value>
class IndexIterator
{
public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = Value;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Value;

    IndexIterator() = default;
    IndexIterator(const Table *t, size_t i) : m_t(t), m_i(i) {}
    Value operator*() const { return (*m_t)[m_i]; }
    Value operator[](difference_type d) const { return *(*this + d); }
    IndexIterator &operator++() { ++m_i; return *this; }
    IndexIterator operator++(int) { auto t = *this; ++m_i; return t; }
    IndexIterator &operator--() { --m_i; return *this; }
    IndexIterator &operator+=(difference_type d)
    {
        m_i = size_t(difference_type(m_i) + d);
        return *this;
    }
    IndexIterator &operator-=(difference_type d) { return *this += -d; }
    friend IndexIterator operator+(IndexIterator a, difference_type d) { return a += d; }
    friend IndexIterator operator-(IndexIterator a, difference_type d) { return a -= d; }
    friend difference_type operator-(IndexIterator a, IndexIterator b)
    {
        return difference_type(a.m_i) - difference_type(b.m_i);
    }
    friend bool operator==(IndexIterator a, IndexIterator b) { return a.m_i == b.m_i; }
    friend auto operator<=>(IndexIterator a, IndexIterator b) { return a.m_i <=> b.m_i; }

private:
    const Table *m_t = nullptr;
    size_t m_i = 0;
};

} // namespace tracedesk::core
