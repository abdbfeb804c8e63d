#pragma once

// XProf's `hlo_stats` and `roofline_model` tool outputs: Google DataTable JSON (`cols` with ids,
// `rows` of `c` cells; the roofline file is a list of tables, the first holding the points and
// its `p` properties the device peaks). Decoded into the same HloStats / RooflineModel the
// profile analyses produce, one row per row of the file, values as recorded. Plain or gzip.

#include "core/analysis/hlostats.h"
#include "core/analysis/roofline.h"
#include "core/base/result.h"

#include <string>

namespace tracedesk::core::legacy {

Result<analysis::HloStats> readHloStatsJsonFile(const std::string &path);
Result<analysis::RooflineModel> readRooflineJsonFile(const std::string &path);
// A file name XProf gives these outputs (`...hlo_stats...json[.gz]`, `...roofline_model...`).
bool isHloStatsFileName(const std::string &path);
bool isRooflineFileName(const std::string &path);

} // namespace tracedesk::core::legacy
