#pragma once

// Test fixtures for the trace comparison: a small GPU training-like trace built with
// TraceBuilder (A), and B built from A's events with chosen kernels scaled or dropped and the
// later events shifted so nothing overlaps. B interns its strings in a different order, so
// any comparison by interned id instead of by name would fail. Also writes a trace as an
// XSpace file for the CLI tests.

#include "core/generate/xspacewriter.h"
#include "core/model/tracebuilder.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

namespace comparefixture {

using namespace tracedesk::core;

constexpr TimePs kUs = 1000000;
constexpr int64_t kStepsLineId = int64_t(int32_t(0xdeadbeefu));

struct FixtureOp
{
    const char *framework;   // `name:type`
    const char *kernel;
    TimePs duration;
};

// Per step, in launch order on one stream, 2 us apart.
inline const FixtureOp kOps[] = {
    {"conv1:Conv2D", "conv_kernel", 100 * kUs},
    {"dropout:Dropout", "dropout_kernel", 5 * kUs},
    {"matmul:MatMul", "gemm_kernel", 50 * kUs},
    {"relu:Relu", "relu_kernel", 20 * kUs},
    {"add:AddV2", "add_kernel", 10 * kUs},
};
constexpr int kOpCount = 5;
constexpr TimePs kStepPeriod = 1000 * kUs;
constexpr TimePs kHostOp = 5 * kUs;
constexpr TimePs kGap = 2 * kUs;
constexpr TimePs kDeviceStart = 40 * kUs;   // first kernel, from the step start

// A: `steps` steps. Host: an `Init` slice at 0, then per step a `train_step` marker holding
// one 5 us host op per framework op; after the last step a `Shutdown` slice, so every step
// is complete. Device: a Steps line and one kernel stream, kernels tagged with tf_op and
// group_id and correlation_id,
// kind stats carrying kernel_details.
inline TracePtr buildTraceA(int steps)
{
    TraceBuilder b;
    b.info().format = "xspace";
    const uint32_t host = b.addPlane("/host:CPU", "localhost", 1, PlaneKind::Host);
    const uint32_t device = b.addPlane("/device:GPU:0", "localhost", 2, PlaneKind::Device);
    const uint32_t python = b.addTrack(host, "python", 1);
    const uint32_t stepsLine = b.addTrack(device, "Steps", kStepsLineId);
    const uint32_t stream = b.addTrack(device, "Stream #7(Kernel)", 7);
    auto kind = [&](uint32_t plane, const std::string &name) {
        EventKind k;
        k.name = b.intern(name);
        k.plane = plane;
        return b.addKind(k);
    };
    const uint32_t init = kind(host, "Init"), shutdown = kind(host, "Shutdown");
    const uint32_t train = kind(host, "train_step");
    const StringId detailsKey = b.intern("kernel_details");
    uint32_t hostKinds[kOpCount], kernelKinds[kOpCount];
    StringId frameworkIds[kOpCount];
    for (int o = 0; o < kOpCount; ++o) {
        hostKinds[o] = kind(host, kOps[o].framework);
        EventKind k;
        k.name = b.intern(kOps[o].kernel);
        k.plane = device;
        ArgsArena::Writer w(b.trace().metaArgs);
        w.addString(detailsKey, "regs:32 static_shared:0 dynamic_shared:0 grid:80,1,1 "
                                "block:256,1,1 occ_pct:50");
        k.stats = w.finish();
        kernelKinds[o] = b.addKind(k);
        frameworkIds[o] = b.intern(kOps[o].framework);
    }
    TrackBuilder &py = b.trackBuilder(python);
    TrackBuilder &st = b.trackBuilder(stream);
    TrackBuilder &sl = b.trackBuilder(stepsLine);
    py.addSlice(0, 5 * kUs, init);
    for (int s = 0; s < steps; ++s) {
        const TimePs s0 = 20 * kUs + s * kStepPeriod;
        TimePs t = s0 + kDeviceStart;
        for (int o = 0; o < kOpCount; ++o) {
            const uint32_t k = st.addSlice(t, kOps[o].duration, kernelKinds[o]);
            st.setSide(k, SideColumn::FrameworkOp, frameworkIds[o]);
            st.setSide(k, SideColumn::GroupId, s);
            st.setSide(k, SideColumn::CorrelationId, 1 + s * kOpCount + o);
            t += kOps[o].duration + kGap;
        }
        const TimePs deviceEnd = t - kGap;
        const uint32_t m = sl.addSlice(s0 + kDeviceStart, deviceEnd - s0 - kDeviceStart,
                                       kind(device, std::to_string(s)));
        sl.setSide(m, SideColumn::GroupId, s);
        const uint32_t h = py.addSlice(s0, deviceEnd + 5 * kUs - s0, train);
        py.setSide(h, SideColumn::GroupId, s);
        for (int o = 0; o < kOpCount; ++o) {
            const uint32_t op = py.addSlice(s0 + kUs + o * (kHostOp + kUs), kHostOp, hostKinds[o]);
            py.setSide(op, SideColumn::GroupId, s);
        }
    }
    py.addSlice(20 * kUs + steps * kStepPeriod, 5 * kUs, shutdown);
    return b.build();
}

struct Transform
{
    std::map<std::string, double> scaleByKind;   // by slice name
    std::set<std::string> drop;                  // slice names to leave out
    double stretch = 1.0;                        // every time after the trace begin, scaled
    int padStrings = 7;                          // strings interned first, to shift every id
};

inline ArgsRef copyArgs(const ArgsArena &from, ArgsRef ref, ArgsArena &to,
                        const std::function<StringId(StringId)> &remap)
{
    if (ref == kNoArgs)
        return kNoArgs;
    ArgsArena::Writer w(to);
    from.forEach(ref, [&](const ArgValue &v) {
        const StringId key = remap(v.key);
        switch (v.type) {
        case ArgType::Int: w.addInt(key, v.i); break;
        case ArgType::UInt: w.addUInt(key, v.u); break;
        case ArgType::Double: w.addDouble(key, v.d); break;
        case ArgType::String: w.addString(key, v.s); break;
        case ArgType::StringRef: w.addStringRef(key, remap(v.str)); break;
        case ArgType::Bytes: w.addBytes(key, v.s); break;
        case ArgType::Bool: w.addBool(key, v.i != 0); break;
        }
    });
    return w.finish();
}

// B from A's events: scaled slices keep their start (after the shift of what came before) and
// get their new length; dropped slices vanish; everything that starts after a changed slice
// ends moves by the change, so the stream stays a sequence and step markers grow with it.
inline TracePtr transformTrace(const Trace &a, const Transform &transform)
{
    // (end time, extra length) of every changed slice, to shift later times.
    std::vector<std::pair<TimePs, TimePs>> changes;
    for (const Track &t : a.tracks) {
        for (const Row &r : t.rows) {
            for (size_t i = 0; i < r.size(); ++i) {
                const std::string name(a.string(a.kinds[r.kind[i]].name));
                if (transform.drop.count(name)) {
                    changes.push_back({r.end(i), -r.duration[i]});
                } else if (auto it = transform.scaleByKind.find(name);
                           it != transform.scaleByKind.end()) {
                    changes.push_back(
                        {r.end(i), TimePs(std::llround(double(r.duration[i]) * it->second))
                                       - r.duration[i]});
                }
            }
        }
    }
    std::sort(changes.begin(), changes.end());
    std::vector<TimePs> prefix(changes.size() + 1, 0);
    for (size_t i = 0; i < changes.size(); ++i)
        prefix[i + 1] = prefix[i] + changes[i].second;
    auto shift = [&](TimePs t) {
        const size_t n = size_t(std::upper_bound(changes.begin(), changes.end(),
                                                 std::make_pair(t, std::numeric_limits<TimePs>::max()))
                                - changes.begin());
        return t + prefix[n];
    };
    auto stretch = [&](TimePs t) {
        return a.begin + TimePs(std::llround(double(t - a.begin) * transform.stretch));
    };

    TraceBuilder b;
    b.info().format = a.info.format;
    for (int i = 0; i < transform.padStrings; ++i)
        b.intern("padding-" + std::to_string(i));
    std::unordered_map<StringId, StringId> ids;
    std::function<StringId(StringId)> remap = [&](StringId id) {
        if (id == kEmptyString)
            return kEmptyString;
        auto [it, added] = ids.try_emplace(id, 0);
        if (added)
            it->second = b.intern(a.string(id));
        return it->second;
    };
    // Kinds in reverse order, so kind indices differ too.
    std::vector<uint32_t> kindMap(a.kinds.size());
    for (const Plane &p : a.planes)
        b.addPlane(a.string(p.name), a.string(p.host), p.id, p.kind);
    for (size_t k = a.kinds.size(); k-- > 0;) {
        EventKind kind = a.kinds[k];
        kind.name = remap(kind.name);
        kind.displayName = remap(kind.displayName);
        kind.category = remap(kind.category);
        kind.stats = copyArgs(a.metaArgs, a.kinds[k].stats, b.trace().metaArgs, remap);
        for (int c = 0; c < kKindSideColumnCount; ++c) {
            if (sideColumnHoldsString(SideColumn(c)) && kind.side[size_t(c)] != kNoValue)
                kind.side[size_t(c)] = remap(StringId(kind.side[size_t(c)]));
        }
        kindMap[k] = b.addKind(kind);
    }
    for (uint32_t ti = 0; ti < a.tracks.size(); ++ti) {
        const Track &t = a.tracks[ti];
        const uint32_t nt = b.addTrack(t.plane, a.string(t.name), t.sourceId, t.type);
        TrackBuilder &tb = b.trackBuilder(nt);
        for (const Row &r : t.rows) {
            for (size_t i = 0; i < r.size(); ++i) {
                const std::string name(a.string(a.kinds[r.kind[i]].name));
                if (transform.drop.count(name))
                    continue;
                const TimePs start = shift(r.start[i]);
                TimePs end = shift(r.end(i));
                if (auto it = transform.scaleByKind.find(name); it != transform.scaleByKind.end())
                    end = start + TimePs(std::llround(double(r.duration[i]) * it->second));
                const ArgsRef args = copyArgs(t.args, r.argsAt(i), tb.args(), remap);
                const uint32_t staged = tb.addSlice(stretch(start), stretch(end) - stretch(start),
                                                    kindMap[r.kind[i]], args);
                for (int c = 0; c < kSideColumnCount; ++c) {
                    const auto &col = r.side[size_t(c)];
                    if (col.empty() || col[i] == kNoValue)
                        continue;
                    const int64_t v = sideColumnHoldsString(SideColumn(c))
                                          ? int64_t(remap(StringId(col[i])))
                                          : col[i];
                    tb.setSide(staged, SideColumn(c), v);
                }
            }
        }
    }
    return b.build();
}

// Writes the trace as one XSpace file: planes, lines, events with group_id, correlation_id and
// tf_op stats,
// kind stats (kernel_details) as event metadata stats.
inline bool writeXSpace(const Trace &trace, const std::string &path)
{
    XSpaceWriter w(path);
    if (!w.open())
        return false;
    w.addHostname("localhost");
    std::vector<uint32_t> planes;
    for (const Plane &p : trace.planes)
        planes.push_back(w.addPlane(p.id, trace.string(p.name)));
    std::map<std::pair<uint32_t, uint32_t>, int64_t> metadata;   // (plane, kind) -> id
    auto metadataFor = [&](uint32_t plane, uint32_t kind) {
        auto [it, added] = metadata.try_emplace({plane, kind}, 0);
        if (added) {
            const EventKind &k = trace.kinds[kind];
            it->second = w.eventMetadata(planes[plane], trace.string(k.name));
            if (k.stats != kNoArgs) {
                XStatList stats;
                trace.metaArgs.forEach(k.stats, [&](const ArgValue &v) {
                    if (v.type == ArgType::String)
                        stats.addString(w.statMetadata(planes[plane], trace.string(v.key)), v.s);
                });
                w.setEventMetadataStats(planes[plane], it->second, stats);
            }
        }
        return it->second;
    };
    for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
        const Track &t = trace.tracks[ti];
        const uint32_t plane = t.plane;
        const uint32_t line = w.addLine(planes[plane], t.sourceId, trace.string(t.name), 0);
        // XSpace lines list events by start; rows are merged back into one order.
        std::vector<SliceRef> slices;
        for (uint32_t r = 0; r < t.rows.size(); ++r)
            for (uint32_t i = 0; i < t.rows[r].size(); ++i)
                slices.push_back({ti, r, i});
        std::sort(slices.begin(), slices.end(), [&](SliceRef x, SliceRef y) {
            return trace.start(x) != trace.start(y) ? trace.start(x) < trace.start(y)
                                                    : x.row < y.row;
        });
        for (const SliceRef &s : slices) {
            XStatList stats;
            const int64_t group = trace.side(s, SideColumn::GroupId);
            if (group != kNoValue)
                stats.addInt(w.statMetadata(planes[plane], "group_id"), group);
            const int64_t correlation = trace.side(s, SideColumn::CorrelationId);
            if (correlation != kNoValue)
                stats.addInt(w.statMetadata(planes[plane], "correlation_id"), correlation);
            const int64_t fw = trace.side(s, SideColumn::FrameworkOp);
            if (fw != kNoValue)
                stats.addString(w.statMetadata(planes[plane], "tf_op"), trace.string(StringId(fw)));
            w.addEvent(line, metadataFor(plane, trace.row(s).kind[s.index]), trace.start(s),
                       trace.duration(s), stats.empty() ? nullptr : &stats);
        }
    }
    return bool(w.finish());
}

} // namespace comparefixture
