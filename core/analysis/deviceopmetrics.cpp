// Device op metrics DB (FORMATS.md 2.8), all device planes combined.
//
// GPU: raw stream lines only. A kernel with `hlo_op` is charged to its innermost HLO op;
// consecutive kernels of one line with the same (HLO op, program, group_id) are one occurrence.
// The HLO op's category is the `hlo_category` stat when the producer wrote one, else the
// instruction name without its `.N` suffix (the opcode or fusion name); FLOPs and bytes come from
// the kernels' `flops` / `bytes_accessed` stats (largest value within a merged occurrence, since
// every kernel of an HLO op carries the op's cost). A kernel with only a framework op (`tf_op`,
// or the legacy `level 0` annotation of older TensorFlow) becomes `<op name>/<kernel name>` with
// the op type as category. When the profile carries the program's HLO (`/host:metadata` or
// sidecar files), an HLO op takes its category, expression, framework op, shape and fusion
// members from the instruction, and kernels naming an instruction the module lacks are dropped
// as XProf does; without the HLO the kernel stats above are used. Other activity (memcpy
// without an op) is not an op; its time is idle.
// TPU: `XLA Ops` nesting gives self time; one op per event kind.

#include "core/analysis/hloopinfo.h"
#include "core/analysis/memoryaccess.h"
#include "core/analysis/opmetrics.h"
#include "core/analysis/opnames.h"
#include "core/analysis/opscan.h"
#include "core/base/cancel.h"

#include <algorithm>
#include <unordered_map>

namespace tracedesk::core::analysis {

using namespace detail;

namespace {

struct SideReader
{
    const Trace &trace;
    const Row &row;
    int64_t get(uint32_t i, SideColumn c) const
    {
        const auto &col = row.side[size_t(c)];
        if (!col.empty() && col[i] != kNoValue)
            return col[i];
        return trace.kinds[row.kind[i]].sideOf(c);
    }
};

struct GpuKey
{
    int64_t program;
    uint32_t a;      // hlo op / framework op StringId
    uint32_t b;      // 0 (HLO path) or kind + 1 (framework-op path)
    bool operator==(const GpuKey &) const = default;
};

struct GpuKeyHash
{
    size_t operator()(const GpuKey &k) const
    {
        uint64_t h = uint64_t(k.program) * 0x9E3779B97F4A7C15ull;
        h ^= (uint64_t(k.a) << 32 | k.b) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
        return size_t(h);
    }
};

struct GpuOp
{
    GpuKey key;
    uint32_t module = kEmptyString;
    uint32_t provenance = kEmptyString;
    uint32_t category = kEmptyString;   // hlo_category text id (HLO path)
    OpSlot slot;
};

class DeviceScan
{
public:
    DeviceScan(const Trace &trace, std::optional<TimeRange> range)
        : m_trace(trace), m_keys(trace), m_range(range)
    {
        m_kindFlags.resize(trace.kinds.size());
    }

    void scanGpuPlane(const Plane &plane);
    void scanTpuPlane(const Plane &plane);
    OpMetricsDb finish();

private:
    // The kind's memory_access_breakdown by memory space, times its occurrences.
    std::optional<OpMemoryBytes> memoryBytes(const EventKind &kind,
                                                      int64_t occurrences) const;
    uint32_t gpuSlot(const GpuKey &key, uint32_t module, uint32_t provenance, uint32_t kind);
    bool inRange(TimePs t) const { return !m_range || m_range->contains(t); }

