#pragma once

// The roles of an XSpace's GPU work, mapped at load so that the GPU time analyses and the
// critical path read a TensorFlow or JAX GPU profile as they read a Kineto trace:
// - on a `/device:GPU:N` plane, the events of its `Stream #N...` lines are GPU activities:
//   `Memcpy*` events memory copies, `Memset*` events memory sets, every other event a kernel;
// - on a host plane, an event kind whose events carry a `correlation_id` (the CUPTI / roctracer
//   API call that queued GPU work: cuLaunchKernel, hipModuleLaunchKernel, hipMemcpyAsync, or in
//   older TensorFlow captures the launch named after its kernel) is a runtime call.
// The device plane's other lines (XLA Ops, TensorFlow Ops, Steps ...) keep no role: an event
// kind shared by a stream line and such a line is split, the stream's events getting a copy of
// it with the role, so nothing else changes. The stream id is the line's id (the track's source
// id) and the device the plane's id, which XSpace sets to the GPU's ordinal.

#include "core/model/trace.h"

namespace tracedesk::core {

void mapXSpaceGpuRoles(Trace &trace);

} // namespace tracedesk::core
