#include "core/capture/capturesession.h"

#include "core/capture/capturefiles.h"
#include "core/capture/capturetext.h"
#include "core/capture/responsereader.h"
#include "core/io/memoryguard.h"

#include "profiler_service.grpc.pb.h"

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

namespace tracedesk::core::capture {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr auto kTick = std::chrono::milliseconds(100);
constexpr auto kTerminateTimeout = std::chrono::seconds(3);
const char *const kProfileMethod = "/tensorflow.ProfilerService/Profile";

struct AttemptResult
{
    bool empty = false;
    bool retryable = false;
};

bool retryableStatus(const grpc::Status &s)
{
    return s.error_code() == grpc::StatusCode::UNAVAILABLE ||
           s.error_code() == grpc::StatusCode::ALREADY_EXISTS ||
           (s.error_code() == grpc::StatusCode::UNKNOWN &&
            s.error_message().find("Stream removed") != std::string::npos);
}

// gRPC's own refusal of a response over the channel's receive limit ("Received message larger
// than max (N vs. M)"); a server that cannot send says "Sent message ...", which stays a server
// error.
bool overReceiveLimit(const grpc::Status &s)
{
    return s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
           s.error_message().find("Received message larger than max") != std::string::npos;
}

// A status the client's transport made up because the connection broke mid-call, as opposed to
// one the server sent. gRPC gives no flag for it; these are the texts its transports use.
bool connectionBroke(const grpc::Status &s)
{
    const auto code = s.error_code();
    if (code != grpc::StatusCode::UNAVAILABLE && code != grpc::StatusCode::UNKNOWN &&
        code != grpc::StatusCode::INTERNAL)
        return false;
    std::string text = s.error_message();
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    static const char *const kTransportTexts[] = {
        "socket closed", "connection reset", "broken pipe", "stream removed", "goaway",
        "endpoint", "end of file", "eof", "transport closed", "connection closed"};
    for (const char *t : kTransportTexts) {
        if (text.find(t) != std::string::npos)
            return true;
    }
    return false;
}

uint64_t nowNs()
{
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count());
}

} // namespace

const char *stateName(CaptureState state)
{
    switch (state) {
    case CaptureState::Idle: return "idle";
    case CaptureState::Connecting: return "connecting";
    case CaptureState::Capturing: return "capturing";
    case CaptureState::Receiving: return "receiving";
    case CaptureState::Saving: return "saving";
    case CaptureState::Done: return "done";
    case CaptureState::Failed: return "failed";
    case CaptureState::Cancelled: return "cancelled";
    }
    return "?";
}

bool isFinal(CaptureState state)
{
    return state == CaptureState::Done || state == CaptureState::Failed ||
           state == CaptureState::Cancelled;
}

int CaptureResult::savedCount() const
{
    int n = 0;
    for (const HostOutcome &h : hosts)
        n += h.state == CaptureState::Done ? 1 : 0;
    return n;
}

struct CaptureSession::Impl
{
    struct Host
    {
        std::shared_ptr<grpc::Channel> channel;
        HostProgress progress;
        HostOutcome outcome;
        grpc::ClientContext *active = nullptr;   // guarded by mutex; TryCancel target
        bool lostConnection = false;   // an earlier attempt broke mid-call; own thread only
        uint64_t refusedOver = 0;      // TooLarge: the limit it went over
    };

    CaptureOptions options;
    std::function<void(const CaptureSnapshot &)> callback;
    mutable std::mutex mutex;
    std::condition_variable changed;
    std::vector<Host> hosts;
    std::atomic<bool> stop{false};
    std::atomic<bool> cancelled{false};
    bool ran = false;
    bool dirty = false;
    std::string runDir;
    std::string repositoryRoot;
    std::string sessionId;
    uint64_t responseLimit = kMaxGrpcMessageBytes;
    uint64_t memoryBudget = 0;
    std::unique_ptr<MemoryGuard> memory;   // null: no budget known

    void update(size_t i, const std::function<void(HostProgress &)> &fn)
    {
        {
            std::lock_guard lock(mutex);
            fn(hosts[i].progress);
            dirty = true;
        }
        changed.notify_all();
    }

    CaptureSnapshot snapshotLocked() const
    {
        CaptureSnapshot s;
        for (const Host &h : hosts)
            s.hosts.push_back(h.progress);
        s.stopRequested = stop.load();
        s.cancelRequested = cancelled.load();
        return s;
    }

