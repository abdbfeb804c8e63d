#include "core/io/graphcapturepair.h"

#include "core/io/decompress.h"

namespace tracedesk::core {

namespace {

// Enough for the capture traces serving engines write (tens of MB). Their capture calls can sit
// near the end (Kineto writes Python frames first), so the bound is generous; a longer file is
// looked at up to here.
constexpr size_t kScanBytes = size_t(256) << 20;

struct Calls
{
    bool beginsCapture = false;
    bool launchesGraph = false;
};

Calls scan(const std::string &path)
{
    const std::string text = readFileHead(path, kScanBytes);
    return {text.find("StreamBeginCapture") != std::string::npos,
            text.find("GraphLaunch\"") != std::string::npos};
}

} // namespace

std::optional<GraphCapturePair> findGraphCapturePair(const std::vector<std::string> &files)
{
    if (files.size() != 2)
        return std::nullopt;
    const Calls a = scan(files[0]);
    if (!a.beginsCapture && !a.launchesGraph)
        return std::nullopt; // two rank traces, most often: the second file is not read
    const Calls b = scan(files[1]);
    // The capture file may launch a graph too (a warm-up replay); the replay captures nothing.
    if (a.beginsCapture && !b.beginsCapture && b.launchesGraph)
        return GraphCapturePair{files[1], files[0]};
    if (b.beginsCapture && !a.beginsCapture && a.launchesGraph)
        return GraphCapturePair{files[0], files[1]};
    return std::nullopt;
}

} // namespace tracedesk::core
