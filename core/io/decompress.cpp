#include "core/io/decompress.h"

#include "core/io/memoryguard.h"

#include <zlib.h>
#include <zstd.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

// Where the (possibly compressed) bytes come from: a file descriptor or memory.
class ByteSource
{
public:
    virtual ~ByteSource() = default;
    // Fills `buf` with up to `n` bytes; fewer only at the end. Sets *failed on a read error.
    virtual size_t read(char *buf, size_t n, bool *failed) = 0;
};

class FdSource : public ByteSource
{
public:
    explicit FdSource(int fd) : m_fd(fd) {}
    ~FdSource() override { ::close(m_fd); }
    FdSource(const FdSource &) = delete;
    FdSource &operator=(const FdSource &) = delete;

    size_t read(char *buf, size_t n, bool *failed) override
    {
        size_t got = 0;
        while (got < n) {
            const ssize_t r = ::read(m_fd, buf + got, n - got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0) {
                *failed = true;
                break;
            }
            if (r == 0)
                break;
            got += size_t(r);
        }
        return got;
    }

private:
    int m_fd;
};

class MemorySource : public ByteSource
{
public:
    MemorySource(const void *data, size_t size)
        : m_data(static_cast<const char *>(data)), m_left(size)
    {}

    size_t read(char *buf, size_t n, bool *) override
    {
        const size_t got = std::min(n, m_left);
        if (got > 0)
            std::memcpy(buf, m_data, got);
        m_data += got;
        m_left -= got;
        return got;
    }

private:
    const char *m_data;
    size_t m_left;
};

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

std::string limitMessage(const DecompressLimit &limit, uint64_t declared = kUnknownSize)
{
    if (limit.reason.empty())
        return "expands past " + std::to_string(limit.bytes) + " bytes (limit)";
    if (declared != kUnknownSize)
        return "declares " + formatBytes(declared) + " when decompressed, " + limit.reason;
    return "expands past " + formatBytes(limit.bytes) + " when decompressed, " + limit.reason;
}

// Feeds the source to `step` one chunk at a time; `step(in, n)` returns an empty string to go
// on, or an error problem.
template<typename Step>
std::string pump(ByteSource &source, LoadControl *control, Step &&step)
{
    std::vector<char> chunk(kChunk);
    for (;;) {
        if (control && control->cancelRequested())
            return "cancelled";
        bool failed = false;
        const size_t n = source.read(chunk.data(), chunk.size(), &failed);
        if (failed)
            return "read failed";
        if (std::string problem = step(chunk.data(), n); !problem.empty())
            return problem;
        if (control)
            control->addDone(n);
        if (n < chunk.size())
            return {};
    }
}

