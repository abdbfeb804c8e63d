#include "core/analysis/stepbreakdown.h"

#include <algorithm>
#include <cmath>

namespace tracedesk::core::analysis {

const std::array<StepCategory, 10> kGenericCategories = {{
    {"Device compute", &GenericStepDetails::deviceComputeMs},
    {"Device to device", &GenericStepDetails::deviceToDeviceMs},
    {"Device collective communication", &GenericStepDetails::deviceCollectivesMs},
    {"Input (host wait)", &GenericStepDetails::hostWaitInputMs},
    {"Input (host to device)", &GenericStepDetails::hostToDeviceMs},
    {"Output", &GenericStepDetails::outputMs},
    {"Host compute", &GenericStepDetails::hostComputeMs},
    {"Kernel launch", &GenericStepDetails::hostPrepareMs},
    {"Compilation", &GenericStepDetails::hostCompileMs},
    {"All others", &GenericStepDetails::unknownTimeMs},
}};

StepSummary summarize(const std::vector<double> &values)
{
    StepSummary s;
    s.count = int(values.size());
    if (values.empty())
        return s;
    double sum = 0;
    s.minimum = values.front();
    s.maximum = values.front();
    for (double v : values) {
        sum += v;
        s.minimum = std::min(s.minimum, v);
        s.maximum = std::max(s.maximum, v);
    }
    s.average = sum / double(values.size());
    if (values.size() > 1) {
        double sq = 0;
        for (double v : values)
            sq += (v - s.average) * (v - s.average);
        s.standardDeviation = std::sqrt(sq / double(values.size() - 1));
    }
    return s;
}

GenericStepDetails genericStepDetails(const StepInfo &step)
{
    auto ms = [&](std::initializer_list<EventType> types) {
        TimePs ps = 0;
        for (EventType t : types)
            ps += step.type(t);
        return double(ps) / 1e9;
    };
    GenericStepDetails d;
    d.stepNumber = step.groupId;
    d.stepName = step.name;
    d.begin = step.begin;
    d.stepTimeMs = double(step.duration) / 1e9;
    d.hostWaitInputMs = ms({EventType::HostWaitInput});
    d.hostToDeviceMs = ms({EventType::HostToDevice, EventType::DeviceWaitHost});
    d.outputMs = ms({EventType::DeviceToHost});
    d.deviceComputeMs = ms({EventType::DeviceCompute16, EventType::DeviceCompute32});
    d.deviceToDeviceMs = ms({EventType::DeviceToDevice, EventType::DeviceWaitDevice});
    d.deviceCollectivesMs = ms({EventType::DeviceCollectives});
    d.hostComputeMs = ms({EventType::HostCompute});
    d.hostPrepareMs = ms({EventType::HostPrepare});
    d.hostCompileMs = ms({EventType::HostCompile});
    // The host types XProf never emits on GPU and host-to-host copies have no column of their
    // own; they join "All others" so the categories always add up to the step time.
    d.unknownTimeMs = ms({EventType::UnknownTime, EventType::HostToHost, EventType::HostPreprocess,
                          EventType::HostPostprocess, EventType::HostBatchFormation,
                          EventType::HostRuntime});
    return d;
}

GenericStepTimeBreakdown genericStepTimeBreakdown(const StepDb &db)
{
    GenericStepTimeBreakdown b;
    b.steps.reserve(db.steps.size());
    for (const StepInfo &s : db.steps)
        b.steps.push_back(genericStepDetails(s));
    auto column = [&](auto f) {
        std::vector<double> v;
        v.reserve(b.steps.size());
        for (const GenericStepDetails &d : b.steps)
            v.push_back(f(d));
        return summarize(v);
    };
    b.stepTime = column([](auto &d) { return d.stepTimeMs; });
    b.unknownTime = column([](auto &d) { return d.unknownTimeMs; });
    b.hostWaitInput = column([](auto &d) { return d.hostWaitInputMs; });
    b.hostToDevice = column([](auto &d) { return d.hostToDeviceMs; });
    b.input = column([](auto &d) { return d.inputMs(); });
    b.output = column([](auto &d) { return d.outputMs; });
    b.deviceCompute = column([](auto &d) { return d.deviceComputeMs; });
    b.deviceToDevice = column([](auto &d) { return d.deviceToDeviceMs; });
    b.deviceCollectives = column([](auto &d) { return d.deviceCollectivesMs; });
    b.hostCompute = column([](auto &d) { return d.hostComputeMs; });
    b.hostPrepare = column([](auto &d) { return d.hostPrepareMs; });
    b.hostCompile = column([](auto &d) { return d.hostCompileMs; });
    b.inputPercent = column([](auto &d) {
        return d.stepTimeMs > 0 ? 100.0 * d.inputMs() / d.stepTimeMs : 0.0;
    });
    return b;
}

} // namespace tracedesk::core::analysis
