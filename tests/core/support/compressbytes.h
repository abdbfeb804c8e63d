#pragma once

// Compressed forms of test inputs, made with zlib and libzstd directly (not through the readers
// under test).

#include <zlib.h>
#include <zstd.h>

#include <string>

namespace testsupport {

// One gzip member holding `plain`.
inline std::string gzipBytes(const std::string &plain, int level = 6)
{
    z_stream zs{};
    deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&zs, uLong(plain.size())) + 64, '\0');
    zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(plain.data()));
    zs.avail_in = uInt(plain.size());
    zs.next_out = reinterpret_cast<Bytef *>(out.data());
    zs.avail_out = uInt(out.size());
    deflate(&zs, Z_FINISH);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

// One zstd frame holding `plain` (content size recorded in the header).
inline std::string zstdBytes(const std::string &plain)
{
    std::string out(ZSTD_compressBound(plain.size()), '\0');
    out.resize(ZSTD_compress(out.data(), out.size(), plain.data(), plain.size(), 3));
    return out;
}

} // namespace testsupport
