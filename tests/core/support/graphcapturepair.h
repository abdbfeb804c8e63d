#pragma once

// A hand-made CUDA-graph capture / replay pair shared by the core and the window tests: ops A, B
// and C record one graph, D another; the replay runs the first graph twice, the second once and
// a graph of four kernels no capture has.

namespace testsupport {

// Capture: ops A, B, C each launch one kernel inside the capture window (no GPU activity: the
// launches were recorded, not run); an eager launch with a real kernel inside the window is
// not a graph node; a second window records two nodes under D.
inline const char *const kCapture = R"json({"schemaVersion":1,"deviceProperties":[],"traceEvents":[
{"ph":"X","cat":"cuda_runtime","name":"cudaStreamBeginCapture","pid":1,"tid":1,"ts":0,"dur":1,"args":{"correlation":1}},
{"ph":"X","cat":"cpu_op","name":"A","pid":1,"tid":1,"ts":10,"dur":10,"args":{"External id":100}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":12,"dur":2,"args":{"External id":100,"correlation":2}},
{"ph":"X","cat":"cpu_op","name":"B","pid":1,"tid":1,"ts":30,"dur":10,"args":{"External id":101}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":32,"dur":2,"args":{"External id":101,"correlation":3}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":42,"dur":2,"args":{"correlation":4}},
{"ph":"X","cat":"cpu_op","name":"C","pid":1,"tid":1,"ts":50,"dur":10,"args":{"External id":102}},
{"ph":"X","cat":"cuda_driver","name":"cuLaunchKernel","pid":1,"tid":1,"ts":52,"dur":2,"args":{"External id":102,"correlation":5}},
{"ph":"X","cat":"cuda_runtime","name":"cudaStreamEndCapture","pid":1,"tid":1,"ts":70,"dur":1,"args":{"correlation":6}},
{"ph":"X","cat":"cuda_runtime","name":"cudaStreamBeginCapture","pid":1,"tid":1,"ts":100,"dur":1,"args":{"correlation":7}},
{"ph":"X","cat":"cpu_op","name":"D","pid":1,"tid":1,"ts":110,"dur":10,"args":{"External id":103}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":111,"dur":2,"args":{"External id":103,"correlation":8}},
{"ph":"X","cat":"cuda_runtime","name":"cudaMemsetAsync","pid":1,"tid":1,"ts":114,"dur":2,"args":{"External id":103,"correlation":9}},
{"ph":"X","cat":"cuda_runtime","name":"cudaStreamEndCapture","pid":1,"tid":1,"ts":130,"dur":1,"args":{"correlation":10}},
{"ph":"X","cat":"kernel","name":"eager_kernel","pid":0,"tid":7,"ts":45,"dur":3,"args":{"device":0,"stream":7,"correlation":4}}
]})json";

// Replay: graph launch 50 runs three kernels (the first window), graph launch 51 two (the
// second), 52 the first graph again, 53 four kernels (no window has four: unmatched).
inline const char *const kReplay = R"json({"schemaVersion":1,"deviceProperties":[],"traceEvents":[
{"ph":"X","cat":"python_function","name":"CUDAGraph.replay","pid":1,"tid":1,"ts":0,"dur":200},
{"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":1,"dur":5,"args":{"correlation":50}},
{"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":51}},
{"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":20,"dur":5,"args":{"correlation":52}},
{"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":30,"dur":5,"args":{"correlation":53}},
{"ph":"X","cat":"kernel","name":"k_a","pid":0,"tid":7,"ts":100,"dur":4,"args":{"device":0,"stream":7,"correlation":50}},
{"ph":"X","cat":"kernel","name":"k_b","pid":0,"tid":7,"ts":105,"dur":5,"args":{"device":0,"stream":7,"correlation":50}},
{"ph":"X","cat":"kernel","name":"k_c","pid":0,"tid":7,"ts":111,"dur":6,"args":{"device":0,"stream":7,"correlation":50}},
{"ph":"X","cat":"kernel","name":"k_d","pid":0,"tid":7,"ts":120,"dur":7,"args":{"device":0,"stream":7,"correlation":51}},
{"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":7,"ts":128,"dur":1,"args":{"device":0,"stream":7,"correlation":51}},
{"ph":"X","cat":"kernel","name":"k_a","pid":0,"tid":7,"ts":130,"dur":4,"args":{"device":0,"stream":7,"correlation":52}},
{"ph":"X","cat":"kernel","name":"k_b","pid":0,"tid":7,"ts":135,"dur":5,"args":{"device":0,"stream":7,"correlation":52}},
{"ph":"X","cat":"kernel","name":"k_c","pid":0,"tid":7,"ts":141,"dur":6,"args":{"device":0,"stream":7,"correlation":52}},
{"ph":"X","cat":"kernel","name":"k_x","pid":0,"tid":7,"ts":150,"dur":1,"args":{"device":0,"stream":7,"correlation":53}},
{"ph":"X","cat":"kernel","name":"k_x","pid":0,"tid":7,"ts":152,"dur":1,"args":{"device":0,"stream":7,"correlation":53}},
{"ph":"X","cat":"kernel","name":"k_x","pid":0,"tid":7,"ts":154,"dur":1,"args":{"device":0,"stream":7,"correlation":53}},
{"ph":"X","cat":"kernel","name":"k_x","pid":0,"tid":7,"ts":156,"dur":1,"args":{"device":0,"stream":7,"correlation":53}}
]})json";

} // namespace testsupport