    const Trace &m_trace;
    StatKeys m_keys;
    std::optional<TimeRange> m_range;
    std::vector<uint8_t> m_kindFlags;
    std::unordered_map<GpuKey, uint32_t, GpuKeyHash> m_gpuIndex;
    std::vector<uint32_t> m_firstByString;   // string id -> first GPU op slot + 1
    uint32_t m_overflowSlot = 0;
    std::vector<GpuOp> m_gpuOps;
    std::vector<OpSlot> m_tpuSlots;           // by kind
    std::vector<uint8_t> m_tpuUsed;
    TimePs m_totalTime = 0;
};

uint32_t DeviceScan::gpuSlot(const GpuKey &key, uint32_t module, uint32_t provenance,
                             uint32_t kind)
{
    // Fast path: the first op seen for this string (nearly always the only one) by array index.
    if (m_firstByString.empty())
        m_firstByString.assign(m_trace.strings.size(), 0);
    uint32_t &first = key.a < m_firstByString.size() ? m_firstByString[key.a] : m_overflowSlot;
    if (first != 0 && m_gpuOps[first - 1].key == key)
        return first - 1;
    auto [it, inserted] = m_gpuIndex.try_emplace(key, uint32_t(m_gpuOps.size()));
    if (inserted) {
        if (first == 0)
            first = it->second + 1;
        GpuOp op;
        op.key = key;
        op.module = module;
        op.provenance = provenance;
        ArgValue v;
        if (key.b == 0 && kindStat(m_trace, m_trace.kinds[kind], m_keys.hloCategory, &v)
            && v.type == ArgType::StringRef)
            op.category = v.str;
        m_gpuOps.push_back(op);
    }
    return it->second;
}

void DeviceScan::scanGpuPlane(const Plane &plane)
{
    TimePs first = 0, last = 0;
    bool any = false;
    for (uint32_t t : plane.tracks) {
        const Track &track = m_trace.tracks[t];
        if (!isRawGpuLine(m_trace, track) || track.sliceCount == 0)
            continue;
        for (const Row &row : track.rows) {
            const SideReader side{m_trace, row};
            // Pending merged HLO occurrence.
            uint32_t pendingSlot = UINT32_MAX;
            int64_t pendingGroup = kNoValue;
            TimePs pendingTime = 0;
            double pendingFlops = 0, pendingBytes = 0;
            auto flush = [&] {
                if (pendingSlot != UINT32_MAX)
                    m_gpuOps[pendingSlot].slot.add(pendingTime, pendingTime, pendingFlops,
                                                   pendingFlops, pendingBytes);
                pendingSlot = UINT32_MAX;
            };
            uint32_t lastKeySlot = UINT32_MAX;
            GpuKey lastKey{};
            // A row's starts are sorted: a time range is one run of it, found by binary search
            // (a roofline scans the device ops once per step).
            uint32_t from = 0, to = uint32_t(row.size());
            if (m_range) {
                const auto at = [&](TimePs t) {
                    return uint32_t(std::lower_bound(row.start.begin(), row.start.end(), t) -
                                    row.start.begin());
                };
                from = at(m_range->begin);
                to = std::max(from, at(m_range->end));
            }
            for (uint32_t i = from; i < to; ++i) {
                const TimePs start = row.start[i];
                const TimePs dur = row.duration[i];
                first = any ? std::min(first, start) : start;
                last = any ? std::max(last, start + dur) : start + dur;
                any = true;
                const int64_t hlo = side.get(i, SideColumn::HloOp);
                int64_t fw = side.get(i, SideColumn::FrameworkOp);
                if (fw == kEmptyString)
                    fw = kNoValue;
                if (hlo == kNoValue && fw == kNoValue && !row.args.empty()) {
                    ArgValue v;
                    if (track.args.find(row.args[i], m_keys.level0, &v)
                        && v.type == ArgType::StringRef)
                        fw = v.str;
                }
                if (fw == kEmptyString)   // an empty framework op names nothing
                    fw = kNoValue;
                if (hlo == kNoValue && fw == kNoValue) {
                    flush();
                    continue;
                }
                GpuKey key;
                if (hlo != kNoValue) {
                    const int64_t program = side.get(i, SideColumn::ProgramId);
                    key = {program == kNoValue ? 0 : program, uint32_t(hlo), 0};
                } else {
                    key = {0, uint32_t(fw), uint32_t(row.kind[i] + 1)};
                }
                uint32_t slot = lastKeySlot;
                if (slot == UINT32_MAX || !(key == lastKey)) {
                    const int64_t module = side.get(i, SideColumn::HloModule);
                    slot = gpuSlot(key, module == kNoValue ? 0 : uint32_t(module),
                                   fw == kNoValue ? 0 : uint32_t(fw), row.kind[i]);
                    lastKey = key;
                    lastKeySlot = slot;
                }
                const int64_t f = side.get(i, SideColumn::Flops);
                const int64_t b = side.get(i, SideColumn::BytesAccessed);
                const double flops = f == kNoValue ? 0.0 : double(f);
                const double bytes = b == kNoValue ? 0.0 : double(b);
                if (key.b != 0) {
                    flush();
                    m_gpuOps[slot].slot.add(dur, dur, flops, flops, bytes);
                    continue;
                }
                const int64_t group = side.get(i, SideColumn::GroupId);
                if (slot == pendingSlot && group == pendingGroup) {
                    pendingTime += dur;
                    pendingFlops = std::max(pendingFlops, flops);
                    pendingBytes = std::max(pendingBytes, bytes);
                    continue;
                }
                flush();
                pendingSlot = slot;
                pendingGroup = group;
                pendingTime = dur;
                pendingFlops = flops;
                pendingBytes = bytes;
            }
            flush();
        }
    }
    if (any)
        m_totalTime += last - first;
}

std::optional<OpMemoryBytes> DeviceScan::memoryBytes(const EventKind &kind,
                                                              int64_t occurrences) const
{
    ArgValue v;
    if (!kindStat(m_trace, kind, m_keys.memoryAccessBreakdown, &v)
        || (v.type != ArgType::Bytes && v.type != ArgType::String))
        return std::nullopt;
    const auto accesses = decodeMemoryAccessBreakdown(v.s);
    if (!accesses)
        return std::nullopt;
    OpMemoryBytes b;
    for (const MemoryAccess &a : *accesses) {
        const double bytes = double(a.bytes) * double(occurrences);
        const bool read = a.operation == MemoryAccess::Operation::Read;
        const bool write = a.operation == MemoryAccess::Operation::Write;
        switch (a.memorySpace) {
        case 1: b.hbm += bytes; break;
        case 2:
            if (read)
                b.cmemRead += bytes;
            else if (write)
                b.cmemWrite += bytes;
            break;
        case 3:
            if (read)
                b.vmemRead += bytes;
            else if (write)
                b.vmemWrite += bytes;
            break;
        default: break;
        }
    }
    return b;
}

void DeviceScan::scanTpuPlane(const Plane &plane)
{
    if (m_tpuSlots.empty()) {
        m_tpuSlots.resize(m_trace.kinds.size());
        m_tpuUsed.assign(m_trace.kinds.size(), 0);
    }
    NestScratch scratch;
    TimePs first = 0, last = 0;
    bool any = false;
    for (uint32_t t : plane.tracks) {
        const Track &track = m_trace.tracks[t];
        if (!isTpuOpLine(m_trace, track))
            continue;
        auto keep = [&](uint32_t r, uint32_t i) { return inRange(track.rows[r].start[i]); };
        walkNested(track, scratch, keep, [&](uint32_t r, uint32_t i, TimePs self) {
            const Row &row = track.rows[r];
            const SideReader side{m_trace, row};
            const TimePs start = row.start[i], dur = row.duration[i];
            first = any ? std::min(first, start) : start;
            last = any ? std::max(last, start + dur) : start + dur;
            any = true;
            const int64_t f = side.get(i, SideColumn::Flops);
            const int64_t b = side.get(i, SideColumn::BytesAccessed);
            const uint32_t kind = row.kind[i];
            m_tpuUsed[kind] = 1;
            m_tpuSlots[kind].add(dur, self, f == kNoValue ? 0.0 : double(f), 0,
                                 b == kNoValue ? 0.0 : double(b));
        });
    }
    if (any)
        m_totalTime += last - first;
}

OpMetricsDb DeviceScan::finish()
{
    // Program id -> module name, from `module(id)` event names on device planes.
    std::unordered_map<int64_t, std::string> modules;
    for (const EventKind &kind : m_trace.kinds) {
        if (m_trace.planes[kind.plane].kind != PlaneKind::Device)
            continue;
        std::string_view module;
        int64_t id = 0;
        if (parseModuleName(m_trace.string(kind.name), &module, &id))
            modules.try_emplace(id, module);
    }
    auto moduleName = [&](int64_t program, uint32_t moduleId) {
        if (moduleId != kEmptyString)
            return std::string(m_trace.string(moduleId));
        auto it = modules.find(program);
        return it == modules.end() ? std::string() : it->second;
    };

    const bool needHlo = std::any_of(m_gpuOps.begin(), m_gpuOps.end(),
                                     [](const GpuOp &g) { return g.key.b == 0; });
    const hlo::HloModuleIndex index(needHlo ? hlo::hloModulesForTrace(m_trace)
                                            : std::vector<hlo::HloModuleEntry>{});
    std::vector<OpMetrics> ops;
    for (const GpuOp &g : m_gpuOps) {
        if (g.slot.occurrences == 0)
            continue;
        OpMetrics m;
        const std::string_view provenance =
            stripTraceMeMetadata(m_trace.string(g.provenance));
        if (g.key.b == 0) {
            const std::string_view hlo = innermostHloOp(m_trace.string(g.key.a));
            m.name = std::string(hlo);
            m.category = g.category != kEmptyString ? std::string(m_trace.string(g.category))
                                                    : std::string(hloNameStem(hlo));
            m.hloModuleId = g.key.program;
            m.hloModule = moduleName(g.key.program, g.module);
            m.provenance = std::string(provenance);
            m.longName = m.name;
            HloOpInfo info;
            const HloLookup found = lookupHloOp(index, g.key.program, hlo, &info);
            if (found == HloLookup::NotInModule)
                continue;
            if (found == HloLookup::Found) {
                if (g.category == kEmptyString)
                    m.category = std::move(info.category);
                m.longName = std::move(info.expression);
                // JAX writes placeholders such as `XlaModule:` as the kernel's framework op.
                if (parseFrameworkOp(m.provenance).kind == FrameworkOpKind::Unknown
                    && !info.provenance.empty())
                    m.provenance = std::move(info.provenance);
                m.deduplicatedName = std::move(info.deduplicatedName);
                m.layout = std::move(info.layout);
                m.source = std::move(info.source);
                m.children = std::move(info.fusionChildren);
            }
        } else {
            const FrameworkOp fw = parseFrameworkOp(provenance);
            const std::string_view kernel = m_trace.string(m_trace.kinds[g.key.b - 1].name);
            m.name = std::string(fw.name) + "/" + std::string(kernel);
            m.category = fw.type.empty() ? std::string("Unknown") : std::string(fw.type);
            m.provenance = std::string(provenance);
            m.longName = std::string(kernel);
        }
        m.occurrences = g.slot.occurrences;
        m.timePs = g.slot.time;
        m.selfTimePs = g.slot.self;
        m.minTimePs = g.slot.minTime;
        m.flops = g.slot.flops;
        m.modelFlops = g.slot.modelFlops;
        m.bytesAccessed = g.slot.bytes;
        ops.push_back(std::move(m));
    }
    for (size_t k = 0; k < m_tpuSlots.size(); ++k) {
        if (!m_tpuUsed[k])
            continue;
        const EventKind &kind = m_trace.kinds[k];
        const OpSlot &s = m_tpuSlots[k];
        OpMetrics m;
        m.longName = std::string(m_trace.string(kind.name));
        m.name = kind.displayName != kEmptyString ? std::string(m_trace.string(kind.displayName))
                                                  : m.longName;
        ArgValue v;
        if (kindStat(m_trace, kind, m_keys.hloCategory, &v))
            m.category = std::string(argText(m_trace, v));
        if (m.category.empty())
            m.category = std::string(hloNameStem(m.name));
        if (kindStat(m_trace, kind, m_keys.deduplicatedName, &v))
            m.deduplicatedName = std::string(argText(m_trace, v));
        if (kindStat(m_trace, kind, m_keys.shapeWithLayout, &v))
            m.layout = std::string(argText(m_trace, v));
        if (kindStat(m_trace, kind, m_keys.source, &v))
            m.source = std::string(argText(m_trace, v));
        double modelFlops = 0;
        if (kindStat(m_trace, kind, m_keys.modelFlops, &v))
            modelFlops = v.asDouble();
        const int64_t fw = kind.side[size_t(SideColumn::FrameworkOp)];
        if (fw != kNoValue)
            m.provenance = std::string(stripTraceMeMetadata(m_trace.string(uint32_t(fw))));
        const int64_t program = kind.side[size_t(SideColumn::ProgramId)];
        m.hloModuleId = program == kNoValue ? 0 : program;
        m.hloModule = moduleName(m.hloModuleId, kEmptyString);
        m.occurrences = s.occurrences;
        m.timePs = s.time;
        m.selfTimePs = s.self;
        m.minTimePs = s.minTime;
        m.flops = s.flops;
        m.modelFlops = modelFlops > 0 ? modelFlops * double(s.occurrences) : s.flops;
        m.bytesAccessed = s.bytes;
        m.memoryBytes = memoryBytes(kind, s.occurrences);
        ops.push_back(std::move(m));
    }

    OpMetricsDb db;
    db.totalTimePs = m_totalTime;
    finishDb(db, std::move(ops), true);
    for (const OpMetrics &m : db.metrics) {
        if (m.isIdle())
            continue;
        int bits = floatPrecisionBits(m.layout);
        if (bits == 0)
            bits = floatPrecisionBits(m.longName);
        if (bits == 16)
            db.compute16bitPs += m.selfTimePs;
        else if (bits == 32)
            db.compute32bitPs += m.selfTimePs;
    }
    return db;
}

} // namespace

OpMetricsDb deviceOpMetrics(const Trace &trace, std::optional<TimeRange> range)
{
    DeviceScan scan(trace, range);
    for (const Plane &plane : trace.planes) {
        checkCancelled();
        switch (deviceFamily(trace, plane)) {
        case DeviceFamily::Gpu: scan.scanGpuPlane(plane); break;
        case DeviceFamily::Tpu: scan.scanTpuPlane(plane); break;
        case DeviceFamily::None: break;
        }
    }
    return scan.finish();
}

} // namespace tracedesk::core::analysis
