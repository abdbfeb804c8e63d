#include "core/io/decompress.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

namespace tracedesk::core {

namespace {

constexpr size_t kChunk = size_t(1) << 20;

struct FileCloser
{
    void operator()(FILE *f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<FILE, FileCloser>;

// Grows `out` for another chunk of decompressed output, never past limit + 1 so that an
// over-long stream is noticed without allocating its whole expansion.
bool growFor(PaddedBuffer &out, size_t used, uint64_t limit)
{
    if (out.capacity() - used >= kChunk / 4)
        return true;
    const uint64_t cap = limit == UINT64_MAX ? limit : limit + 1;
    uint64_t want = std::max<uint64_t>(out.capacity() * 2, used + kChunk);
    want = std::min(want, cap);
    if (want <= out.capacity())
        return true;
    return out.reserve(size_t(want));
}

std::string limitMessage(uint64_t limit)
{
    return "expands past " + std::to_string(limit) + " bytes (limit)";
}

// Feeds the file to `step` one chunk at a time; `step(in, n, last)` returns an empty string to
// go on, or an error problem.
template<typename Step>
std::string pumpFile(FILE *file, LoadControl *control, Step &&step)
{
    std::vector<char> chunk(kChunk);
    for (;;) {
        if (control && control->cancelRequested())
            return "cancelled";
        const size_t n = std::fread(chunk.data(), 1, chunk.size(), file);
        if (n == 0 && std::ferror(file))
            return "read failed";
        const bool last = n < chunk.size();
        if (std::string problem = step(chunk.data(), n, last); !problem.empty())
            return problem;
        if (control)
            control->addDone(n);
        if (last)
            return {};
    }
}

std::string inflateGzip(FILE *file, LoadControl *control, uint64_t limit, PaddedBuffer &out)
{
    z_stream zs{};
    if (inflateInit2(&zs, 15 + 16) != Z_OK)
        return "cannot initialise gzip decoder";
    size_t used = 0;
    bool streamEnded = false;
    std::string problem = pumpFile(file, control, [&](const char *in, size_t n, bool) {
        zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(in));
        zs.avail_in = uInt(n);
        while (zs.avail_in > 0) {
            if (streamEnded) {
                // Concatenated gzip members decode as one stream; anything else is trailing junk.
                if (zs.avail_in >= 2 && zs.next_in[0] == 0x1f && zs.next_in[1] == 0x8b) {
                    inflateReset(&zs);
                    streamEnded = false;
                } else {
                    zs.avail_in = 0;
                    break;
                }
            }
            if (!growFor(out, used, limit))
                return std::string("out of memory");
            if (used >= out.capacity())
                return limitMessage(limit);
            const size_t room = std::min<size_t>(out.capacity() - used, UINT32_MAX);
            zs.next_out = reinterpret_cast<Bytef *>(out.writableData() + used);
            zs.avail_out = uInt(room);
            const int rc = inflate(&zs, Z_NO_FLUSH);
            used += room - zs.avail_out;
            if (used > limit)
                return limitMessage(limit);
            if (rc == Z_STREAM_END)
                streamEnded = true;
            else if (rc == Z_BUF_ERROR)
                continue;
            else if (rc != Z_OK)
                return std::string("corrupt gzip data (") + (zs.msg ? zs.msg : "inflate failed") + ")";
        }
        return std::string();
    });
    inflateEnd(&zs);
    if (problem.empty() && !streamEnded)
        problem = "truncated gzip data (the stream ends early)";
    out.setSize(used);
    return problem;
}

std::string decompressZstd(FILE *file, LoadControl *control, uint64_t limit, PaddedBuffer &out)
{
    ZSTD_DCtx *ctx = ZSTD_createDCtx();
    if (!ctx)
        return "cannot initialise zstd decoder";
    size_t used = 0;
    size_t lastRc = 0;
    std::string problem = pumpFile(file, control, [&](const char *in, size_t n, bool) {
        ZSTD_inBuffer input{in, n, 0};
        while (input.pos < input.size) {
            if (!growFor(out, used, limit))
                return std::string("out of memory");
            if (used >= out.capacity())
                return limitMessage(limit);
            ZSTD_outBuffer output{out.writableData() + used, out.capacity() - used, 0};
            lastRc = ZSTD_decompressStream(ctx, &output, &input);
            used += output.pos;
            if (ZSTD_isError(lastRc))
                return std::string("corrupt zstd data (") + ZSTD_getErrorName(lastRc) + ")";
            if (used > limit)
                return limitMessage(limit);
        }
        return std::string();
    });
    // Drain output the decoder still holds once the input is exhausted.
    while (problem.empty() && lastRc != 0) {
        if (!growFor(out, used, limit)) {
            problem = "out of memory";
            break;
        }
        if (used >= out.capacity()) {
            problem = limitMessage(limit);
            break;
        }
        ZSTD_inBuffer input{nullptr, 0, 0};
        ZSTD_outBuffer output{out.writableData() + used, out.capacity() - used, 0};
        lastRc = ZSTD_decompressStream(ctx, &output, &input);
        used += output.pos;
        if (ZSTD_isError(lastRc))
            problem = std::string("corrupt zstd data (") + ZSTD_getErrorName(lastRc) + ")";
        else if (used > limit)
            problem = limitMessage(limit);
        else if (output.pos == 0 && lastRc != 0)
            problem = "truncated zstd data (the frame ends early)";
    }
    ZSTD_freeDCtx(ctx);
    out.setSize(used);
    return problem;
}

} // namespace

Compression detectCompression(const void *data, size_t size)
{
    const auto *b = static_cast<const uint8_t *>(data);
    if (size >= 2 && b[0] == 0x1f && b[1] == 0x8b)
        return Compression::Gzip;
    if (size >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd)
        return Compression::Zstd;
    return Compression::None;
}

PaddedBuffer::~PaddedBuffer()
{
    std::free(m_data);
}

PaddedBuffer::PaddedBuffer(PaddedBuffer &&other) noexcept
    : m_data(std::exchange(other.m_data, nullptr))
    , m_size(std::exchange(other.m_size, 0))
    , m_capacity(std::exchange(other.m_capacity, 0))
{}

PaddedBuffer &PaddedBuffer::operator=(PaddedBuffer &&other) noexcept
{
    if (this != &other) {
        std::free(m_data);
        m_data = std::exchange(other.m_data, nullptr);
        m_size = std::exchange(other.m_size, 0);
        m_capacity = std::exchange(other.m_capacity, 0);
    }
    return *this;
}

bool PaddedBuffer::reserve(size_t bytes)
{
    if (bytes <= m_capacity && m_data)
        return true;
    if (bytes > SIZE_MAX - kPadding)
        return false;
    auto *grown = static_cast<char *>(std::realloc(m_data, bytes + kPadding));
    if (!grown)
        return false;
    m_data = grown;
    m_capacity = bytes;
    return true;
}

void PaddedBuffer::setSize(size_t size)
{
    if (!m_data && !reserve(0))
        return;
    m_size = std::min(size, m_capacity);
    std::memset(m_data + m_size, 0, kPadding);
}

Result<FileContents> readWholeFile(const std::string &path, LoadControl *control,
                                   uint64_t maxDecompressedBytes)
{
    FilePtr file(std::fopen(path.c_str(), "rb"));
    if (!file)
        return fileError(path, std::string("cannot open (") + std::strerror(errno) + ")");
    FileContents result;
    if (std::fseek(file.get(), 0, SEEK_END) == 0) {
        const long end = std::ftell(file.get());
        result.fileBytes = end > 0 ? uint64_t(end) : 0;
        std::fseek(file.get(), 0, SEEK_SET);
    }
    unsigned char magic[4] = {};
    const size_t magicBytes = std::fread(magic, 1, sizeof magic, file.get());
    std::fseek(file.get(), 0, SEEK_SET);
    result.compression = detectCompression(magic, magicBytes);

    std::string problem;
    PaddedBuffer &out = result.buffer;
    switch (result.compression) {
    case Compression::Gzip:
        problem = inflateGzip(file.get(), control, maxDecompressedBytes, out);
        break;
    case Compression::Zstd:
        problem = decompressZstd(file.get(), control, maxDecompressedBytes, out);
        break;
    case Compression::None: {
        // One spare byte lets the read loop see the end of file without growing the buffer.
        if (!out.reserve(size_t(result.fileBytes) + 1))
            return fileError(path, "out of memory reading " + std::to_string(result.fileBytes)
                                       + " bytes");
        size_t used = 0;
        for (;;) {
            if (control && control->cancelRequested()) {
                problem = "cancelled";
                break;
            }
            // The file may have grown since its size was taken.
            if (used == out.capacity() && !out.reserve(used + kChunk)) {
                problem = "out of memory";
                break;
            }
            const size_t want = std::min(kChunk, out.capacity() - used);
            const size_t n = std::fread(out.writableData() + used, 1, want, file.get());
            used += n;
            if (control)
                control->addDone(n);
            if (n < want) {
                if (std::ferror(file.get()))
                    problem = "read failed";
                break;
            }
        }
        out.setSize(used);
        break;
    }
    }
    if (problem == "cancelled")
        return Result<FileContents>::cancelled();
    if (!problem.empty())
        return fileError(path, problem);
    return result;
}

} // namespace tracedesk::core