    void finish(size_t i, CaptureState state, FailureKind failure, const grpc::Status &status,
                int attempt)
    {
        std::lock_guard lock(mutex);
        Host &h = hosts[i];
        h.outcome.state = state;
        h.outcome.failure = failure;
        h.outcome.statusCode = int(status.error_code());
        h.outcome.serverText = status.error_message();
        h.outcome.attempts = attempt;
        h.progress.state = state;
        dirty = true;
    }

    AttemptResult runHost(size_t i, int attempt);
    AttemptResult receive(size_t i, int attempt, grpc::ByteBuffer &response);
    void describe(Host &h) const;
};

AttemptResult CaptureSession::Impl::runHost(size_t i, int attempt)
{
    const std::string address = hosts[i].outcome.address;
    const uint64_t deadlineMs = sessionDeadlineMs(options);
    const auto begin = Clock::now();
    const auto deadline = begin + std::chrono::milliseconds(deadlineMs);
    update(i, [&](HostProgress &p) {
        p = HostProgress{address, CaptureState::Connecting, attempt, 0, options.durationMs};
    });
    grpc::Channel &channel = *hosts[i].channel;

    // Wait for a connection (or a definite failure) so the state says what is happening; the
    // call itself then reports the precise reason when the channel could not connect.
    bool connected = false;
    for (;;) {
        const grpc_connectivity_state s = channel.GetState(true);
        if (s == GRPC_CHANNEL_READY) {
            connected = true;
            break;
        }
        if (s == GRPC_CHANNEL_TRANSIENT_FAILURE || s == GRPC_CHANNEL_SHUTDOWN ||
            cancelled.load() || Clock::now() >= deadline)
            break;
        channel.WaitForStateChange(s, std::chrono::system_clock::now() + kTick);
    }
    if (cancelled.load()) {
        finish(i, CaptureState::Cancelled, FailureKind::Cancelled, grpc::Status::CANCELLED,
               attempt);
        return {};
    }

    tensorflow::ProfileRequest request;
    const uint64_t startNs = nowNs() + options.delayMs * 1000000ull;
    buildProfileRequest(options, address, sessionId, repositoryRoot, startNs, &request);
    const std::string wire = request.SerializeAsString();
    grpc::Slice slice(wire);
    const grpc::ByteBuffer requestBuffer(&slice, 1);

    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + (deadline - Clock::now()));
    bool registered = false;
    {
        // Registered under the lock so cancel() either sees this context or has already set
        // the flag checked here.
        std::lock_guard lock(mutex);
        if (!cancelled.load()) {
            hosts[i].active = &context;
            registered = true;
        }
    }
    if (!registered) {
        finish(i, CaptureState::Cancelled, FailureKind::Cancelled, grpc::Status::CANCELLED,
               attempt);
        return {};
    }

    grpc::GenericStub stub(hosts[i].channel);
    grpc::CompletionQueue queue;
    auto call = stub.PrepareUnaryCall(&context, kProfileMethod, requestBuffer, &queue);
    call->StartCall();
    grpc::ByteBuffer response;
    grpc::Status status;
    call->Finish(&response, &status, reinterpret_cast<void *>(1));
    const auto callStart = Clock::now();
    const auto recordEnd = std::chrono::milliseconds(options.delayMs + options.durationMs);
    update(i, [&](HostProgress &p) {
        p.state = CaptureState::Capturing;
        p.elapsedMs = -int64_t(options.delayMs);
    });

    bool terminateSent = false;
    bool overMemory = false;
    for (;;) {
        void *tag = nullptr;
        bool ok = false;
        const auto next = queue.AsyncNext(&tag, &ok, std::chrono::system_clock::now() + kTick);
        if (next != grpc::CompletionQueue::TIMEOUT)
            break;
        const auto since = Clock::now() - callStart;
        const int64_t elapsed =
            std::chrono::duration_cast<std::chrono::milliseconds>(since).count() -
            int64_t(options.delayMs);
        update(i, [&](HostProgress &p) {
            p.elapsedMs = std::min<int64_t>(elapsed, int64_t(options.durationMs));
            if (since >= recordEnd || terminateSent)
                p.state = CaptureState::Receiving;
        });
        // The response accumulates inside gRPC until it is complete; growth past the budget
        // means it would not fit, so give up on it before the machine runs out.
        if (memory && !overMemory && !memory->checkGrowth(address).ok()) {
            overMemory = true;
            context.TryCancel();
        }
        if (stop.load() && !terminateSent) {
            terminateSent = true;
            // The server answers Profile with what it has once it sees Terminate.
            auto control = tensorflow::ProfilerService::NewStub(hosts[i].channel);
            grpc::ClientContext terminateContext;
            terminateContext.set_deadline(std::chrono::system_clock::now() + kTerminateTimeout);
            tensorflow::TerminateRequest terminate;
            terminate.set_session_id(sessionId);
            tensorflow::TerminateResponse ignored;
            control->Terminate(&terminateContext, terminate, &ignored);
        }
    }
    {
        std::lock_guard lock(mutex);
        hosts[i].active = nullptr;
    }
    queue.Shutdown();
    void *tag = nullptr;
    bool ok = false;
    while (queue.Next(&tag, &ok)) {
    }

    if (cancelled.load()) {
        finish(i, CaptureState::Cancelled, FailureKind::Cancelled, grpc::Status::CANCELLED,
               attempt);
        return {};
    }
    if (overMemory && !status.ok()) {   // a response that completed meanwhile is kept
        hosts[i].refusedOver = memoryBudget;
        finish(i, CaptureState::Failed, FailureKind::TooLarge, status, attempt);
        return {};
    }
    if (status.ok())
        return receive(i, attempt, response);

    AttemptResult r;
    r.retryable = retryableStatus(status);
    FailureKind kind = FailureKind::ServerError;
    if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
        kind = FailureKind::TimedOut;
    } else if (overReceiveLimit(status)) {
        kind = FailureKind::TooLarge;   // the same trace would be refused again
        hosts[i].refusedOver = responseLimit;
    } else if (status.error_code() == grpc::StatusCode::UNAVAILABLE && !connected) {
        // Retrying a server that went away mid-call ends here; the earlier break is the story.
        kind = hosts[i].lostConnection ? FailureKind::ConnectionLost : FailureKind::Unreachable;
    } else if (connected && connectionBroke(status)) {
        kind = FailureKind::ConnectionLost;
        hosts[i].lostConnection = true;
    }
    finish(i, CaptureState::Failed, kind, status, attempt);
    return r;
}

