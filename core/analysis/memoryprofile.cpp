#include "core/analysis/memoryprofile.h"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <unordered_map>

namespace tracedesk::core::analysis {

namespace {

enum Stat : int {
    kAllocatorName, kIndexOnHost, kDeviceOrdinal, kBytesReserved, kBytesAllocated,
    kBytesAvailable, kFragmentation, kPeakBytesInUse, kRequestedBytes, kAllocationBytes, kAddr,
    kTfOp, kRegionType, kDataType, kShape, kGroupId, kStatCount
};

constexpr std::array<const char *, kStatCount> kStatNames = {
    "allocator_name", "index_on_host", "device_ordinal", "bytes_reserved", "bytes_allocated",
    "bytes_available", "fragmentation", "peak_bytes_in_use", "requested_bytes",
    "allocation_bytes", "addr", "tf_op", "region_type", "data_type", "shape", "group_id"};

std::string argText(const Trace &trace, const ArgValue &v)
{
    switch (v.type) {
    case ArgType::String:
    case ArgType::Bytes:
        return std::string(v.s);
    case ArgType::StringRef:
        return std::string(trace.string(v.str));
    case ArgType::UInt:
        return std::to_string(v.u);
    case ArgType::Double:
        return std::to_string(v.d);
    default:
        return std::to_string(v.i);
    }
}

struct Key
{
    std::string host;
    std::string memoryId;
    bool operator<(const Key &o) const { return std::tie(host, memoryId) < std::tie(o.host, o.memoryId); }
};

bool rowLess(const MemoryBreakdownRow &a, const MemoryBreakdownRow &b)
{
    if (a.allocationBytes != b.allocationBytes)
        return a.allocationBytes > b.allocationBytes;
    if (a.requestedBytes != b.requestedBytes)
        return a.requestedBytes > b.requestedBytes;
    return std::tie(a.opName, a.regionType, a.dataType, a.shape)
           < std::tie(b.opName, b.regionType, b.dataType, b.shape);
}

bool sameRow(const MemoryBreakdownRow &a, const MemoryBreakdownRow &b)
{
    return a.allocationBytes == b.allocationBytes && a.requestedBytes == b.requestedBytes
           && a.opName == b.opName && a.regionType == b.regionType && a.dataType == b.dataType
           && a.shape == b.shape;
}

void computeBreakdown(AllocatorProfile &p)
{
    const MemoryProfileSummary &s = p.summary;
    if (s.peakSnapshot < 0)
        return;
    const int64_t peak = s.peakBytesInWindow;
    for (const MemorySnapshot &snap : p.snapshots) {
        if (snap.stats.inUse() == peak)
            p.peakStepId = snap.stepId;     // the last one wins
    }
    std::map<uint64_t, size_t> active;      // address -> snapshot index
    int64_t allocated = 0, deallocated = 0, unmappedDeallocated = 0;
    for (size_t i = 0; i < p.snapshots.size(); ++i) {
        const MemorySnapshot &snap = p.snapshots[i];
        if (snap.time > s.peakTime)
            break;
        if (snap.stepId != p.peakStepId)
            continue;
        if (snap.activity == MemoryActivity::Allocation) {
            active[snap.address] = i;
            allocated += snap.allocationBytes;
        } else if (snap.activity == MemoryActivity::Deallocation) {
            deallocated += snap.allocationBytes;
            auto it = active.find(snap.address);
            if (it != active.end())
                active.erase(it);
            else
                unmappedDeallocated += snap.allocationBytes;
        }
    }
    std::vector<MemoryBreakdownRow> rows;
    for (const auto &[address, index] : active) {
        const MemorySnapshot &a = p.snapshots[index];
        rows.push_back({a.opName, a.allocationBytes, a.requestedBytes, 1, a.regionType,
                        a.dataType, a.shape, int64_t(index), false});
    }
    const int64_t unmapped = s.peakStats.heapAllocatedBytes - allocated + deallocated
                             - unmappedDeallocated;
    if (unmapped > 0)
        rows.push_back({kUnusedPreallocatedOp, unmapped, unmapped, 1, "persist/dynamic",
                        tfDataTypeName(0), "unknown", -1, true});
    const int64_t stack = s.peakStats.stackReservedBytes;
    if (stack > 0)
        rows.push_back({kStackOp, stack, stack, 1, "stack", tfDataTypeName(0), "unknown", -1, true});
    std::stable_sort(rows.begin(), rows.end(), rowLess);
    for (MemoryBreakdownRow &r : rows) {
        if (!p.breakdown.empty() && sameRow(p.breakdown.back(), r))
            ++p.breakdown.back().occurrences;
        else
            p.breakdown.push_back(std::move(r));
    }
}

} // namespace

std::string tfDataTypeName(int64_t value)
{
    static constexpr std::array<const char *, 26> kNames = {
        "INVALID", "float", "double", "int32", "uint8", "int16", "int8", "string",
        "complex64", "int64", "bool", "qint8", "quint8", "qint32", "bfloat16", "qint16",
        "quint16", "uint16", "complex128", "half", "resource", "variant", "uint32", "uint64",
        "float8_e5m2", "float8_e4m3fn"};
    if (value > 100 && value < 100 + int64_t(kNames.size()))
        return std::string(kNames[size_t(value - 100)]) + "_ref";
    if (value < 0 || value >= int64_t(kNames.size()))
        return "INVALID";
    return kNames[size_t(value)];
}

std::vector<uint32_t> sampleTimeline(const std::vector<MemorySnapshot> &snapshots, size_t maxPoints)
{
    std::vector<uint32_t> out;
    const size_t n = snapshots.size();
    if (n <= maxPoints || maxPoints == 0) {
        for (size_t i = 0; i < n; ++i)
            out.push_back(uint32_t(i));
        return out;
    }
    // Boxes of width w, then w + 1, so that exactly maxPoints boxes cover all snapshots.
    const size_t w = n / maxPoints;
    const size_t wider = n - w * maxPoints;
    size_t begin = 0;
    for (size_t box = 0; box < maxPoints; ++box) {
        const size_t width = box < maxPoints - wider ? w : w + 1;
        size_t best = begin;
        for (size_t i = begin + 1; i < begin + width; ++i) {
            if (snapshots[i].stats.inUse() > snapshots[best].stats.inUse())
                best = i;
        }
        out.push_back(uint32_t(best));
        begin += width;
    }
    return out;
}

AllocatorProfile finishAllocatorProfile(std::string host, std::string memoryId,
                                        std::vector<MemorySnapshot> snapshots)
{
    AllocatorProfile p;
    p.host = std::move(host);
    p.memoryId = std::move(memoryId);

    // XProf updates the summary while it reads the events, before sorting them: the lifetime
    // peak is the last event's `peak_bytes_in_use`, and the window peak is the last event whose
    // stack + heap reaches the running maximum (which starts at 0).
    MemoryProfileSummary &sum = p.summary;
    size_t peakRead = snapshots.size();
    for (size_t i = 0; i < snapshots.size(); ++i) {
        const MemoryStats &stats = snapshots[i].stats;
        sum.peakBytesLifetime = stats.peakBytesInUse;
        if (stats.inUse() >= sum.peakBytesInWindow) {
            sum.peakBytesInWindow = stats.inUse();
            peakRead = i;
        }
    }
    std::vector<size_t> order(snapshots.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return snapshots[a].time < snapshots[b].time;
    });
    p.snapshots.reserve(snapshots.size());
    for (size_t i : order) {
        if (i == peakRead)
            sum.peakSnapshot = int64_t(p.snapshots.size());
        p.snapshots.push_back(std::move(snapshots[i]));
    }

