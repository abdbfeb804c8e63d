#include "core/analysis/tpubreakdown.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace tracedesk::core::analysis {

const std::array<TpuCategory, 6> kTpuCategories = {{
    {"TensorCore compute", &TpuStepRow::computeMs},
    {"All-reduce compute", &TpuStepRow::allReduceComputeMs},
    {"All-reduce sync", &TpuStepRow::allReduceSyncMs},
    {"Infeed", &TpuStepRow::infeedMs},
    {"Outfeed", &TpuStepRow::outfeedMs},
    {"TensorCore idle", &TpuStepRow::idleMs},
}};

namespace {

enum class Bucket : uint8_t { Other, Infeed, Outfeed, Crs, Send, Recv, HostSend, HostRecv, HighFlops };

Bucket bucketOf(std::string_view c)
{
    if (c == "infeed")
        return Bucket::Infeed;
    if (c == "outfeed")
        return Bucket::Outfeed;
    if (c.starts_with("all-reduce") || c.starts_with("all-gather") || c.starts_with("all-to-all")
        || c.starts_with("reduce-scatter"))
        return Bucket::Crs;
    if (c == "send")
        return Bucket::Send;
    if (c == "recv")
        return Bucket::Recv;
    if (c == "host send")
        return Bucket::HostSend;
    if (c == "host recv")
        return Bucket::HostRecv;
    if (c == "convolution" || c.starts_with("convolution ") || c == "output fusion")
        return Bucket::HighFlops;
    return Bucket::Other;
}

double ms(TimePs ps) { return double(ps) / 1e9; }

} // namespace

namespace detail {

std::vector<StepInfo> computeTpuSteps(const Trace &trace, const StepGroups &groups)
{
    StringId categoryKey = kEmptyString;
    const bool hasCategory = trace.strings.find("hlo_category", &categoryKey);
    std::vector<std::string_view> kindCategory(trace.kinds.size());
    if (hasCategory) {
        for (size_t k = 0; k < trace.kinds.size(); ++k) {
            ArgValue v;
            if (!trace.metaArgs.find(trace.kinds[k].stats, categoryKey, &v))
                continue;
            kindCategory[k] = v.type == ArgType::StringRef ? trace.string(v.str) : v.s;
        }
    }

    std::map<int64_t, StepInfo> byGroup;
    for (uint32_t pi = 0; pi < trace.planes.size(); ++pi) {
        const Plane &plane = trace.planes[pi];
        if (!isTensorCorePlaneName(trace.string(plane.name)))
            continue;
        int steps = -1, ops = -1;
        for (uint32_t t : plane.tracks) {
            const std::string_view n = trace.string(trace.tracks[t].name);
            if (n == "Steps")
                steps = int(t);
            else if (n == "XLA Ops")
                ops = int(t);
        }
        if (steps < 0)
            continue;

        // Self time of every op: its duration minus the durations of the ops one row below it.
        std::vector<std::vector<TimePs>> self;
        if (ops >= 0) {
            const Track &t = trace.tracks[size_t(ops)];
            self.resize(t.rows.size());
            for (size_t r = 0; r < t.rows.size(); ++r)
                self[r] = t.rows[r].duration.values();
            for (size_t r = 1; r < t.rows.size(); ++r) {
                const Row &parent = t.rows[r - 1];
                const Row &child = t.rows[r];
                for (size_t i = 0; i < child.size(); ++i) {
                    auto it = std::upper_bound(parent.start.begin(), parent.start.end(), child.start[i]);
                    if (it == parent.start.begin())
                        continue;
                    const size_t p = size_t(it - parent.start.begin()) - 1;
                    if (parent.end(p) >= child.end(i))
                        self[r - 1][p] -= child.duration[i];
                }
            }
        }

        const Track &st = trace.tracks[size_t(steps)];
        for (uint32_t r = 0; r < st.rows.size(); ++r) {
            const Row &row = st.rows[r];
            RowGroups group(trace, groups, uint32_t(steps), r);
            for (size_t i = 0; i < row.size(); ++i) {
                int64_t g = group(i);
                if (g < 0)
                    g = trace.side({uint32_t(steps), r, uint32_t(i)}, SideColumn::StepNum);
                if (g == kNoValue || g < 0)
                    g = int64_t(i);
                const TimePs begin = row.start[i], end = row.end(i);
                std::unordered_map<std::string_view, TimePs> cat;
                if (ops >= 0) {
                    const Track &t = trace.tracks[size_t(ops)];
                    for (size_t orow = 0; orow < t.rows.size(); ++orow) {
                        const Row &o = t.rows[orow];
                        auto it = std::lower_bound(o.start.begin(), o.start.end(), begin);
                        for (size_t k = size_t(it - o.start.begin()); k < o.size() && o.start[k] < end; ++k)
                            cat[kindCategory[o.kind[k]]] += self[orow][k];
                    }
                }
                TpuCoreStep core;
                core.plane = pi;
                core.coreId = plane.id;
                core.stepPs = end - begin;
                for (const auto &[c, ps] : cat) {
                    const std::string_view name = c.empty() ? std::string_view("unknown") : c;
                    core.categoryPs.emplace_back(std::string(name), ps);
                    core.tcBusyPs += ps;
                    switch (bucketOf(name)) {
                    case Bucket::Infeed: core.infeedPs += ps; break;
                    case Bucket::Outfeed: core.hostOutfeedPs += ps; break;
                    case Bucket::Crs: core.crsPs += ps; break;
                    case Bucket::Send: core.sendPs += ps; break;
                    case Bucket::Recv: core.recvPs += ps; break;
                    case Bucket::HostSend: core.hostSendPs += ps; break;
                    case Bucket::HostRecv: core.hostRecvPs += ps; break;
                    case Bucket::HighFlops: core.highFlopsComputePs += ps; break;
                    case Bucket::Other: break;
                    }
                }
                std::sort(core.categoryPs.begin(), core.categoryPs.end(),
                          [](auto &a, auto &b) { return a.second > b.second; });
                core.tcIdlePs = std::max<TimePs>(0, core.stepPs - core.tcBusyPs);
                StepInfo &s = byGroup[g];
                if (s.cores.empty()) {
                    s.groupId = g;
                    s.begin = begin;
                    s.name = std::string(trace.string(trace.kinds[row.kind[i]].name));
                }
                s.begin = std::min(s.begin, begin);
                s.duration = std::max(s.duration, core.stepPs);
                s.cores.push_back(std::move(core));
            }
        }
    }

    std::vector<StepInfo> out;
    for (auto &[g, s] : byGroup) {
        TpuStepDetails &d = s.tpu.edit();
        bool first = true;
        TimePs minCrs = 0, maxCrs = 0, maxInfeed = -1;
        double pctSum = 0;
        for (const TpuCoreStep &c : s.cores) {
            const TimePs compute = std::max<TimePs>(0, c.tcBusyPs - c.infeedPs - c.hostOutfeedPs - c.crsPs);
            const double pct = c.stepPs > 0 ? 100.0 * double(c.infeedPs) / double(c.stepPs) : 0;
            pctSum += pct;
            if (first) {
                d.tcComputeMs = ms(compute);
                d.tcIdleMs = ms(c.tcIdlePs);
                d.infeedPercentMinimum = d.infeedPercentMaximum = pct;
                minCrs = maxCrs = c.crsPs;
            }
            d.tcComputeMs = std::min(d.tcComputeMs, ms(compute));
            d.tcIdleMs = std::min(d.tcIdleMs, ms(c.tcIdlePs));
            d.tcOutfeedMs = std::max(d.tcOutfeedMs, ms(c.hostOutfeedPs));
            d.infeedPercentMinimum = std::min(d.infeedPercentMinimum, pct);
            d.infeedPercentMaximum = std::max(d.infeedPercentMaximum, pct);
            d.hostTransferMs = std::max(d.hostTransferMs, ms(c.hostSendPs + c.hostRecvPs));
            minCrs = std::min(minCrs, c.crsPs);
            maxCrs = std::max(maxCrs, c.crsPs);
            if (c.infeedPs > maxInfeed) {
                maxInfeed = c.infeedPs;
                d.tcInfeedMs = ms(c.infeedPs);
                d.coreIdMaxInfeed = c.coreId;
                d.maxInfeedCoreName = std::string(trace.string(trace.planes[c.plane].name));
            }
            first = false;
        }
        d.infeedPercentAverage = s.cores.empty() ? 0 : pctSum / double(s.cores.size());
        d.allReduceComputeMs = ms(minCrs);
        d.allReduceSyncMs = ms(maxCrs - minCrs);
        if (s.cores.size() > 0)
            out.push_back(std::move(s));
    }
    std::sort(out.begin(), out.end(), [](const StepInfo &a, const StepInfo &b) {
        return a.begin != b.begin ? a.begin < b.begin : a.groupId < b.groupId;
    });
    return out;
}

} // namespace detail

