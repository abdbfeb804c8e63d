#pragma once

// Column widths for the PyTorch tables: wide enough for each header's text and its sort arrow,
// so long headers ("Mean est. achieved occupancy (%)") are never cut, and no narrower than
// `minWidth`. Measures headers only, never the rows, so it costs nothing on large tables.

class QTableView;

namespace tracedesk::views {

void fitColumnsToHeaders(QTableView *table, int minWidth);

} // namespace tracedesk::views