std::string inflateGzip(ByteSource &source, LoadControl *control, const DecompressLimit &limit,
                        PaddedBuffer &out)
{
    z_stream zs{};
    if (inflateInit2(&zs, 15 + 16) != Z_OK)
        return "cannot initialise gzip decoder";
    size_t used = 0;
    bool streamEnded = false;
    std::string problem = pump(source, control, [&](const char *in, size_t n) {
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
            if (!growFor(out, used, limit.bytes))
                return std::string("out of memory");
            if (used >= out.capacity())
                return limitMessage(limit);
            const size_t room = std::min<size_t>(out.capacity() - used, UINT32_MAX);
            zs.next_out = reinterpret_cast<Bytef *>(out.writableData() + used);
            zs.avail_out = uInt(room);
            const int rc = inflate(&zs, Z_NO_FLUSH);
            used += room - zs.avail_out;
            if (used > limit.bytes)
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

// `refuseDeclared`: a frame declaring more than the limit is refused before decoding (a whole
// read); a head read instead decodes up to the limit.
std::string decompressZstd(ByteSource &source, LoadControl *control, const DecompressLimit &limit,
                           bool refuseDeclared, PaddedBuffer &out)
{
    ZSTD_DCtx *ctx = ZSTD_createDCtx();
    if (!ctx)
        return "cannot initialise zstd decoder";
    size_t used = 0;
    size_t lastRc = 0;
    bool first = true;
    std::string problem = pump(source, control, [&](const char *in, size_t n) {
        if (first && refuseDeclared) {
            // A frame that says up front it is too big is refused before anything is allocated.
            const uint64_t declared = declaredContentSize(in, n);
            if (declared != kUnknownSize && declared > limit.bytes)
                return limitMessage(limit, declared);
        }
        first = false;
        ZSTD_inBuffer input{in, n, 0};
        while (input.pos < input.size) {
            if (!growFor(out, used, limit.bytes))
                return std::string("out of memory");
            if (used >= out.capacity())
                return limitMessage(limit);
            ZSTD_outBuffer output{out.writableData() + used, out.capacity() - used, 0};
            lastRc = ZSTD_decompressStream(ctx, &output, &input);
            used += output.pos;
            if (ZSTD_isError(lastRc))
                return std::string("corrupt zstd data (") + ZSTD_getErrorName(lastRc) + ")";
            if (used > limit.bytes)
                return limitMessage(limit);
        }
        return std::string();
    });
    // Drain output the decoder still holds once the input is exhausted.
    while (problem.empty() && lastRc != 0) {
        if (!growFor(out, used, limit.bytes)) {
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
        else if (used > limit.bytes)
            problem = limitMessage(limit);
        else if (output.pos == 0 && lastRc != 0)
            problem = "truncated zstd data (the frame ends early)";
    }
    ZSTD_freeDCtx(ctx);
    out.setSize(used);
    return problem;
}

// Plain text: read as is, up to where the source ends. A source that keeps growing (a file being
// written) stops at `cap`.
std::string readPlain(ByteSource &source, LoadControl *control, uint64_t sizeHint, uint64_t cap,
                      const DecompressLimit &limit, PaddedBuffer &out)
{
    // One spare byte lets the read loop see the end without growing the buffer.
    const uint64_t first = std::min<uint64_t>(sizeHint, cap) + 1;
    if (first > SIZE_MAX / 2 || !out.reserve(size_t(first)))
        return "out of memory reading " + std::to_string(sizeHint) + " bytes";
    size_t used = 0;
    std::string problem;
    for (;;) {
        if (control && control->cancelRequested()) {
            problem = "cancelled";
            break;
        }
        if (used > cap) {
            problem = limit.reason.empty()
                          ? "grew past " + std::to_string(cap) + " bytes while being read (limit)"
                          : "grew past " + formatBytes(cap) + " while being read, " + limit.reason;
            break;
        }
        if (used == out.capacity() && !out.reserve(used + kChunk)) {
            problem = "out of memory";
            break;
        }
        const size_t want = std::min(kChunk, out.capacity() - used);
        bool failed = false;
        const size_t n = source.read(out.writableData() + used, want, &failed);
        used += n;
        if (control)
            control->addDone(n);
        if (failed) {
            problem = "read failed";
            break;
        }
        if (n < want)
            break;
    }
    out.setSize(used);
    return problem;
}

// Decodes the source into `result` whatever its compression, up to the limit. A whole read
// stops at the limit with an error; a head read (`head`) stops there too, keeping what it has:
// the caller takes the first limit.bytes bytes and ignores the problem. Returns the problem.
std::string decodeSource(ByteSource &source, uint64_t sizeHint, LoadControl *control,
                         const DecompressLimit &limit, bool head, FileContents &result)
{
    result.fileBytes = sizeHint;
    PaddedBuffer &out = result.buffer;
    // The magic is peeked through a small prefix source so every reader sees the whole stream.
    char magic[4] = {};
    bool failed = false;
    const size_t magicBytes = source.read(magic, sizeof magic, &failed);
    if (failed)
        return "read failed";
    result.compression = detectCompression(magic, magicBytes);

    class PrefixedSource : public ByteSource
    {
    public:
        PrefixedSource(const char *prefix, size_t n, ByteSource &rest)
            : m_prefix(prefix), m_left(n), m_rest(rest)
        {}
        size_t read(char *buf, size_t n, bool *readFailed) override
        {
            const size_t got = std::min(n, m_left);
            std::memcpy(buf, m_prefix, got);
            m_prefix += got;
            m_left -= got;
            if (got == n)
                return got;
            return got + m_rest.read(buf + got, n - got, readFailed);
        }

    private:
        const char *m_prefix;
        size_t m_left;
        ByteSource &m_rest;
    };
    PrefixedSource whole(magic, magicBytes, source);

    switch (result.compression) {
    case Compression::Gzip:
        return inflateGzip(whole, control, limit, out);
    case Compression::Zstd:
        return decompressZstd(whole, control, limit, !head, out);
    case Compression::None:
        break;
    }
    const uint64_t cap = head ? limit.bytes : std::max(limit.bytes, sizeHint);
    std::string problem = readPlain(whole, control, sizeHint, cap, limit, out);
    result.fileBytes = out.size();
    return problem;
}

Result<FileContents> readSource(const std::string &name, ByteSource &source, uint64_t sizeHint,
                                LoadControl *control, const DecompressLimit &limit)
{
    FileContents result;
    const std::string problem = decodeSource(source, sizeHint, control, limit, false, result);
    if (problem == "cancelled")
        return Result<FileContents>::cancelled();
    if (!problem.empty())
        return fileError(name, problem);
    return result;
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

uint64_t declaredContentSize(const void *data, size_t size)
{
    if (detectCompression(data, size) != Compression::Zstd)
        return kUnknownSize;
    const unsigned long long n = ZSTD_getFrameContentSize(data, size);
    if (n == ZSTD_CONTENTSIZE_UNKNOWN || n == ZSTD_CONTENTSIZE_ERROR)
        return kUnknownSize;
    return uint64_t(n);
}

Result<FileContents> readWholeFile(const std::string &path, LoadControl *control,
                                   uint64_t maxDecompressedBytes)
{
    return readWholeFile(path, control, DecompressLimit{maxDecompressedBytes, {}});
}

Result<FileContents> readWholeFile(const std::string &path, LoadControl *control,
                                   const DecompressLimit &limit)
{
    // Non-blocking open: a FIFO must not hang the load before it is refused below.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return fileError(path, std::string("cannot open (") + std::strerror(errno) + ")");
    FdSource source(fd);
    struct stat st{};
    if (::fstat(fd, &st) != 0)
        return fileError(path, std::string("cannot open (") + std::strerror(errno) + ")");
    if (!S_ISREG(st.st_mode))
        return fileError(path, S_ISDIR(st.st_mode) ? "is a folder, not a file"
                                                   : "is not a regular file");
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0)
        ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return readSource(path, source, st.st_size > 0 ? uint64_t(st.st_size) : 0, control, limit);
}

Result<FileContents> readWholeBuffer(const std::string &name, const void *data, size_t size,
                                     LoadControl *control, const DecompressLimit &limit)
{
    MemorySource source(data, size);
    return readSource(name, source, size, control, limit);
}

std::string readFileHead(const std::string &path, size_t bytes)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return {};
    FdSource source(fd);
    struct stat st{};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || bytes == 0)
        return {};
    FileContents head;
    decodeSource(source, uint64_t(st.st_size), nullptr, DecompressLimit{bytes, {}}, true, head);
    const std::string_view got = head.buffer.view();
    return std::string(got.substr(0, std::min(got.size(), bytes)));
}

} // namespace tracedesk::core