TpuStepTimeBreakdown tpuStepTimeBreakdown(const StepDb &db)
{
    TpuStepTimeBreakdown b;
    std::vector<double> pct;
    for (const StepInfo &s : db.steps) {
        TpuStepRow r;
        r.stepNumber = s.groupId;
        r.stepName = s.name;
        r.begin = s.begin;
        r.stepTimeMs = ms(s.duration);
        r.computeMs = s.tpu->tcComputeMs;
        r.allReduceComputeMs = s.tpu->allReduceComputeMs;
        r.allReduceSyncMs = s.tpu->allReduceSyncMs;
        r.infeedMs = s.tpu->tcInfeedMs;
        r.outfeedMs = s.tpu->tcOutfeedMs;
        r.idleMs = s.tpu->tcIdleMs;
        b.steps.push_back(r);
        pct.push_back(s.tpu->infeedPercentAverage);
    }
    auto column = [&](double TpuStepRow::*m) {
        std::vector<double> v;
        for (const TpuStepRow &r : b.steps)
            v.push_back(r.*m);
        return summarize(v);
    };
    b.stepTime = column(&TpuStepRow::stepTimeMs);
    b.compute = column(&TpuStepRow::computeMs);
    b.idle = column(&TpuStepRow::idleMs);
    b.infeed = column(&TpuStepRow::infeedMs);
    b.outfeed = column(&TpuStepRow::outfeedMs);
    b.allReduceCompute = column(&TpuStepRow::allReduceComputeMs);
    b.allReduceSync = column(&TpuStepRow::allReduceSyncMs);
    b.infeedPercent = summarize(pct);
    return b;
}

} // namespace tracedesk::core::analysis