    int64_t lastStep = -1;
    // Outstanding allocation per address: the first one is kept until a deallocation takes it.
    std::unordered_map<uint64_t, size_t> outstanding;
    for (size_t i = 0; i < p.snapshots.size(); ++i) {
        MemorySnapshot &s = p.snapshots[i];
        if (s.stepId == -1)
            s.stepId = lastStep + 1;
        else
            lastStep = s.stepId;
        if (s.activity == MemoryActivity::Allocation) {
            outstanding.try_emplace(s.address, i);
            ++sum.allocations;
        } else if (s.activity == MemoryActivity::Deallocation) {
            ++sum.deallocations;
            auto it = outstanding.find(s.address);
            if (it != outstanding.end()) {
                const MemorySnapshot &a = p.snapshots[it->second];
                s.opName = a.opName;
                s.regionType = a.regionType;
                s.dataType = a.dataType;
                s.shape = a.shape;
                outstanding.erase(it);
            }
        }
    }
    if (sum.peakSnapshot >= 0) {
        const MemorySnapshot &peak = p.snapshots[size_t(sum.peakSnapshot)];
        sum.peakTime = peak.time;
        sum.peakStats = peak.stats;
        sum.peakStats.peakBytesInUse = peak.stats.inUse();
        sum.capacity = peak.stats.inUse() + peak.stats.freeMemoryBytes;
    }
    p.timeline = sampleTimeline(p.snapshots);
    computeBreakdown(p);
    return p;
}

