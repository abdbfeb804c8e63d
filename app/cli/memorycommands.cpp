#include "commands.h"
#include "jsonout.h"
#include "options.h"
#include "pytorchcommands.h"

#include "core/analysis/memoryprofile.h"
#include "core/analysis/memoryviewer.h"
#include "core/hlo/hlomodules.h"
#include "core/io/traceloader.h"
#include "core/model/timeformat.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace tracedesk::cli {

const char *const kMemoryProfileUsage =
    "  memory-profile FILE|DIR [--json] [--rank N]\n"
    "      Allocator memory over time per host and allocator: peak (lifetime and in window),\n"
    "      capacity, fragmentation, and the allocations live at the peak. PyTorch (Kineto)\n"
    "      traces: per device (CPU, GPU0, ...) the [memory] record count and the peak allocated\n"
    "      and reserved bytes with their times (ms from the trace origin).";
const char *const kMemoryViewerUsage =
    "  memory-viewer FILE|DIR [--module NAME] [--color N] [--json]\n"
    "      HLO buffer assignment per module (default memory space 0): peak heap, padding,\n"
    "      parameters, outputs, temporaries, fragmentation, the largest buffers at the peak.\n"
    "      Without --module, every module is listed.";
const char *const kExtractHloUsage =
    "  extract-hlo FILE|DIR OUTDIR\n"
    "      Write each embedded HLO module as OUTDIR/<module>(<program id>).hlo_proto.pb.\n"
    "      Existing files are never overwritten: identical ones are reported as present,\n"
    "      different ones make the command fail; only missing files are written.";

namespace {

double mib(int64_t bytes) { return double(bytes) / (1024.0 * 1024.0); }
double gib(int64_t bytes) { return double(bytes) / (1024.0 * 1024.0 * 1024.0); }

core::Result<core::TracePtr> load(const std::string &path)
{
    return core::loadTrace(path);
}

} // namespace

int runMemoryProfile(int argc, char **argv)
{
    ParsedArgs args;
    std::string error;
    if (!parseArgs(argc, argv, 2, {{"json", false}, {"rank", true}}, &args, &error)
        || args.positional.size() != 1)
        return fail(error.empty() ? "memory-profile: expected one FILE" : error, kExitUsage);
    auto trace = load(args.positional[0]);
    if (!trace.ok())
        return fail(trace.message());
    if (isPyTorchTrace(*trace.value())) {
        int code = kExitOk;
        const auto ranked = pytorchRankAnalyses(
            std::make_shared<core::analysis::AnalysisCache>(trace.value()), "memory-profile",
            rankOption(args), args.has("json"), &code);
        return ranked ? printPyTorchMemoryProfile(*ranked, args.has("json")) : code;
    }
    if (args.has("rank"))
        return fail("memory-profile: --rank applies to PyTorch (Kineto) traces only", kExitUsage);
    const auto set = core::analysis::computeMemoryProfiles(*trace.value());
    if (args.has("json")) {
        JsonOut json;
        json.beginObject().beginArray("profiles");
        for (const auto &p : set.profiles) {
            const auto &s = p.summary;
            json.beginObject()
                .value("host", p.host)
                .value("memory_id", p.memoryId)
                .value("snapshots", uint64_t(p.snapshots.size()))
                .value("allocations", s.allocations)
                .value("deallocations", s.deallocations)
                .value("peak_bytes_lifetime", s.peakBytesLifetime)
                .value("peak_bytes_in_window", s.peakBytesInWindow)
                .value("peak_time_ps", s.peakTime)
                .value("capacity_bytes", s.capacity)
                .value("stack_reserved_bytes", s.peakStats.stackReservedBytes)
                .value("heap_allocated_bytes", s.peakStats.heapAllocatedBytes)
                .value("free_memory_bytes", s.peakStats.freeMemoryBytes)
                .value("fragmentation", s.peakStats.fragmentation)
                .value("peak_step_id", p.peakStepId)
                .beginArray("breakdown");
            for (const auto &r : p.breakdown) {
                json.beginObject()
                    .value("op_name", r.opName)
                    .value("allocation_bytes", r.allocationBytes)
                    .value("requested_bytes", r.requestedBytes)
                    .value("occurrences", r.occurrences)
                    .value("region_type", r.regionType)
                    .value("data_type", r.dataType)
                    .value("shape", r.shape)
                    .endObject();
            }
            json.endArray().endObject();
        }
        json.endArray().endObject();
        std::printf("%s\n", json.text().c_str());
        return kExitOk;
    }
    if (set.profiles.empty()) {
        std::printf("No allocator events (MemoryAllocation / MemoryDeallocation) in this profile.\n"
                    "They are recorded with host_tracer_level >= 2.\n");
        return kExitOk;
    }
    for (const auto &p : set.profiles) {
        const auto &s = p.summary;
        std::printf("%s  %s: %zu snapshots, %lld allocations, %lld deallocations\n",
                    p.host.c_str(), p.memoryId.c_str(), p.snapshots.size(),
                    (long long)s.allocations, (long long)s.deallocations);
        std::printf("  peak in window %.3f GiB at %s (stack %.3f, heap %.3f, free %.3f GiB, "
                    "fragmentation %.1f%%)\n  lifetime peak %.3f GiB, capacity %.3f GiB\n",
                    gib(s.peakBytesInWindow), core::formatDuration(s.peakTime).c_str(),
                    gib(s.peakStats.stackReservedBytes), gib(s.peakStats.heapAllocatedBytes),
                    gib(s.peakStats.freeMemoryBytes), 100 * s.peakStats.fragmentation,
                    gib(s.peakBytesLifetime), gib(s.capacity));
        for (const auto &r : p.breakdown) {
            std::printf("    %12.3f MiB x%-4lld %-40s %-16s %-10s %s\n", mib(r.allocationBytes),
                        (long long)r.occurrences, r.opName.c_str(), r.regionType.c_str(),
                        r.dataType.c_str(), r.shape.c_str());
        }
    }
    return kExitOk;
}

