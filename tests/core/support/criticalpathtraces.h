#pragma once

// A small Kineto trace whose critical path is worked out by hand from HolisticTraceAnalysis's
// rules (tst_criticalpath, tst_gputimepanel): 10 (aten::mm to its launch) + 15 (launch delay) +
// 455 (gemm) + 5 (aten::add to its launch) + 10 (launch delay) + 35 (add_kernel) = 530 us.

#include <QByteArray>

namespace testsupport {

// aten::mm launches `gemm` (455 us) and the thread waits for it in cudaStreamSynchronize; then
// aten::add launches `add_kernel` on the idle stream. aten::empty runs while the GPU is busy.
inline QByteArray handCriticalPathTrace(bool withSync)
{
    QByteArray events = R"(
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1000,"dur":40,"args":{"External id":1}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1010,"dur":10,"args":{"External id":1,"correlation":11}},
 {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":1025,"dur":455,"args":{"External id":1,"correlation":11,"device":0,"stream":7}},
 {"ph":"X","cat":"cpu_op","name":"aten::empty","pid":1,"tid":1,"ts":1042,"dur":3,"args":{"External id":2}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":1,"tid":1,"ts":1050,"dur":450,"args":{"correlation":12}},
 {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":1510,"dur":20,"args":{"External id":3}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1515,"dur":5,"args":{"External id":3,"correlation":13}},
 {"ph":"X","cat":"kernel","name":"add_kernel","pid":0,"tid":7,"ts":1525,"dur":35,"args":{"External id":3,"correlation":13,"device":0,"stream":7}})";
    if (withSync)
        events += R"(,
 {"ph":"X","cat":"cuda_sync","name":"Stream Sync","pid":0,"tid":7,"ts":1480,"dur":10,"args":{"correlation":12,"device":0,"stream":7}})";
    return R"({"schemaVersion":1,"deviceProperties":[{"id":0,"name":"GPU"}],"traceEvents":[)" + events
           + "]}";
}

} // namespace testsupport
