#pragma once

// checkConnection: the capture dialog's "Test connection" pre-flight. Within a time limit it
// finds out whether anything accepts a connection at host:port and whether a gRPC server
// answers there, and says so in plain words. It calls Monitor, which every ProfilerService
// has: open-source TensorFlow / JAX servers answer UNIMPLEMENTED, which still proves that a
// gRPC server is listening. Blocking; call it from a worker thread.

#include <cstdint>
#include <string>

namespace tracedesk::core::capture {

struct ConnectionCheck
{
    bool reachable = false;       // a connection was established
    bool grpcAnswered = false;    // a gRPC server answered the Monitor call
    std::string message;          // plain words
};

ConnectionCheck checkConnection(const std::string &address, uint64_t timeoutMs = 3000);

} // namespace tracedesk::core::capture