int runMemoryViewer(int argc, char **argv)
{
    ParsedArgs args;
    std::string error;
    if (!parseArgs(argc, argv, 2, {{"json", false}, {"module", true}, {"color", true}}, &args,
                   &error)
        || args.positional.size() != 1)
        return fail(error.empty() ? "memory-viewer: expected one FILE" : error, kExitUsage);
    unsigned long long color = 0;
    if (args.has("color") && !parseCount(args.value("color"), &color))
        return fail("memory-viewer: --color expects a number", kExitUsage);
    auto trace = load(args.positional[0]);
    if (!trace.ok())
        return fail(trace.message());
    core::hlo::HloModuleIndex index(core::hlo::hloModulesForTrace(*trace.value()));
    for (const std::string &e : index.errors())
        std::fprintf(stderr, "tracedesk-cli: warning: %s\n", e.c_str());
    const std::string wanted = args.value("module");
    if (!wanted.empty() && !index.byName(wanted))
        return fail("memory-viewer: no HLO module named '" + wanted + "'");
    JsonOut json;
    json.beginObject().beginArray("modules");
    if (index.modules().empty() && !args.has("json"))
        std::printf("No HLO modules in this profile.\n");
    for (const auto &m : index.modules()) {
        if (!wanted.empty() && m.get() != index.byName(wanted))
            continue;
        core::analysis::MemoryViewerOptions options;
        options.memoryColor = int64_t(color);
        auto r = core::analysis::computeMemoryViewer(m->proto, m->entry.displayName(), options);
        if (!r.ok()) {
            std::fprintf(stderr, "tracedesk-cli: warning: %s\n", r.message().c_str());
            continue;
        }
        const auto &v = r.value();
        if (args.has("json")) {
            json.beginObject()
                .value("module", v.moduleName)
                .value("entry_computation", v.entryComputationName)
                .value("memory_color", v.memoryColor)
                .value("peak_heap_bytes", v.peakHeapBytes)
                .value("peak_unpadded_heap_bytes", v.peakUnpaddedHeapBytes)
                .value("peak_position", int64_t(v.peakPosition))
                .value("heap_events", uint64_t(v.heapSizes.size()))
                .value("entry_parameters_bytes", v.entryParametersBytes)
                .value("non_reusable_bytes", v.nonReusableBytes)
                .value("maybe_live_out_bytes", v.maybeLiveOutBytes)
                .value("total_allocation_bytes", v.totalAllocationBytes)
                .value("indefinite_allocation_bytes", v.indefiniteAllocationBytes)
                .value("fragmentation_percent", v.fragmentationPercent())
                .beginArray("max_heap_by_size");
            for (const auto &o : v.maxHeapBySize) {
                json.beginObject()
                    .value("label", o.label)
                    .value("logical_buffer_id", o.bufferId)
                    .value("size_bytes", o.size)
                    .value("unpadded_bytes", o.unpaddedSize)
                    .endObject();
            }
            json.endArray().endObject();
            continue;
        }
        std::printf("%s  (entry %s, memory space %lld)\n", v.moduleName.c_str(),
                    v.entryComputationName.c_str(), (long long)v.memoryColor);
        std::printf("  peak %.3f MiB at event %d of %zu, unpadded %.3f MiB, padding %.3f MiB\n",
                    mib(v.peakHeapBytes), v.peakPosition, v.heapSizes.size(),
                    mib(v.peakUnpaddedHeapBytes), mib(v.paddingOverheadBytes()));
        std::printf("  parameters %.3f MiB, outputs %.3f MiB, non-reusable %.3f MiB, "
                    "temporaries %.3f MiB, total allocation %.3f MiB, fragmentation %.1f%%\n",
                    mib(v.entryParametersBytes), mib(v.maybeLiveOutBytes),
                    mib(v.nonReusableBytes), mib(v.temporaryBytes()),
                    mib(v.totalAllocationBytes), v.fragmentationPercent());
        size_t shown = 0;
        for (const auto &o : v.maxHeapBySize) {
            if (++shown > 10)
                break;
            std::printf("    %12.4f MiB  %s\n", mib(o.size), o.label.c_str());
        }
    }
    if (args.has("json")) {
        json.endArray().endObject();
        std::printf("%s\n", json.text().c_str());
    }
    return kExitOk;
}

