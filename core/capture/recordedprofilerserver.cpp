#include "core/capture/recordedprofilerserver.h"

#include "profiler_service.grpc.pb.h"

#include <google/protobuf/unknown_field_set.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

namespace tracedesk::core::capture {

namespace fs = std::filesystem;

namespace {

constexpr auto kPoll = std::chrono::milliseconds(20);
constexpr uint32_t kXSpaceField = 8;   // ProfileResponse.xspace

std::string hostStem(const tensorflow::ProfileRequest &request)
{
    std::string stem = request.opts().override_hostname();
    if (stem.empty())
        stem = request.host_name();
    for (char &c : stem) {
        if (c == ':' || c == '/')
            c = '_';
    }
    return stem.empty() ? "localhost" : stem;
}

} // namespace

struct RecordedProfilerServer::Impl final : public tensorflow::ProfilerService::Service
{
    ServeOptions options;
    std::shared_ptr<const std::string> xspace;
    std::unique_ptr<grpc::Server> server;
    int boundPort = 0;
    std::vector<int> extraBound;

    mutable std::mutex mutex;
    std::condition_variable wake;
    std::map<std::string, int> terminated;   // session id -> pending Terminate count
    bool stopping = false;
    std::string lastRequest;
    std::atomic<int> profileCalls{0};
    std::atomic<int> terminateCalls{0};
    std::atomic<int> activeCalls{0};

    void log(const std::string &line) const
    {
        if (options.log)
            options.log(line);
    }

    grpc::Status Profile(grpc::ServerContext *context, const tensorflow::ProfileRequest *request,
                         tensorflow::ProfileResponse *response) override;
    grpc::Status Terminate(grpc::ServerContext *, const tensorflow::TerminateRequest *request,
                           tensorflow::TerminateResponse *) override
    {
        ++terminateCalls;
        log("Terminate for session " + request->session_id());
        {
            std::lock_guard lock(mutex);
            ++terminated[request->session_id()];
        }
        wake.notify_all();
        return grpc::Status::OK;
    }

