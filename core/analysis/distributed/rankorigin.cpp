#include "core/analysis/distributed/rankorigin.h"

#include "core/io/chromejsonparser.h"
#include "core/io/chromejsonscanner.h"
#include "core/io/decompress.h"

#include <zlib.h>
#include <zstd.h>

#include <charconv>
#include <fstream>
#include <vector>

namespace tracedesk::core::analysis::distributed {

namespace {

constexpr size_t kFirstPrefix = size_t(1) << 20;
constexpr size_t kLastPrefix = size_t(64) << 20;

// Up to `limit` decompressed bytes from the head of `data` (whole input when plain).
std::string headText(const char *data, size_t size, size_t limit)
{
    std::string out;
    switch (detectCompression(data, size)) {
    case Compression::None:
        out.assign(data, std::min(size, limit));
        break;
    case Compression::Gzip: {
        z_stream zs{};
        if (inflateInit2(&zs, 15 + 32) != Z_OK)
            break;
        out.resize(limit);
        zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data));
        zs.avail_in = uInt(std::min<size_t>(size, UINT32_MAX));
        zs.next_out = reinterpret_cast<Bytef *>(out.data());
        zs.avail_out = uInt(limit);
        int rc = Z_OK;
        while (rc == Z_OK && zs.avail_out > 0)
            rc = inflate(&zs, Z_NO_FLUSH);
        out.resize(limit - zs.avail_out);
        inflateEnd(&zs);
        break;
    }
    case Compression::Zstd: {
        ZSTD_DCtx *ctx = ZSTD_createDCtx();
        out.resize(limit);
        ZSTD_inBuffer in{data, size, 0};
        ZSTD_outBuffer o{out.data(), limit, 0};
        while (o.pos < o.size && in.pos < in.size) {
            const size_t rc = ZSTD_decompressStream(ctx, &o, &in);
            if (ZSTD_isError(rc) || rc == 0)
                break;
        }
        out.resize(o.pos);
        ZSTD_freeDCtx(ctx);
        break;
    }
    }
    return out;
}

class FirstEventSink : public ChromeJsonParser::Sink
{
public:
    void event(const ChromeEvent &e) override { sawTimed = sawTimed || e.ph != "M"; }
    void malformed(const char *) override {}
    bool sawTimed = false;
};

// The origin from a head of the text; false when the head holds no timed event yet.
bool originFromHead(std::string_view text, int64_t *originNs)
{
    ChromeJsonScanner scanner(text);
    std::string problem;
    if (!scanner.start(&problem))
        return false;
    int64_t baseNs = 0;
    for (const auto &[key, value] : scanner.topLevel()) {
        if (key == "baseTimeNanoseconds")
            std::from_chars(value.data(), value.data() + value.size(), baseNs);
    }
    ChromeJsonParser parser;
    FirstEventSink sink;
    std::string_view element;
    std::vector<std::string_view> one(1);
    while (scanner.next(&element) == ChromeJsonScanner::Step::Element) {
        one[0] = element;
        parser.parseBatch(one, sink);
        if (sink.sawTimed) {
            *originNs = baseNs + parser.originMicros() * 1000;
            return true;
        }
    }
    return false;
}

} // namespace

Result<int64_t> chromeJsonOriginNsOfBytes(const std::string &name, const void *data, size_t size)
{
    const char *bytes = static_cast<const char *>(data);
    for (size_t limit = kFirstPrefix; limit <= kLastPrefix; limit *= 8) {
        const std::string head = headText(bytes, size, limit);
        int64_t origin = 0;
        if (originFromHead(head, &origin))
            return origin;
        if (head.size() < limit)
            break; // the whole text was seen
    }
    return Error{name + ": no timed event near the start of the file, clock origin unknown"};
}

Result<int64_t> chromeJsonOriginNs(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error{path + ": cannot open"};
    // A compressed head of 16 MiB expands far past what the probe ever needs.
    std::vector<char> raw(size_t(16) << 20);
    in.read(raw.data(), std::streamsize(raw.size()));
    raw.resize(size_t(in.gcount()));
    return chromeJsonOriginNsOfBytes(path, raw.data(), raw.size());
}

} // namespace tracedesk::core::analysis::distributed
