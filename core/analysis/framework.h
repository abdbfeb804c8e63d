#pragma once

// frameworkOf: which ML framework wrote a profile, for reports that branch on it (the CLI's
// PyTorch views) and for scripts reading the overview's "framework" key.
//
// The reader's word wins: RunMetadata::framework ("pytorch" for Kineto traces). Otherwise the
// store is searched for markers each framework leaves (XSpace; first match in this order):
// - "tensorflow": TensorFlow graph execution: `TensorFlow Ops` / `TensorFlow Name Scope` lines,
//   executor threads (`tf_Compute/…`) or events (`ExecutorState::Process`), or `tf_op` stats in
//   TensorFlow's `name:Type` form. Checked first because TF programs compiled with XLA carry
//   XLA modules as well.
// - "jax": an XLA module named like a JAX transform (`jit_…`, `pmap_…`) together with a PjRt
//   runtime (`pjrt…` / `tf_pjrt_thread_pool` threads, `PjRt…` / `PJRT_…` events) or JAX's
//   Python entry points (`py_xla_execute` threads, Python frames naming jax). JAX on PjRt
//   reuses TF's thread-pool names, so `tf_pjrt_…` threads are not TensorFlow markers, and JAX's
//   `tf_op` stats read `jit(f)/…` (TPU) or `XlaModule:` (GPU), not `name:Type`.
// - "xla": other XLA modules (an `XLA Modules` line, `hlo_module` stats, `jit_` modules alone).
// - "unknown": none of these.
//
// A pure function of the trace, no caching (one pass over tracks and kinds, and a bounded
// sample of each row's tf_op / hlo_module values); safe to call from any thread.

#include "core/model/trace.h"

#include <string>

namespace tracedesk::core::analysis {

std::string frameworkOf(const Trace &trace);

// A PyTorch profiler (Kineto) trace: the reader says so (no search).
bool isPyTorchTrace(const Trace &trace);

// The reader mapped GPU work into activity roles (kernels, copies, launches with correlation ids
// and stream / launch side columns): a Kineto trace, or a profiler export read into the same
// model (Nsight Systems). The kernel view, its classification and the GPU time breakdown read
// those roles, whatever the format; framework-only views (operators, steps) still need PyTorch.
bool hasGpuActivityRoles(const Trace &trace);

// The overview, kernel, step and operator views read the trace's GPU work by role (PyTorch,
// Nsight Systems, rocprofv3). An XSpace's GPU work carries roles too, for the GPU time analyses
// and the critical path, but those views keep reading it by XProf's rules (its kernel details,
// step and op lines), so their numbers stay XProf's.
bool readsGpuWorkByRole(const Trace &trace);

} // namespace tracedesk::core::analysis
