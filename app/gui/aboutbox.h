#pragma once

// Help > About: the version of TraceDesk and of the libraries that read and capture profiles,
// so a bug report can say exactly what was running.

#include <QString>

class QWidget;

namespace tracedesk::app {

// "Qt 6.4.2, protobuf 3.21.12, gRPC 1.51.1, zstd 1.5.4, ..." as linked at run time.
QString libraryVersions();
QString aboutText();
void showAbout(QWidget *parent);

} // namespace tracedesk::app
