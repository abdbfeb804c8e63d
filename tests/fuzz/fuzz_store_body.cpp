// Fuzzes what a store file carries inside its frames: the meta stream's decoder and the
// validator behind it. A mutated store file almost never gets past the header hash and zstd's
// content checksums, so here the input is the frames' decompressed bodies and the target wraps
// them in a well-formed file (right header, hash, sizes and checksums) before readStoreFile().
//
// Input: frames back to back, each a little-endian u32 length and that many bytes; a length
// running past the end takes what is left. Frame 0 is the meta stream. Seeds in
// corpus/store_body/ are the bodies of real stores, so byte flips keep the frame layout and
// reach the column decoding and the validation.

#include "core/io/storecache.h"
#include "core/io/storefile.h"

#include <zstd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

using namespace tracedesk::core;

void put(std::vector<uint8_t> &out, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i)
        out.push_back(uint8_t(v >> (8 * i)));
}

std::vector<std::vector<uint8_t>> splitFrames(const uint8_t *data, size_t size)
{
    std::vector<std::vector<uint8_t>> frames;
    size_t at = 0;
    while (at < size && frames.size() < 64) {
        uint32_t length = 0;
        const size_t header = std::min<size_t>(4, size - at);
        std::memcpy(&length, data + at, header);
        at += header;
        const size_t take = std::min<size_t>(length, size - at);
        frames.emplace_back(data + at, data + at + take);
        at += take;
    }
    if (frames.empty())
        frames.emplace_back();
    return frames;
}

// A store file as writeStoreFile() lays it out (storefile.h), around `frames`.
std::vector<uint8_t> wrap(const std::vector<std::vector<uint8_t>> &frames)
{
    std::vector<std::vector<uint8_t>> compressed;
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    if (!cctx)
        std::abort();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    for (const auto &frame : frames) {
        std::vector<uint8_t> out(ZSTD_compressBound(frame.size()));
        const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), frame.data(), frame.size());
        if (ZSTD_isError(n))
            std::abort();
        out.resize(n);
        compressed.push_back(std::move(out));
    }
    ZSTD_freeCCtx(cctx);
    std::vector<uint8_t> file(storefile::kMagic, storefile::kMagic + 8);
    put(file, storefile::kVersion, 4);
    put(file, 0, 4);
    put(file, frames.size(), 8);
    for (size_t i = 0; i < frames.size(); ++i) {
        put(file, compressed[i].size(), 8);
        put(file, frames[i].size(), 8);
    }
    put(file, storefile::fnv1a(file.data(), file.size()), 8);
    for (const auto &c : compressed)
        file.insert(file.end(), c.begin(), c.end());
    return file;
}

// readStoreFile() maps a path, so each input is written to a file in memory-backed /dev/shm.
std::string writeInput(const std::vector<uint8_t> &bytes)
{
    char name[] = "/dev/shm/fuzz-store-body-XXXXXX";
    const int fd = ::mkstemp(name);
    if (fd < 0)
        std::abort();
    for (size_t done = 0; done < bytes.size();) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n <= 0)
            std::abort();
        done += size_t(n);
    }
    ::close(fd);
    return name;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string path = writeInput(wrap(splitFrames(data, size)));
    auto loaded = readStoreFile(path, nullptr, uint64_t(512) << 20);
    ::unlink(path.c_str());
    // Bad bodies are errors that name the file, never a crash or a partial store.
    if (!loaded && loaded.error().message.find(path) == std::string::npos)
        std::abort();
    return 0;
}
