#include "core/analysis/distributed/ranksummary.h"

#include "core/io/rankname.h"

#include "core/analysis/distributed/collectiveargs.h"
#include "core/analysis/distributed/communicationkernels.h"
#include "core/analysis/distributed/devicekernels.h"
#include "core/analysis/framework.h"
#include "core/analysis/kernels/kernelclasses.h"
#include "core/analysis/pytorch/intervals.h"
#include "core/analysis/pytorch/kinetoindex.h"
#include "core/analysis/pytorch/pytorchsteps.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>
#include <unordered_map>

namespace tracedesk::core::analysis::distributed {

using namespace core::analysis::pytorch;

namespace {

CollectiveRecord makeCollective(const Trace &trace, const KinetoIndex &index,
                                const KinetoActivity &act)
{
    CollectiveRecord c;
    c.name = std::string(kernelBaseName(trace.name(act.ref)));
    c.start = act.start;
    c.end = act.end;
    c.ref = act.ref;
    describeCollective(trace, index, act, &c);
    return c;
}

// A communication op of a device line (no PyTorch records): its name is all it says.
CollectiveRecord deviceCollective(const Trace &trace, const DeviceKernel &k)
{
    CollectiveRecord c;
    const std::string_view name = trace.name(k.ref);
    c.name = std::string(kernelBaseName(name));
    c.kind = collectiveKindFromName(name);
    c.start = k.start;
    c.end = k.end;
    c.ref = k.ref;
    return c;
}

// Kernel algebra, steps and collectives of the planes `index` covers: the PyTorch kernels when
// the trace has them, else the device lines' ops (devicekernels.h).
void summarizeIndexed(const Trace &trace, const KinetoIndex &index, RankSummary *summary)
{
    RankSummary &out = *summary;
    IntervalList compute;
    IntervalList comm;
    auto addKernel = [&](TimePs start, TimePs end, bool communication) {
        ++out.kernelCount;
        (communication ? comm : compute).push_back({start, end});
        if (communication)
            ++out.communicationKernelCount;
        if (out.kernelCount == 1 || start < out.firstKernelStart)
            out.firstKernelStart = start;
        if (out.kernelCount == 1 || end > out.lastKernelEnd)
            out.lastKernelEnd = end;
    };
    // An XSpace's kernels have roles for GPU time, but its steps and collectives are read from
    // its device lines, by XProf's rules.
    if (index.hasKernels && readsGpuWorkByRole(trace)) {
        KernelClasses classes(trace);
        for (const KinetoActivity &act : index.activities) {
            if (act.role != SliceRole::Kernel)
                continue;
            const bool isComm = classes.of(act.ref).family == KernelFamily::Communication;
            addKernel(act.start, act.end, isComm);
            if (isComm)
                out.collectives.push_back(makeCollective(trace, index, act));
        }
        const PyTorchSteps steps = computePyTorchSteps(trace, index);
        for (const PyTorchStep &ps : steps.steps) {
            RankStep step;
            step.name = ps.name;
            step.hostStart = ps.hostStart;
            step.start = ps.start;
            step.end = ps.end;
            step.marker = ps.marker;
            step.hasMarker = steps.fromMarkers || steps.fromNumberedRanges;
            out.steps.push_back(std::move(step));
        }
    } else {
        std::unordered_map<StringId, bool> communicationByName;
        for (const DeviceKernel &k : deviceKernels(trace, index.scope)) {
            const StringId name = trace.kind(k.ref).name;
            auto [known, inserted] = communicationByName.try_emplace(name, false);
            if (inserted)
                known->second = isCommunicationOpName(trace.string(name));
            const bool isComm = known->second;
            addKernel(k.start, k.end, isComm);
            if (isComm)
                out.collectives.push_back(deviceCollective(trace, k));
        }
        for (const DeviceStep &ds : deviceSteps(trace, index.scope)) {
            RankStep step;
            step.name = ds.name;
            step.hostStart = step.start = ds.start;
            step.end = ds.end;
            step.marker = ds.ref;
            step.hasMarker = true;
            out.steps.push_back(std::move(step));
        }
    }
    out.stepCount = uint32_t(out.steps.size());

    compute = mergeIntervals(std::move(compute));
    comm = mergeIntervals(std::move(comm));
    IntervalList all = compute;
    all.insert(all.end(), comm.begin(), comm.end());
    all = mergeIntervals(std::move(all));
    const IntervalList both = intersectIntervals(compute, comm);
    out.computation = totalLength(compute);
    out.communication = totalLength(comm);
    out.overlap = totalLength(both);
    out.exposedCommunication = out.communication - out.overlap;
    out.idle = (out.lastKernelEnd - out.firstKernelStart) - totalLength(all);
    std::stable_sort(out.collectives.begin(), out.collectives.end(),
                     [](const CollectiveRecord &a, const CollectiveRecord &b) {
                         return a.start != b.start ? a.start < b.start : a.end < b.end;
                     });
    for (RankStep &step : out.steps) {
        const Interval window{step.start, step.end};
        step.computation = overlapLength(compute, window);
        step.communication = overlapLength(comm, window);
        step.overlap = overlapLength(both, window);
        step.exposedCommunication = step.communication - step.overlap;
        step.idle = step.duration() - overlapLength(all, window);
    }
}

} // namespace

RankSummary summarizeRank(const Trace &trace, const std::string &file, int64_t fallbackRank)
{
    RankSummary out;
    out.file = file;
    const DistributedInfo &dist = trace.info.run.distributed;
    if (dist.present && dist.rank >= 0) {
        out.rank = dist.rank;
        out.rankSource = "distributedInfo";
    } else if (const auto named = rankFromFileName(file)) {
        out.rank = *named;
        out.rankGuessed = true;
        out.rankSource = "file name";
    } else {
        out.rank = fallbackRank;
        out.rankGuessed = true;
        out.rankSource = "order";
    }
    if (out.rankGuessed) {
        out.warnings.push_back((file.empty() ? std::string("trace") : file)
                               + ": no distributedInfo rank, rank " + std::to_string(out.rank)
                               + " taken from the " + out.rankSource);
    }

    summarizeIndexed(trace, buildKinetoIndex(trace), &out);
    return out;
}

RankSummary summarizeRankSection(const Trace &trace, const std::string &host,
                                 int64_t fallbackRank)
{
    RankSummary out;
    out.host = host;
    out.file = host;
    out.rank = fallbackRank;
    out.rankSource = "section";
    if (host.starts_with("rank ")) {
        try {
            size_t used = 0;
            const long long n = std::stoll(host.substr(5), &used);
            if (used > 0 && n >= 0)
                out.rank = n;
        } catch (const std::exception &) {
        }
    } else if (const auto named = rankFromFileName(host)) {
        out.rank = *named; // an XSpace host named like its file: worker3
    }
    KinetoScope scope;
    if (!trace.strings.find(host, &scope.host))
        return out;
    scope.wholeTrace = false;
    scope.scopeLabel = host;
    summarizeIndexed(trace, buildKinetoIndex(trace, scope), &out);
    return out;
}

} // namespace tracedesk::core::analysis::distributed
