// readStoreFile(): loads and fully validates a store file (format in storefile.h).

#include "core/io/storecache.h"
#include "core/base/parallel.h"
#include "core/io/mappedfile.h"
#include "core/io/memoryguard.h"
#include "core/io/storefile.h"

#define ZSTD_STATIC_LINKING_ONLY // ZSTD_decompressBound
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <type_traits>
#include <cstdio>
#include <limits>
#include <memory>
#include <thread>

#include <sys/mman.h>

namespace tracedesk::core {

namespace {

using namespace storefile;

// A column carried by frames. Its vector is sized by the worker that fills it, so the page
// faults and zeroing of the allocation are spread over the threads too.
struct Dest
{
    void *vector;
    uint8_t *(*resize)(void *vector, size_t count);
    size_t count;
    size_t size;
    Coding coding;
    size_t firstFrame = 0;
};

// Big columns ask for transparent huge pages: one fault per 2 MiB instead of 512.
template<typename T>
uint8_t *resizeVector(void *vector, size_t count)
{
    auto &v = *static_cast<std::vector<T> *>(vector);
    v.reserve(count);
    constexpr uintptr_t kHuge = uintptr_t(2) << 20;
    const auto begin = (reinterpret_cast<uintptr_t>(v.data()) + kHuge - 1) & ~(kHuge - 1);
    const auto end = (reinterpret_cast<uintptr_t>(v.data() + count)) & ~(kHuge - 1);
    if (end > begin)
        ::madvise(reinterpret_cast<void *>(begin), end - begin, MADV_HUGEPAGE);
    v.resize(count);
    return reinterpret_cast<uint8_t *>(v.data());
}

// A packed column holds `n` values and exactly their bytes.
bool packedSized(const PackedInts &p, size_t n)
{
    return p.size() == n && p.bytes().size() == n * p.width();
}

uint64_t getU64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

uint32_t getU32(const uint8_t *p)
{
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// Mirrors MetaEncoder (storefilewriter.cpp) field by field.
class MetaDecoder
{
public:
    MetaDecoder(const uint8_t *data, size_t size, uint64_t columnBudget)
        : in(data, size), m_budget(columnBudget)
    {}

    MetaReader in;
    std::vector<Dest> dests;

    template<typename T>
    bool column(std::vector<T> &v, Coding coding = Coding::Plain)
    {
        const uint64_t n = in.varint();
        if (!in.ok() || n > std::numeric_limits<size_t>::max() / sizeof(T))
            return in.fail(), false;
        return fill(v, n, coding);
    }
    // A packed column (MetaEncoder::packed): width, base, value count, then its bytes.
    bool packed(PackedInts &p, uint64_t expectedSize)
    {
        const uint8_t width = in.u8();
        const int64_t base = in.svarint();
        const uint64_t n = in.varint();
        if (!in.ok() || n != expectedSize || !p.setLayout(width, base, size_t(n)))
            return in.fail(), false;
        return fill(p.mutableBytes(), n * width);
    }
    template<typename T>
    bool deltaColumn(std::vector<T> &v)
    {
        return column(v, deltaCodingFor<T>());
    }

    // The column's size is known now; a framed column's vector is only sized by a worker.
    template<typename T>
    bool fill(std::vector<T> &v, uint64_t n, Coding coding = Coding::Plain)
    {
        const uint64_t size = n * sizeof(T);
        if (size < kInlineBytes) {
            if (size > in.remaining())
                return in.fail(), false;
            v.resize(size_t(n));
            in.raw(v.data(), size_t(size));
            return in.ok();
        }
        if (size > m_budget - m_used)
            return in.fail(), false;
        m_used += size;
        dests.push_back({&v, &resizeVector<T>, size_t(n), size_t(size), coding});
        return true;
    }

    bool decode(Trace &trace);
    bool budgetSpent() const { return m_used == m_budget; }
    // The element count of the next column, without consuming it.
    uint64_t peekCount()
    {
        MetaReader copy = in;
        return copy.varint();
    }

private:
    bool decodeTrack(Track &t);
    bool decodeInfo(LoadInfo &info);
    uint64_t m_budget;
    uint64_t m_used = 0;
};

bool MetaDecoder::decode(Trace &trace)
{
    trace.begin = in.svarint();
    trace.end = in.svarint();
    trace.originPs = in.svarint();

    const uint64_t strings = in.count();
    if (strings == 0)
        return false;
    for (uint64_t i = 1; i < strings && in.ok(); ++i) {
        if (trace.strings.intern(in.string()) != StringId(i))
            return false; // duplicate or empty string: not a table we wrote
    }

    trace.planes.resize(in.count(7));
    for (Plane &p : trace.planes) {
        p.name = StringId(in.varint());
        p.host = StringId(in.varint());
        p.id = in.svarint();
        p.kind = PlaneKind(in.u8());
        p.sortIndex = int32_t(in.svarint());
        p.stats = ArgsRef(in.varint());
        if (!deltaColumn(p.tracks) || uint8_t(p.kind) > uint8_t(PlaneKind::Other))
            return false;
    }

    trace.kinds.resize(in.count(6 + kKindSideColumnCount));
    for (EventKind &k : trace.kinds) {
        k.name = StringId(in.varint());
        k.displayName = StringId(in.varint());
        k.category = StringId(in.varint());
        k.plane = uint32_t(in.varint());
        k.stats = ArgsRef(in.varint());
        const uint8_t role = in.u8();
        if (role >= uint8_t(SliceRole::Count))
            return false;
        k.role = SliceRole(role);
        for (int64_t &v : k.side)
            v = in.svarint();
    }
    if (!column(trace.metaArgs.mutableBytes()))
        return false;

    trace.tracks.resize(in.count(13));
    for (Track &t : trace.tracks) {
        if (!decodeTrack(t))
            return false;
    }

    const uint64_t flowCount = in.varint();
    if (!in.ok() || flowCount > std::numeric_limits<uint32_t>::max())
        return false;
    for (int c = 0; c < FlowTable::Count; ++c) {
        if (!packed(trace.flows.mutableColumn(FlowTable::Column(c)), flowCount))
            return false;
    }
    return decodeInfo(trace.info) && in.varint() == kMetaEndMarker && in.ok()
           && in.remaining() == 0;
}

bool MetaDecoder::decodeTrack(Track &t)
{
    t.plane = uint32_t(in.varint());
    t.name = StringId(in.varint());
    t.sourceId = in.svarint();
    t.type = TrackType(in.u8());
    t.sortIndex = int32_t(in.svarint());
    t.begin = in.svarint();
    t.end = in.svarint();
    t.sliceCount = in.varint();
    if (uint8_t(t.type) > uint8_t(TrackType::Counter))
        return false;
    t.rows.resize(in.count(5));
    for (Row &r : t.rows) {
        const uint64_t mask = in.varint();
        if (mask >> kSideColumnCount)
            return false;
        const uint64_t n = peekCount();
        if (!column(r.start) || !packed(r.duration, n) || !packed(r.kind, n)
            || (peekCount() != n && peekCount() != 0) || !deltaColumn(r.args))
            return false;
        for (int c = 0; c < kSideColumnCount; ++c) {
            if ((mask & (1u << c)) && !packed(r.side[c], n))
                return false;
        }
    }
    const uint64_t samples = peekCount();
    if (!column(t.counter.time) || peekCount() != samples || !column(t.counter.value))
        return false;
    t.aggregates.resize(in.count(4));
    for (AggregateEvent &a : t.aggregates) {
        a.kind = uint32_t(in.varint());
        a.occurrences = in.svarint();
        a.duration = in.svarint();
        a.args = ArgsRef(in.varint());
    }
    return column(t.args.mutableBytes());
}

bool MetaDecoder::decodeInfo(LoadInfo &info)
{
    info.format = in.string();
    info.sources.resize(in.count());
    for (auto &s : info.sources)
        s = in.string();
    info.hosts.resize(in.count());
    for (auto &s : info.hosts)
        s = in.string();
    info.sourceBytes = in.varint();
    info.xlines = in.varint();
    info.xevents = in.varint();
    const uint64_t phases = in.count(2);
    for (uint64_t i = 0; i < phases && in.ok(); ++i) {
        std::string phase(in.string());
        info.recordsByPhase[phase] = in.varint();
    }
    info.warningCount = in.varint();
    info.warnings.resize(in.count());
    for (auto &s : info.warnings)
        s = in.string();
    info.loadSeconds = in.f64();
    info.fromCache = false;
    RunMetadata &run = info.run;
    run.framework = in.string();
    run.clockOriginNs = in.svarint();
    run.devices.resize(in.count(9));
    for (GpuDeviceInfo &d : run.devices) {
        d.id = in.svarint();
        d.name = in.string();
        d.totalGlobalMemBytes = in.varint();
        d.computeMajor = in.svarint();
        d.computeMinor = in.svarint();
        d.numSms = in.svarint();
        d.maxThreadsPerMultiprocessor = in.svarint();
        d.warpSize = in.svarint();
    }
    run.distributed.present = in.u8() != 0;
    run.distributed.backend = in.string();
    run.distributed.rank = in.svarint();
    run.distributed.worldSize = in.svarint();
    run.properties.resize(in.count(2));
    for (auto &[key, value] : run.properties) {
        key = in.string();
        value = in.string();
    }
    return in.ok();
}

bool decompressFrame(ZSTD_DCtx *dctx, const uint8_t *src, size_t srcSize, uint8_t *dst,
                     size_t dstSize)
{
    if (ZSTD_getFrameContentSize(src, srcSize) != dstSize
        || ZSTD_findFrameCompressedSize(src, srcSize) != srcSize) {
        return false;
    }
    const size_t n = ZSTD_decompressDCtx(dctx, dst, dstSize, src, srcSize);
    return !ZSTD_isError(n) && n == dstSize;
}

} // namespace

Result<std::shared_ptr<Trace>> readStoreFile(const std::string &path, LoadControl *control,
                                             uint64_t memoryLimitBytes)
{
    // Mapped, not populated: frames are decompressed straight from the page cache, and each
    // frame's pages leave the process once decoded, so the load holds the decoded columns and a
    // few frames, not the columns and the whole file as well (1.44 GB more at 100M events).
    auto opened = MappedFile::open(path);
    if (!opened)
        return fileError(path, "cannot be opened for reading");
    MappedFile file = std::move(opened).value();
    const size_t fileSize = file.size();
    if (control)
        control->addTotal(fileSize);
    auto bad = [&](const char *what) {
        return fileError(path, std::string("is not a valid store: ") + what);
    };
    if (fileSize < kFixedHeaderBytes + 8)
        return bad("too short");
    const uint8_t *p = file.data();

    if (std::memcmp(p, kMagic, 8) != 0)
        return bad("wrong magic");
    if (getU32(p + 8) != kVersion)
        return bad("unsupported version");
    if (getU32(p + 12) != 0)
        return bad("unknown flags");
    const uint64_t frameCount = getU64(p + 16);
    if (frameCount == 0 || frameCount > (fileSize - kFixedHeaderBytes - 8) / 25)
        return bad("bad frame count");
    const size_t headerBytes = kFixedHeaderBytes + size_t(frameCount) * 16;
    if (getU64(p + headerBytes) != fnv1a(p, headerBytes))
        return bad("header checksum mismatch");
    struct Frame
    {
        const uint8_t *src;
        size_t compressed;
        size_t raw;
    };
    std::vector<Frame> frames(frameCount);
    uint64_t offset = headerBytes + 8;
    uint64_t columnBytes = 0;
    for (uint64_t i = 0; i < frameCount; ++i) {
        const uint64_t compressed = getU64(p + kFixedHeaderBytes + i * 16);
        const uint64_t raw = getU64(p + kFixedHeaderBytes + i * 16 + 8);
        if (compressed > fileSize - offset)
            return bad("frame past the end of the file");
        if (i > 0 && (raw == 0 || raw > kChunkBytes))
            return bad("bad frame size");
        const unsigned long long bound = ZSTD_decompressBound(p + offset, size_t(compressed));
        if (bound == ZSTD_CONTENTSIZE_ERROR || raw > bound)
            return bad("corrupt frame");
        frames[i] = {p + offset, size_t(compressed), size_t(raw)};
        offset += compressed;
        if (i > 0)
            columnBytes += raw;
    }
    if (offset != fileSize)
        return bad("trailing bytes");
    // Checking the frames read every block header, which mapped most of the file.
    file.release(p, p + fileSize);
    // Every frame's decoded size is known: refuse what cannot fit (a store written on a bigger
    // machine, or sizes that decompress far past what such a file can honestly hold) before
    // allocating. The store's vectors are the decoded columns; the meta stream is transient.
    const uint64_t decoded = columnBytes + uint64_t(frames[0].raw);
    if (auto fits = MemoryGuard(memoryLimitBytes).admit(path, decoded + decoded / 4); !fits)
        return fits.error();

    std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx *)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
    std::unique_ptr<uint8_t[]> meta(new (std::nothrow) uint8_t[frames[0].raw + 1]);
    if (!dctx || !meta
        || !decompressFrame(dctx.get(), frames[0].src, frames[0].compressed, meta.get(),
                            frames[0].raw)) {
        return bad("corrupt meta frame");
    }

