#pragma once

// CaptureSession: one live capture from one or more profiler servers (FORMATS.md 3.4).
//
// run() blocks the calling thread for the whole capture. It reserves a fresh run directory,
// starts one Profile call per address on its own thread (all in parallel, up to
// parallelHosts(options) at a time: the others start as earlier hosts finish), retries the round
// when every host came back empty or a host was unavailable, saves each returned XSpace as
// `<run>/<host>.xplane.pb`, and returns one outcome per host. Each host moves through
// Idle -> Connecting -> Capturing -> Receiving -> Saving -> Done, or ends Failed / Cancelled.
//
// Each response is held in memory by gRPC until it is complete, so it is capped twice: gRPC
// refuses a complete message over responseLimitBytes, and while calls are in flight the process
// may grow by at most memoryBudgetBytes (checked every 100 ms), past which the calls still
// waiting are cancelled. Either way the host fails as TooLarge instead of exhausting memory.
//
// Threads: run() starts at most parallelHosts(options) threads of its own (32 by default), all
// joined before it returns; gRPC adds its own small, bounded pool whatever the host count.
// Thread rules: stopEarly(), cancel() and snapshot() may be called from any thread while run()
// is in progress. The progress callback is only ever invoked on the thread that called run(),
// about every 100 ms while it runs and once at the end. A session runs once.
// Invariants: a file under its final name is always complete (see PendingFile); an existing
// run directory is never written into; when no host is saved the new run directory is removed.

#include "core/capture/captureoptions.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core::capture {

enum class CaptureState { Idle, Connecting, Capturing, Receiving, Saving, Done, Failed, Cancelled };

enum class FailureKind {
    None,
    Unreachable,     // nothing answered on that address
    TimedOut,        // the deadline passed first
    EmptyTrace,      // the server answered without trace events
    ServerError,     // the server returned an error status
    ServerSideFile,  // an older server saved the file on its own disk (see serverPath)
    SaveFailed,      // the trace arrived but could not be written locally
    Cancelled,
    TooLarge,        // the response was over the receive limit (responseLimitBytes)
    ConnectionLost,  // the connection broke after the call started (server exited or crashed)
};

const char *stateName(CaptureState state);
bool isFinal(CaptureState state);

struct HostProgress
{
    std::string address;
    CaptureState state = CaptureState::Idle;
    int attempt = 0;                 // 1-based once started
    int64_t elapsedMs = 0;           // of the recording; negative while the start delay runs
    uint64_t durationMs = 0;
    uint64_t bytesReceived = 0;      // known once the response has arrived
    uint64_t bytesSaved = 0;
};

struct CaptureSnapshot
{
    std::vector<HostProgress> hosts;
    bool stopRequested = false;
    bool cancelRequested = false;
};

struct HostOutcome
{
    std::string address;
    CaptureState state = CaptureState::Idle;   // Done, Failed or Cancelled
    FailureKind failure = FailureKind::None;
    std::string savedPath;       // Done: the local file
    std::string serverPath;      // ServerSideFile: where the server wrote it, on its machine
    std::string message;         // plain words for the user
    std::string serverText;      // the gRPC status message, verbatim
    int statusCode = 0;          // grpc::StatusCode of the last attempt
    int attempts = 0;
    uint64_t bytes = 0;          // size of the saved XSpace
};

struct CaptureResult
{
    CaptureState state = CaptureState::Idle;   // Done if any host was saved
    std::string runDir;          // kept only when at least one host was saved
    std::string message;         // one-line summary
    std::vector<HostOutcome> hosts;
    int savedCount() const;
};

class CaptureSession
{
public:
    explicit CaptureSession(CaptureOptions options);
    ~CaptureSession();
    CaptureSession(const CaptureSession &) = delete;
    CaptureSession &operator=(const CaptureSession &) = delete;

    void setProgressCallback(std::function<void(const CaptureSnapshot &)> callback);

    CaptureResult run();

    // Asks every server still recording to stop now and send what it has (Terminate).
    void stopEarly();
    // Abandons the capture: pending calls are cancelled and nothing partial is left on disk.
    void cancel();
    CaptureSnapshot snapshot() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace tracedesk::core::capture
