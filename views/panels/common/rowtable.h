#pragma once

// The sortable, filterable tables of whole rows that the analysis panels show, built one way.

class QAbstractItemModel;
class QObject;
class QSortFilterProxyModel;
class QTableView;
class QWidget;

namespace tracedesk::views {

// Sorts by `sortRole` and filters, ignoring case, on `filterColumn` (-1: every column).
QSortFilterProxyModel *makeTableProxy(QAbstractItemModel *source, int sortRole, int filterColumn,
                                      QObject *parent);
// A sortable table selecting whole rows, without row numbers or word wrap.
QTableView *makeRowTable(QAbstractItemModel *model, QWidget *parent);

} // namespace tracedesk::views
