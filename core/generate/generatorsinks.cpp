// XSpace and Chrome JSON sinks for the synthetic trace generator.

#include "core/generate/generatorsink.h"
#include "core/generate/xspacewriter.h"
#include "core/io/chromejsonwriter.h"

namespace tracedesk::core::generator {

namespace {

// The XFlow stat value (FORMATS.md 1.7): direction in bits 0-1, id in bits 2-57, category in
// bits 58-63. Category 9 is the GPU-launch context type used for launch -> kernel links.
uint64_t xflow(uint64_t id, FlowRole role)
{
    constexpr uint64_t kGpuLaunchCategory = 9;
    const uint64_t direction = role == FlowRole::In ? 1 : 2;
    return direction | (id & ((uint64_t(1) << 56) - 1)) << 2 | kGpuLaunchCategory << 58;
}

constexpr int64_t kLineTimestampNs = 500000;

class XSpaceSink : public Sink
{
public:
    explicit XSpaceSink(const std::string &path) : m_writer(path) {}

    Result<bool> begin(const Layout &layout) override
    {
        m_layout = &layout;
        auto opened = m_writer.open();
        if (!opened)
            return opened;
        for (const PlaneSpec &p : layout.planes) {
            const uint32_t plane = m_writer.addPlane(p.xplaneId, p.name);
            PlaneIds ids;
            ids.groupId = m_writer.statMetadata(plane, "group_id");
            ids.stepNum = m_writer.statMetadata(plane, "step_num");
            ids.correlationId = m_writer.statMetadata(plane, "correlation_id");
            ids.flow = m_writer.statMetadata(plane, "flow");
            if (p.device) {
                ids.hloOp = m_writer.statMetadata(plane, "hlo_op");
                ids.hloModule = m_writer.statMetadata(plane, "hlo_module");
                ids.flops = m_writer.statMetadata(plane, "flops");
                ids.bytesAccessed = m_writer.statMetadata(plane, "bytes_accessed");
                ids.kernelDetails = m_writer.statMetadata(plane, "kernel_details");
                XStatList caps;
                caps.addInt(m_writer.statMetadata(plane, "clock_rate"), 1410000);
                caps.addInt(m_writer.statMetadata(plane, "core_count"), 108);
                caps.addUInt(m_writer.statMetadata(plane, "memory_bandwidth"), 1555000000000ull);
                caps.addUInt(m_writer.statMetadata(plane, "memory_size"), 42505273344ull);
                caps.addInt(m_writer.statMetadata(plane, "compute_cap_major"), 8);
                caps.addInt(m_writer.statMetadata(plane, "compute_cap_minor"), 0);
                caps.addString(m_writer.statMetadata(plane, "device_vendor"), "Nvidia");
                m_writer.setPlaneStats(plane, caps);
            }
            m_planeIds.push_back(ids);
            m_metadataIds.emplace_back();
        }
        m_taskPlane = m_writer.addPlane(int64_t(layout.planes.size()) + 100, "Task Environment");
        for (const LineSpec &l : layout.lines)
            m_writer.addLine(l.plane, l.xlineId, l.name, kLineTimestampNs);
        m_writer.addHostname("generated-host");
        return true;
    }

    bool writesCounters() const override { return false; }

    void slice(const Event &e) override
    {
        const uint32_t plane = m_layout->lines[e.line].plane;
        const PlaneIds &ids = m_planeIds[plane];
        std::vector<int64_t> &cache = m_metadataIds[plane];
        if (cache.size() <= e.name)
            cache.resize(m_layout->names.size(), 0);
        int64_t &metadata = cache[e.name];
        if (metadata == 0) {
            metadata = m_writer.eventMetadata(plane, m_layout->names[e.name]);
            if (e.kernel >= 0) {
                const KernelInfo &k = m_layout->kernels[size_t(e.kernel)];
                m_stats.clear();
                m_stats.addString(ids.hloOp, k.hloOp);
                m_stats.addString(ids.hloModule, m_layout->hloModule);
                m_stats.addUInt(ids.flops, k.flops);
                m_stats.addUInt(ids.bytesAccessed, k.bytesAccessed);
                m_stats.addString(ids.kernelDetails, k.launchDetails);
                m_writer.setEventMetadataStats(plane, metadata, m_stats);
            }
        }
        m_stats.clear();
        if (e.groupId >= 0)
            m_stats.addInt(ids.groupId, e.groupId);
        if (e.stepNum >= 0)
            m_stats.addInt(ids.stepNum, e.stepNum);
        if (e.correlationId >= 0)
            m_stats.addInt(ids.correlationId, e.correlationId);
        if (e.flow != FlowRole::None)
            m_stats.addUInt(ids.flow, xflow(uint64_t(e.correlationId), e.flow));
        m_writer.addEvent(e.line, metadata, e.start - kLineTimestampNs * 1000, e.duration,
                          m_stats.empty() ? nullptr : &m_stats);
    }

