#include "app/gui/aboutbox.h"

#include "core/base/version.h"

#include <google/protobuf/stubs/common.h>
#include <grpcpp/grpcpp.h>
#include <simdjson.h>
#include <zlib.h>
#include <zstd.h>

#include <QCoreApplication>
#include <QMessageBox>

namespace tracedesk::app {

QString libraryVersions()
{
    return QStringLiteral("Qt %1, protobuf %2, gRPC %3, zstd %4, zlib %5, simdjson %6")
        .arg(QString::fromLatin1(qVersion()),
             QString::fromStdString(
                 google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION)),
             QString::fromStdString(grpc::Version()),
             QString::fromLatin1(ZSTD_versionString()), QString::fromLatin1(zlibVersion()),
             QStringLiteral("%1.%2.%3")
                 .arg(simdjson::SIMDJSON_VERSION_MAJOR)
                 .arg(simdjson::SIMDJSON_VERSION_MINOR)
                 .arg(simdjson::SIMDJSON_VERSION_REVISION));
}

QString aboutText()
{
    return QCoreApplication::translate(
               "tracedesk",
               "<h3>TraceDesk %1</h3>"
               "<p>A desktop viewer for ML performance profiles: XSpace (.xplane.pb) files and "
               "run folders, Chrome trace JSON, Nsight Systems SQLite exports and rocprofv3 results "
               "(JSON, CSV), with a GPU timeline, analysis panels, live "
               "capture from a profiler server and trace comparison.</p>"
               "<p>Built with %2.</p>")
        .arg(QString::fromLatin1(core::kVersion), libraryVersions().toHtmlEscaped());
}

void showAbout(QWidget *parent)
{
    QMessageBox::about(parent, QCoreApplication::translate("tracedesk", "About TraceDesk"),
                       aboutText());
}

} // namespace tracedesk::app
