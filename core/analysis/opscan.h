#pragma once

// Internal helpers of the op analyses: stat-name keys looked up once per trace, per-kind stat
// reading, which tracks count as device op lines, and a nesting walk that yields self time.
//
// Design note (self time): rows hold one nesting depth each, so a track's slices in start order
// are a k-way merge of its rows (ties: the shallower row first). Walking that order with a stack
// of open slices that pass a filter, each slice's duration is charged to the nearest open
// filtered ancestor as child time; self = duration - child time when it closes. Slices that do
// not pass the filter are transparent. Cost: O(slices x rows) with no allocation per slice.

#include "core/analysis/opmetrics.h"
#include "core/base/cancel.h"

#include <string_view>
#include <vector>

namespace tracedesk::core::analysis::detail {

struct StatKeys
{
    StringId hloCategory = kEmptyString;
    StringId deduplicatedName = kEmptyString;
    StringId modelFlops = kEmptyString;
    StringId shapeWithLayout = kEmptyString;
    StringId level0 = kEmptyString;          // legacy TF: framework op of a kernel
    StringId kernelDetails = kEmptyString;
    StringId tfOp = kEmptyString;
    StringId isEager = kEmptyString;
    StringId iplStageCat = kEmptyString;
    StringId flops = kEmptyString;
    StringId bytesAccessed = kEmptyString;
    StringId source = kEmptyString;
    StringId memoryAccessBreakdown = kEmptyString;

    explicit StatKeys(const Trace &trace);
};

// String or reference value of an arg as text (empty for numbers).
std::string_view argText(const Trace &trace, const ArgValue &v);
// First matching key in the kind's stats.
bool kindStat(const Trace &trace, const EventKind &kind, StringId key, ArgValue *out);

enum class DeviceFamily : uint8_t { None, Gpu, Tpu };
DeviceFamily deviceFamily(const Trace &trace, const Plane &plane);
// Raw activity lines of a GPU plane: not a derived line (by id range or name), not a counter.
bool isRawGpuLine(const Trace &trace, const Track &track);
bool isTpuOpLine(const Trace &trace, const Track &track);

struct OpenSlice
{
    TimePs end;
    TimePs duration;
    TimePs child;
    uint32_t row;
    uint32_t index;
};

// Reusable state for walkNested, so the walk allocates nothing per track once warm.
struct NestScratch
{
    std::vector<uint32_t> cursor;
    std::vector<OpenSlice> stack;
};

// keep(row, index) -> bool; visit(row, index, selfTimePs) for every kept slice.
template<typename Keep, typename Visit>
void walkNested(const Track &track, NestScratch &s, Keep &&keep, Visit &&visit)
{
    checkCancelled(); // one look per track walk; see core/base/cancel.h
    const size_t rows = track.rows.size();
    s.cursor.assign(rows, 0);
    s.stack.clear();
    auto close = [&](const OpenSlice &o) {
        visit(o.row, o.index, std::max<TimePs>(0, o.duration - o.child));
    };
    for (;;) {
        uint32_t best = UINT32_MAX;
        TimePs bestStart = 0;
        for (uint32_t r = 0; r < rows; ++r) {
            const Row &row = track.rows[r];
            uint32_t &c = s.cursor[r];
            while (c < row.size() && !keep(r, c))
                ++c;
            if (c < row.size() && (best == UINT32_MAX || row.start[c] < bestStart)) {
                best = r;
                bestStart = row.start[c];
            }
        }
        if (best == UINT32_MAX)
            break;
        const Row &row = track.rows[best];
        const uint32_t i = s.cursor[best]++;
        while (!s.stack.empty() && (s.stack.back().end <= bestStart
                                    || s.stack.back().row >= best)) {
            close(s.stack.back());
            s.stack.pop_back();
        }
        if (!s.stack.empty())
            s.stack.back().child += row.duration[i];
        s.stack.push_back({row.end(i), row.duration[i], 0, best, i});
    }
    while (!s.stack.empty()) {
        close(s.stack.back());
        s.stack.pop_back();
    }
}

// Per-op accumulator filled during the scans, turned into OpMetrics afterwards.
struct OpSlot
{
    int64_t occurrences = 0;
    TimePs time = 0;
    TimePs self = 0;
    TimePs minTime = 0;
    double flops = 0;
    double modelFlops = 0;
    double bytes = 0;

    void add(TimePs t, TimePs selfT, double f, double mf, double b)
    {
        minTime = occurrences == 0 ? t : std::min(minTime, t);
        ++occurrences;
        time += t;
        self += selfT;
        flops += f;
        modelFlops += mf;
        bytes += b;
    }
};

// Merges `op` into `db` by (name, category, program id), then sorts and fills the totals.
void finishDb(OpMetricsDb &db, std::vector<OpMetrics> ops, bool addIdle);

} // namespace tracedesk::core::analysis::detail