AttemptResult CaptureSession::Impl::receive(size_t i, int attempt, grpc::ByteBuffer &response)
{
    std::vector<grpc::Slice> slices;
    response.Dump(&slices);
    std::vector<std::string_view> pieces;
    pieces.reserve(slices.size());
    for (const grpc::Slice &s : slices)
        pieces.emplace_back(reinterpret_cast<const char *>(s.begin()), s.size());
    const std::string address = hosts[i].outcome.address;
    const std::string name = hostFileStem(options, address) + ".xplane.pb";
    update(i, [&](HostProgress &p) {
        p.state = CaptureState::Saving;
        p.bytesReceived = response.Length();
    });

    PendingFile file;
    Result<bool> opened = file.open(runDir, name);
    if (!opened) {
        finish(i, CaptureState::Failed, FailureKind::SaveFailed,
               grpc::Status(grpc::StatusCode::OK, opened.message()), attempt);
        return {};
    }
    uint64_t lastReport = 0;
    Result<ResponseSummary> summary = extractXSpace(
        pieces,
        [&](const char *data, size_t size) {
            if (!file.write(data, size))
                return false;
            if (file.written() - lastReport >= (4u << 20)) {
                lastReport = file.written();
                update(i, [&](HostProgress &p) { p.bytesSaved = lastReport; });
            }
            return true;
        },
        &cancelled);
    slices.clear();
    response.Clear();
    if (cancelled.load() || summary.isCancelled()) {
        file.discard();
        finish(i, CaptureState::Cancelled, FailureKind::Cancelled, grpc::Status::CANCELLED,
               attempt);
        return {};
    }
    if (!summary) {
        file.discard();
        const std::string why = file.error().empty() ? summary.message() : file.error();
        finish(i, CaptureState::Failed,
               file.error().empty() ? FailureKind::ServerError : FailureKind::SaveFailed,
               grpc::Status(grpc::StatusCode::OK, why), attempt);
        return {};
    }
    const ResponseSummary &s = summary.value();
    if (s.emptyTrace || (s.hasXSpace && s.xspaceBytes == 0)) {
        file.discard();
        finish(i, CaptureState::Failed, FailureKind::EmptyTrace, grpc::Status::OK, attempt);
        return {true, false};
    }
    if (!s.hasXSpace) {
        // An older server: it wrote the file itself, under the same naming rule.
        file.discard();
        const std::string serverPath =
            (fs::path(repositoryRoot) / sessionId / name).string();
        std::error_code ec;
        const bool local = fs::is_regular_file(serverPath, ec) && fs::file_size(serverPath, ec) > 0;
        finish(i, local ? CaptureState::Done : CaptureState::Failed,
               local ? FailureKind::None : FailureKind::ServerSideFile, grpc::Status::OK, attempt);
        std::lock_guard lock(mutex);
        hosts[i].outcome.serverPath = serverPath;
        if (local) {
            hosts[i].outcome.savedPath = serverPath;
            hosts[i].outcome.bytes = fs::file_size(serverPath, ec);
        }
        return {};
    }
    Result<std::string> saved = file.commit();
    if (!saved) {
        finish(i, CaptureState::Failed, FailureKind::SaveFailed,
               grpc::Status(grpc::StatusCode::OK, saved.message()), attempt);
        return {};
    }
    finish(i, CaptureState::Done, FailureKind::None, grpc::Status::OK, attempt);
    std::lock_guard lock(mutex);
    hosts[i].outcome.savedPath = saved.value();
    hosts[i].outcome.bytes = s.xspaceBytes;
    hosts[i].progress.bytesSaved = s.xspaceBytes;
    return {};
}

