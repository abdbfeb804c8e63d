// writeStoreFile(): serialises a Trace into the store file format described in storefile.h.

#include "core/io/storecache.h"
#include "core/base/parallel.h"
#include "core/io/storefile.h"

#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <memory>

#include <fcntl.h>
#include <unistd.h>

namespace tracedesk::core {

namespace {

using namespace storefile;

// Level 1: higher levels shrink the file a little but neither write nor read faster.
constexpr int kLevel = 1;

struct Span
{
    const uint8_t *data;
    size_t size;
    Coding coding = Coding::Plain;
};

class MetaEncoder
{
public:
    MetaWriter meta;
    std::vector<Span> columns;              // big columns, in walk order
    std::vector<std::vector<uint8_t>> owned; // packed columns that do not exist in the Trace

    template<typename T>
    void column(const std::vector<T> &v, Coding coding = Coding::Plain)
    {
        meta.varint(v.size());
        put(v.data(), v.size() * sizeof(T), coding);
    }
    template<typename T>
    void deltaColumn(const std::vector<T> &v)
    {
        column(v, deltaCodingFor<T>());
    }
    void bytes(const std::vector<uint8_t> &v) { column(v); }
    // A packed column: its width and base, its value count, then its stored bytes.
    void packed(const PackedInts &p)
    {
        meta.u8(uint8_t(p.empty() ? 8 : p.width()));
        meta.svarint(p.base());
        meta.varint(p.size());
        put(p.bytes().data(), p.bytes().size());
    }

    // Inline columns stay plain: they are small and read with the meta stream.
    void put(const void *data, size_t size, Coding coding = Coding::Plain)
    {
        if (size < kInlineBytes)
            meta.raw(data, size);
        else
            columns.push_back({static_cast<const uint8_t *>(data), size, coding});
    }

