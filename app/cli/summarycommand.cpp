#include "commands.h"
#include "jsonout.h"
#include "options.h"

#include "core/io/traceloader.h"
#include "core/model/timeformat.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

namespace tracedesk::cli {

const char *const kSummaryUsage =
    "  summary FILE|DIR [--run NAME] [--json] [--no-cache]\n"
    "      Load a profile and print its planes, tracks, event counts, time span, warnings and\n"
    "      the names with the most total time. --json prints one JSON object instead.";

namespace {

struct NameTotal
{
    core::StringId name = 0;
    uint64_t count = 0;
    core::TimePs total = 0;
};

std::vector<NameTotal> topNames(const core::Trace &trace, size_t limit)
{
    std::unordered_map<core::StringId, NameTotal> byName;
    std::vector<uint64_t> count(trace.kinds.size(), 0);
    std::vector<core::TimePs> total(trace.kinds.size(), 0);
    for (const core::Track &t : trace.tracks) {
        for (const core::Row &r : t.rows) {
            for (size_t i = 0; i < r.size(); ++i) {
                ++count[r.kind[i]];
                total[r.kind[i]] += r.duration[i];
            }
        }
    }
    for (size_t k = 0; k < trace.kinds.size(); ++k) {
        if (count[k] == 0)
            continue;
        NameTotal &n = byName[trace.kinds[k].name];
        n.name = trace.kinds[k].name;
        n.count += count[k];
        n.total += total[k];
    }
    std::vector<NameTotal> out;
    out.reserve(byName.size());
    for (const auto &[id, n] : byName)
        out.push_back(n);
    std::sort(out.begin(), out.end(), [&](const NameTotal &a, const NameTotal &b) {
        if (a.total != b.total)
            return a.total > b.total;
        return trace.string(a.name) < trace.string(b.name);
    });
    if (out.size() > limit)
        out.resize(limit);
    return out;
}

uint64_t planeEvents(const core::Trace &trace, const core::Plane &plane)
{
    uint64_t n = 0;
    for (uint32_t t : plane.tracks)
        n += trace.tracks[t].eventCount();
    return n;
}

std::string formatName(const core::Trace &trace, core::SourceFormat format)
{
    if (!trace.info.format.empty())
        return trace.info.format;
    return core::sourceFormatName(format);
}

const char *planeKindName(core::PlaneKind kind)
{
    switch (kind) {
    case core::PlaneKind::Device: return "device";
    case core::PlaneKind::Host: return "host";
    case core::PlaneKind::Metadata: return "meta";
    case core::PlaneKind::Other: break;
    }
    return "other";
}

void printJson(const core::Trace &trace, core::SourceFormat format)
{
    const core::LoadInfo &info = trace.info;
    JsonOut json;
    json.beginObject().value("format", formatName(trace, format)).beginArray("sources");
    for (const auto &s : info.sources)
        json.value({}, s);
    json.endArray().beginArray("hosts");
    for (const auto &h : info.hosts)
        json.value({}, h);
    json.endArray()
        .value("planes", uint64_t(trace.planes.size()))
        .value("tracks", uint64_t(trace.tracks.size()))
        .value("events", trace.eventCount())
        .value("slices", trace.sliceCount())
        .value("counter_samples", trace.counterSampleCount())
        .value("aggregates", trace.aggregateCount())
        .value("flows", uint64_t(trace.flows.size()))
        .value("begin_ps", trace.begin)
        .value("end_ps", trace.end)
        .value("time_span_ps", trace.end - trace.begin)
        .value("source_bytes", info.sourceBytes)
        .value("load_s", info.loadSeconds)
        .value("from_cache", info.fromCache)
        .value("warnings", info.warningCount)
        .beginArray("warning_list");
    for (const auto &w : info.warnings)
        json.value({}, w);
    json.endArray();
    if (format == core::SourceFormat::XSpace) {
        json.value("xlines", info.xlines).value("xevents", info.xevents);
    } else {
        json.beginObject(format == core::SourceFormat::NsysSqlite ? "records_by_table"
                                                                   : "records_by_phase");
        for (const auto &[phase, n] : info.recordsByPhase)
            json.value(phase, n);
        json.endObject();
    }
    json.beginArray("plane_list");
    for (const core::Plane &p : trace.planes) {
        json.beginObject()
            .value("name", trace.string(p.name))
            .value("host", trace.string(p.host))
            .value("kind", planeKindName(p.kind))
            .value("tracks", uint64_t(p.tracks.size()))
            .value("events", planeEvents(trace, p))
            .endObject();
    }
    json.endArray().beginArray("top_names");
    for (const NameTotal &n : topNames(trace, 10)) {
        json.beginObject()
            .value("name", trace.string(n.name))
            .value("count", n.count)
            .value("total_ps", n.total)
            .endObject();
    }
    json.endArray().endObject();
    std::printf("%s\n", json.text().c_str());
}

void printText(const core::Trace &trace, core::SourceFormat format, const std::string &path)
{
    const core::LoadInfo &info = trace.info;
    auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
    std::printf("Source:      %s\n", path.c_str());
    std::printf("Format:      %s\n", formatName(trace, format).c_str());
    if (!info.run.framework.empty())
        std::printf("Framework:   %s\n", info.run.framework.c_str());
    for (const auto &s : info.sources)
        std::printf("  file:      %s\n", s.c_str());
    std::string hosts;
    for (const auto &h : info.hosts)
        hosts += (hosts.empty() ? "" : ", ") + h;
    std::printf("Hosts:       %s\n", hosts.empty() ? "-" : hosts.c_str());
    std::printf("Planes:      %zu\n", trace.planes.size());
    for (const core::Plane &p : trace.planes) {
        std::printf("  %-40s %-6s host %-16s %5zu tracks %12llu events\n",
                    std::string(trace.string(p.name)).c_str(), planeKindName(p.kind),
                    std::string(trace.string(p.host)).c_str(), p.tracks.size(),
                    u(planeEvents(trace, p)));
    }
    std::printf("Tracks:      %zu\n", trace.tracks.size());
    std::printf("Events:      %llu (slices %llu, counter samples %llu, aggregates %llu)\n",
                u(trace.eventCount()), u(trace.sliceCount()), u(trace.counterSampleCount()),
                u(trace.aggregateCount()));
    std::printf("Flows:       %zu\n", trace.flows.size());
    if (format == core::SourceFormat::XSpace)
        std::printf("XSpace:      %llu lines, %llu events\n", u(info.xlines), u(info.xevents));
    std::printf("Time span:   %s\n", core::formatDuration(trace.end - trace.begin).c_str());
    std::printf("Load time:   %.3f s%s\n", info.loadSeconds, info.fromCache ? " (from cache)" : "");
    std::printf("Warnings:    %llu\n", u(info.warningCount));
    for (const auto &w : info.warnings)
        std::printf("  %s\n", w.c_str());
    std::printf("Top names by total time:\n");
    for (const NameTotal &n : topNames(trace, 10)) {
        std::printf("  %14s %10llu x  %s\n", core::formatDuration(n.total).c_str(), u(n.count),
                    std::string(trace.string(n.name)).c_str());
    }
}

} // namespace

int runSummary(int argc, char **argv)
{
    ParsedArgs args;
    std::string error;
    const std::vector<OptionSpec> specs = {
        {"run", true}, {"json", false}, {"no-cache", false}, {"help", false}};
    if (!parseArgs(argc, argv, 2, specs, &args, &error))
        return fail("summary: " + error, kExitUsage);
    if (args.has("help")) {
        std::printf("Usage:\n%s\n", kSummaryUsage);
        return kExitOk;
    }
    if (args.positional.size() != 1)
        return fail("summary: expected exactly one FILE or DIR (try summary --help)", kExitUsage);
    const std::string path = args.positional.front();
    const core::LoadOptions options = loadOptionsFrom(args);
    auto source = core::resolveSource(path, options.runName);
    if (!source)
        return fail(source.message());
    auto trace = core::loadResolved(source.value(), nullptr, options);
    if (!trace)
        return fail(trace.message());
    if (args.has("json"))
        printJson(*trace.value(), source.value().format);
    else
        printText(*trace.value(), source.value().format, path);
    return kExitOk;
}

} // namespace tracedesk::cli