MemoryProfileSet computeMemoryProfiles(const Trace &trace)
{
    std::vector<uint8_t> kindActivity(trace.kinds.size(), 0);
    bool any = false;
    for (size_t k = 0; k < trace.kinds.size(); ++k) {
        const std::string_view name = trace.string(trace.kinds[k].name);
        kindActivity[k] = name == "MemoryAllocation"     ? uint8_t(MemoryActivity::Allocation)
                          : name == "MemoryDeallocation" ? uint8_t(MemoryActivity::Deallocation)
                                                         : 0;
        any = any || kindActivity[k] != 0;
    }
    MemoryProfileSet set;
    if (!any)
        return set;
    std::array<StringId, kStatCount> keys;
    for (int s = 0; s < kStatCount; ++s) {
        if (!trace.strings.find(kStatNames[size_t(s)], &keys[size_t(s)]))
            keys[size_t(s)] = ~StringId(0);
    }
    std::map<Key, std::vector<MemorySnapshot>> byAllocator;
    // Snapshots in XProf's reading order (finishAllocatorProfile's summary depends on it): lines
    // in file order, events of a line by time (rows split one line by depth).
    std::vector<std::pair<TimePs, RowPosition>> lineEvents;
    for (uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const Track &track = trace.tracks[t];
        const Plane &plane = trace.planes[track.plane];
        if (trace.string(plane.name) != "/host:CPU")
            continue;
        lineEvents.clear();
        for (uint32_t r = 0; r < track.rows.size(); ++r) {
            const Row &row = track.rows[r];
            for (uint32_t i = 0; i < row.size(); ++i) {
                if (kindActivity[row.kind[i]])
                    lineEvents.push_back({row.start[i], {r, i}});
            }
        }
        std::stable_sort(lineEvents.begin(), lineEvents.end(),
                         [](const auto &a, const auto &b) { return a.first < b.first; });
        for (const auto &[time, pos] : lineEvents) {
            const uint32_t r = pos.row, i = pos.index;
            MemorySnapshot s;
            s.time = time;
            const uint8_t activity = kindActivity[track.rows[r].kind[i]];
            s.activity = MemoryActivity(activity);
            std::array<bool, kStatCount> seen{};
            std::string allocator, index;
            int64_t dataType = 0;
            trace.forEachArg({t, r, i}, [&](const ArgValue &v) {
                int stat = -1;
                for (int k = 0; k < kStatCount; ++k) {
                    if (keys[size_t(k)] == v.key) {
                        stat = k;
                        break;
                    }
                }
                if (stat < 0 || seen[size_t(stat)])
                    return;     // the event's own value wins over its metadata's
                seen[size_t(stat)] = true;
                switch (stat) {
                case kAllocatorName: allocator = argText(trace, v); break;
                case kIndexOnHost:
                case kDeviceOrdinal:
                    if (index.empty())
                        index = argText(trace, v);
                    break;
                case kBytesReserved: s.stats.stackReservedBytes = v.asInt(); break;
                case kBytesAllocated: s.stats.heapAllocatedBytes = v.asInt(); break;
                case kBytesAvailable: s.stats.freeMemoryBytes = v.asInt(); break;
                case kFragmentation: s.stats.fragmentation = v.asDouble(); break;
                case kPeakBytesInUse: s.stats.peakBytesInUse = v.asInt(); break;
                case kRequestedBytes: s.requestedBytes = v.asInt(); break;
                case kAllocationBytes: s.allocationBytes = v.asInt(); break;
                case kAddr: s.address = v.type == ArgType::UInt ? v.u : uint64_t(v.asInt()); break;
                case kTfOp: s.opName = argText(trace, v); break;
                case kRegionType: s.regionType = argText(trace, v); break;
                case kDataType: dataType = v.asInt(); break;
                case kShape: s.shape = argText(trace, v); break;
                case kGroupId: s.stepId = v.asInt(); break;
                default: break;
                }
            });
            s.dataType = tfDataTypeName(dataType);
            const Key key{std::string(trace.string(plane.host)),
                          !allocator.empty() ? allocator : index};
            byAllocator[key].push_back(std::move(s));
        }
    }
    for (auto &[key, snapshots] : byAllocator)
        set.profiles.push_back(finishAllocatorProfile(key.host, key.memoryId, std::move(snapshots)));
    return set;
}

std::vector<std::string> MemoryProfileSet::hosts() const
{
    std::vector<std::string> out;
    for (const AllocatorProfile &p : profiles) {
        if (out.empty() || out.back() != p.host)
            out.push_back(p.host);
    }
    return out;
}

std::vector<std::string> MemoryProfileSet::memoryIds(const std::string &host) const
{
    std::vector<std::string> out;
    for (const AllocatorProfile &p : profiles) {
        if (p.host == host)
            out.push_back(p.memoryId);
    }
    return out;
}

const AllocatorProfile *MemoryProfileSet::find(const std::string &host,
                                               const std::string &memoryId) const
{
    for (const AllocatorProfile &p : profiles) {
        if (p.host == host && p.memoryId == memoryId)
            return &p;
    }
    return nullptr;
}

std::shared_ptr<const MemoryProfileSet> memoryProfiles(AnalysisCache &cache)
{
    return cache.get<MemoryProfileSet>([](AnalysisCache &c) { return computeMemoryProfiles(c.trace()); });
}

} // namespace tracedesk::core::analysis
