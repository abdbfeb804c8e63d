#pragma once

// The seam between the synthetic workload (generator.cpp) and the file formats
// (generatorsinks.cpp): the workload describes planes, lines and events once; a sink turns
// them into XSpace or Chrome JSON. Single-threaded.

#include "core/base/result.h"
#include "core/model/types.h"

#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core::generator {

struct PlaneSpec
{
    std::string name;
    int64_t xplaneId = 0;
    int64_t pid = 0;
    bool device = false;
};

struct LineSpec
{
    uint32_t plane = 0;
    int64_t xlineId = 0;
    int64_t tid = 0;
    std::string name;
};

struct KernelInfo
{
    std::string name;
    std::string hloOp;
    uint64_t flops = 0;
    uint64_t bytesAccessed = 0;
    std::string launchDetails;   // CUPTI's `kernel_details`: registers, shared memory, dims
};

enum class FlowRole : uint8_t { None, Out, In };

struct Event
{
    uint32_t line = 0;
    uint32_t name = 0;            // index into Layout::names
    int32_t kernel = -1;          // index into Layout::kernels for GPU kernels
    TimePs start = 0;
    TimePs duration = 0;
    int64_t groupId = -1;
    int64_t stepNum = -1;
    int64_t correlationId = -1;
    FlowRole flow = FlowRole::None;
};

struct Layout
{
    std::vector<PlaneSpec> planes;
    std::vector<LineSpec> lines;
    std::vector<KernelInfo> kernels;
    std::vector<std::string> names;   // grows while generating (step names)
    std::string hloModule;
    int64_t profileStartNs = 0;
};

class Sink
{
public:
    virtual ~Sink() = default;
    virtual Result<bool> begin(const Layout &layout) = 0;
    virtual bool writesCounters() const = 0;
    virtual void slice(const Event &event) = 0;
    virtual void counter(uint32_t plane, uint32_t name, TimePs time, double bytes) = 0;
    virtual Result<uint64_t> finish(TimePs end) = 0;
};

std::unique_ptr<Sink> makeXSpaceSink(const std::string &path);
std::unique_ptr<Sink> makeChromeJsonSink(const std::string &path);

} // namespace tracedesk::core::generator
