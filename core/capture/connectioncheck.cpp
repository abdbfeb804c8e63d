#include "core/capture/connectioncheck.h"

#include "core/capture/captureoptions.h"
#include "core/capture/capturetext.h"
#include "core/capture/tcpprobe.h"

#include "profiler_service.grpc.pb.h"

#include <grpcpp/grpcpp.h>

namespace tracedesk::core::capture {

ConnectionCheck checkConnection(const std::string &text, uint64_t timeoutMs)
{
    ConnectionCheck check;
    Result<std::string> address = parseAddress(text);
    if (!address) {
        check.message = address.message();
        return check;
    }
    const std::string &a = address.value();
    const auto deadline = std::chrono::system_clock::now() + std::chrono::milliseconds(timeoutMs);
    const std::string limit = std::to_string(timeoutMs / 1000.0).substr(0, 3) + " s";
    // A refused port answers at once: say so now, not after the whole timeout.
    const TcpProbe tcp = probeTcp(a, timeoutMs);
    if (tcp.result == TcpProbeResult::Refused) {
        check.message = "Cannot reach " + a + ": the connection was refused (nothing listens on " +
                        "that port). Check the port, and that the program has started its " +
                        "profiler server.";
        return check;
    }
    if (tcp.result == TcpProbeResult::Unresolved) {
        check.message = "Cannot reach " + a + ": the host name does not resolve (" + tcp.detail +
                        ").";
        return check;
    }
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    auto channel = grpc::CreateCustomChannel(a, grpc::InsecureChannelCredentials(), args);
    if (!channel->WaitForConnected(deadline)) {
        check.message = "Cannot reach " + a + ": nothing accepted a connection within " + limit +
                        ". Check the host and port, that the program has started its profiler "
                        "server, and that no firewall blocks the port.";
        return check;
    }
    check.reachable = true;
    auto stub = tensorflow::ProfilerService::NewStub(channel);
    grpc::ClientContext context;
    context.set_deadline(deadline);
    tensorflow::MonitorRequest request;
    request.set_duration_ms(1);
    tensorflow::MonitorResponse response;
    const grpc::Status status = stub->Monitor(&context, request, &response);
    switch (status.error_code()) {
    case grpc::StatusCode::OK:
        check.grpcAnswered = true;
        check.message = "A profiler service answered at " + a + ".";
        break;
    case grpc::StatusCode::UNIMPLEMENTED:
        check.grpcAnswered = true;
        check.message = "A gRPC server answered at " + a + " (it does not implement Monitor, "
                        "which is normal for TensorFlow and JAX profiler servers). Ready to "
                        "capture.";
        break;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
        check.message = "Connected to " + a + ", but no gRPC answer came within " + limit +
                        ". Is this the profiler port?";
        break;
    default:
        check.message = "Something listens at " + a + " but it did not answer like a profiler "
                        "server [" + statusCodeName(int(status.error_code())) + "]: " +
                        status.error_message();
        break;
    }
    return check;
}

} // namespace tracedesk::core::capture
