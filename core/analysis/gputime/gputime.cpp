#include "core/analysis/gputime/gputime.h"

#include "core/analysis/framework.h"
#include "core/analysis/kernels/kernelclass.h"
#include "core/analysis/pytorch/intervals.h"
#include "core/model/launchcalls.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <tuple>
#include <map>
#include <string_view>

namespace tracedesk::core::analysis::gputime {

namespace {

using pytorch::Interval;
using pytorch::IntervalList;
using pytorch::KinetoActivity;
using pytorch::KinetoIndex;
using pytorch::KinetoRuntime;

constexpr double kPsPerUs = 1e6;

double us(TimePs ps)
{
    return double(ps) / kPsPerUs;
}

// Launch calls HTA's launch statistics read (PYTORCH.md §3.5), and their HIP counterparts.
// HTA's launch calls (PYTORCH.md §3.5): what a PyTorch trace's launch statistics count.
bool isHtaLaunchStatCall(std::string_view n)
{
    return n == "cudaLaunchKernel" || n == "cudaLaunchKernelExC" || n == "cudaMemcpyAsync"
           || n == "cudaMemsetAsync" || n == "hipLaunchKernel" || n == "hipExtModuleLaunchKernel"
           || n == "hipModuleLaunchKernel" || n == "hipMemcpyAsync" || n == "hipMemsetAsync";
}

bool inWindow(TimePs t, const std::optional<TimeWindow> &window)
{
    return !window || (t >= window->start && t < window->end);
}

std::vector<TemporalBreakdown> temporal(const Trace &trace, const KinetoIndex &index,
                                        const std::vector<uint32_t> &chosen)
{
    std::map<int64_t, std::pair<IntervalList, IntervalList>> byDevice; // all, computation
    KernelTypeCache types(trace);
    for (uint32_t a : chosen) {
        const KinetoActivity &act = index.activities[a];
        auto &[all, compute] = byDevice[act.device];
        all.push_back({act.start, act.end});
        if (types.of(act.ref) == KernelType::Computation)
            compute.push_back({act.start, act.end});
    }
    std::vector<TemporalBreakdown> out;
    for (auto &[device, lists] : byDevice) {
        const IntervalList all = pytorch::mergeIntervals(std::move(lists.first));
        const IntervalList compute = pytorch::mergeIntervals(std::move(lists.second));
        TemporalBreakdown t;
        t.device = device;
        if (!all.empty()) {
            t.totalUs = us(all.back().end - all.front().start);
            t.idleUs = t.totalUs - us(pytorch::totalLength(all));
            t.computeUs = us(pytorch::totalLength(compute));
            t.nonComputeUs = t.totalUs - t.computeUs - t.idleUs;
        }
        out.push_back(t);
    }
    return out;
}

std::vector<IdleBreakdown> idle(const KinetoIndex &index, const std::vector<uint32_t> &chosen)
{
    // `chosen` keeps the index's (device, stream, start) order.
    std::vector<IdleBreakdown> out;
    const KinetoActivity *previous = nullptr;
    for (uint32_t a : chosen) {
        const KinetoActivity &act = index.activities[a];
        if (!previous || previous->device != act.device || previous->stream != act.stream) {
            out.push_back({act.device, act.stream, 0, 0, 0, 0});
            previous = &act;
            continue;
        }
        const TimePs gap = act.start - previous->end;
        IdleBreakdown &row = out.back();
        if (gap > 0) {
            ++row.gaps;
            const bool lateLaunch = act.runtime != pytorch::kNoIndex
                                    && index.runtimes[act.runtime].start > previous->end;
            if (lateLaunch)
                row.hostWaitUs += us(gap);
            else if (us(gap) < kKernelWaitThresholdUs)
                row.kernelWaitUs += us(gap);
            else
                row.otherUs += us(gap);
        }
        previous = &act;
    }
    return out;
}

std::vector<KernelTypeTime> kernelTypes(const Trace &trace, const KinetoIndex &index,
                                        const std::vector<uint32_t> &chosen)
{
    constexpr int kTypes = 3;
    std::array<IntervalList, kTypes> byType;
    std::array<int64_t, kTypes> counts{};
    KernelTypeCache types(trace);
    for (uint32_t a : chosen) {
        const KinetoActivity &act = index.activities[a];
        const int type = int(types.of(act.ref));
        byType[type].push_back({act.start, act.end});
        ++counts[type];
    }
    // Sweep the merged lists with one bit per type; each elementary interval goes to its set.
    std::vector<std::pair<TimePs, int>> edges; // (time, +-(type + 1))
    for (int type = 0; type < kTypes; ++type) {
        for (const Interval &i : pytorch::mergeIntervals(std::move(byType[type]))) {
            edges.push_back({i.start, type + 1});
            edges.push_back({i.end, -(type + 1)});
        }
    }
    std::sort(edges.begin(), edges.end());
    std::array<TimePs, 1 << kTypes> byMask{};
    unsigned mask = 0;
    for (size_t e = 0; e < edges.size(); ++e) {
        if (e > 0 && mask != 0)
            byMask[mask] += edges[e].first - edges[e - 1].first;
        const int type = std::abs(edges[e].second) - 1;
        if (edges[e].second > 0)
            mask |= 1u << type;
        else
            mask &= ~(1u << type);
    }
    std::vector<KernelTypeTime> out;
    for (unsigned m = 1; m < byMask.size(); ++m) {
        if (byMask[m] == 0 && std::popcount(m) > 1)
            continue;
        KernelTypeTime row;
        for (int type = 0; type < kTypes; ++type) {
            if (m & (1u << type))
                row.type += std::string(row.type.empty() ? "" : " overlapping ")
                            + kernelTypeName(KernelType(type));
        }
        row.sumUs = us(byMask[m]);
        if (std::popcount(m) == 1)
            row.count = counts[std::countr_zero(m)];
        if (row.count > 0 || row.sumUs > 0)
            out.push_back(std::move(row));
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const KernelTypeTime &a, const KernelTypeTime &b) { return a.sumUs > b.sumUs; });
    return out;
}

// Linear-interpolated median, as pandas' describe() computes its 50 % row.
double median(std::vector<int64_t> values)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? double(values[n / 2]) : (double(values[n / 2 - 1]) + double(values[n / 2])) / 2;
}

