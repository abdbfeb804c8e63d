#include "core/analysis/eventgrouping.h"

#include <algorithm>
#include <unordered_map>

namespace tracedesk::core::analysis {

namespace {

bool spaceIsGrouped(const Trace &trace)
{
    for (const EventKind &k : trace.kinds) {
        if (k.side[size_t(SideColumn::GroupId)] != kNoValue)
            return true;
    }
    for (const Track &t : trace.tracks) {
        for (const Row &r : t.rows) {
            if (!r.side[size_t(SideColumn::GroupId)].empty())
                return true;
        }
    }
    return false;
}

struct Candidate
{
    int64_t level;
    SliceRef slice;
    TimePs start;
};

} // namespace

bool StepGroups::isRoot(SliceRef s) const
{
    return std::find(roots.begin(), roots.end(), s) != roots.end();
}

RowGroups::RowGroups(const Trace &trace, const StepGroups &groups, uint32_t track, uint32_t row)
{
    const Row &r = trace.tracks[track].rows[row];
    if (!groups.fromFile) {
        m_computed = &groups.computed[track][row];
        return;
    }
    if (!r.side[size_t(SideColumn::GroupId)].empty())
        m_own = &r.side[size_t(SideColumn::GroupId)];
    m_kinds = trace.kinds.data();
    m_kind = r.kind.data();
}

StepGroups computeStepGroups(const Trace &trace)
{
    StepGroups out;
    if (spaceIsGrouped(trace)) {
        out.fromFile = true;
        return out;
    }
    out.computed.resize(trace.tracks.size());
    for (size_t t = 0; t < trace.tracks.size(); ++t) {
        const Track &track = trace.tracks[t];
        out.computed[t].resize(track.rows.size());
        for (size_t r = 0; r < track.rows.size(); ++r)
            out.computed[t][r].assign(track.rows[r].size(), -1);
    }

    StringId rootKey = kEmptyString, traceContext = kEmptyString;
    const bool hasRootKey = trace.strings.find("_r", &rootKey);
    const bool hasTraceContext = trace.strings.find("TraceContext", &traceContext);
    if (!hasRootKey && !hasTraceContext)
        return out;

    // Root level per kind from metadata stats; events may still carry their own `_r`.
    std::vector<int64_t> kindLevel(trace.kinds.size(), 0);
    for (size_t k = 0; k < trace.kinds.size(); ++k) {
        ArgValue v;
        if (hasRootKey && trace.metaArgs.find(trace.kinds[k].stats, rootKey, &v))
            kindLevel[k] = v.asInt();
        else if (hasTraceContext && trace.kinds[k].name == traceContext)
            kindLevel[k] = 1;
    }

    std::vector<Candidate> candidates;
    for (uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const Track &track = trace.tracks[t];
        if (trace.planes[track.plane].kind != PlaneKind::Host)
            continue;
        for (uint32_t r = 0; r < track.rows.size(); ++r) {
            const Row &row = track.rows[r];
            for (uint32_t i = 0; i < row.size(); ++i) {
                int64_t level = kindLevel[row.kind[i]];
                ArgValue v;
                if (hasRootKey && row.argsAt(i) != kNoArgs
                    && track.args.find(row.argsAt(i), rootKey, &v))
                    level = v.asInt();
                if (level > 0)
                    candidates.push_back({level, {t, r, i}, row.start[i]});
            }
        }
    }
    std::sort(candidates.begin(), candidates.end(), [](const Candidate &a, const Candidate &b) {
        if (a.level != b.level)
            return a.level > b.level;
        return a.start < b.start;
    });

    StringId stepNumKey = kEmptyString;
    trace.strings.find("step_num", &stepNumKey);
    std::unordered_map<int64_t, int32_t> correlationGroup;
    for (const Candidate &c : candidates) {
        auto &own = out.computed[c.slice.track][c.slice.row][c.slice.index];
        if (own >= 0)
            continue;
        const auto group = int32_t(out.groupCount++);
        own = group;
        const Track &track = trace.tracks[c.slice.track];
        const TimePs begin = trace.start(c.slice);
        const TimePs end = begin + trace.duration(c.slice);
        // Descendants: every deeper slice inside the root's span on the same thread.
        for (uint32_t r = c.slice.row; r < track.rows.size(); ++r) {
            const Row &row = track.rows[r];
            auto it = std::lower_bound(row.start.begin(), row.start.end(), begin);
            for (size_t i = size_t(it - row.start.begin()); i < row.size() && row.start[i] < end; ++i) {
                if (row.end(i) > end || (r == c.slice.row && i == c.slice.index))
                    continue;
                auto &g = out.computed[c.slice.track][r][i];
                if (g < 0) {
                    g = group;
                    const int64_t corr = trace.side({c.slice.track, r, uint32_t(i)},
                                                    SideColumn::CorrelationId);
                    if (corr != kNoValue)
                        correlationGroup.emplace(corr, group);
                }
            }
        }
        out.roots.push_back(c.slice);
        int64_t stepNum = trace.side(c.slice, SideColumn::StepNum);
        std::string name(trace.name(c.slice));
        if (name == "FunctionRun" || name == "SessionRun" || name == "RunGraph"
            || name == "ExecutorState::Process")
            name.clear();
        name += (name.empty() ? "" : " ")
                + std::to_string(stepNum != kNoValue ? stepNum : int64_t(group));
        out.names.push_back(std::move(name));
    }

    if (correlationGroup.empty())
        return out;
    for (uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const Track &track = trace.tracks[t];
        if (trace.planes[track.plane].kind != PlaneKind::Device)
            continue;
        for (uint32_t r = 0; r < track.rows.size(); ++r) {
            for (uint32_t i = 0; i < track.rows[r].size(); ++i) {
                const int64_t corr = trace.side({t, r, i}, SideColumn::CorrelationId);
                if (corr == kNoValue)
                    continue;
                auto it = correlationGroup.find(corr);
                if (it != correlationGroup.end())
                    out.computed[t][r][i] = it->second;
            }
        }
    }
    return out;
}

std::shared_ptr<const StepGroups> stepGroups(AnalysisCache &cache)
{
    return cache.get<StepGroups>([](AnalysisCache &c) { return computeStepGroups(c.trace()); });
}

} // namespace tracedesk::core::analysis
