#pragma once

// The Kineto (PyTorch profiler) dialect of Chrome trace JSON, as the store's model sees it:
// which role a category gives a slice, which roles are GPU activities (they live on device
// planes, one track per stream), and which args become typed side columns.
//
// Categories are matched case-insensitively and cover both the 2021 capitalised names and the
// current ones (../shared/PYTORCH.md 1.4), so analyses never read category text.

#include "core/model/types.h"

#include <optional>
#include <string_view>

namespace tracedesk::core::kineto {

// The role of an event of category `cat` named `name` (None when Kineto has no such category).
SliceRole roleOf(std::string_view cat, std::string_view name);

// GPU activities: recorded with pid = device index and tid = stream.
inline constexpr bool isDeviceRole(SliceRole role)
{
    return role == SliceRole::Kernel || role == SliceRole::Memcpy || role == SliceRole::Memset
           || role == SliceRole::Sync || role == SliceRole::GpuAnnotation;
}

// Flow categories Kineto writes from a launch to its GPU activity (every dialect). The store
// binds those by correlation id instead (launch and activity are known exactly), so the flow
// events themselves are only a fallback.
bool isLaunchFlow(std::string_view cat, std::string_view name);

// The side column an arg key maps to, if any (exact keys as Kineto writes them, old spellings
// included).
std::optional<SideColumn> sideColumnOf(std::string_view key);

// Whether the side column is scaled to millionths when stored.
inline constexpr bool isMillionths(SideColumn column)
{
    return column == SideColumn::BlocksPerSm || column == SideColumn::WarpsPerSm;
}

// "[1, 2, 3]" -> packDim3(1, 2, 3); nullopt when the text is not a list of up to 3 integers.
std::optional<int64_t> parseDim3(std::string_view json);

// Canonical decimal text of an integer ("25738", "-1"; no sign '+', no leading zeros): Chrome's
// importer keys threads by value as text, so such a string and the number are one id.
std::optional<int64_t> canonicalInteger(std::string_view text);

} // namespace tracedesk::core::kineto
