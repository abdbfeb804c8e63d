#pragma once

// Which of rocprofv3's CSV files a header belongs to, told by the columns it names (never by the
// file name: `rocpd2csv` and renamed files keep their headers), and the set a file belongs to by
// its name (`<prefix>_kernel_trace.csv`, `<prefix>_hip_api_trace.csv`, ...).

#include "core/io/rocprof/csvrows.h"

#include <string>
#include <string_view>

namespace tracedesk::core::rocprof {

enum class CsvKind {
    Unknown,
    KernelTrace,        // Kind, Agent_Id, Queue_Id, ..., Kernel_Name, Start/End_Timestamp
    ApiTrace,           // Domain, Function, Process_Id, Thread_Id, Correlation_Id, Start/End
    MemoryCopy,         // Direction, Source_Agent_Id, Destination_Agent_Id, ...
    MemoryAllocation,   // Operation, Agent_Id, Allocation_Size, Address, ...
    ScratchMemory,      // Operation, Agent_Id, Queue_Id, Alloc_Flags, ...
    CounterCollection,  // one row per (dispatch, counter): Counter_Name, Counter_Value, ...
    AgentInfo,          // the agents: Node_Id, Logical_Node_Id, Agent_Type, Name, ...
};

CsvKind csvKind(const CsvColumns &columns);
// The kind of the CSV text's header (its first row).
CsvKind csvKindOfText(std::string_view text);
// A kind that holds records for the timeline (not AgentInfo, not Unknown).
inline bool isTraceKind(CsvKind k)
{
    return k != CsvKind::Unknown && k != CsvKind::AgentInfo;
}

// "1234_kernel_trace.csv" -> "1234_": the name without the kind rocprofv3 appends; the whole
// stem when the name ends in no such kind.
std::string csvSetPrefix(std::string_view fileName);

} // namespace tracedesk::core::rocprof