void CaptureSession::Impl::describe(Host &h) const
{
    HostOutcome &o = h.outcome;
    if (o.state == CaptureState::Done) {
        o.message = o.savedPath == o.serverPath && !o.serverPath.empty()
                        ? "Saved by the server (same machine): " + o.savedPath
                        : "Saved " + o.savedPath;
        return;
    }
    FailureContext c;
    c.address = o.address;
    c.serverText = o.serverText;
    c.statusCode = o.statusCode;
    c.deadlineMs = sessionDeadlineMs(options);
    c.attempts = o.attempts;
    c.serverPath = o.serverPath;
    c.runDir = runDir;
    c.limitBytes = h.refusedOver;
    o.message = failureText(o.failure, c);
}

CaptureSession::CaptureSession(CaptureOptions options) : d(std::make_unique<Impl>())
{
    d->options = std::move(options);
    for (const std::string &a : d->options.addresses) {
        Impl::Host h;
        h.progress.address = a;
        h.progress.durationMs = d->options.durationMs;
        h.outcome.address = a;
        d->hosts.push_back(std::move(h));
    }
}

CaptureSession::~CaptureSession() = default;

void CaptureSession::setProgressCallback(std::function<void(const CaptureSnapshot &)> callback)
{
    d->callback = std::move(callback);
}

void CaptureSession::stopEarly() { d->stop.store(true); }

void CaptureSession::cancel()
{
    d->cancelled.store(true);
    std::lock_guard lock(d->mutex);
    for (Impl::Host &h : d->hosts) {
        if (h.active)
            h.active->TryCancel();
    }
    d->changed.notify_all();
}

CaptureSnapshot CaptureSession::snapshot() const
{
    std::lock_guard lock(d->mutex);
    return d->snapshotLocked();
}

