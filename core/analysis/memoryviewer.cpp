#include "core/analysis/memoryviewer.h"

#include "core/analysis/hloopinfo.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <unordered_map>

namespace tracedesk::core::analysis {

namespace {

int64_t elementBytes(int type)
{
    switch (type) {
    case xla::S16: case xla::U16: case xla::F16: case xla::BF16:
        return 2;
    case xla::S32: case xla::U32: case xla::F32:
        return 4;
    case xla::S64: case xla::U64: case xla::F64: case xla::C64:
        return 8;
    case xla::C128:
        return 16;
    case xla::TUPLE: case xla::OPAQUE_TYPE: case xla::TOKEN: case xla::PRIMITIVE_TYPE_INVALID:
        return 0;
    default:
        return 1;   // PRED, 8-bit types; sub-byte types take a byte each when unpacked
    }
}

const xla::ShapeProto *subshape(const xla::ShapeProto &shape,
                                const google::protobuf::RepeatedField<int64_t> &index)
{
    const xla::ShapeProto *s = &shape;
    for (int64_t i : index) {
        if (i < 0 || i >= s->tuple_shapes_size())
            return nullptr;
        s = &s->tuple_shapes(int(i));
    }
    return s;
}

BufferCategory categoryOf(const xla::BufferAllocationProto &a)
{
    if (a.is_entry_computation_parameter())
        return BufferCategory::Parameter;
    if (a.maybe_live_out())
        return BufferCategory::Output;
    if (a.is_thread_local())
        return BufferCategory::ThreadLocal;
    if (a.is_constant())
        return BufferCategory::Constant;
    return BufferCategory::Temporary;
}

bool isIndefinite(const xla::BufferAllocationProto &a)
{
    return a.is_thread_local() || a.is_entry_computation_parameter() || a.is_constant()
           || a.maybe_live_out();
}

// The heap-simulator trace for `color`: the first whose first event's buffer has that color,
// else the one with the most events of that color.
int pickHeapTrace(const xla::BufferAssignmentProto &ba,
                  const std::unordered_map<int64_t, int64_t> &colorOfBuffer, int64_t color)
{
    for (int i = 0; i < ba.heap_simulator_traces_size(); ++i) {
        const auto &t = ba.heap_simulator_traces(i);
        if (t.events_size() == 0)
            continue;
        auto it = colorOfBuffer.find(t.events(0).buffer_id());
        if (it != colorOfBuffer.end() && it->second == color)
            return i;
    }
    int best = -1, bestCount = 0;
    for (int i = 0; i < ba.heap_simulator_traces_size(); ++i) {
        int count = 0;
        for (const auto &e : ba.heap_simulator_traces(i).events()) {
            auto it = colorOfBuffer.find(e.buffer_id());
            count += it != colorOfBuffer.end() && it->second == color ? 1 : 0;
        }
        if (count > bestCount) {
            best = i;
            bestCount = count;
        }
    }
    return best;
}

} // namespace

const char *bufferCategoryName(BufferCategory c)
{
    switch (c) {
    case BufferCategory::Parameter: return "Parameter";
    case BufferCategory::Output: return "Output";
    case BufferCategory::ThreadLocal: return "Thread-local";
    case BufferCategory::Constant: return "Constant";
    default: return "Temporary";
    }
}

int64_t unpaddedShapeBytes(const xla::ShapeProto &shape)
{
    if (shape.element_type() == xla::TUPLE)
        return 8 * int64_t(shape.tuple_shapes_size());
    int64_t n = elementBytes(shape.element_type());
    for (int64_t d : shape.dimensions())
        n *= std::max<int64_t>(d, 0);
    return n;
}

std::string shapeToString(const xla::ShapeProto &shape)
{
    if (shape.element_type() == xla::TUPLE) {
        std::string s = "(";
        for (int i = 0; i < shape.tuple_shapes_size(); ++i)
            s += (i ? ", " : "") + shapeToString(shape.tuple_shapes(i));
        return s + ")";
    }
    std::string type = xla::PrimitiveType_Name(shape.element_type());
    std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (type.empty())
        type = "t" + std::to_string(int(shape.element_type()));
    if (shape.element_type() == xla::TOKEN || shape.element_type() == xla::OPAQUE_TYPE)
        return type + "[]";
    std::string s = type + "[";
    for (int i = 0; i < shape.dimensions_size(); ++i)
        s += (i ? "," : "") + std::to_string(shape.dimensions(i));
    s += "]";
    if (shape.has_layout() && shape.dimensions_size() > 0) {
        s += "{";
        for (int i = 0; i < shape.layout().minor_to_major_size(); ++i)
            s += (i ? "," : "") + std::to_string(shape.layout().minor_to_major(i));
        s += "}";
    }
    return s;
}

std::vector<int64_t> memorySpaces(const xla::HloProto &proto)
{
    std::set<int64_t> colors;
    for (const auto &b : proto.buffer_assignment().logical_buffers())
        colors.insert(b.color());
    for (const auto &a : proto.buffer_assignment().buffer_allocations())
        colors.insert(a.color());
    return {colors.begin(), colors.end()};
}

const ViewerBuffer *MemoryViewerResult::buffer(int64_t id) const
{
    auto it = std::lower_bound(buffers.begin(), buffers.end(), id,
                               [](const ViewerBuffer &b, int64_t v) { return b.id < v; });
    return it != buffers.end() && it->id == id ? &*it : nullptr;
}

double MemoryViewerResult::fragmentationPercent() const
{
    const int64_t denominator = totalAllocationBytes - indefiniteAllocationBytes;
    if (denominator <= 0)
        return 0;
    return 100.0 * double(totalAllocationBytes - peakHeapBytes) / double(denominator);
}

Result<MemoryViewerResult> computeMemoryViewer(const xla::HloProto &proto,
                                               const std::string &moduleName,
                                               const MemoryViewerOptions &options)
{
    MemoryViewerResult r;
    r.moduleName = moduleName;
    r.entryComputationName = proto.hlo_module().entry_computation_name();
    r.memoryColor = options.memoryColor;
    if (!proto.has_buffer_assignment())
        return fileError(moduleName, "the HLO proto has no buffer assignment");
    const xla::BufferAssignmentProto &ba = proto.buffer_assignment();

    std::unordered_map<int64_t, const xla::HloInstructionProto *> instructions;
    for (const auto &c : proto.hlo_module().computations()) {
        for (const auto &i : c.instructions())
            instructions.emplace(i.id(), &i);
    }
    std::unordered_map<int64_t, int64_t> colorOfBuffer;
    std::unordered_map<int64_t, size_t> bufferIndex;
    for (const auto &lb : ba.logical_buffers()) {
        colorOfBuffer[lb.id()] = lb.color();
        if (lb.color() != options.memoryColor)
            continue;
        ViewerBuffer b;
        b.id = lb.id();
        b.size = lb.size();
        b.unpaddedSize = lb.size();
        auto it = instructions.find(lb.defined_at().instruction_id());
        if (it != instructions.end()) {
            const xla::HloInstructionProto &inst = *it->second;
            b.instructionName = inst.name();
            b.opCode = inst.opcode();
            b.frameworkOp = inst.metadata().op_name();
            b.sourceInfo = hloSourceLine(inst.metadata());
            if (const xla::ShapeProto *s = subshape(inst.shape(), lb.defined_at().shape_index())) {
                b.shape = shapeToString(*s);
                b.unpaddedSize = unpaddedShapeBytes(*s);
            }
        } else {
            b.instructionName = lb.defined_at().instruction_name();
        }
        r.buffers.push_back(std::move(b));
    }
    std::sort(r.buffers.begin(), r.buffers.end(),
              [](const ViewerBuffer &a, const ViewerBuffer &b) { return a.id < b.id; });
    for (size_t i = 0; i < r.buffers.size(); ++i)
        bufferIndex[r.buffers[i].id] = i;

    std::unordered_map<int64_t, int64_t> allocationOfBuffer;
    for (const auto &a : ba.buffer_allocations()) {
        for (const auto &as : a.assigned()) {
            allocationOfBuffer[as.logical_buffer_id()] = a.index();
            auto it = bufferIndex.find(as.logical_buffer_id());
            if (it != bufferIndex.end()) {
                ViewerBuffer &b = r.buffers[it->second];
                b.allocationIndex = a.index();
                b.offset = as.offset();
                b.category = categoryOf(a);
            }
        }
        if (a.color() != options.memoryColor)
            continue;
        r.totalAllocationBytes += a.size();
        if (a.is_entry_computation_parameter())
            r.entryParametersBytes += a.size();
        if (a.is_thread_local() || a.is_tuple())
            r.nonReusableBytes += a.size();
        if (a.maybe_live_out())
            r.maybeLiveOutBytes += a.size();
        if (isIndefinite(a))
            r.indefiniteAllocationBytes += a.size();
    }

    // Replay the heap simulation. Storage belongs to canonical buffers, reference-counted.
    r.heapTraceIndex = pickHeapTrace(ba, colorOfBuffer, options.memoryColor);
    std::set<int64_t> simulatedAllocations;
    std::vector<int64_t> peakLive;
    if (r.heapTraceIndex >= 0) {
        std::unordered_map<int64_t, int64_t> canonical;
        std::unordered_map<int64_t, int> refs;
        std::vector<int64_t> live;             // canonical ids, in allocation order
        int64_t heap = 0, unpadded = 0, peak = -1;
        auto add = [&](int64_t id, bool openSpan) {
            const ViewerBuffer &b = r.buffers[bufferIndex.at(id)];
            heap += b.size;
            unpadded += b.unpaddedSize;
            live.push_back(id);
            if (openSpan)
                r.buffers[bufferIndex.at(id)].spanStart = int32_t(r.heapSizes.size());
        };
        auto remove = [&](int64_t id) {
            ViewerBuffer &b = r.buffers[bufferIndex.at(id)];
            heap -= b.size;
            unpadded -= b.unpaddedSize;
            live.erase(std::find(live.begin(), live.end(), id));
            b.spanLimit = int32_t(r.heapSizes.size());
        };
        for (const auto &e : ba.heap_simulator_traces(int(r.heapTraceIndex)).events()) {
            if (bufferIndex.count(e.buffer_id())) {
                auto alloc = allocationOfBuffer.find(e.buffer_id());
                if (alloc != allocationOfBuffer.end())
                    simulatedAllocations.insert(alloc->second);
                if (e.kind() == xla::HeapSimulatorTrace::Event::ALLOC) {
                    canonical[e.buffer_id()] = e.buffer_id();
                    if (++refs[e.buffer_id()] == 1)
                        add(e.buffer_id(), true);
                } else if (e.kind() == xla::HeapSimulatorTrace::Event::SHARE_WITH) {
                    const int64_t c = e.share_with_canonical_id();
                    if (bufferIndex.count(c)) {
                        canonical[e.buffer_id()] = c;
                        if (++refs[c] == 1)
                            add(c, false);
                    }
                } else if (e.kind() == xla::HeapSimulatorTrace::Event::FREE) {
                    auto it = canonical.find(e.buffer_id());
                    const int64_t c = it != canonical.end() ? it->second : e.buffer_id();
                    if (refs[c] > 0 && --refs[c] == 0)
                        remove(c);
                }
            }
            r.heapSizes.push_back(heap);
            r.unpaddedHeapSizes.push_back(unpadded);
            r.instructionNames.push_back(e.instruction_name());
            if (heap > peak) {
                peak = heap;
                r.peakPosition = int32_t(r.heapSizes.size() - 1);
                r.peakUnpaddedHeapBytes = unpadded;
                peakLive = live;
            }
        }
        r.peakHeapBytes = std::max<int64_t>(peak, 0);
        for (ViewerBuffer &b : r.buffers) {
            if (b.spanStart >= 0 && b.spanLimit < 0)
                b.spanLimit = int32_t(r.heapSizes.size() - 1);
        }
    }

    // Indefinite allocations: their largest buffer lives for the whole program.
    int64_t indefinite = 0, indefiniteUnpadded = 0;
    for (const auto &a : ba.buffer_allocations()) {
        if (a.color() != options.memoryColor || !isIndefinite(a)
            || simulatedAllocations.count(a.index()))
            continue;
        const ViewerBuffer *largest = nullptr;
        for (const auto &as : a.assigned()) {
            auto it = bufferIndex.find(as.logical_buffer_id());
            if (it != bufferIndex.end()
                && (!largest || r.buffers[it->second].size > largest->size))
                largest = &r.buffers[it->second];
        }
        if (!largest)
            continue;
        indefinite += largest->size;
        indefiniteUnpadded += largest->unpaddedSize;
        r.indefiniteBufferIds.push_back(largest->id);
        if (options.memoryColor == 0)
            peakLive.push_back(largest->id);
    }
    for (size_t i = 0; i < r.heapSizes.size(); ++i) {
        r.heapSizes[i] += indefinite;
        r.unpaddedHeapSizes[i] += indefiniteUnpadded;
    }
    r.peakHeapBytes += indefinite;
    r.peakUnpaddedHeapBytes += indefiniteUnpadded;

    int64_t small = 0;
    int32_t color = 0;
    for (int64_t id : peakLive) {
        const ViewerBuffer &b = r.buffers[bufferIndex.at(id)];
        if (b.size < options.smallBufferSize) {
            small += b.size;
            continue;
        }
        r.maxHeap.push_back({b.instructionName, b.id, b.size, b.unpaddedSize, color++});
    }
    if (small > 0)
        r.maxHeap.push_back({"small (<" + std::to_string(options.smallBufferSize) + " bytes)", -1,
                             small, 0, color++});
    std::vector<int32_t> order(r.maxHeap.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
        return r.maxHeap[size_t(a)].size > r.maxHeap[size_t(b)].size;
    });
    r.bySizeToMaxHeap = order;
    r.maxHeapToBySize.assign(order.size(), 0);
    for (size_t k = 0; k < order.size(); ++k) {
        r.maxHeapBySize.push_back(r.maxHeap[size_t(order[k])]);
        r.maxHeapToBySize[size_t(order[k])] = int32_t(k);
    }
    return r;
}

std::shared_ptr<const HloModuleSet> hloModuleSet(AnalysisCache &cache)
{
    return cache.get<HloModuleSet>([](AnalysisCache &c) {
        return HloModuleSet{std::make_shared<const hlo::HloModuleIndex>(
            hlo::hloModulesForTrace(c.trace()))};
    });
}

} // namespace tracedesk::core::analysis
