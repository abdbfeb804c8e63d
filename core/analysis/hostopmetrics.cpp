// Host op metrics DB (FORMATS.md 2.7 step 1, 2.8): framework ops on host threads with self time
// from the nesting of framework ops only (other slices in between are transparent).

#include "core/analysis/opmetrics.h"
#include "core/analysis/opnames.h"
#include "core/analysis/opscan.h"

namespace tracedesk::core::analysis {

using namespace detail;

namespace {

struct HostKind
{
    bool isOp = false;
    uint32_t slot = 0;
};

} // namespace

OpMetricsDb hostOpMetrics(const Trace &trace, std::optional<TimeRange> range)
{
    const StatKeys keys(trace);
    std::vector<HostKind> kindInfo(trace.kinds.size());
    std::vector<OpMetrics> ops;
    for (size_t k = 0; k < trace.kinds.size(); ++k) {
        const EventKind &kind = trace.kinds[k];
        if (trace.planes[kind.plane].kind != PlaneKind::Host)
            continue;
        const FrameworkOp op = parseFrameworkOp(trace.string(kind.name));
        if (op.kind == FrameworkOpKind::Unknown)
            continue;
        OpMetrics m;
        m.name = std::string(op.name);
        m.category = std::string(op.type);
        m.longName = std::string(stripTraceMeMetadata(trace.string(kind.name)));
        m.provenance = m.longName;
        ArgValue v;
        if (kindStat(trace, kind, keys.iplStageCat, &v) && !argText(trace, v).empty())
            m.category = std::string(argText(trace, v));
        if (kindStat(trace, kind, keys.isEager, &v))
            m.isEager = v.asInt() != 0 && v.asInt() != kNoValue;
        kindInfo[k] = {true, uint32_t(ops.size())};
        ops.push_back(std::move(m));
    }

    // XProf (ConvertHostThreadsXPlaneToOpMetricsDb) builds one db per host thread, whose total
    // time is the span of that thread's framework ops (first begin to last end) and whose op time
    // is their summed self time, then adds the dbs up: IDLE is the sum over threads of span minus
    // self time. One span over all threads would hide the idle time of threads that overlap.
    std::vector<OpSlot> slots(ops.size());
    NestScratch scratch;
    TimePs totalTime = 0;
    for (const Plane &plane : trace.planes) {
        if (plane.kind != PlaneKind::Host)
            continue;
        for (uint32_t t : plane.tracks) {
            const Track &track = trace.tracks[t];
            if (track.type != TrackType::Slices || track.sliceCount == 0)
                continue;
            auto keep = [&](uint32_t r, uint32_t i) {
                const Row &row = track.rows[r];
                return kindInfo[row.kind[i]].isOp && (!range || range->contains(row.start[i]));
            };
            TimePs first = 0, last = 0;
            bool any = false;
            walkNested(track, scratch, keep, [&](uint32_t r, uint32_t i, TimePs self) {
                const Row &row = track.rows[r];
                slots[kindInfo[row.kind[i]].slot].add(row.duration[i], self, 0, 0, 0);
                first = any ? std::min(first, row.start[i]) : row.start[i];
                last = any ? std::max(last, row.end(i)) : row.end(i);
                any = true;
            });
            if (any)
                totalTime += last - first;
        }
    }

    // A thread's self time never exceeds its span, so finishDb's IDLE (total - summed self
    // time) is the per-thread sum.
    OpMetricsDb db;
    db.totalTimePs = totalTime;
    std::vector<OpMetrics> used;
    for (size_t s = 0; s < ops.size(); ++s) {
        if (slots[s].occurrences == 0)
            continue;
        OpMetrics &m = ops[s];
        m.occurrences = slots[s].occurrences;
        m.timePs = slots[s].time;
        m.selfTimePs = slots[s].self;
        m.minTimePs = slots[s].minTime;
        used.push_back(std::move(m));
    }
    finishDb(db, std::move(used), true);
    return db;
}

} // namespace tracedesk::core::analysis
