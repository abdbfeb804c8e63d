#include "core/io/xspaceline.h"

#include <algorithm>
#include <limits>

namespace tracedesk::core::xspace {

bool readLineHeader(const LineRef &line, LineHeader *out, WireReader *err)
{
    WireReader r(line.begin, line.end);
    WireField f;
    *out = LineHeader();
    while (r.next(&f)) {
        switch (f.number) {
        case 4:
            if (f.type != WireType::Len)
                return err->fail("wrong wire type for XLine.events", f.at);
            ++out->events;
            break;
        case 1:
        case 3:
        case 9:
        case 10:
            if (f.type != WireType::Varint)
                return err->fail("wrong wire type for an XLine integer field", f.at);
            if (f.number == 1)
                out->id = f.asInt64();
            else if (f.number == 3)
                out->timestampNs = f.asInt64();
            else if (f.number == 10)
                out->displayId = f.asInt64();
            break;
        case 2:
        case 11:
            if (f.type != WireType::Len)
                return err->fail("wrong wire type for an XLine name", f.at);
            (f.number == 2 ? out->name : out->displayName) = f.bytes();
            break;
        default:
            break;
        }
    }
    return r.failed() ? err->fail(r) : true;
}

LineDecoder::LineDecoder(TraceBuilder &builder,
                         const std::vector<std::unique_ptr<PlaneTables>> &tables,
                         std::mutex &shared, StringId unknownName)
    : m_builder(builder), m_tables(tables), m_shared(shared), m_unknownName(unknownName)
{
    m_flowCategory.fill(kNoCategory);
}

StringId LineDecoder::internValue(std::string_view s)
{
    // Views point into the mapped file, which outlives the load, so they key the cache safely.
    auto it = m_internCache.find(s);
    if (it != m_internCache.end())
        return it->second;
    const StringId id = m_builder.strings().internShared(s);
    m_internCache.emplace(s, id);
    return id;
}

uint32_t LineDecoder::unknownKind(PlaneTables &tables)
{
    uint32_t k = tables.unknownKind.load(std::memory_order_acquire);
    if (k != kNoKind)
        return k;
    std::lock_guard lock(m_shared);
    k = tables.unknownKind.load(std::memory_order_relaxed);
    if (k == kNoKind) {
        EventKind kind;
        kind.name = m_unknownName;
        kind.plane = tables.plane;
        k = m_builder.addKind(kind);
        tables.unknownKind.store(k, std::memory_order_release);
    }
    return k;
}

void LineDecoder::flushFlows(uint32_t track)
{
    if (m_flows.empty())
        return;
    for (const PendingFlow &p : m_flows) {
        if (m_flowCategory[p.category] == kNoCategory) {
            const std::string name = p.category == 0 ? std::string("flow")
                                                     : "flow " + std::to_string(p.category);
            m_flowCategory[p.category] = m_builder.strings().internShared(name);
        }
    }
    std::lock_guard lock(m_shared);
    for (const PendingFlow &p : m_flows) {
        const TrackBuilder::Placement at = m_where[p.staged];
        // XFlow categories are 6 bits: never past the builder's category slots.
        (void)m_builder.addPlacedFlowEndpoint(SliceRef{track, at.row, at.index}, p.id,
                                              m_flowCategory[p.category], p.phase);
    }
    m_flows.clear();
}

bool LineDecoder::decode(const LineJob &job, WireReader *err)
{
    PlaneTables &tables = *m_tables[job.ref.tables];
    TrackBuilder &tb = m_builder.trackBuilder(job.track);
    tb.reserve(job.events);
    ArgsArena::Writer args(tb.args());
    auto intern = [this](std::string_view s) { return internValue(s); };

    WireReader line(job.ref.begin, job.ref.end);
    WireField f;
    WireField g;
    StatValue stat;
    SideValues side;
    m_flows.clear();
    // Read bytes are handed back every few MiB, so a line of gigabytes is not resident whole.
    constexpr size_t kReleaseBytes = size_t(8) << 20;
    const uint8_t *released = job.ref.begin;
    while (line.next(&f)) {
        if (f.key != WireField::keyOf(4, WireType::Len))
            continue; // header fields, checked by readLineHeader
        if (job.file && size_t(f.at - released) >= kReleaseBytes) {
            job.file->release(released, f.at);
            released = f.at;
        }
        ++m_counters.events;
        int64_t metadataId = 0, offset = 0, duration = 0, occurrences = 0;
        bool aggregated = false;
        side.mask = 0;
        const size_t flowsBefore = m_flows.size();
        WireReader ev = WireReader::of(f);
        while (ev.next(&g)) {
            if (g.number == 4) {
                if (!decodeStat(g, &stat, *err))
                    return false;
                const StatOutcome out = applyStat(stat, tables.stats, args, side, intern,
                                                         StatStorage::SideOnly);
                m_counters.unknownStats += out.unknownMetadata ? 1 : 0;
                if (out.hasFlow) {
                    const XFlowParts x = splitXFlow(out.flow);
                    static constexpr FlowPhase kPhase[4] = {FlowPhase::Step, FlowPhase::End,
                                                            FlowPhase::Start, FlowPhase::Step};
                    if (x.direction == 0)
                        ++m_counters.badFlows;
                    else
                        m_flows.push_back({0, x.id, x.category, kPhase[x.direction]});
                }
                continue;
            }
            if (g.number > 5)
                continue;
            if (g.type != WireType::Varint)
                return err->fail("wrong wire type for an XEvent integer field", g.at);
            switch (g.number) {
            case 1:
                metadataId = g.asInt64();
                break;
            case 2: // offset_ps and num_occurrences are a oneof: the last one wins
                offset = g.asInt64();
                aggregated = false;
                break;
            case 3:
                duration = g.asInt64();
                break;
            case 5:
                occurrences = g.asInt64();
                aggregated = true;
                break;
            default:
                break;
            }
        }
        if (ev.failed())
            return err->fail(ev);

        const uint32_t *known = tables.kinds.find(metadataId);
        uint32_t kind = 0;
        if (known) {
            kind = *known;
        } else {
            kind = unknownKind(tables);
            ++m_counters.unknownKinds;
        }
        const ArgsRef ref = args.finish();
        if (aggregated) {
            if (occurrences < 0 || duration < 0) {
                occurrences = std::max<int64_t>(occurrences, 0);
                duration = std::max<int64_t>(duration, 0);
                ++m_counters.clampedTimes;
            }
            tb.addAggregate(AggregateEvent{kind, occurrences, duration, ref});
            m_flows.resize(flowsBefore);
            continue;
        }
        // Times are kept within +-kTimeLimitPs so any difference of two of them (a trace's
        // span, a gap between hosts) still fits in int64.
        TimePs start = 0;
        if (__builtin_add_overflow(job.basePs, offset, &start) || start > kTimeLimitPs
            || start < -kTimeLimitPs) {
            const bool low = __builtin_add_overflow(job.basePs, offset, &start) ? offset < 0
                                                                                : start < 0;
            start = low ? -kTimeLimitPs : kTimeLimitPs;
            ++m_counters.clampedTimes;
        }
        if (duration > kTimeLimitPs - start) {
            duration = kTimeLimitPs - start;
            ++m_counters.clampedTimes;
        }
        const uint32_t staged = tb.addSlice(start, duration, kind, ref);
        for (uint32_t bits = side.mask; bits; bits &= bits - 1) {
            const int c = __builtin_ctz(bits);
            tb.setSide(staged, SideColumn(c), side.value[c]);
        }
        for (size_t i = flowsBefore; i < m_flows.size(); ++i)
            m_flows[i].staged = staged;
    }
    if (line.failed())
        return err->fail(line);
    // The track is finished here, on this worker, and its flow endpoints placed on their rows
    // at once, so no track keeps a placement table until the whole trace is built.
    m_builder.finishTrack(job.track, m_flows.empty() ? nullptr : &m_where);
    flushFlows(job.track);
    return true;
}

} // namespace tracedesk::core::xspace
