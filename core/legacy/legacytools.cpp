#include "core/legacy/legacytools.h"

#include "core/analysis/podviewer.h"
#include "core/legacy/legacyhlotools.h"

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace tracedesk::core::legacy {

using namespace analysis;

namespace {

bool endsWith(const std::string &s, std::string_view suffix)
{
    return s.size() >= suffix.size()
           && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<std::string> filesEndingWith(const fs::path &dir, std::string_view suffix)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code fec;
        if (it->is_regular_file(fec) && endsWith(it->path().filename().string(), suffix))
            out.push_back(it->path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

Result<LegacyTools> readLegacyTools(const std::string &dir)
{
    if (!isLegacyRun(dir))
        return fileError(dir, "is not a legacy per-tool run folder (no tool files, or it holds "
                              ".xplane.pb files)");
    LegacyTools tools;
    tools.folder = dir;
    auto first = [&](std::string_view suffix) {
        auto files = filesEndingWith(dir, suffix);
        return files.empty() ? std::string() : files.front();
    };
    if (auto path = first(".input_pipeline.pb"); !path.empty()) {
        auto r = readInputPipelineFile(path);
        if (!r)
            return r.error();
        tools.inputPipeline = std::make_shared<const InputPipelineAnalysis>(std::move(r).value());
        tools.files.push_back(path);
    }
    if (auto path = first(".overview_page.pb"); !path.empty()) {
        auto r = readOverviewPageFile(path);
        if (!r)
            return r.error();
        tools.overview = std::make_shared<const OverviewPage>(std::move(r).value());
        tools.files.push_back(path);
        // The overview embeds its own input analysis: the panel falls back to it.
        if (!tools.inputPipeline)
            tools.inputPipeline = tools.overview->input;
    }
    if (auto path = first(".tensorflow_stats.pb"); !path.empty()) {
        auto r = readTfStatsFile(path);
        if (!r)
            return r.error();
        tools.frameworkOpStats = std::make_shared<const FrameworkOpStats>(std::move(r).value());
        tools.files.push_back(path);
    }
    if (auto path = first(".op_profile.json"); !path.empty()) {
        auto r = readOpProfileJsonFile(path);
        if (!r)
            return r.error();
        tools.opProfile = std::make_shared<const OpProfile>(std::move(r).value());
        tools.files.push_back(path);
    }
    if (auto path = first(".pod_viewer.json"); !path.empty()) {
        auto r = analysis::readPodViewerJsonFile(path);
        if (!r)
            return r.error();
        tools.podViewer = std::make_shared<const analysis::PodViewerData>(std::move(r).value());
        tools.files.push_back(path);
    }
    if (auto path = first(".hlo_stats.json"); !path.empty()) {
        auto r = readHloStatsJsonFile(path);
        if (!r)
            return r.error();
        tools.hloStats = std::make_shared<const HloStats>(std::move(r).value());
        tools.files.push_back(path);
    }
    if (auto path = first(".roofline_model.json"); !path.empty()) {
        auto r = readRooflineJsonFile(path);
        if (!r)
            return r.error();
        tools.roofline = std::make_shared<const RooflineModel>(std::move(r).value());
        tools.files.push_back(path);
    }
    for (std::string_view s : kLegacyToolSuffixes)
        for (const auto &f : filesEndingWith(dir, s))
            if (std::find(tools.files.begin(), tools.files.end(), f) == tools.files.end())
                tools.skipped.push_back(f);
    return tools;
}

void seedAnalyses(AnalysisCache &cache, const LegacyTools &tools)
{
    cache.put(tools.inputPipeline);
    cache.put(tools.overview);
    cache.put(tools.frameworkOpStats);
    cache.put(tools.opProfile);
    cache.put(tools.podViewer);
    cache.put(tools.hloStats);
    cache.put(tools.roofline);
}

Result<bool> seedFromLegacyRun(AnalysisCache &cache)
{
    const std::string folder = legacyRunFolder(cache.trace().info);
    if (folder.empty())
        return false;
    auto tools = readLegacyTools(folder);
    if (!tools)
        return tools.error();
    seedAnalyses(cache, tools.value());
    return true;
}

std::shared_ptr<const OpProfile> seededOpProfile(AnalysisCache &cache)
{
    if (!cache.has<OpProfile>())
        return nullptr;
    return cache.get<OpProfile>([](AnalysisCache &) { return OpProfile{}; });
}

} // namespace tracedesk::core::legacy
