// Device capabilities, peak numbers and run environment from plane stats (FORMATS.md 1.8, 2.0).

#include "core/analysis/opmetrics.h"
#include "core/analysis/opscan.h"

#include <algorithm>
#include <array>
#include <set>

namespace tracedesk::core::analysis {

using namespace detail;

namespace {

struct PlaneStats
{
    const Trace &trace;
    const Plane &plane;

    bool get(std::string_view name, ArgValue *out) const
    {
        StringId key = kEmptyString;
        return trace.strings.find(name, &key) && trace.metaArgs.find(plane.stats, key, out);
    }
    double number(std::string_view name) const
    {
        ArgValue v;
        return get(name, &v) ? v.asDouble() : 0.0;
    }
    std::string text(std::string_view name) const
    {
        ArgValue v;
        return get(name, &v) ? std::string(argText(trace, v)) : std::string();
    }
};

struct CcFlops
{
    int major, minor;
    double fp32, fp16, tf32, tensorFp16;
};

// NVIDIA per-SM per-cycle dense FLOPs (FORMATS.md 1.8), descending by compute capability.
constexpr std::array<CcFlops, 12> kNvidia = {{{10, 0, 296, 592, 4096, 8192},
                                              {9, 0, 256, 512, 2048, 4096},
                                              {8, 9, 256, 256, 512, 1024},
                                              {8, 6, 256, 256, 256, 1024},
                                              {8, 0, 128, 512, 1024, 2048},
                                              {7, 5, 128, 256, 0, 1024},
                                              {7, 0, 128, 256, 0, 1024},
                                              {6, 1, 256, 4, 0, 0},
                                              {6, 0, 128, 256, 0, 0},
                                              {5, 0, 256, 0, 0, 0},
                                              {3, 0, 384, 0, 0, 0},
                                              {2, 0, 64, 0, 0, 0}}};

struct AmdFlops
{
    std::string_view gfx;
    double vectorFp32, vectorFp16, matrixFp32, matrixFp16, ldsBytesPerCycle;
};

constexpr std::array<AmdFlops, 4> kAmd = {{{"gfx908", 128, 0, 256, 1024, 128},
                                           {"gfx90a", 128, 0, 256, 1024, 128},
                                           {"gfx942", 256, 256, 256, 2048, 128},
                                           {"gfx950", 256, 256, 256, 4096, 256}}};

const AmdFlops *amdEntry(const DeviceCapabilities &caps)
{
    std::string gfx;
    if (caps.deviceName.starts_with("gfx"))
        gfx = caps.deviceName.substr(0, caps.deviceName.find_first_of(": "));
    else if (caps.computeCapMajor == 9 && caps.computeCapMinor == 4)
        gfx = "gfx942";
    else if (caps.computeCapMajor == 9 && caps.computeCapMinor == 5)
        gfx = "gfx950";
    for (const AmdFlops &a : kAmd) {
        if (a.gfx == gfx)
            return &a;
    }
    return nullptr;
}

bool isAmd(const DeviceCapabilities &caps)
{
    return caps.vendor == "AMD" || caps.deviceName.starts_with("gfx");
}

std::string nvidiaArch(int major, int minor)
{
    switch (major) {
    case 2: return "Fermi";
    case 3: return "Kepler";
    case 5: return "Maxwell";
    case 6: return "Pascal";
    case 7: return minor < 5 ? "Volta" : "Turing";
    case 8: return minor < 9 ? "Ampere" : "Ada Lovelace";
    case 9: return "Hopper";
    case 10: return "Blackwell";
    default: return {};
    }
}

// XProf's GpuModelName (xprof/utils/hardware_type_utils.cc): by vendor, then compute capability;
// an empty result makes the device type plain "GPU". A known vendor with an unknown model is
// still named ("Nvidia GPU", "AMD GPU"). Captures older than the `device_vendor` stat (TF 2.3-era
// V100 files) are named as the XProf of their time did: a CUDA compute capability means NVIDIA,
// a `gfx` device name means AMD.
std::string gpuModelName(const DeviceCapabilities &c)
{
    const bool nvidia = c.vendor == "Nvidia"
                        || (c.vendor.empty() && c.computeCapMajor > 0 && !isAmd(c));
    if (nvidia) {
        const std::string arch = nvidiaArch(c.computeCapMajor, c.computeCapMinor);
        return arch.empty() ? std::string("Nvidia GPU") : "Nvidia GPU (" + arch + ")";
    }
    if (isAmd(c)) {
        // The gfx version is the device name up to its first ':' (rocprofiler agent name), else
        // the one compute capability that names a unique architecture.
        std::string gfx = c.deviceName.substr(0, c.deviceName.find(':'));
        if (gfx.empty() && c.computeCapMajor == 9 && c.computeCapMinor == 4)
            gfx = "gfx942";
        else if (gfx.empty() && c.computeCapMajor == 9 && c.computeCapMinor == 5)
            gfx = "gfx950";
        if (!gfx.empty())
            return "AMD GPU - " + gfx;
        switch (c.computeCapMajor) {
        case 9: return "AMD GPU - gfx-9XX series";
        case 10: return "AMD GPU - gfx-10XX series";
        case 11: return "AMD GPU - gfx-11XX series";
        default: return "AMD GPU";
        }
    }
    return {};
}

DeviceCapabilities capabilitiesOf(const Trace &trace, const Plane &plane)
{
    const PlaneStats s{trace, plane};
    DeviceCapabilities c;
    c.clockRateGhz = s.number("clock_rate") / 1e6;
    c.numCores = uint32_t(s.number("core_count"));
    c.memorySizeBytes = uint64_t(s.number("memory_size"));
    c.memoryBandwidthBytesPerSecond = uint64_t(s.number("memory_bandwidth"));
    c.computeCapMajor = int(s.number("compute_cap_major"));
    c.computeCapMinor = int(s.number("compute_cap_minor"));
    c.vendor = s.text("device_vendor");
    c.deviceName = s.text("gpu_device_name");
    if (c.deviceName.empty())
        c.deviceName = s.text("device_type_string");
    return c;
}

const Plane *firstDevicePlane(const Trace &trace, DeviceFamily *family)
{
    const Plane *withStats = nullptr;
    for (const Plane &p : trace.planes) {
        const DeviceFamily f = deviceFamily(trace, p);
        if (f == DeviceFamily::None)
            continue;
        if (p.stats != kNoArgs) {
            *family = f;
            return &p;
        }
        if (!withStats) {
            withStats = &p;
            *family = f;
        }
    }
    return withStats;
}

} // namespace

DeviceCapabilities deviceCapabilities(const Trace &trace)
{
    DeviceFamily family = DeviceFamily::None;
    const Plane *plane = firstDevicePlane(trace, &family);
    return plane ? capabilitiesOf(trace, *plane) : DeviceCapabilities{};
}

PerfEnv perfEnv(const Trace &trace)
{
    PerfEnv env;
    DeviceFamily family = DeviceFamily::None;
    const Plane *plane = firstDevicePlane(trace, &family);
    if (!plane)
        return env;
    const PlaneStats s{trace, *plane};
    const double statPeak = s.number("peak_teraflops_per_second");
    if (family == DeviceFamily::Tpu) {
        env.peakTeraFlopsPerSecond = statPeak;
        env.peakHbmBwGigaBytesPerSecond = s.number("peak_hbm_bw_gigabytes_per_second");
        env.peakBwsGigaBytesPerSecond = {
            env.peakHbmBwGigaBytesPerSecond,
            s.number("peak_sram_rd_bw_gigabytes_per_second"),
            s.number("peak_sram_wr_bw_gigabytes_per_second"),
            s.number("peak_cmem_rd_bw_gigabytes_per_second"),
            s.number("peak_cmem_wr_bw_gigabytes_per_second"),
            s.number("peak_vmem_rd_bw_gigabytes_per_second"),
            s.number("peak_vmem_wr_bw_gigabytes_per_second")};
        env.hasCmem = env.peakBwsGigaBytesPerSecond[3] > 0 || env.peakBwsGigaBytesPerSecond[4] > 0;
        env.hasMegacore = s.number("has_megacore") != 0;
        env.hasMergedVmem = s.number("has_merged_vmem") != 0;
    } else {
        const DeviceCapabilities c = capabilitiesOf(trace, *plane);
        double perCore = 0;   // GFLOP/s per core
        double sramBytesPerCycle = 0;
        if (isAmd(c)) {
            if (const AmdFlops *a = amdEntry(c)) {
                perCore = c.clockRateGhz
                          * std::max({a->vectorFp32, a->vectorFp16, a->matrixFp32, a->matrixFp16});
                sramBytesPerCycle = a->ldsBytesPerCycle;
            }
        } else if (c.computeCapMajor > 0) {
            for (const CcFlops &e : kNvidia) {
                if (std::tie(c.computeCapMajor, c.computeCapMinor) >= std::tie(e.major, e.minor)) {
                    perCore = c.clockRateGhz * std::max({e.fp32, e.fp16, e.tf32, e.tensorFp16});
                    break;
                }
            }
            sramBytesPerCycle = c.computeCapMajor <= 2 ? 64 : 256;
        }
        env.peakTeraFlopsPerSecond = statPeak > 0 ? statPeak : c.numCores * perCore / 1000.0;
        env.peakHbmBwGigaBytesPerSecond = double(c.memoryBandwidthBytesPerSecond) / 1e9;
        double sramRd = s.number("peak_sram_rd_bw_gigabytes_per_second");
        double sramWr = s.number("peak_sram_wr_bw_gigabytes_per_second");
        const double sram = c.numCores * c.clockRateGhz * sramBytesPerCycle;
        env.peakBwsGigaBytesPerSecond = {env.peakHbmBwGigaBytesPerSecond,
                                         sramRd > 0 ? sramRd : sram, sramWr > 0 ? sramWr : sram};
    }
    if (env.peakHbmBwGigaBytesPerSecond > 0)
        env.ridgePoint = env.peakTeraFlopsPerSecond * 1000.0 / env.peakHbmBwGigaBytesPerSecond;
    return env;
}

RunEnvironment runEnvironment(const Trace &trace)
{
    RunEnvironment env;
    std::set<std::string> hosts(trace.info.hosts.begin(), trace.info.hosts.end());
    for (const Plane &p : trace.planes) {
        if (p.host != kEmptyString)
            hosts.insert(std::string(trace.string(p.host)));
    }
    env.hosts.assign(hosts.begin(), hosts.end());
    env.hostCount = int(env.hosts.size());
    int gpus = 0, tpus = 0;
    std::string tpuType;
    for (const Plane &p : trace.planes) {
        switch (deviceFamily(trace, p)) {
        case DeviceFamily::Gpu: ++gpus; break;
        case DeviceFamily::Tpu:
            ++tpus;
            if (tpuType.empty())
                tpuType = PlaneStats{trace, p}.text("device_type_string");
            break;
        case DeviceFamily::None: break;
        }
    }
    env.capabilities = deviceCapabilities(trace);
    if (tpus > 0) {
        env.hardwareType = HardwareType::Tpu;
        env.deviceType = tpuType.empty() ? std::string("TPU") : tpuType;
        env.deviceCoreCount = tpus;
    } else if (gpus > 0) {
        env.hardwareType = HardwareType::Gpu;
        env.deviceType = gpuModelName(env.capabilities);
        if (env.deviceType.empty())
            env.deviceType = "GPU";
        env.deviceCoreCount = gpus;
    } else {
        env.hardwareType = HardwareType::CpuOnly;
        env.deviceType = "CPU";
    }
    return env;
}

} // namespace tracedesk::core::analysis
