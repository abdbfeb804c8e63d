#pragma once

// One TCP connection attempt to host:port, to tell a refused port (nothing listens: answered at
// once) from an unreachable or silent host (no answer before the deadline). gRPC's own channel
// keeps retrying a refused port until its deadline and then only says it did not connect.

#include <cstdint>
#include <string>

namespace tracedesk::core::capture {

enum class TcpProbeResult : uint8_t { Connected, Refused, TimedOut, Unresolved, Failed };

struct TcpProbe
{
    TcpProbeResult result = TcpProbeResult::Failed;
    std::string detail;   // the system's words for a failure
};

// `address` is host:port or [IPv6]:port, as parseAddress() accepts it.
TcpProbe probeTcp(const std::string &address, uint64_t timeoutMs);

} // namespace tracedesk::core::capture
