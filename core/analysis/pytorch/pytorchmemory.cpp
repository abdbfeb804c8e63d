#include "core/analysis/pytorch/pytorchmemory.h"
#include "core/base/cancel.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace tracedesk::core::analysis::pytorch {

namespace {

constexpr std::string_view kUnknownOp = "<unknown>";

struct Record
{
    TimePs time = 0;
    SliceRef ref;
    uint32_t device = 0;
    int64_t bytes = 0;
    std::optional<int64_t> addr;
    std::optional<int64_t> allocated;
    std::optional<int64_t> reserved;
    uint32_t node = kNoIndex; // deepest operator-tree node containing it (kNoIndex: none)
    bool attributed = false;  // `node` is an operator
};

struct ArgKeys
{
    StringId bytes = kEmptyString;
    StringId addr = kEmptyString;
    StringId allocated = kEmptyString;
    StringId reserved = kEmptyString;
    StringId deviceType = kEmptyString;
    StringId deviceId = kEmptyString;

    explicit ArgKeys(const Trace &trace)
    {
        // Keys the trace never interned stay 0 (the empty string), which no arg uses.
        trace.strings.find("Bytes", &bytes);
        trace.strings.find("Addr", &addr);
        trace.strings.find("Total Allocated", &allocated);
        trace.strings.find("Total Reserved", &reserved);
        trace.strings.find("Device Type", &deviceType);
        trace.strings.find("Device Id", &deviceId);
    }
};

std::optional<int64_t> intOf(const ArgValue &v)
{
    const int64_t i = v.asInt();
    return i == kNoValue ? std::nullopt : std::optional(i);
}

// The deepest tree node containing each record of one thread; `recs` are that thread's
// records in time order. Nodes of the thread come parent-first from the index, so a stack of
// open nodes (closed ones popped lazily) has the innermost open node on top.
void attributeThread(const KinetoIndex &index, const OperatorTree &tree, uint32_t thread,
                     std::vector<Record *> &recs)
{
    const KinetoThread &th = index.threads[thread];
    std::vector<uint32_t> stack; // KinetoIndex nodes
    uint32_t next = th.nodeBegin;
    auto popClosed = [&](TimePs t) {
        while (!stack.empty() && index.nodes[stack.back()].end <= t)
            stack.pop_back();
    };
    for (Record *rec : recs) {
        for (; next < th.nodeEnd && index.nodes[next].start <= rec->time; ++next) {
            const uint32_t treeNode = tree.nodeOfIndexNode[next];
            if (treeNode == kNoIndex || tree.nodes[treeNode].nodeClass == OpNodeClass::Annotation)
                continue; // an annotation or Python frame: upstream attributes to operators
            popClosed(index.nodes[next].start);
            stack.push_back(next);
        }
        popClosed(rec->time);
        if (stack.empty())
            continue;
        rec->node = tree.nodeOfIndexNode[stack.back()];
        rec->attributed = tree.nodes[rec->node].isOperator;
    }
}

std::string opLabel(const Trace &trace, const OperatorTree &tree, const Record &rec)
{
    if (!rec.attributed)
        return std::string(kUnknownOp);
    const std::string_view op = tree.nodeName(trace, rec.node);
    const uint32_t parent = tree.nodes[rec.node].parent;
    if (op.starts_with("aten::empty") && parent != kNoIndex)
        return std::string(tree.nodeName(trace, parent)) + " (" + std::string(op) + ")";
    return std::string(op);
}

void buildEventRows(const Trace &trace, const OperatorTree &tree,
                    const std::vector<Record> &records, PyTorchMemory &out)
{
    std::map<std::pair<uint32_t, int64_t>, const Record *> pending;
    for (const Record &rec : records) {
        if (!rec.addr)
            continue;
        const auto key = std::pair(rec.device, *rec.addr);
        if (rec.bytes > 0) {
            pending[key] = &rec;
            continue;
        }
        MemoryEventRow row;
        row.device = rec.device;
        row.size = -rec.bytes;
        row.releaseTime = rec.time;
        auto it = pending.find(key);
        if (it != pending.end()) {
            row.op = opLabel(trace, tree, *it->second);
            row.allocTime = it->second->time;
            pending.erase(it);
        } else {
            row.op = std::string(kUnknownOp);
        }
        out.events.push_back(std::move(row));
    }
    std::vector<const Record *> leftover;
    for (const auto &[key, rec] : pending)
        leftover.push_back(rec);
    std::sort(leftover.begin(), leftover.end(),
              [](const Record *a, const Record *b) { return a < b; }); // records are in time order
    for (const Record *rec : leftover) {
        MemoryEventRow row;
        row.device = rec->device;
        row.op = opLabel(trace, tree, *rec);
        row.size = rec->bytes;
        row.allocTime = rec->time;
        out.events.push_back(std::move(row));
    }
}

void buildStats(const Trace &trace, const OperatorTree &tree, const std::vector<Record> &records,
                PyTorchMemory &out)
{
    struct Values
    {
        int64_t size = 0, allocSize = 0, allocCount = 0;
        int64_t selfSize = 0, selfAllocSize = 0, selfAllocCount = 0;
    };
    // Per (device, tree node); inclusive values go to the node and every ancestor.
    std::map<std::pair<uint32_t, uint32_t>, Values> perNode;
    for (const Record &rec : records) {
        if (!rec.attributed)
            continue;
        const int64_t alloc = rec.bytes > 0 ? rec.bytes : 0;
        const int64_t count = rec.bytes > 0 ? 1 : 0;
        Values &self = perNode[{rec.device, rec.node}];
        self.selfSize += rec.bytes;
        self.selfAllocSize += alloc;
        self.selfAllocCount += count;
        for (uint32_t n = rec.node; n != kNoIndex; n = tree.nodes[n].parent) {
            Values &v = perNode[{rec.device, n}];
            v.size += rec.bytes;
            v.allocSize += alloc;
            v.allocCount += count;
        }
    }
    std::unordered_map<StringId, int64_t> calls;
    for (const OpNode &node : tree.nodes) {
        if (node.isOperator && node.mergedInto == kNoIndex)
            ++calls[node.name];
    }
    std::map<std::pair<uint32_t, StringId>, MemoryOpStats> rows;
    for (const auto &[key, v] : perNode) {
        const OpNode &node = tree.nodes[key.second];
        if (!node.isOperator)
            continue;
        MemoryOpStats &row = rows[{key.first, node.name}];
        row.device = key.first;
        row.sizeIncrease += v.size;
        row.allocationSize += v.allocSize;
        row.allocationCount += v.allocCount;
        row.selfSizeIncrease += v.selfSize;
        row.selfAllocationSize += v.selfAllocSize;
        row.selfAllocationCount += v.selfAllocCount;
    }
    for (auto &[key, row] : rows) {
        if (row.sizeIncrease == 0 && row.allocationSize == 0 && row.allocationCount == 0 &&
            row.selfSizeIncrease == 0 && row.selfAllocationSize == 0 &&
            row.selfAllocationCount == 0)
            continue;
        row.op = std::string(trace.string(key.second));
        row.calls = calls[key.second];
        out.stats.push_back(std::move(row));
    }
    std::stable_sort(out.stats.begin(), out.stats.end(),
                     [](const MemoryOpStats &a, const MemoryOpStats &b) {
                         return std::tuple(a.device, -a.sizeIncrease, a.op) <
                                std::tuple(b.device, -b.sizeIncrease, b.op);
                     });
}

} // namespace

