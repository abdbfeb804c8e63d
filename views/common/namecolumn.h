#pragma once

// Tables whose rows are named things (kernels, ops, slices): the name column takes the room the
// number columns leave, never less than a readable width (a narrow pane scrolls sideways
// instead of cutting names to "Pr..."), and long names are elided in the middle, where the
// distinguishing part of a kernel or op name usually is not. Tooltips come from the model.

class QTableView;

namespace tracedesk::views {

void giveNameColumnTheRoom(QTableView *table, int nameColumn, int minimumWidth = 240);

} // namespace tracedesk::views
