#pragma once

// The RPD database of rocmProfileData (rpd_tracer, rocprofv1/v2's `rocpd` converter), the
// SQLite format AMD GPU captures used before rocprofv3's rocpd: one unsuffixed table set, its
// GPU operations in `rocpd_op` (gpuId, queueId, start, end in ns, a description and an op type
// by rocpd_string id), its host calls in `rocpd_api` (pid, tid, start, end, API name and
// arguments; roctx ranges and marks are `UserMarker` calls whose arguments are the message),
// `rocpd_api_ops` linking each call to the operations it enqueued, and optionally the launch
// configuration (`rocpd_kernelapi`, older `rocpd_kernelop`), copy sizes (`rocpd_copyapi`), HSA
// calls (`rocpd_hsaApi`) and device monitor samples (`rocpd_monitor`).
//
// Mapped as rocprofv3's records are (rocprofrecords.h): each gpuId a GPU, kernel executions as
// dispatches on their queue, copies by direction, calls with the id of `rocpd_api` as the
// correlation id their operations share (ids are unique in the file, so one scope serves every
// process), UserMarker calls as markers. Barrier and marker packets do no work and are counted
// in a load note, not shown.

#include "core/base/loadcontrol.h"
#include "core/base/result.h"
#include "core/io/nsys/nsysdatabase.h"
#include "core/io/rocprof/rocprofimporter.h"

namespace tracedesk::core::rocprof {

// An RPD database: rocpd_op and rocpd_api without a run suffix.
bool isRpdDatabase(const nsys::NsysDatabase &db);

Result<bool> readRpdTables(nsys::NsysDatabase &db, RocprofImporter &importer,
                           LoadControl &control, LoadInfo &info);

} // namespace tracedesk::core::rocprof
