#pragma once

// Whole-file reading for parsers that want one contiguous, padded buffer (simdjson needs
// readable padding past the end). Plain, gzip and zstd inputs are told apart by their magic
// bytes, never by the file name.
//
// PaddedBuffer owns `size()` bytes followed by `kPadding` zero bytes. It is a plain movable
// value; one thread at a time. readWholeFile() reports progress as compressed (on-disk) bytes
// consumed through LoadControl::addDone and checks for cancellation once per chunk; the caller
// adds the matching total (the file size) before calling. A compressed input that expands past
// `maxDecompressedBytes` is refused early, so a decompression bomb costs at most that much memory.

#include "core/base/loadcontrol.h"
#include "core/base/result.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tracedesk::core {

enum class Compression : uint8_t { None, Gzip, Zstd };

// What the first bytes of a file say about it.
Compression detectCompression(const void *data, size_t size);

class PaddedBuffer
{
public:
    static constexpr size_t kPadding = 64;

    PaddedBuffer() = default;
    ~PaddedBuffer();
    PaddedBuffer(PaddedBuffer &&other) noexcept;
    PaddedBuffer &operator=(PaddedBuffer &&other) noexcept;
    PaddedBuffer(const PaddedBuffer &) = delete;
    PaddedBuffer &operator=(const PaddedBuffer &) = delete;

    const char *data() const { return m_data ? m_data : kEmpty; }
    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    std::string_view view() const { return {data(), m_size}; }

    // Makes room for at least `bytes` (plus padding); keeps the content. False when out of memory.
    bool reserve(size_t bytes);
    char *writableData() { return m_data; }
    size_t capacity() const { return m_capacity; }
    // Sets the logical size (<= capacity) and zeroes the padding after it.
    void setSize(size_t size);

private:
    static constexpr char kEmpty[kPadding] = {};
    char *m_data = nullptr;
    size_t m_size = 0;
    size_t m_capacity = 0;   // usable bytes, padding excluded
};

// What a compressed stream's first bytes declare its decompressed size to be: a zstd frame
// header may carry it (a lie costs nothing, so it is only ever used to refuse early); gzip keeps
// only the last member's size modulo 4 GiB at its end, which proves nothing. kUnknownSize when
// nothing is declared.
inline constexpr uint64_t kUnknownSize = UINT64_MAX;
uint64_t declaredContentSize(const void *data, size_t size);

// How far a compressed input may expand, and how to word the refusal.
struct DecompressLimit
{
    uint64_t bytes = UINT64_MAX;
    // Empty: "expands past N bytes (limit)". Otherwise the refusal reads "expands past <N> when
    // decompressed, <reason>" (or "declares <M> when decompressed, <reason>" when a zstd header
    // already says so), e.g. reason = "more than the memory available to load it (...)".
    std::string reason;
};

struct FileContents
{
    PaddedBuffer buffer;
    Compression compression = Compression::None;
    uint64_t fileBytes = 0;   // on-disk size
};

// Reads and, when needed, decompresses the whole file. Errors name the file: unreadable,
// truncated or corrupt gzip/zstd data, "expands past N bytes (limit)", cancelled.
// Only regular files are read (a folder, a FIFO or a device is refused without blocking). A
// file that grows while it is read is read up to where it ends then, but never past the limit.
Result<FileContents> readWholeFile(const std::string &path, LoadControl *control,
                                   uint64_t maxDecompressedBytes);
Result<FileContents> readWholeFile(const std::string &path, LoadControl *control,
                                   const DecompressLimit &limit);
// The first `bytes` bytes of a file's content (decompressed when it is gzip or zstd), or fewer
// when the content is shorter; empty when the file cannot be read. For peeking at a trace's
// leading keys: corrupt data ends the head where it starts, no error.
std::string readFileHead(const std::string &path, size_t bytes);
// The same over bytes already in memory (fuzzing, tests); `name` stands for the file in errors.
Result<FileContents> readWholeBuffer(const std::string &name, const void *data, size_t size,
                                     LoadControl *control, const DecompressLimit &limit);

} // namespace tracedesk::core