CaptureResult CaptureSession::run()
{
    CaptureResult result;
    result.state = CaptureState::Failed;
    if (d->ran) {
        result.message = "this capture session has already run";
        return result;
    }
    d->ran = true;
    Result<bool> valid = validateOptions(d->options);
    if (!valid) {
        result.message = valid.message();
        return result;
    }
    std::error_code ec;
    const fs::path logdir = fs::absolute(d->options.logdir, ec);
    const std::string name =
        d->options.runName.empty() ? runNameForTime(std::time(nullptr)) : d->options.runName;
    Result<std::string> dir = reserveRunDirectory(logdir.string(), name);
    if (!dir) {
        result.message = dir.message();
        return result;
    }
    d->runDir = dir.value();
    d->sessionId = fs::path(d->runDir).filename().string();
    d->repositoryRoot = (logdir / "plugins" / "profile").string();

    grpc::ChannelArguments args;
    // XSpaces of hundreds of MB are common (gRPC's default limit is 4 MB), but gRPC holds a
    // whole response in memory, so the limit is what the machine can give each host.
    const uint64_t available = availableMemoryBytes();
    d->responseLimit = responseLimitBytes(d->options, available);
    d->memoryBudget = memoryBudgetBytes(d->options, available);
    if (d->memoryBudget > 0)
        d->memory = std::make_unique<MemoryGuard>(d->memoryBudget);
    args.SetMaxReceiveMessageSize(int(d->responseLimit));
    // A private subchannel pool: an earlier failed connection's backoff must not leak in.
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    auto openChannel = [&args](Impl::Host &h) {
        h.channel = grpc::CreateCustomChannel(h.outcome.address,
                                              grpc::InsecureChannelCredentials(), args);
    };
    for (Impl::Host &h : d->hosts)
        openChannel(h);

    std::vector<size_t> pending;
    for (size_t i = 0; i < d->hosts.size(); ++i)
        pending.push_back(i);
    const int maxAttempts = d->options.retries + 1;
    const size_t parallel = parallelHosts(d->options);
    for (int attempt = 1; attempt <= maxAttempts && !pending.empty(); ++attempt) {
        std::vector<AttemptResult> results(d->hosts.size());
        size_t running = pending.size();
        std::atomic<size_t> nextHost{0};
        // A fixed number of workers take hosts in order, so a flood of addresses never means a
        // flood of threads.
        auto worker = [this, attempt, &pending, &results, &running, &nextHost] {
            for (;;) {
                const size_t k = nextHost.fetch_add(1);
                if (k >= pending.size())
                    return;
                const size_t i = pending[k];
                if (d->cancelled.load() || d->stop.load()) {
                    // Still waiting for a slot: it never started, so there is nothing to stop.
                    d->finish(i, CaptureState::Cancelled, FailureKind::Cancelled,
                              grpc::Status::CANCELLED, attempt);
                } else {
                    results[i] = d->runHost(i, attempt);
                }
                {
                    std::lock_guard lock(d->mutex);
                    --running;
                }
                d->changed.notify_all();
            }
        };
        std::vector<std::thread> threads;
        for (size_t w = 0; w < std::min(parallel, pending.size()); ++w)
            threads.emplace_back(worker);
        std::unique_lock lock(d->mutex);
        while (running > 0) {
            d->changed.wait_for(lock, kTick, [&] { return running == 0; });
            const CaptureSnapshot s = d->snapshotLocked();
            lock.unlock();
            if (d->callback)
                d->callback(s);
            lock.lock();
        }
        lock.unlock();
        for (std::thread &t : threads)
            t.join();
        if (d->cancelled.load() || d->stop.load())
            break;
        // As XProf does: retry the round when every host came back empty, else retry only the
        // hosts that were unavailable (or similar transient failures).
        bool allEmpty = true;
        for (size_t i : pending)
            allEmpty = allEmpty && results[i].empty;
        std::vector<size_t> next;
        for (size_t i : pending) {
            if (allEmpty || results[i].retryable)
                next.push_back(i);
        }
        pending = std::move(next);
        // A retry opens a new channel: the old one may still be backing off after the failure,
        // and would fail the retry at once without reaching the server.
        for (size_t i : pending)
            openChannel(d->hosts[i]);
    }

    for (Impl::Host &h : d->hosts) {
        if (!isFinal(h.outcome.state) || d->cancelled.load()) {
            if (h.outcome.state != CaptureState::Done) {
                h.outcome.state = CaptureState::Cancelled;
                h.outcome.failure = FailureKind::Cancelled;
                h.progress.state = CaptureState::Cancelled;
            }
        }
        d->describe(h);
        result.hosts.push_back(h.outcome);
    }
    const int saved = result.savedCount();
    const int total = int(result.hosts.size());
    if (saved == 0)
        removeIfEmpty(d->runDir);
    result.runDir = fs::exists(d->runDir, ec) ? d->runDir : std::string();
    if (d->cancelled.load()) {
        result.state = CaptureState::Cancelled;
        result.message = saved == 0 ? "Capture cancelled; nothing was saved."
                                    : "Capture cancelled; " + std::to_string(saved) +
                                          " host(s) had already been saved to " + d->runDir;
    } else if (saved > 0) {
        result.state = CaptureState::Done;
        result.message = "Saved " + std::to_string(saved) + " of " + std::to_string(total) +
                         " host(s) to " + d->runDir;
    } else {
        result.message = total == 1 ? "No trace captured." : "No trace captured from any host.";
    }
    if (d->callback)
        d->callback(snapshot());
    return result;
}

} // namespace tracedesk::core::capture
