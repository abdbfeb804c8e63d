#include "core/analysis/podviewer.h"

#include "core/analysis/eventgrouping.h"

#include <algorithm>
#include <map>

namespace tracedesk::core::analysis {

const char *const kPodCategoryNames[9] = {
    "Device compute", "Device to device", "Device collective communication", "Host compute",
    "Kernel launch",  "Input",            "Output",                          "Compilation",
    "All others"};

namespace {

constexpr uint32_t kMaxDevicesPerHost = 1000;
constexpr uint32_t kDefaultGpuLocalCoreId = 1;

std::array<TimePs, 9> categoriesPs(const StepInfo &s)
{
    using E = EventType;
    return {s.type(E::DeviceCompute32) + s.type(E::DeviceCompute16),
            s.type(E::DeviceToDevice) + s.type(E::DeviceWaitDevice),
            s.type(E::DeviceCollectives),
            s.type(E::HostCompute),
            s.type(E::HostPrepare),
            s.type(E::HostWaitInput) + s.type(E::HostToDevice) + s.type(E::DeviceWaitHost),
            s.type(E::DeviceToHost),
            s.type(E::HostCompile),
            s.type(E::UnknownTime)};
}

// The steps of one host: the cache's StepDb for a single-host trace, else the StepDb of a copy
// holding only that host's tracks (indices of planes, tracks and strings are kept, so the step
// analysis runs unchanged).
struct HostSteps
{
    std::string host;
    std::shared_ptr<const StepDb> db;
};

std::shared_ptr<const StepDb> hostStepDb(const Trace &trace, StringId host)
{
    auto sub = std::make_shared<Trace>();
    for (size_t i = 1; i < trace.strings.size(); ++i) {
        if (sub->strings.intern(trace.string(StringId(i))) != StringId(i))
            return nullptr;     // a table with duplicates: ids would not carry over
    }
    sub->planes = trace.planes;
    sub->kinds = trace.kinds;
    sub->metaArgs = trace.metaArgs;
    sub->info.format = trace.info.format;
    sub->begin = trace.begin;
    sub->end = trace.end;
    sub->originPs = trace.originPs;
    sub->tracks.resize(trace.tracks.size());
    for (size_t p = 0; p < trace.planes.size(); ++p) {
        Plane &plane = sub->planes[p];
        const bool mine = plane.host == host;
        for (uint32_t t : trace.planes[p].tracks) {
            if (mine) {
                sub->tracks[t] = trace.tracks[t];
            } else {
                sub->tracks[t].plane = uint32_t(p);
                sub->tracks[t].name = trace.tracks[t].name;
            }
        }
        if (!mine) {
            plane.tracks.clear();
            plane.kind = PlaneKind::Other;
        }
    }
    const StepGroups groups = computeStepGroups(*sub);
    return std::make_shared<const StepDb>(computeStepDb(*sub, groups));
}

std::vector<detail::StepSpan> spansOf(const StepDb &db)
{
    std::vector<detail::StepSpan> spans;
    for (const StepInfo &s : db.steps)
        spans.push_back({s.begin, s.begin + s.duration});
    return spans;
}

TimePs totalOf(const std::vector<detail::StepSpan> &spans)
{
    TimePs first = 0, last = 0;
    bool any = false;
    for (const auto &s : spans) {
        if (s.empty())
            continue;
        first = any ? std::min(first, s.begin) : s.begin;
        last = any ? std::max(last, s.end) : s.end;
        any = true;
    }
    return any ? last - first : 0;
}

void addRecords(PodViewerData &data, PodStep &out, const std::string &hostName,
                uint32_t hostBase, const StepInfo &s, int64_t stepNum)
{
    const uint32_t host = data.textIndex(hostName.empty() ? "localhost" : hostName);
    if (s.cores.empty()) {
        PodRecord r;
        r.host = host;
        r.coreId = hostBase + kDefaultGpuLocalCoreId;
        r.stepNum = stepNum;
        r.hostStep = s.groupId;
        r.totalUs = double(s.duration) / 1e6;
        r.valuesUs = PodValues(podCategoriesUs(s));
        r.bottleneck = data.textIndex(podBottleneck(s));
        out.records.push_back(r);
        return;
    }
    // TPU: OSS XProf fills no GenericEventType time for TensorCores (FORMATS.md 2.15), so
    // only the step time is meaningful and the bottleneck follows the tie rule.
    for (const TpuCoreStep &c : s.cores) {
        PodRecord r;
        r.host = host;
        r.coreId = hostBase + uint32_t(c.coreId);
        r.stepNum = stepNum;
        r.hostStep = s.groupId;
        r.totalUs = double(c.stepPs) / 1e6;
        r.valuesUs.assign(9, 0.0);
        r.bottleneck = data.textIndex(podBottleneck(StepInfo{}));
        out.records.push_back(r);
    }
}

} // namespace

uint32_t PodViewerData::textIndex(std::string_view text)
{
    for (size_t i = 0; i < texts.size(); ++i) {
        if (texts[i] == text)
            return uint32_t(i);
    }
    texts.emplace_back(text);
    return uint32_t(texts.size() - 1);
}

void PodValues::assign(size_t n, double value)
{
    m_size = uint8_t(std::min(n, kMax));
    std::fill(m_values.begin(), m_values.begin() + m_size, value);
}

std::vector<double> podCategoriesUs(const StepInfo &step)
{
    std::vector<double> out;
    for (TimePs ps : categoriesPs(step))
        out.push_back(double(ps) / 1e6);
    return out;
}

std::string podBottleneck(const StepInfo &step)
{
    const auto ps = categoriesPs(step);
    std::pair<TimePs, std::string> best{ps[0], kPodCategoryNames[0]};
    for (size_t i = 1; i < ps.size(); ++i)
        best = std::max(best, std::pair<TimePs, std::string>{ps[i], kPodCategoryNames[i]});
    return best.second;
}

std::string podColumnLabel(const PodViewerData &data, const PodRecord &record)
{
    if (data.tpu)
        return "(" + std::to_string(record.chipId) + "," + std::to_string(record.nodeId) + ")";
    const std::string &host = data.hostOf(record);
    return host.empty() ? "localhost" : host;
}

namespace detail {

StepAlignment alignToChief(const std::vector<StepSpan> &chief, const std::vector<StepSpan> &host)
{
    const int nChief = int(chief.size()), nHost = int(host.size());
    std::map<int, TimePs> similarity;
    int i = 0, j = 0;   // chief, host
    while (i < nChief && j < nHost) {
        if (chief[size_t(i)].empty()) {
            ++i;
            continue;
        }
        if (host[size_t(j)].empty()) {
            ++j;
            continue;
        }
        const StepSpan &c = chief[size_t(i)], &h = host[size_t(j)];
        const TimePs overlap =
            std::max<TimePs>(0, std::min(c.end, h.end) - std::max(c.begin, h.begin));
        similarity[i - j] += overlap;
        if (c.end < h.end)
            ++i;
        else if (h.end < c.end)
            ++j;
        else
            ++i, ++j;
    }
    auto sim = [&](int k) {
        auto it = similarity.find(k);
        return it == similarity.end() ? TimePs(0) : it->second;
    };
    int bestK = 0;
    TimePs best = sim(0);
    for (int k = 1; k < nChief; ++k) {
        if (sim(k) > best)
            best = sim(k), bestK = k;
    }
    for (int k = -1; k > -nHost; --k) {
        if (sim(k) > best)
            best = sim(k), bestK = k;
    }
    StepAlignment a;
    a.beginHost = std::max(0, -bestK);
    a.beginChief = std::max(0, bestK);
    a.count = std::max(0, std::min(nHost - a.beginHost, nChief - a.beginChief));
    return a;
}

} // namespace detail

namespace {

PodViewerData build(const std::vector<HostSteps> &hosts)
{
    PodViewerData data;
    for (const char *name : kPodCategoryNames)
        data.series.push_back(name);
    StepHardware hardware = StepHardware::None;
    bool anyDevice = false;
    for (const HostSteps &h : hosts) {
        anyDevice = anyDevice || h.db->hasDevice;
        if (h.db->hardware > hardware)
            hardware = h.db->hardware;
    }
    data.deviceType = hardware == StepHardware::Tpu   ? "TPU"
                      : hardware == StepHardware::Gpu ? "GPU"
                                                      : "CPU";
    data.tpu = hardware == StepHardware::Tpu;

    if (hosts.size() == 1) {
        const StepDb &db = *hosts.front().db;
        PodHostAlignment a;
        a.host = hosts.front().host;
        a.chief = true;
        a.stepCount = int(db.steps.size());
        a.totalPs = totalOf(spansOf(db));
        a.count = a.stepCount;
        data.hosts.push_back(a);
        data.chief = 0;
        data.steps.reserve(db.steps.size());
        for (const StepInfo &s : db.steps) {
            PodStep step;
            step.stepNum = s.groupId;
            addRecords(data, step, hosts.front().host, 0, s, s.groupId);
            data.steps.push_back(std::move(step));
        }
        data.diagnostics = db.diagnostics;
        return data;
    }

    std::vector<std::vector<detail::StepSpan>> spans;
    for (const HostSteps &h : hosts) {
        PodHostAlignment a;
        a.host = h.host;
        a.coordinator = anyDevice && !h.db->hasDevice;
        spans.push_back(spansOf(*h.db));
        a.stepCount = int(h.db->steps.size());
        a.totalPs = totalOf(spans.back());
        data.hosts.push_back(a);
    }
    for (size_t h = 0; h < hosts.size(); ++h) {
        if (data.hosts[h].coordinator)
            continue;
        if (data.chief < 0 || data.hosts[h].totalPs < data.hosts[size_t(data.chief)].totalPs)
            data.chief = int(h);
    }
    if (data.chief < 0)
        return data;
    int begin = 0, end = INT32_MAX;
    for (size_t h = 0; h < hosts.size(); ++h) {
        PodHostAlignment &a = data.hosts[h];
        if (a.coordinator)
            continue;
        if (int(h) == data.chief) {
            a.chief = true;
            a.count = a.stepCount;
        } else {
            const auto al = detail::alignToChief(spans[size_t(data.chief)], spans[h]);
            a.beginHost = al.beginHost;
            a.beginChief = al.beginChief;
            a.count = al.count;
        }
        begin = std::max(begin, a.beginChief);
        end = std::min(end, a.beginChief + a.count);
    }
    const std::string chiefName = data.hosts[size_t(data.chief)].host;
    for (const PodHostAlignment &a : data.hosts) {
        if (a.coordinator)
            data.diagnostics.info.push_back("Host " + a.host
                                            + " has no device steps and is not merged.");
        else if (!a.chief)
            data.diagnostics.info.push_back(
                "Host " + a.host + ": steps " + std::to_string(a.beginHost) + ".."
                + std::to_string(a.beginHost + a.count - 1) + " align with chief (" + chiefName
                + ") steps " + std::to_string(a.beginChief) + ".."
                + std::to_string(a.beginChief + a.count - 1) + ".");
    }
    if (begin > end) {
        data.emptyIntersection = true;
        std::string late, early;
        for (const PodHostAlignment &a : data.hosts) {
            if (a.coordinator)
                continue;
            if (a.beginChief > end)
                late += (late.empty() ? "" : ", ") + a.host;
            if (a.beginChief + a.count < begin)
                early += (early.empty() ? "" : ", ") + a.host;
        }
        data.diagnostics.warnings.push_back(
            "No step is common to all hosts (empty intersection of steps across hosts): "
            "aligned to the chief " + chiefName + ", the steps of " + early
            + " end before those of " + late + " begin.");
        return data;
    }
    for (const PodHostAlignment &a : data.hosts) {
        if (!a.coordinator && a.stepCount == 0)
            data.diagnostics.warnings.push_back("Host " + a.host + " has no steps, so no step is "
                                                "common to all hosts.");
    }
    for (int i = 0; i < end - begin; ++i) {
        PodStep step;
        step.stepNum = i;
        for (size_t h = 0; h < hosts.size(); ++h) {
            const PodHostAlignment &a = data.hosts[h];
            if (a.coordinator)
                continue;
            const size_t index = size_t(a.beginHost + (begin - a.beginChief) + i);
            addRecords(data, step, a.host, uint32_t(h) * kMaxDevicesPerHost,
                       hosts[h].db->steps[index], i);
        }
        std::sort(step.records.begin(), step.records.end(),
                  [](const PodRecord &x, const PodRecord &y) { return x.coreId < y.coreId; });
        data.steps.push_back(std::move(step));
    }
    if (data.steps.empty() && data.diagnostics.warnings.empty())
        data.diagnostics.warnings.push_back(kNoStepMarkerMessage);
    return data;
}

std::vector<StringId> hostsOf(const Trace &trace)
{
    std::vector<StringId> hosts;
    for (const Plane &p : trace.planes) {
        if (std::find(hosts.begin(), hosts.end(), p.host) == hosts.end())
            hosts.push_back(p.host);
    }
    return hosts;
}

} // namespace

PodViewerData computePodViewer(const Trace &trace)
{
    const auto ids = hostsOf(trace);
    std::vector<HostSteps> hosts;
    if (ids.size() > 1) {
        for (StringId id : ids) {
            auto db = hostStepDb(trace, id);
            if (!db) {
                hosts.clear();
                break;
            }
            hosts.push_back({std::string(trace.string(id)), std::move(db)});
        }
    }
    if (hosts.empty()) {
        const StepGroups groups = computeStepGroups(trace);
        hosts.push_back({ids.empty() ? std::string() : std::string(trace.string(ids.front())),
                         std::make_shared<const StepDb>(computeStepDb(trace, groups))});
    }
    return build(hosts);
}

std::shared_ptr<const PodViewerData> podViewer(AnalysisCache &cache)
{
    return cache.get<PodViewerData>([](AnalysisCache &c) {
        const auto ids = hostsOf(c.trace());
        if (ids.size() > 1)
            return computePodViewer(c.trace());
        // One host: share the steps every other analysis uses.
        HostSteps h{ids.empty() ? std::string() : std::string(c.trace().string(ids.front())),
                    stepDb(c)};
        return build({h});
    });
}

} // namespace tracedesk::core::analysis