int PyTorchMemory::defaultDevice() const
{
    for (size_t i = 0; i < devices.size(); ++i) {
        if (devices[i].name.starts_with("GPU"))
            return int(i);
    }
    return devices.empty() ? -1 : 0;
}

const DeviceMemory *PyTorchMemory::device(std::string_view name) const
{
    for (const DeviceMemory &d : devices) {
        if (d.name == name)
            return &d;
    }
    return nullptr;
}

PyTorchMemory computePyTorchMemory(const Trace &trace, const OperatorTree &tree)
{
    PyTorchMemory out;
    const ArgKeys keys(trace);
    // Device key: (Device Type, Device Id), CPU ids folded to one device.
    std::map<std::pair<int64_t, int64_t>, uint32_t> deviceOf;
    std::vector<Record> records;
    // The planes the tree was built over (one rank of a merged run).
    const KinetoScope &scope = tree.index->scope;
    for (uint32_t t = 0; t < trace.tracks.size(); ++t) {
        checkCancelled();
        const Track &track = trace.tracks[t];
        if (!scope.includes(trace, track.plane))
            continue;
        for (uint32_t r = 0; r < track.rows.size(); ++r) {
            const Row &row = track.rows[r];
            for (uint32_t i = 0; i < row.size(); ++i) {
                if (trace.kinds[row.kind[i]].role != SliceRole::MemoryEvent)
                    continue;
                ++out.recordCount;
                Record rec;
                rec.time = row.start[i];
                rec.ref = {t, r, i};
                std::optional<int64_t> type, id, bytes;
                trace.forEachArg(rec.ref, [&](const ArgValue &v) {
                    if (v.key == kEmptyString)
                        return;
                    if (v.key == keys.deviceType)
                        type = intOf(v);
                    else if (v.key == keys.deviceId)
                        id = intOf(v);
                    else if (v.key == keys.bytes)
                        bytes = intOf(v);
                    else if (v.key == keys.addr)
                        rec.addr = intOf(v);
                    else if (v.key == keys.allocated)
                        rec.allocated = intOf(v);
                    else if (v.key == keys.reserved)
                        rec.reserved = intOf(v);
                });
                const int64_t sideBytes = trace.side(rec.ref, SideColumn::Bytes);
                rec.bytes = sideBytes != kNoValue ? sideBytes : bytes.value_or(0);
                if (!type || (*type != 0 && *type != 1)) {
                    ++out.skippedRecords;
                    continue;
                }
                const auto key = *type == 0 ? std::pair<int64_t, int64_t>(0, -1)
                                            : std::pair<int64_t, int64_t>(1, id.value_or(0));
                auto [it, inserted] = deviceOf.emplace(key, 0);
                if (inserted) {
                    it->second = uint32_t(out.devices.size());
                    DeviceMemory d;
                    d.deviceType = key.first;
                    d.deviceId = key.second;
                    d.name = key.first == 0 ? "CPU" : "GPU" + std::to_string(key.second);
                    out.devices.push_back(std::move(d));
                }
                rec.device = it->second;
                records.push_back(rec);
            }
        }
    }
    // Devices in display order: CPU, then GPUs by id (the map's order).
    std::vector<uint32_t> remap(out.devices.size());
    {
        std::vector<DeviceMemory> ordered;
        for (const auto &[key, index] : deviceOf) {
            remap[index] = uint32_t(ordered.size());
            ordered.push_back(std::move(out.devices[index]));
        }
        out.devices = std::move(ordered);
    }
    for (Record &rec : records)
        rec.device = remap[rec.device];
    std::stable_sort(records.begin(), records.end(),
                     [](const Record &a, const Record &b) { return a.time < b.time; });

    // Attribution, thread by thread.
    const KinetoIndex &index = *tree.index;
    std::map<uint32_t, std::vector<Record *>> byThread;
    for (Record &rec : records) {
        const uint32_t thread = index.threadOfTrack(rec.ref.track);
        if (thread != kNoIndex)
            byThread[thread].push_back(&rec);
    }
    for (auto &[thread, recs] : byThread)
        attributeThread(index, tree, thread, recs);

    for (const Record &rec : records) {
        out.unattributedRecords += rec.attributed ? 0 : 1;
        DeviceMemory &d = out.devices[rec.device];
        ++d.recordCount;
        if (!rec.allocated || !rec.reserved)
            continue;
        d.curve.push_back({rec.time, *rec.allocated, *rec.reserved});
        if (d.curve.size() == 1 || *rec.allocated > d.peakAllocated) {
            d.peakAllocated = *rec.allocated;
            d.peakAllocatedTime = rec.time;
        }
        if (d.curve.size() == 1 || *rec.reserved > d.peakReserved) {
            d.peakReserved = *rec.reserved;
            d.peakReservedTime = rec.time;
        }
    }
    buildEventRows(trace, tree, records, out);
    buildStats(trace, tree, records, out);
    return out;
}

PyTorchMemory computePyTorchMemory(const Trace &trace)
{
    return computePyTorchMemory(trace, buildOperatorTree(trace));
}

std::shared_ptr<const PyTorchMemory> pytorchMemory(AnalysisCache &cache)
{
    return cache.get<PyTorchMemory>(
        [](AnalysisCache &c) { return computePyTorchMemory(c.trace(), *operatorTree(c)); });
}

} // namespace tracedesk::core::analysis::pytorch