std::vector<QueueLength> queueLengths(const Trace &trace, const KinetoIndex &index,
                                      const std::optional<TimeWindow> &window)
{
    // Per stream: +1 at each launch call, -1 at its activity's start.
    std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<TimePs, int>>> events;
    for (uint32_t r = 0; r < index.runtimes.size(); ++r) {
        const KinetoRuntime &rt = index.runtimes[r];
        if (!inWindow(rt.start, window) || !isQueueingLaunch(trace.name(rt.ref)))
            continue;
        for (uint32_t a : index.activitiesOf(r)) {
            const KinetoActivity &act = index.activities[a];
            auto &list = events[{act.device, act.stream}];
            list.push_back({rt.start, +1});
            list.push_back({act.start, -1});
        }
    }
    std::vector<QueueLength> out;
    for (auto &[key, list] : events) {
        // At one instant a launch counts before a start (the launch came first).
        std::stable_sort(list.begin(), list.end(), [](const auto &a, const auto &b) {
            return a.first != b.first ? a.first < b.first : a.second > b.second;
        });
        std::vector<int64_t> values;
        values.reserve(list.size());
        int64_t length = 0;
        QueueLength q;
        q.device = key.first;
        q.stream = key.second;
        for (size_t i = 0; i < list.size(); ++i) {
            length += list[i].second;
            values.push_back(length);
            if (length >= kMaxLaunchQueue && i + 1 < list.size())
                q.blockedUs += us(list[i + 1].first - list[i].first);
        }
        q.count = int64_t(values.size());
        double sum = 0;
        for (int64_t v : values)
            sum += double(v);
        q.mean = sum / double(values.size());
        double squares = 0;
        for (int64_t v : values)
            squares += (double(v) - q.mean) * (double(v) - q.mean);
        q.std = values.size() > 1 ? std::sqrt(squares / double(values.size() - 1)) : 0.0;
        q.min = double(*std::min_element(values.begin(), values.end()));
        q.max = double(*std::max_element(values.begin(), values.end()));
        q.p50 = median(values);
        out.push_back(q);
    }
    return out;
}

