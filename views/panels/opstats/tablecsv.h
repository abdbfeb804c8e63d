#pragma once

// Writes what a table model shows (header + rows, display role, in the proxy's current order)
// as CSV, quoting fields that need it.

#include <QString>

class QAbstractItemModel;
class QWidget;

namespace tracedesk::views {

QString tableToCsv(const QAbstractItemModel &model);
// Asks for a file name and writes the CSV; returns false when cancelled or on a write error
// (which is reported in a message box).
bool exportTableCsv(QWidget *parent, const QAbstractItemModel &model, const QString &suggested);

} // namespace tracedesk::views