int runExtractHlo(int argc, char **argv)
{
    namespace fs = std::filesystem;
    ParsedArgs args;
    std::string error;
    if (!parseArgs(argc, argv, 2, {}, &args, &error) || args.positional.size() != 2)
        return fail(error.empty() ? "extract-hlo: expected FILE and OUTDIR" : error, kExitUsage);
    auto trace = load(args.positional[0]);
    if (!trace.ok())
        return fail(trace.message());
    const auto modules = core::hlo::extractHloModules(*trace.value());
    if (modules.empty())
        return fail(args.positional[0] + ": no embedded HLO modules (no `Hlo Proto` stats in "
                    "/host:metadata)");
    const fs::path out(args.positional[1]);
    std::error_code ec;
    fs::create_directories(out, ec);
    if (ec)
        return fail(out.string() + ": cannot create the folder (" + ec.message() + ")");
    int written = 0, present = 0, conflicts = 0;
    for (const auto &m : modules) {
        const fs::path file = out / m.fileName();
        if (fs::exists(file, ec)) {
            std::ifstream in(file, std::ios::binary);
            const std::string old((std::istreambuf_iterator<char>(in)), {});
            if (old == m.bytes) {
                ++present;
                std::printf("present   %s\n", file.string().c_str());
            } else {
                ++conflicts;
                std::fprintf(stderr, "tracedesk-cli: %s: exists with different contents; "
                             "not overwritten\n", file.string().c_str());
            }
            continue;
        }
        std::ofstream o(file, std::ios::binary);
        o.write(m.bytes.data(), std::streamsize(m.bytes.size()));
        o.close();
        if (!o)
            return fail(file.string() + ": cannot write the file");
        ++written;
        std::printf("wrote     %s (%zu bytes)\n", file.string().c_str(), m.bytes.size());
    }
    std::printf("%d written, %d already present, %d conflicting\n", written, present, conflicts);
    return conflicts ? kExitError : kExitOk;
}

} // namespace tracedesk::cli