    void encode(const Trace &trace, const LoadInfo &info);

private:
    void encodeTrack(const Track &track);
    void encodeFlows(const FlowTable &flows);
    void encodeInfo(const LoadInfo &info);
};

void MetaEncoder::encode(const Trace &trace, const LoadInfo &info)
{
    meta.svarint(trace.begin);
    meta.svarint(trace.end);
    meta.svarint(trace.originPs);

    meta.varint(trace.strings.size());
    for (size_t i = 1; i < trace.strings.size(); ++i)
        meta.string(trace.strings.view(StringId(i)));

    meta.varint(trace.planes.size());
    for (const Plane &p : trace.planes) {
        meta.varint(p.name);
        meta.varint(p.host);
        meta.svarint(p.id);
        meta.u8(uint8_t(p.kind));
        meta.svarint(p.sortIndex);
        meta.varint(p.stats);
        deltaColumn(p.tracks);
    }

    meta.varint(trace.kinds.size());
    for (const EventKind &k : trace.kinds) {
        meta.varint(k.name);
        meta.varint(k.displayName);
        meta.varint(k.category);
        meta.varint(k.plane);
        meta.varint(k.stats);
        meta.u8(uint8_t(k.role));
        for (int64_t v : k.side)
            meta.svarint(v);
    }
    bytes(trace.metaArgs.bytes());

    meta.varint(trace.tracks.size());
    for (const Track &t : trace.tracks)
        encodeTrack(t);
    encodeFlows(trace.flows);
    encodeInfo(info);
    meta.varint(kMetaEndMarker);
}

void MetaEncoder::encodeTrack(const Track &t)
{
    meta.varint(t.plane);
    meta.varint(t.name);
    meta.svarint(t.sourceId);
    meta.u8(uint8_t(t.type));
    meta.svarint(t.sortIndex);
    meta.svarint(t.begin);
    meta.svarint(t.end);
    meta.varint(t.sliceCount);
    meta.varint(t.rows.size());
    for (const Row &r : t.rows) {
        uint32_t mask = 0;
        for (int c = 0; c < kSideColumnCount; ++c) {
            if (!r.side[c].empty())
                mask |= 1u << c;
        }
        meta.varint(mask);
        column(r.start);
        packed(r.duration);
        packed(r.kind);
        deltaColumn(r.args);
        for (int c = 0; c < kSideColumnCount; ++c) {
            if (mask & (1u << c))
                packed(r.side[c]);
        }
    }
    column(t.counter.time);
    column(t.counter.value);
    meta.varint(t.aggregates.size());
    for (const AggregateEvent &a : t.aggregates) {
        meta.varint(a.kind);
        meta.svarint(a.occurrences);
        meta.svarint(a.duration);
        meta.varint(a.args);
    }
    bytes(t.args.bytes());
}

void MetaEncoder::encodeFlows(const FlowTable &flows)
{
    meta.varint(flows.size());
    for (int c = 0; c < FlowTable::Count; ++c)
        packed(flows.column(FlowTable::Column(c)));
}

void MetaEncoder::encodeInfo(const LoadInfo &info)
{
    meta.string(info.format);
    meta.varint(info.sources.size());
    for (const auto &s : info.sources)
        meta.string(s);
    meta.varint(info.hosts.size());
    for (const auto &s : info.hosts)
        meta.string(s);
    meta.varint(info.sourceBytes);
    meta.varint(info.xlines);
    meta.varint(info.xevents);
    meta.varint(info.recordsByPhase.size());
    for (const auto &[phase, n] : info.recordsByPhase) {
        meta.string(phase);
        meta.varint(n);
    }
    meta.varint(info.warningCount);
    meta.varint(info.warnings.size());
    for (const auto &s : info.warnings)
        meta.string(s);
    meta.f64(info.loadSeconds);
    const RunMetadata &run = info.run;
    meta.string(run.framework);
    meta.svarint(run.clockOriginNs);
    meta.varint(run.devices.size());
    for (const GpuDeviceInfo &d : run.devices) {
        meta.svarint(d.id);
        meta.string(d.name);
        meta.varint(d.totalGlobalMemBytes);
        meta.svarint(d.computeMajor);
        meta.svarint(d.computeMinor);
        meta.svarint(d.numSms);
        meta.svarint(d.maxThreadsPerMultiprocessor);
        meta.svarint(d.warpSize);
    }
    meta.u8(run.distributed.present ? 1 : 0);
    meta.string(run.distributed.backend);
    meta.svarint(run.distributed.rank);
    meta.svarint(run.distributed.worldSize);
    meta.varint(run.properties.size());
    for (const auto &[key, value] : run.properties) {
        meta.string(key);
        meta.string(value);
    }
}

void putU32(std::vector<uint8_t> &out, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        out.push_back(uint8_t(v >> (8 * i)));
}

void putU64(std::vector<uint8_t> &out, uint64_t v)
{
    for (int i = 0; i < 8; ++i)
        out.push_back(uint8_t(v >> (8 * i)));
}

std::string temporaryPathFor(const std::string &path)
{
    static std::atomic<uint32_t> counter{0};
    return path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
}

} // namespace

Result<bool> writeStoreFile(const Trace &trace, const std::string &path,
                            const StoreWriteOptions &options)
{
    MetaEncoder encoder;
    encoder.encode(trace, options.info ? *options.info : trace.info);

    std::vector<Span> frames;
    frames.push_back({encoder.meta.bytes().data(), encoder.meta.bytes().size()});
    for (const Span &c : encoder.columns) {
        for (size_t offset = 0; offset < c.size; offset += kChunkBytes)
            frames.push_back({c.data + offset, std::min(kChunkBytes, c.size - offset), c.coding});
    }

    const std::string temporary = temporaryPathFor(path);
    std::FILE *f = std::fopen(temporary.c_str(), "wb");
    if (!f)
        return fileError(path, "cannot be created");
    const auto writeFailed = [&] {
        return fileError(path, "could not be written (disk full or no permission?)");
    };
    auto abandon = [&](Result<bool> why) {
        std::fclose(f);
        std::error_code ec;
        std::filesystem::remove(temporary, ec);
        return why;
    };
    // The header's frame sizes are known once every frame is compressed: its place is kept
    // and it is written last.
    const size_t headerBytes = kFixedHeaderBytes + frames.size() * 16 + 8; // + its checksum
    const std::vector<uint8_t> placeholder(headerBytes, 0);
    if (std::fwrite(placeholder.data(), 1, headerBytes, f) != headerBytes)
        return abandon(writeFailed());

    std::vector<uint64_t> compressedSize(frames.size(), 0);
    std::atomic<bool> failed{false};
    // Two workers, each with its own context and scratch buffer, made on its first frame.
    using CCtxPtr = std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx *)>;
    constexpr unsigned kWorkers = 2;
    // Frames are compressed a window at a time and written in order, so the write holds a
    // window's output (at most 64 MiB) rather than the whole compressed store.
    constexpr size_t kWindow = 8 * kWorkers;
    CCtxPtr contexts[kWorkers] = {{nullptr, ZSTD_freeCCtx}, {nullptr, ZSTD_freeCCtx}};
    std::vector<uint8_t> coded[kWorkers];
    std::vector<std::vector<uint8_t>> compressed(std::min(kWindow, frames.size()));
    size_t windowStart = 0;
    auto compressFrame = [&](unsigned worker, size_t k) {
        CCtxPtr &cctx = contexts[worker];
        if (!cctx) {
            cctx.reset(ZSTD_createCCtx());
            if (!cctx) {
                failed = true;
                return false;
            }
            ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, kLevel);
            ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1);
        }
        const Span &frame = frames[windowStart + k];
        const uint8_t *src = frame.data;
        if (frame.coding != Coding::Plain) {
            coded[worker].resize(frame.size);
            encodeFrame(frame.coding, frame.data, coded[worker].data(), frame.size);
            src = coded[worker].data();
        }
        std::vector<uint8_t> &out = compressed[k];
        out.resize(ZSTD_compressBound(frame.size));
        const size_t n = ZSTD_compress2(cctx.get(), out.data(), out.size(), src, frame.size);
        if (ZSTD_isError(n)) {
            failed = true;
            return false;
        }
        out.resize(n);
        return true;
    };
    for (; windowStart < frames.size(); windowStart += kWindow) {
        if (options.stop && options.stop->load(std::memory_order_relaxed))
            return abandon(Result<bool>::cancelled());
        const size_t n = std::min(kWindow, frames.size() - windowStart);
        try {
            parallelFor(n, kWorkers, compressFrame);
        } catch (const std::bad_alloc &) {
            return abandon(fileError(path, "not enough memory to compress the store"));
        }
        if (failed)
            return abandon(fileError(path, "could not compress the store"));
        for (size_t k = 0; k < n; ++k) {
            compressedSize[windowStart + k] = compressed[k].size();
            if (std::fwrite(compressed[k].data(), 1, compressed[k].size(), f) !=
                compressed[k].size())
                return abandon(writeFailed());
        }
    }

    std::vector<uint8_t> header(kMagic, kMagic + 8);
    putU32(header, kVersion);
    putU32(header, 0);
    putU64(header, frames.size());
    for (size_t i = 0; i < frames.size(); ++i) {
        putU64(header, compressedSize[i]);
        putU64(header, frames[i].size);
    }
    putU64(header, fnv1a(header.data(), header.size()));
    bool ok = header.size() == headerBytes && std::fseek(f, 0, SEEK_SET) == 0 &&
              std::fwrite(header.data(), 1, header.size(), f) == header.size();
    // The bytes must be on disk before the rename makes them the entry: after a crash or power
    // loss the final name then holds either nothing or the whole file, never a torn one.
    ok = ok && std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
    ok = std::fclose(f) == 0 && ok;
    std::error_code ec;
    if (ok)
        std::filesystem::rename(temporary, path, ec);
    if (!ok || ec) {
        std::filesystem::remove(temporary, ec);
        return writeFailed();
    }
    // Make the rename itself durable.
    const std::string dir = std::filesystem::path(path).parent_path().string();
    const int dirFd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd >= 0) {
        (void)::fsync(dirFd);
        ::close(dirFd);
    }
    return true;
}

} // namespace tracedesk::core
