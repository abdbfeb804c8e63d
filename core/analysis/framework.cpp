#include "core/analysis/framework.h"

#include <string_view>

namespace tracedesk::core::analysis {

namespace {

struct Markers
{
    bool tensorflow = false;
    bool jaxModule = false;   // jit_ / pmap_ module names
    bool pjrt = false;
    bool jaxPython = false;
    bool xlaModule = false;
};

bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.substr(0, prefix.size()) == prefix;
}

bool isJaxModuleName(std::string_view s)
{
    return startsWith(s, "jit_") || startsWith(s, "pmap_");
}

void scanTrackName(std::string_view n, Markers &m)
{
    if (n == "TensorFlow Ops" || n == "TensorFlow Name Scope" || startsWith(n, "tf_Compute"))
        m.tensorflow = true;
    else if (startsWith(n, "pjrt") || startsWith(n, "tf_pjrt"))
        m.pjrt = true;
    else if (startsWith(n, "py_xla_execute") || startsWith(n, "py_xla_callback"))
        m.jaxPython = true;
    else if (n == "XLA Modules")
        m.xlaModule = true;
}

void scanKindName(std::string_view n, Markers &m)
{
    if (n == "ExecutorState::Process")
        m.tensorflow = true;
    else if (startsWith(n, "PjRt") || startsWith(n, "PJRT_"))
        m.pjrt = true;
    else if (isJaxModuleName(n))
        m.jaxModule = true;
    else if (n.find("jax") != std::string_view::npos)   // jax.Array, trace_to_jaxpr, jax/…py
        m.jaxPython = true;
}

// TensorFlow writes tf_op as "scope/name:Type"; JAX writes "jit(f)/jit(main)/op" on TPU and
// "XlaModule:" (no type) on GPU module events.
void scanFrameworkOp(std::string_view v, Markers &m)
{
    if (v.empty())
        return;
    if (v.find("jit(") != std::string_view::npos || v.find("pmap(") != std::string_view::npos) {
        m.jaxModule = true;
        return;
    }
    const size_t colon = v.rfind(':');
    if (colon != std::string_view::npos && colon > 0 && colon + 1 < v.size())
        m.tensorflow = true;
}

void scanModule(std::string_view v, Markers &m)
{
    if (v.empty())
        return;
    m.xlaModule = true;
    if (isJaxModuleName(v))
        m.jaxModule = true;
}

void scanStringColumn(const Trace &trace, int64_t id, SideColumn column, Markers &m)
{
    if (id == kNoValue || id < 0 || uint64_t(id) >= trace.strings.size())
        return;
    const std::string_view v = trace.string(StringId(id));
    if (column == SideColumn::FrameworkOp)
        scanFrameworkOp(v, m);
    else
        scanModule(v, m);
}

} // namespace

bool isPyTorchTrace(const Trace &trace)
{
    return trace.info.run.framework == "pytorch";
}

bool hasGpuActivityRoles(const Trace &trace)
{
    if (isPyTorchTrace(trace))
        return true;
    for (const EventKind &k : trace.kinds) {
        // A capture of CUDA / HIP runtime calls is a GPU capture even when it recorded no GPU
        // activity (an Nsight export without a kernel table).
        if (k.role == SliceRole::Kernel || k.role == SliceRole::Memcpy
            || k.role == SliceRole::Memset || k.role == SliceRole::Runtime)
            return true;
    }
    return false;
}

bool readsGpuWorkByRole(const Trace &trace)
{
    return trace.info.format != "xspace" && hasGpuActivityRoles(trace);
}

std::string frameworkOf(const Trace &trace)
{
    if (!trace.info.run.framework.empty())
        return trace.info.run.framework;
    Markers m;
    for (const Track &t : trace.tracks)
        scanTrackName(trace.string(t.name), m);
    for (const EventKind &k : trace.kinds) {
        scanKindName(trace.string(k.name), m);
        for (SideColumn c : {SideColumn::FrameworkOp, SideColumn::HloModule})
            scanStringColumn(trace, k.side[size_t(c)], c, m);
    }
    // Per-event stats: a sample per row is enough to tell the dialect.
    constexpr size_t kSample = 64;
    for (const Track &t : trace.tracks) {
        for (const Row &r : t.rows) {
            for (SideColumn c : {SideColumn::FrameworkOp, SideColumn::HloModule}) {
                const PackedInts &column = r.side[size_t(c)];
                size_t seen = 0;
                for (size_t i = 0; i < column.size() && seen < kSample; ++i) {
                    if (column[i] == kNoValue)
                        continue;
                    ++seen;
                    scanStringColumn(trace, column[i], c, m);
                }
            }
        }
    }
    if (m.tensorflow)
        return "tensorflow";
    if (m.jaxModule && (m.pjrt || m.jaxPython))
        return "jax";
    if (m.xlaModule || m.jaxModule)
        return "xla";
    return "unknown";
}

} // namespace tracedesk::core::analysis
