#include "core/analysis/distributed/ranksummary.h"

#include "core/io/rankname.h"

#include "core/analysis/distributed/communicationkernels.h"
#include "core/analysis/pytorch/intervals.h"
#include "core/analysis/pytorch/kinetoindex.h"
#include "core/analysis/pytorch/pytorchsteps.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>

namespace tracedesk::core::analysis::distributed {

using namespace core::analysis::pytorch;

namespace {

std::string_view argText(const Trace &trace, const ArgValue &v)
{
    switch (v.type) {
    case ArgType::String:
    case ArgType::Bytes:
        return v.s;
    case ArgType::StringRef:
        return trace.string(v.str);
    default:
        return {};
    }
}

// Fills what `ref`'s args say about the collective; true when it named the collective.
bool readCollectiveArgs(const Trace &trace, SliceRef ref, CollectiveRecord *out)
{
    bool named = false;
    trace.forEachArg(ref, [&](const ArgValue &v) {
        const std::string_view key = trace.string(v.key);
        if (key == "Collective name") {
            const std::string_view text = argText(trace, v);
            if (!text.empty() && out->kind.empty()) {
                out->kind = std::string(text);
                named = true;
            }
        } else if (key == "In msg nelems" && out->inElements < 0) {
            if (const int64_t n = v.asInt(); n != kNoValue)
                out->inElements = n;
        } else if (key == "Out msg nelems" && out->outElements < 0) {
            if (const int64_t n = v.asInt(); n != kNoValue)
                out->outElements = n;
        } else if (key == "dtype" && out->dtype.empty()) {
            out->dtype = std::string(argText(trace, v));
        }
    });
    return named;
}

// The CPU op a communication kernel belongs to: record_param_comms first (it carries the
// collective's args), else any node with the External id.
const KinetoNode *collectiveNode(const Trace &trace, const KinetoIndex &index, int64_t externalId)
{
    if (externalId == kNoValue)
        return nullptr;
    const KinetoNode *any = nullptr;
    for (uint32_t n : index.nodesForExternalId(externalId)) {
        const KinetoNode &node = index.nodes[n];
        if (trace.name(node.ref) == "record_param_comms")
            return &node;
        if (!any)
            any = &node;
    }
    return any;
}

CollectiveRecord makeCollective(const Trace &trace, const KinetoIndex &index,
                                const KinetoActivity &act)
{
    CollectiveRecord c;
    const std::string_view name = trace.name(act.ref);
    c.name = std::string(kernelBaseName(name));
    c.start = act.start;
    c.end = act.end;
    readCollectiveArgs(trace, act.ref, &c);
    int64_t externalId = act.externalId;
    if (externalId == kNoValue && act.runtime != kNoIndex)
        externalId = index.runtimes[act.runtime].externalId;
    if (const KinetoNode *node = collectiveNode(trace, index, externalId))
        readCollectiveArgs(trace, node->ref, &c);
    if (c.kind.empty())
        c.kind = collectiveKindFromName(name);
    if (const int64_t size = dtypeBytes(c.dtype); size > 0 && c.inElements >= 0)
        c.bytes = c.inElements * size;
    return c;
}

std::string lower(std::string_view text)
{
    std::string out(text);
    for (char &ch : out)
        ch = char(std::tolower(static_cast<unsigned char>(ch)));
    return out;
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

    const KinetoIndex index = buildKinetoIndex(trace);
    out.stepCount = uint32_t(computePyTorchSteps(trace, index).steps.size());

    IntervalList compute;
    IntervalList comm;
    for (const KinetoActivity &act : index.activities) {
        if (act.role != SliceRole::Kernel)
            continue;
        ++out.kernelCount;
        if (isCommunicationKernelName(trace.name(act.ref))) {
            ++out.communicationKernelCount;
            comm.push_back({act.start, act.end});
            out.collectives.push_back(makeCollective(trace, index, act));
        } else {
            compute.push_back({act.start, act.end});
        }
        if (out.kernelCount == 1 || act.start < out.firstKernelStart)
            out.firstKernelStart = act.start;
        if (out.kernelCount == 1 || act.end > out.lastKernelEnd)
            out.lastKernelEnd = act.end;
    }
    compute = mergeIntervals(std::move(compute));
    comm = mergeIntervals(std::move(comm));
    IntervalList all = compute;
    all.insert(all.end(), comm.begin(), comm.end());
    all = mergeIntervals(std::move(all));
    out.computation = totalLength(compute);
    out.communication = totalLength(comm);
    out.overlap = totalLength(intersectIntervals(compute, comm));
    out.exposedCommunication = out.communication - out.overlap;
    out.idle = (out.lastKernelEnd - out.firstKernelStart) - totalLength(all);
    std::stable_sort(out.collectives.begin(), out.collectives.end(),
                     [](const CollectiveRecord &a, const CollectiveRecord &b) {
                         return a.start != b.start ? a.start < b.start : a.end < b.end;
                     });
    return out;
}

} // namespace tracedesk::core::analysis::distributed
