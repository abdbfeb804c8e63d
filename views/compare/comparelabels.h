#pragma once

// Labels that tell the two sides of a comparison apart. JAX names every file
// `<host>.xplane.pb`, so two runs of one host share a file name: then each side is labelled by
// the nearest folder where their paths differ ("run_0412/host.xplane.pb"), and two reads of
// the very same file by "(A)" / "(B)". Different names are kept as they are.

#include <QString>

#include <string>
#include <utility>

namespace tracedesk::views {

// `sourceA` / `sourceB`: a file each side was read from (Trace::sources), may be empty.
std::pair<QString, QString> distinctComparisonLabels(const QString &nameA,
                                                     const std::string &sourceA,
                                                     const QString &nameB,
                                                     const std::string &sourceB);

} // namespace tracedesk::views
