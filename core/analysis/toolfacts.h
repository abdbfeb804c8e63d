#pragma once

// Facts that decide whether an analysis tool has anything to show for a profile, cheap enough
// to ask on every load (a pass over planes, tracks and kinds, never over events):
// - hasGpuDevice: a device plane other than a TPU holds events (kernels, memcpys). Kernel
//   Stats lists GPU kernels; a TPU or CPU-only profile has none.
// - hasTfDataIterators: a host event kind is a tf.data iterator (`Iterator::…`), what the
//   tf.data bottleneck analysis reads.
// Pure functions of the immutable trace; any thread.

#include "core/model/trace.h"

namespace tracedesk::core::analysis {

bool hasGpuDevice(const Trace &trace);
bool hasTfDataIterators(const Trace &trace);

} // namespace tracedesk::core::analysis