std::vector<OpKernelSequence> opKernelSequences(const Trace &trace, const KinetoIndex &index,
                                                const std::optional<TimeWindow> &window)
{
    struct Key
    {
        std::string op;
        std::vector<std::string> kernels;
        auto operator<=>(const Key &) const = default;
    };
    struct Sums
    {
        int64_t occurrences = 0;
        double opToLaunch = 0;
        int64_t launches = 0;
        double launchToKernel = 0;
        int64_t kernels = 0;
    };
    std::map<Key, Sums> groups;
    for (const pytorch::KinetoThread &thread : index.threads) {
        // Per thread, launches in start order against a stack of the open aten:: operators
        // (nodes come parents first), so the top holding a launch is the latest-starting one.
        std::vector<uint32_t> open;
        uint32_t n = thread.nodeBegin;
        // The launches of each operator instance, in order; flushed when the operator closes.
        std::map<uint32_t, std::vector<uint32_t>> launchesOf;
        auto flush = [&](uint32_t node) {
            auto it = launchesOf.find(node);
            if (it == launchesOf.end())
                return;
            Key key{std::string(trace.name(index.nodes[node].ref)), {}};
            Sums delays;
            for (uint32_t r : it->second) {
                const KinetoRuntime &rt = index.runtimes[r];
                delays.opToLaunch += us(rt.start - index.nodes[node].start);
                ++delays.launches;
                for (uint32_t a : index.activitiesOf(r)) {
                    key.kernels.emplace_back(trace.name(index.activities[a].ref));
                    delays.launchToKernel += us(index.activities[a].start - rt.start);
                    ++delays.kernels;
                }
            }
            Sums &g = groups[key];
            ++g.occurrences;
            g.opToLaunch += delays.opToLaunch;
            g.launches += delays.launches;
            g.launchToKernel += delays.launchToKernel;
            g.kernels += delays.kernels;
            launchesOf.erase(it);
        };
        auto closeBefore = [&](TimePs t) {
            while (!open.empty() && index.nodes[open.back()].end <= t) {
                flush(open.back());
                open.pop_back();
            }
        };
        for (uint32_t r = thread.runtimeBegin; r < thread.runtimeEnd; ++r) {
            const KinetoRuntime &rt = index.runtimes[r];
            for (; n < thread.nodeEnd && index.nodes[n].start <= rt.start; ++n) {
                closeBefore(index.nodes[n].start);
                if (trace.name(index.nodes[n].ref).starts_with("aten::"))
                    open.push_back(n);
            }
            closeBefore(rt.start);
            if (index.activitiesOf(r).empty() || !inWindow(rt.start, window))
                continue;
            for (auto it = open.rbegin(); it != open.rend(); ++it) {
                if (index.nodes[*it].end >= rt.end) {
                    launchesOf[*it].push_back(r);
                    break;
                }
            }
        }
        closeBefore(std::numeric_limits<TimePs>::max());
        for (auto it = open.rbegin(); it != open.rend(); ++it)
            flush(*it);
        while (!launchesOf.empty())
            flush(launchesOf.begin()->first);
    }
    std::vector<OpKernelSequence> out;
    for (auto &[key, g] : groups) {
        OpKernelSequence s;
        s.op = key.op;
        s.kernels = key.kernels;
        s.occurrences = g.occurrences;
        s.opToLaunchUs = g.launches ? g.opToLaunch / double(g.launches) : 0.0;
        s.launchToKernelUs = g.kernels ? g.launchToKernel / double(g.kernels) : 0.0;
        out.push_back(std::move(s));
    }
    std::stable_sort(out.begin(), out.end(), [](const auto &a, const auto &b) {
        return a.occurrences > b.occurrences;
    });
    return out;
}


struct NameStats
{
    int64_t count = 0;
    double sum = 0, squares = 0, max = 0, min = 0;
    void add(double us)
    {
        max = count ? std::max(max, us) : us;
        min = count ? std::min(min, us) : us;
        ++count;
        sum += us;
        squares += us * us;
    }
    void add(const NameStats &o)
    {
        if (!o.count)
            return;
        max = count ? std::max(max, o.max) : o.max;
        min = count ? std::min(min, o.min) : o.min;
        count += o.count;
        sum += o.sum;
        squares += o.squares;
    }
    KernelNameTime row(std::string type, std::string name) const
    {
        KernelNameTime r{std::move(type), std::move(name), count, sum, max, min, 0, 0};
        r.meanUs = count ? sum / double(count) : 0.0;
        if (count > 1)
            r.stdUs = std::sqrt(std::max(0.0, (squares - sum * sum / double(count))
                                                  / double(count - 1)));
        return r;
    }
};

