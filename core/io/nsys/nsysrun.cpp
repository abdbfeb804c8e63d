// Several Nsight Systems exports of one job (one per rank, as `nsys profile` under mpirun or
// torchrun writes them) opened together: each is read on its own, then merged into one trace with
// a section per rank, put on one clock by each export's UTC session start.

#include "core/io/nsys/nsysreader.h"

#include "core/io/rankpart.h"
#include "core/io/runranks.h"
#include "core/model/tracemerge.h"

#include <filesystem>

namespace tracedesk::core {

Result<std::shared_ptr<Trace>> readNsysSqliteRun(const std::vector<std::string> &paths,
                                                 LoadControl *control,
                                                 const LoadOptions &options)
{
    LoadControl localControl;
    if (!control)
        control = &localControl;
    // Ranks from the file names (report_rank3.sqlite), else the order given.
    const std::vector<RunFile> files = runFiles(paths);
    std::vector<std::shared_ptr<Trace>> traces;
    for (const RunFile &f : files) {
        auto one = readNsysSqlite(f.path, control, options);
        if (!one)
            return one.error();
        if (control->cancelRequested())
            return Result<std::shared_ptr<Trace>>::cancelled();
        traces.push_back(std::move(one).value());
    }

    // The earliest session start is the merged time 0.
    int64_t minOrigin = 0;
    for (const auto &t : traces) {
        const int64_t o = t->info.run.clockOriginNs;
        if (o != 0 && (minOrigin == 0 || o < minOrigin))
            minOrigin = o;
    }
    LoadInfo info;
    info.format = "nsys-sqlite";
    info.sources = paths;
    info.run = traces.front()->info.run;
    info.run.clockOriginNs = minOrigin;
    std::vector<MergePart> parts;
    for (size_t i = 0; i < files.size(); ++i) {
        const std::string fileName = std::filesystem::path(files[i].path).filename().string();
        const std::string label = "rank " + std::to_string(files[i].rank);
        const TimePs shift =
            addRankPart(info, traces[i]->info, fileName, label, minOrigin, minOrigin != 0);
        parts.push_back(MergePart{traces[i], label, fileName, shift});
    }
    traces.clear();
    std::shared_ptr<Trace> merged = mergeTraces(std::move(parts));
    for (const std::string &w : merged->info.warnings)
        info.warn(w);
    merged->info = std::move(info);
    return merged;
}

} // namespace tracedesk::core