    grpc::Status writeOnServerDisk(const tensorflow::ProfileRequest &request);
};

grpc::Status RecordedProfilerServer::Impl::Profile(grpc::ServerContext *context,
                                                   const tensorflow::ProfileRequest *request,
                                                   tensorflow::ProfileResponse *response)
{
    const int call = ++profileCalls;
    ++activeCalls;
    struct Active
    {
        std::atomic<int> &n;
        ~Active() { --n; }
    } active{activeCalls};
    {
        std::lock_guard lock(mutex);
        lastRequest = request->SerializeAsString();
    }
    const ServeMode mode =
        options.modeCalls < 0 || call <= options.modeCalls ? options.mode : ServeMode::Trace;
    const uint64_t durationMs =
        request->opts().duration_ms() ? request->opts().duration_ms() : request->duration_ms();
    log("Profile #" + std::to_string(call) + " from " + context->peer() + ": session " +
        request->session_id() + ", " + std::to_string(durationMs) + " ms");
    if (mode == ServeMode::Unavailable)
        return grpc::Status(grpc::StatusCode::UNAVAILABLE, "profiler is busy (test server)");
    if (mode == ServeMode::Fail)
        return grpc::Status(grpc::StatusCode::INTERNAL, options.failText);

    // Record: wait for the start time, then the duration, unless Terminate or a cancel comes.
    const uint64_t startNs = request->opts().start_timestamp_ns();
    auto end = std::chrono::system_clock::now() + std::chrono::milliseconds(durationMs);
    if (startNs > 0) {
        const auto start = std::chrono::system_clock::time_point(
            std::chrono::duration_cast<std::chrono::system_clock::duration>(
                std::chrono::nanoseconds(startNs)));
        if (start > std::chrono::system_clock::now())
            end = start + std::chrono::milliseconds(durationMs);
    }
    const std::string session = request->session_id();
    bool stoppedEarly = false;
    {
        std::unique_lock lock(mutex);
        for (;;) {
            if (stopping || context->IsCancelled())
                return grpc::Status(grpc::StatusCode::CANCELLED, "the capture was cancelled");
            auto it = terminated.find(session);
            if (mode != ServeMode::Hang && options.honourTerminate && it != terminated.end()) {
                if (--it->second == 0)
                    terminated.erase(it);
                stoppedEarly = true;
                break;
            }
            if (mode != ServeMode::Hang && std::chrono::system_clock::now() >= end)
                break;
            wake.wait_for(lock, kPoll);
        }
    }
    if (mode == ServeMode::Empty) {
        log("Profile #" + std::to_string(call) + ": empty trace");
        response->set_empty_trace(true);
        return grpc::Status::OK;
    }
    if (mode == ServeMode::ServerSideWrite || !request->emit_xspace())
        return writeOnServerDisk(*request);
    // The recorded bytes go out verbatim as field 8; parsing and re-serializing could reorder
    // map entries, and the client is entitled to exactly what was recorded.
    response->GetReflection()
        ->MutableUnknownFields(response)
        ->AddLengthDelimited(kXSpaceField)
        ->assign(*xspace);
    log("Profile #" + std::to_string(call) + (stoppedEarly ? ": stopped early, " : ": ") +
        "sending " + std::to_string(xspace->size()) + " bytes");
    return grpc::Status::OK;
}

grpc::Status RecordedProfilerServer::Impl::writeOnServerDisk(
    const tensorflow::ProfileRequest &request)
{
    fs::path dir = fs::path(request.repository_root()) / request.session_id();
    if (!options.serverDiskRoot.empty())
        dir = fs::path(options.serverDiskRoot) / dir.relative_path();
    std::error_code ec;
    fs::create_directories(dir, ec);
    const fs::path path = dir / (hostStem(request) + ".xplane.pb");
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(xspace->data(), std::streamsize(xspace->size()));
    out.close();
    if (!out)
        return grpc::Status(grpc::StatusCode::INTERNAL, "cannot write " + path.string());
    log("wrote " + path.string() + " on the server's disk");
    return grpc::Status::OK;
}

RecordedProfilerServer::RecordedProfilerServer(ServeOptions options) : d(std::make_unique<Impl>())
{
    d->options = std::move(options);
}

RecordedProfilerServer::~RecordedProfilerServer() { stop(); }

Result<int> RecordedProfilerServer::start()
{
    std::ifstream in(d->options.xspacePath, std::ios::binary);
    if (!in)
        return fileError(d->options.xspacePath, "cannot open the file");
    auto bytes = std::make_shared<std::string>();
    std::error_code ec;
    const auto size = fs::file_size(d->options.xspacePath, ec);
    if (ec)
        return fileError(d->options.xspacePath, "cannot read the file size: " + ec.message());
    bytes->resize(size_t(size));
    in.read(bytes->data(), std::streamsize(size));
    if (!in)
        return fileError(d->options.xspacePath, "cannot read the file");
    d->xspace = std::move(bytes);

    grpc::ServerBuilder builder;
    const std::string listen = d->options.bindAddress + ":" + std::to_string(d->options.port);
    builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &d->boundPort);
    d->extraBound.assign(size_t(std::max(0, d->options.extraPorts)), 0);
    for (int &extra : d->extraBound)
        builder.AddListeningPort(d->options.bindAddress + ":0", grpc::InsecureServerCredentials(),
                                 &extra);
    builder.RegisterService(d.get());
    d->server = builder.BuildAndStart();
    const bool allBound = std::find(d->extraBound.begin(), d->extraBound.end(), 0) ==
                          d->extraBound.end();
    if (!d->server || d->boundPort == 0 || !allBound) {
        d->server.reset();
        return Error{"cannot listen on " + listen + " (port in use or address not local?)"};
    }
    d->log("serving " + d->options.xspacePath + " on " + d->options.bindAddress + ":" +
           std::to_string(d->boundPort));
    return d->boundPort;
}

void RecordedProfilerServer::stop()
{
    if (!d->server)
        return;
    {
        std::lock_guard lock(d->mutex);
        d->stopping = true;
    }
    d->wake.notify_all();
    d->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
    d->server->Wait();
    d->server.reset();
}

int RecordedProfilerServer::port() const { return d->boundPort; }

std::string RecordedProfilerServer::address() const
{
    return "127.0.0.1:" + std::to_string(d->boundPort);
}

std::vector<std::string> RecordedProfilerServer::addresses() const
{
    std::vector<std::string> out{address()};
    for (int p : d->extraBound)
        out.push_back("127.0.0.1:" + std::to_string(p));
    return out;
}

int RecordedProfilerServer::profileCalls() const { return d->profileCalls.load(); }
int RecordedProfilerServer::terminateCalls() const { return d->terminateCalls.load(); }
int RecordedProfilerServer::activeCalls() const { return d->activeCalls.load(); }

std::string RecordedProfilerServer::lastRequest() const
{
    std::lock_guard lock(d->mutex);
    return d->lastRequest;
}

} // namespace tracedesk::core::capture
