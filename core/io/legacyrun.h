#pragma once

// Recognising a legacy per-tool run folder (FORMATS.md 4.2): older profile plugins wrote each
// tool's output per host (`<host>.overview_page.pb`, `<host>.op_profile.json`, ...) instead of
// `<host>.xplane.pb`. The loader only needs to know that a folder is such a run, which it loads
// as an empty trace; decoding the tool files into analysis results is core/legacy's job, a
// layer above, so the readers never depend on the analyses.
//
// Thread rules: pure functions of the file system; any thread.

#include "core/model/trace.h"

#include <string>
#include <vector>
#include <string_view>

namespace tracedesk::core::legacy {

// LoadInfo::format of the empty trace a legacy run folder loads as.
inline constexpr const char *kLegacyFormat = "legacy-tools";
inline constexpr const char *kLegacyNote = "legacy per-tool run: analysis panels only";

// Suffixes of FORMATS.md 4.2, except the trace viewer's `.trace.json.gz` (a normal Chrome run).
inline constexpr std::string_view kLegacyToolSuffixes[] = {
    ".overview_page.pb", ".overview_page.json", ".input_pipeline.pb", ".input_pipeline.json",
    ".tensorflow_stats.pb", ".op_profile.json", ".kernel_stats.pb", ".memory_viewer.json",
    ".pod_viewer.json", ".memory_profile.json.gz", ".tracetable", ".trace", ".hlo_stats.json",
    ".roofline_model.json"};

// A file name the old plugin wrote for a tool other than the trace viewer's Chrome JSON.
bool isLegacyToolFile(const std::string &fileName);
// A folder with legacy tool files and no `*.xplane.pb`.
bool isLegacyRun(const std::string &dir);
// The run folder a trace was loaded from when that folder is a legacy run, else empty.
std::string legacyRunFolder(const LoadInfo &info);

// What a legacy run folder holds, for telling the user: the tools (by their panel names, in
// kLegacyToolSuffixes order, each once) and the hosts (file name before the suffix), sorted.
struct LegacyRunContents
{
    std::vector<std::string> tools;
    std::vector<std::string> hosts;
};
LegacyRunContents legacyRunContents(const std::string &dir);

} // namespace tracedesk::core::legacy
