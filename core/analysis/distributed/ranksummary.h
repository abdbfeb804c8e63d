#pragma once

// RankSummary: what the distributed view keeps of one rank's trace once its store is dropped —
// kernel totals by role, the communication / computation interval algebra, the step count and
// the rank's collectives in start order. Small (one record per communication kernel), so a run
// of many ranks is summarised one store at a time.
//
// Rules (../shared/PYTORCH.md §3.1, §3.4, with our choices):
// - kernels = slices with role Kernel on the device planes (all devices and streams together);
//   memcpy / memset / sync are not kernels here. A trace without such slices (an XSpace host)
//   uses its device lines' ops and Steps line instead (devicekernels.h), communication then by
//   isCommunicationOpName;
// - communication kernels by name (communicationkernels.h), all other kernels are computation;
// - computation = |union of computation kernels|, communication = |union of communication
//   kernels|, overlap = |their intersection|, exposed communication = communication - overlap,
//   idle = (last kernel end - first kernel start) - |union of all kernels|;
// - step count = the kept steps of pytorchsteps.h; per step (its adjusted [start, end)) the
//   same algebra clipped to the step, idle = step time - |union of all kernels in the step|;
// - one CollectiveRecord per communication kernel, by (start, end). Its kind, element counts,
//   dtype and bytes come from the kernel's args, else from the CPU ops it was launched from
//   (record_param_comms, `nccl:` annotations), else its kind from the word in the kernel name
//   (collectiveargs.h says where each field is looked for).
// - rank: trace.info.run.distributed.rank when present, else the file name (rankFromFileName),
//   else the caller's fallback; a guess is flagged (rankGuessed) and warned about.
//
// Times are picoseconds on the trace's own clock; `originNs` places that clock's 0 on the
// writer's absolute clock (RunMetadata::clockOriginNs), for comparing ranks. Plain value.

#include "core/io/rankname.h"
#include "core/model/trace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tracedesk::core::analysis::distributed {

struct CollectiveRecord
{
    std::string name;           // kernel name without its argument list: the match key
    std::string kind;           // "allreduce", "AllReduce", "SendRecv", ...
    TimePs start = 0;           // on the rank's own clock
    TimePs end = 0;
    int64_t inElements = -1;    // "In msg nelems" (or the inputs' element count), -1 if absent
    int64_t outElements = -1;   // "Out msg nelems"
    std::string dtype;          // as written ("Float", "c10::Half"), empty when absent
    int64_t bytes = -1;         // the message size (collectiveargs.h), -1 when unknown
    SliceRef ref;               // the kernel in the summarised store (valid while it lives)
};

// One step of a rank, times on the rank's own clock.
struct RankStep
{
    std::string name;        // N of ProfilerStep#N
    TimePs hostStart = 0;    // the ProfilerStep#N marker's start (the alignment point)
    TimePs start = 0;        // the step as pytorchsteps.h adjusts it
    TimePs end = 0;
    TimePs computation = 0;
    TimePs communication = 0;
    TimePs overlap = 0;
    TimePs exposedCommunication = 0;
    TimePs idle = 0;
    SliceRef marker;         // the ProfilerStep#N slice in the summarised store
    bool hasMarker = false;  // false for the fallback step of a trace without step markers

    TimePs duration() const { return end - start; }
};

struct RankSummary
{
    int64_t rank = -1;
    bool rankGuessed = false;
    std::string rankSource; // "distributedInfo", "file name" or "order"
    std::string file;
    int64_t originNs = 0;   // absolute ns of the trace's time 0
    uint32_t stepCount = 0;
    uint64_t kernelCount = 0;
    uint64_t communicationKernelCount = 0;
    TimePs computation = 0;
    TimePs communication = 0;
    TimePs overlap = 0;
    TimePs exposedCommunication = 0;
    TimePs idle = 0;
    TimePs firstKernelStart = 0; // 0, 0 without kernels
    TimePs lastKernelEnd = 0;
    std::vector<CollectiveRecord> collectives; // by (start, end)
    std::vector<RankStep> steps;               // in step order
    std::vector<std::string> warnings;
    // The rank's section in a merged store (its planes' host), empty for a store of its own.
    std::string host;
    // Added to the rank's times to put them on the run clock (combineRanks sets it: the clock
    // origin's distance to the run's, plus the step alignment when asked).
    TimePs clockShift = 0;
};

// The rank a file name gives: core/io/rankname.h.
using core::rankFromFileName;

// `fallbackRank` is used when neither the trace nor the file name tells (-1: none).
RankSummary summarizeRank(const Trace &trace, const std::string &file = {},
                          int64_t fallbackRank = -1);

// One rank of a merged run (rankrunloader.h): the planes whose host is `host` ("rank N"); the
// rank is N (else `fallbackRank`), its clock the merged store's (originNs 0).
RankSummary summarizeRankSection(const Trace &trace, const std::string &host,
                                 int64_t fallbackRank);

} // namespace tracedesk::core::analysis::distributed
