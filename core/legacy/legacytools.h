#pragma once

// Legacy per-tool run folders (FORMATS.md 4.2): older profile plugins wrote each tool's output
// per host (`<host>.overview_page.pb`, `<host>.input_pipeline.pb`, `<host>.tensorflow_stats.pb`,
// `<host>.op_profile.json`) instead of, or beside, `<host>.xplane.pb`. This module decodes those
// files into the project's own analysis results and seeds an AnalysisCache with them, so the
// panels and the CLI show the recorded figures for a folder that has no trace to analyse.
//
// LegacyTools owns the decoded results; it is an immutable value once read and may be shared
// across threads. With several hosts, the first host (by file name) of each tool is used. The
// older DataTable `.json` variants of overview_page / input_pipeline are listed in `skipped`
// and not decoded.

#include "core/analysis/analysiscache.h"
#include "core/analysis/frameworkopstats.h"
#include "core/analysis/hlostats.h"
#include "core/analysis/inputpipeline.h"
#include "core/analysis/opprofile.h"
#include "core/analysis/overview.h"
#include "core/analysis/podviewer.h"
#include "core/analysis/roofline.h"
#include "core/base/result.h"
#include "core/io/legacyrun.h"

#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core::legacy {

struct LegacyTools
{
    std::string folder;
    std::vector<std::string> files;     // tool files decoded
    std::vector<std::string> skipped;   // tool files present but not decoded
    std::shared_ptr<const analysis::OverviewPage> overview;
    std::shared_ptr<const analysis::InputPipelineAnalysis> inputPipeline;
    std::shared_ptr<const analysis::FrameworkOpStats> frameworkOpStats;
    std::shared_ptr<const analysis::OpProfile> opProfile;
    std::shared_ptr<const analysis::PodViewerData> podViewer;
    std::shared_ptr<const analysis::HloStats> hloStats;
    std::shared_ptr<const analysis::RooflineModel> roofline;
};

Result<analysis::InputPipelineAnalysis> readInputPipelineFile(const std::string &path);
Result<analysis::OverviewPage> readOverviewPageFile(const std::string &path);
Result<analysis::FrameworkOpStats> readTfStatsFile(const std::string &path);
Result<analysis::OpProfile> readOpProfileJsonFile(const std::string &path);

// Every decodable tool file of `dir`; an error names the first file that does not decode.
Result<LegacyTools> readLegacyTools(const std::string &dir);

// Puts the results into the cache, before anything asks for them. The op profile panel builds
// its tree per OpProfileOptions from the cached OpStats, which a tool file cannot provide; the
// recorded tree is stored as OpProfile and read back through seededOpProfile().
void seedAnalyses(analysis::AnalysisCache &cache, const LegacyTools &tools);
// Reads and seeds when the cache's trace came from a legacy run folder. True when seeded.
Result<bool> seedFromLegacyRun(analysis::AnalysisCache &cache);
// The op profile seeded from `op_profile.json`, or nullptr.
std::shared_ptr<const analysis::OpProfile> seededOpProfile(analysis::AnalysisCache &cache);

} // namespace tracedesk::core::legacy