    void counter(uint32_t, uint32_t, TimePs, double) override {}

    Result<uint64_t> finish(TimePs end) override
    {
        XStatList env;
        const int64_t start = m_layout->profileStartNs;
        env.addUInt(m_writer.statMetadata(m_taskPlane, "profile_start_time"), uint64_t(start));
        env.addUInt(m_writer.statMetadata(m_taskPlane, "profile_stop_time"),
                    uint64_t(start + end / 1000 + 1000));
        m_writer.setPlaneStats(m_taskPlane, env);
        return m_writer.finish();
    }

private:
    struct PlaneIds
    {
        int64_t groupId = 0, stepNum = 0, correlationId = 0, flow = 0;
        int64_t hloOp = 0, hloModule = 0, flops = 0, bytesAccessed = 0, kernelDetails = 0;
    };
    XSpaceWriter m_writer;
    const Layout *m_layout = nullptr;
    std::vector<PlaneIds> m_planeIds;
    std::vector<std::vector<int64_t>> m_metadataIds;
    uint32_t m_taskPlane = 0;
    XStatList m_stats;
};

class ChromeJsonSink : public Sink
{
public:
    explicit ChromeJsonSink(const std::string &path) : m_writer(path) {}

    Result<bool> begin(const Layout &layout) override
    {
        m_layout = &layout;
        auto opened = m_writer.open();
        if (!opened)
            return opened;
        for (size_t i = 0; i < layout.planes.size(); ++i) {
            m_writer.processName(layout.planes[i].pid, layout.planes[i].name);
            m_writer.processSortIndex(layout.planes[i].pid, int64_t(i));
        }
        for (size_t i = 0; i < layout.lines.size(); ++i) {
            const LineSpec &l = layout.lines[i];
            m_writer.threadName(layout.planes[l.plane].pid, l.tid, l.name);
            m_writer.threadSortIndex(layout.planes[l.plane].pid, l.tid, int64_t(i));
        }
        return true;
    }

    bool writesCounters() const override { return true; }

    void slice(const Event &e) override
    {
        const LineSpec &line = m_layout->lines[e.line];
        const int64_t pid = m_layout->planes[line.plane].pid;
        m_args.clear();
        if (e.groupId >= 0)
            m_args.addInt("group_id", e.groupId);
        if (e.stepNum >= 0)
            m_args.addInt("step_num", e.stepNum);
        if (e.correlationId >= 0)
            m_args.addInt("correlation_id", e.correlationId);
        std::string_view category = "cpu_op";
        if (e.kernel >= 0) {
            const KernelInfo &k = m_layout->kernels[size_t(e.kernel)];
            m_args.addString("hlo_op", k.hloOp);
            m_args.addString("hlo_module", m_layout->hloModule);
            m_args.addUInt("flops", k.flops);
            m_args.addUInt("bytes_accessed", k.bytesAccessed);
            category = "kernel";
        } else if (e.flow == FlowRole::Out) {
            category = "cuda_runtime";
        } else if (m_layout->planes[line.plane].device) {
            category = "device";
        }
        m_writer.complete(pid, line.tid, m_layout->names[e.name], category, e.start, e.duration,
                          &m_args);
        if (e.flow != FlowRole::None) {
            m_writer.flow(e.flow == FlowRole::Out, pid, line.tid, e.start,
                          uint64_t(e.correlationId), "ac2g", "ac2g");
        }
    }

    void counter(uint32_t plane, uint32_t name, TimePs time, double bytes) override
    {
        m_args.clear();
        m_args.addDouble("bytes_in_use", bytes);
        m_writer.counter(m_layout->planes[plane].pid, m_layout->names[name], time, m_args);
    }

    Result<uint64_t> finish(TimePs) override { return m_writer.finish(); }

private:
    ChromeJsonWriter m_writer;
    const Layout *m_layout = nullptr;
    JsonArgs m_args;
};

} // namespace

std::unique_ptr<Sink> makeXSpaceSink(const std::string &path)
{
    return std::make_unique<XSpaceSink>(path);
}

std::unique_ptr<Sink> makeChromeJsonSink(const std::string &path)
{
    return std::make_unique<ChromeJsonSink>(path);
}

} // namespace tracedesk::core::generator
