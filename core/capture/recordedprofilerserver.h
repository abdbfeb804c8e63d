#pragma once

// RecordedProfilerServer: a real gRPC ProfilerService (FORMATS.md 3) that answers Profile with
// a recorded XSpace file, for demos (`tracedesk-cli serve`) and for the capture tests.
//
// Profile waits for the requested start time and duration (or a Terminate with the same
// session id), then sends the file's bytes verbatim as ProfileResponse.xspace, so a client
// can check that what it saved is byte-identical. It can also be told to answer with an empty
// trace, fail with an error text, hang until the caller gives up, answer UNAVAILABLE, or act
// like an older server that writes `<repository_root>/<session_id>/<host>.xplane.pb` on its own
// disk instead; `modeCalls` limits the mode to the first N Profile calls (for retries).
//
// Thread rules: start() and stop() from one owning thread; the counters, lastRequest() and the
// log callback are safe from any thread (the callback runs on gRPC's threads). stop() cancels
// calls still waiting and returns when every handler has finished.

#include "core/base/result.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core::capture {

enum class ServeMode { Trace, Empty, Fail, Hang, Unavailable, ServerSideWrite };

struct ServeOptions
{
    std::string xspacePath;
    std::string bindAddress = "127.0.0.1";
    int port = 0;                     // 0: an ephemeral port, see RecordedProfilerServer::port()
    int extraPorts = 0;               // more ephemeral ports, same service (many "hosts" at once)
    ServeMode mode = ServeMode::Trace;
    int modeCalls = -1;               // Profile calls that get `mode` before serving normally
    std::string failText = "profiler session failed (test server)";
    bool honourTerminate = true;
    // ServerSideWrite: a folder standing in for the server machine's root, so a test can play a
    // remote server whose disk the client cannot see. Empty: the real paths.
    std::string serverDiskRoot;
    std::function<void(const std::string &)> log;   // one line per event; optional
};

class RecordedProfilerServer
{
public:
    explicit RecordedProfilerServer(ServeOptions options);
    ~RecordedProfilerServer();
    RecordedProfilerServer(const RecordedProfilerServer &) = delete;
    RecordedProfilerServer &operator=(const RecordedProfilerServer &) = delete;

    // Loads the file and starts listening; returns the bound port.
    Result<int> start();
    void stop();

    int port() const;
    std::string address() const;          // "127.0.0.1:<port>"
    std::vector<std::string> addresses() const;   // address() then one per extra port
    int profileCalls() const;
    int terminateCalls() const;
    int activeCalls() const;              // Profile calls in progress
    std::string lastRequest() const;      // the serialized ProfileRequest of the latest call

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace tracedesk::core::capture
