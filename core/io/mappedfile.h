#pragma once

// MappedFile: a whole file mapped read-only into memory.
//
// Owns the mapping and unmaps it on destruction; move-only. The bytes stay valid, unchanged by
// this process, for the object's life, so readers can hand out string_views into them. An empty
// file opens fine with size() == 0 and no mapping (mmap cannot map zero bytes). Read-only after
// open(), so any number of threads may read the bytes at once. A borrowed MappedFile (borrow())
// only views bytes someone else owns, which must outlive it; it never unmaps or releases them.

#include "core/base/result.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tracedesk::core {

class MappedFile
{
public:
    MappedFile() = default;
    MappedFile(MappedFile &&other) noexcept;
    MappedFile &operator=(MappedFile &&other) noexcept;
    MappedFile(const MappedFile &) = delete;
    MappedFile &operator=(const MappedFile &) = delete;
    ~MappedFile();

    // Errors name the file: cannot be opened, is not a regular file, cannot be mapped.
    static Result<MappedFile> open(const std::string &path);
    // A view of bytes already in memory (fuzzing, tests), read exactly like a mapped file.
    static MappedFile borrow(std::string_view bytes);

    const uint8_t *data() const { return m_data; }
    size_t size() const { return m_size; }
    const uint8_t *end() const { return m_data + m_size; }
    std::string_view bytes() const { return {reinterpret_cast<const char *>(m_data), m_size}; }

    // Drops the whole pages inside [begin, end) from this process's resident memory once a reader
    // is done with them. They stay readable: touching them again reads them back from the file.
    void release(const uint8_t *begin, const uint8_t *end) const;

private:
    void reset();
    const uint8_t *m_data = nullptr;
    size_t m_size = 0;
    bool m_borrowed = false;
};

} // namespace tracedesk::core
