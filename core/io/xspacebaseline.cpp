#include "core/io/xspacebaseline.h"

#include "xplane.pb.h"

#include <google/protobuf/arena.h>

#include <chrono>
#include <fstream>
#include <iterator>

namespace tracedesk::core {

double naiveXSpaceParseSeconds(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return -1;
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad())
        return -1;
    const auto started = std::chrono::steady_clock::now();
    google::protobuf::Arena arena;
    auto *space = google::protobuf::Arena::CreateMessage<tensorflow::profiler::XSpace>(&arena);
    if (!space->ParseFromString(bytes))
        return -1;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

} // namespace tracedesk::core