// numpy's default quantile: linear interpolation between the closest ranks.
double quantile(const std::vector<double> &sorted, double q)
{
    const double position = q * double(sorted.size() - 1);
    const size_t below = size_t(std::floor(position));
    const size_t above = std::min(below + 1, sorted.size() - 1);
    return sorted[below] + (sorted[above] - sorted[below]) * (position - double(below));
}

std::vector<KernelNameTime> kernelNames(const Trace &trace, const KinetoIndex &index,
                                        const std::vector<uint32_t> &chosen)
{
    constexpr int kTypes = 3;
    std::array<std::map<StringId, NameStats>, kTypes> byName;
    KernelTypeCache types(trace);
    for (uint32_t a : chosen) {
        const KinetoActivity &act = index.activities[a];
        byName[int(types.of(act.ref))][trace.kind(act.ref).name].add(us(act.end - act.start));
    }
    std::vector<KernelNameTime> out;
    for (int type = 0; type < kTypes; ++type) {
        std::vector<std::pair<StringId, NameStats>> names(byName[type].begin(), byName[type].end());
        std::stable_sort(names.begin(), names.end(), [](const auto &a, const auto &b) {
            return a.second.sum > b.second.sum;
        });
        size_t kept = names.size();
        if (names.size() > kKernelNamesKept) {
            std::vector<double> running;
            double total = 0;
            for (const auto &n : names)
                running.push_back(total += n.second.sum);
            const double limit = quantile(running, kKernelNameQuantile);
            kept = 0;
            while (kept < kKernelNamesKept && running[kept] <= limit)
                ++kept;
        }
        const std::string label = kernelTypeName(KernelType(type));
        NameStats others;
        for (size_t i = 0; i < names.size(); ++i) {
            if (i < kept)
                out.push_back(names[i].second.row(label, std::string(trace.string(names[i].first))));
            else
                others.add(names[i].second);
        }
        if (others.count)
            out.push_back(others.row(label, "others"));
    }
    return out;
}

} // namespace

const char *kernelTypeName(KernelType type)
{
    switch (type) {
    case KernelType::Computation: return "COMPUTATION";
    case KernelType::Communication: return "COMMUNICATION";
    case KernelType::Memory: return "MEMORY";
    }
    return "COMPUTATION";
}

KernelType kernelTypeOf(std::string_view name, SliceRole role)
{
    if (role == SliceRole::Memcpy || role == SliceRole::Memset)
        return KernelType::Memory;
    if (isCommunicationKernel(name))
        return KernelType::Communication;
    return KernelType::Computation;
}