    auto trace = std::make_shared<Trace>();
    MetaDecoder decoder(meta.get(), frames[0].raw, columnBytes);
    if (!decoder.decode(*trace) || !decoder.budgetSpent())
        return bad("inconsistent structure");
    meta.reset();

    // Column frames, in walk order, each column cut into kChunkBytes pieces.
    size_t frame = 1;
    for (Dest &d : decoder.dests) {
        d.firstFrame = frame;
        for (size_t o = 0; o < d.size; o += kChunkBytes, ++frame) {
            if (frame >= frames.size() || frames[frame].raw != std::min(kChunkBytes, d.size - o))
                return bad("frame layout does not match the structure");
        }
    }
    if (frame != frames.size())
        return bad("frame layout does not match the structure");

    // Two passes on two threads: size every column (biggest first, so the zeroing and page
    // faults of one huge column do not come last), then decompress frame by frame, which
    // balances however unevenly the events are spread over tracks.
    std::vector<const Dest *> columns;
    for (const Dest &d : decoder.dests)
        columns.push_back(&d);
    std::sort(columns.begin(), columns.end(), [](const Dest *a, const Dest *b) {
        return a->size > b->size;
    });
    struct Job
    {
        size_t frame;
        size_t column;
        size_t offset;
    };
    std::vector<Job> jobs;
    std::vector<uint8_t *> data(columns.size(), nullptr);
    for (size_t c = 0; c < columns.size(); ++c) {
        for (size_t o = 0, f = columns[c]->firstFrame; o < columns[c]->size; o += kChunkBytes, ++f)
            jobs.push_back({f, c, o});
    }
    std::atomic<size_t> nextColumn{0};
    std::atomic<size_t> sized{0};
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    auto work = [&](ZSTD_DCtx *ctx) {
        try {
            for (size_t c; (c = nextColumn.fetch_add(1)) < columns.size();) {
                data[c] = columns[c]->resize(columns[c]->vector, columns[c]->count);
                sized.fetch_add(1, std::memory_order_release);
            }
        } catch (...) {
            failed = true;   // releases the other worker from the wait below
            throw;
        }
        while (sized.load(std::memory_order_acquire) < columns.size() && !failed)
            std::this_thread::yield();
        for (size_t i; (i = next.fetch_add(1)) < jobs.size() && !failed;) {
            if (control && control->cancelRequested()) {
                failed = true;
                return;
            }
            const Job &job = jobs[i];
            const Frame &fr = frames[job.frame];
            uint8_t *dst = data[job.column] + job.offset;
            if (!decompressFrame(ctx, fr.src, fr.compressed, dst, fr.raw)) {
                failed = true;
                return;
            }
            file.release(fr.src, fr.src + fr.compressed);
            decodeFrame(columns[job.column]->coding, dst, fr.raw);
            if (control)
                control->addDone(fr.compressed);
        }
    };
    // One item per worker, each with its own context; a lone worker (no second context, or no
    // second thread) runs both passes itself and finds the second item's work done.
    std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx *)> helperCtx(nullptr, ZSTD_freeDCtx);
    if (columns.size() > 0)
        helperCtx.reset(ZSTD_createDCtx());
    ZSTD_DCtx *contexts[] = {dctx.get(), helperCtx.get()};
    const unsigned workers = helperCtx ? 2 : 1;
    try {
        parallelFor(workers, workers, [&](unsigned worker, size_t) {
            work(contexts[worker]);
            return true;
        });
    } catch (const std::bad_alloc &) {
        return bad("not enough memory for its columns");
    }
    if (control && control->cancelRequested())
        return Result<std::shared_ptr<Trace>>::cancelled();
    if (failed)
        return bad("corrupt column frame (checksum mismatch)");
    // Row columns were sized by the workers; every column of a row must have the same length.
    for (const Track &t : trace->tracks) {
        for (const Row &r : t.rows) {
            const size_t n = r.start.size();
            if (!packedSized(r.duration, n) || !packedSized(r.kind, n)
                || (r.args.size() != n && !r.args.empty()))
                return bad("inconsistent structure");
            for (const auto &side : r.side) {
                if (!side.empty() && !packedSized(side, n))
                    return bad("inconsistent structure");
            }
        }
        if (t.counter.time.size() != t.counter.value.size())
            return bad("inconsistent structure");
    }
    file = MappedFile();

    for (int c = 0; c < FlowTable::Count; ++c) {
        if (!packedSized(trace->flows.column(FlowTable::Column(c)), trace->flows.size()))
            return bad("inconsistent structure");
    }
    if (!validateTrace(*trace))
        return bad("inconsistent contents");
    return trace;
}

} // namespace tracedesk::core