GpuTimeReport gpuTimeReport(const Trace &trace, const KinetoIndex &index,
                            const std::optional<TimeWindow> &window, LaunchDetail detail)
{
    GpuTimeReport report;
    report.window = window ? window->name : std::string("whole trace");
    report.scope = index.scope.scopeLabel;
    std::vector<uint32_t> chosen;
    for (uint32_t a = 0; a < index.activities.size(); ++a) {
        const KinetoActivity &act = index.activities[a];
        if (inWindow(act.start, window))
            chosen.push_back(a);
    }
    report.temporal = temporal(trace, index, chosen);
    report.idle = idle(index, chosen);
    report.kernelTypes = kernelTypes(trace, index, chosen);
    report.kernelNames = kernelNames(trace, index, chosen);
    // HTA's list was written for PyTorch's launches. Another capture (XSpace, Nsight Systems,
    // rocprofv3) launches through calls it does not name (cuLaunchKernel, cuMemcpyHtoDAsync_v2,
    // or in older TensorFlow captures a call named after its kernel) and would show few or no
    // launches: there every call that queues work on a stream counts. Synchronous copies and
    // graph launches stay out, as in HTA.
    report.htaLaunchCalls = isPyTorchTrace(trace);
    // Worse: the longer launch delay, then the longer call (a strict order for the heap).
    const auto worse = [](const LaunchStat &a, const LaunchStat &b) {
        return std::tie(a.launchDelayUs, a.cpuDurationUs, b.correlation)
               > std::tie(b.launchDelayUs, b.cpuDurationUs, a.correlation);
    };
    for (uint32_t r = 0; r < index.runtimes.size(); ++r) {
        const KinetoRuntime &rt = index.runtimes[r];
        const std::string_view name = trace.name(rt.ref);
        const bool launch = report.htaLaunchCalls
                                ? isHtaLaunchStatCall(name)
                                : isQueueingLaunch(name) || !isGpuApiCallName(name);
        if (!inWindow(rt.start, window) || !launch)
            continue;
        for (uint32_t a : index.activitiesOf(r)) {
            const KinetoActivity &act = index.activities[a];
            LaunchStat l;
            l.call = rt.ref;
            l.activity = act.ref;
            l.correlation = rt.correlation;
            l.device = act.device;
            l.stream = act.stream;
            l.startUs = us(rt.start - trace.begin);
            l.cpuDurationUs = us(rt.end - rt.start);
            l.gpuDurationUs = us(act.end - act.start);
            l.launchDelayUs = us(std::max<TimePs>(0, act.start - rt.end));
            ++report.launchCount;
            const bool outlier = l.runtimeOutlier() || l.delayOutlier();
            report.outlierCount += outlier ? 1 : 0;
            if (detail == LaunchDetail::All) {
                report.launches.push_back(l);
            } else if (outlier) {
                report.outlierCalls.push_back(l.call);
                // The listed ones so far, as a min-heap on worse: its top is the mildest.
                if (report.launches.size() < kListedLaunchOutliers) {
                    report.launches.push_back(l);
                    std::push_heap(report.launches.begin(), report.launches.end(), worse);
                } else if (worse(l, report.launches.front())) {
                    std::pop_heap(report.launches.begin(), report.launches.end(), worse);
                    report.launches.back() = l;
                    std::push_heap(report.launches.begin(), report.launches.end(), worse);
                }
            }
        }
    }
    if (detail == LaunchDetail::Outliers)
        std::sort(report.launches.begin(), report.launches.end(),
                  [](const LaunchStat &a, const LaunchStat &b) {
                      return std::tie(a.startUs, a.correlation)
                             < std::tie(b.startUs, b.correlation);
                  });
    report.queueLength = queueLengths(trace, index, window);
    report.opKernels = opKernelSequences(trace, index, window);
    return report;
}


uint64_t gpuWorkEvents(const Trace &trace)
{
    std::vector<bool> counted(trace.kinds.size());
    for (size_t k = 0; k < trace.kinds.size(); ++k) {
        const SliceRole role = trace.kinds[k].role;
        counted[k] = role == SliceRole::Runtime || role == SliceRole::Kernel
                     || role == SliceRole::Memcpy || role == SliceRole::Memset;
    }
    uint64_t events = 0;
    for (const Track &track : trace.tracks) {
        for (const Row &row : track.rows) {
            row.kind.visit([&](auto kinds) {
                for (size_t i = 0; i < row.size(); ++i)
                    events += counted[size_t(kinds[i])];
            });
        }
    }
    return events;
}

std::vector<TimeWindow> profilerStepWindows(const Trace &trace, const KinetoIndex &index)
{
    std::vector<TimeWindow> steps;
    for (const pytorch::KinetoNode &node : index.nodes) {
        const std::string_view name = trace.name(node.ref);
        if (pytorch::isProfilerStepName(name))
            steps.push_back({node.start, node.end, std::string(name)});
    }
    std::stable_sort(steps.begin(), steps.end(),
                     [](const TimeWindow &a, const TimeWindow &b) { return a.start < b.start; });
    return steps;
}

std::optional<TimeWindow> profilerStepWindow(const Trace &trace, const KinetoIndex &index,
                                             int64_t step)
{
    const std::string wanted = "ProfilerStep#" + std::to_string(step);
    for (const pytorch::KinetoNode &node : index.nodes) {
        if (trace.name(node.ref) == wanted)
            return TimeWindow{node.start, node.end, wanted};
    }
    return std::nullopt;
}

} // namespace tracedesk::core::analysis::gputime
